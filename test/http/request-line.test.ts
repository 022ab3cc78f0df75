// The request line a refused packet ends a line with, read in one pass from the end: judged against
// the regular expression it replaces (whose backtracking was quadratic), on strings built from the
// characters a request line is made of, so that matches, near misses and many candidates are common.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestLineAtEnd } from '../../src/http/client-errors.js';

const EXPRESSION = /([A-Z]+) (\/[^ ]*) HTTP\/\S*$/;

function byExpression(line: string) {
  const match = EXPRESSION.exec(line);
  return match ? { index: match.index, capitals: match[1], target: match[2] } : undefined;
}

const pieces = fc.constantFrom('GET', 'POST', 'A', 'x', ' ', '/', ' /', ' HTTP/', 'HTTP/1.1', '1.1', '\t', '?q=1', 'é');

describe('requestLineAtEnd', () => {
  it('finds what the regular expression finds, for any line of request-line pieces', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 14 }).map((parts) => parts.join('')), (line) => {
        expect(requestLineAtEnd(line)).toEqual(byExpression(line));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a request line after the last bytes of a body, and refuses lines that are none', () => {
    expect(requestLineAtEnd('xyzPOST /api/v1.0/x?y=1 HTTP/1.1')).toEqual({ index: 3, capitals: 'POST', target: '/api/v1.0/x?y=1' });
    expect(requestLineAtEnd('ABCPOST /x HTTP/1.1')).toEqual({ index: 0, capitals: 'ABCPOST', target: '/x' });
    expect(requestLineAtEnd('GET x HTTP/1.1')).toBeUndefined();
    expect(requestLineAtEnd('GET /x HTTP/1.1 trailing')).toBeUndefined();
    expect(requestLineAtEnd(' /x HTTP/1.1')).toBeUndefined();
  });

  it('reads a line of 64 000 bytes that the expression takes quadratic time on, with the same answer', () => {
    const line = `${'A'.repeat(32_000)} /${'x'.repeat(32_000)}`;
    expect(requestLineAtEnd(line)).toBeUndefined();
    expect(requestLineAtEnd(`${line} HTTP/1.1`)).toEqual({ index: 0, capitals: 'A'.repeat(32_000), target: `/${'x'.repeat(32_000)}` });
  });
});
