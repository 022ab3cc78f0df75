import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plural } from '../../src/domain/plural.js';

describe('a count and its noun', () => {
  it('says 1 byte, 0 bytes, 2 bytes', () => {
    expect([0, 1, 2].map((n) => plural(n, 'byte'))).toEqual(['0 bytes', '1 byte', '2 bytes']);
  });

  it('takes the plural it is given for a noun that is not the word and an s', () => {
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });

  it('uses the singular for exactly one and only then', () => {
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(plural(n, 'line').endsWith('s')).toBe(n !== 1);
      }),
    );
  });
});
