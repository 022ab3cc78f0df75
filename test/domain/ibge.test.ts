import { describe, expect, it } from 'vitest';
import { checkIbgeCode } from '../../src/domain/ibge.js';

const EXCEPTIONS = [2201919, 2201988, 2202251, 2611533, 3117836, 3152131, 4305871, 5203939, 5203962];

describe('checkIbgeCode', () => {
  it.each([3550308, 3304557, 5300108, 4314902])('accepts the real code %s', (code) => {
    expect(checkIbgeCode(code)).toEqual({ ok: true });
    expect(checkIbgeCode(String(code))).toEqual({ ok: true });
  });

  it.each(EXCEPTIONS)('accepts %s, a real code that fails the check-digit rule', (code) => {
    expect(checkIbgeCode(code)).toEqual({ ok: true });
  });

  it('rejects a code with a wrong check digit, naming the expected one', () => {
    expect(checkIbgeCode(3550309)).toEqual({
      ok: false,
      reason: 'IBGE municipality code check digit does not match (expected 8)',
    });
  });

  it('judges a neighbour of an exception by the rule, not by the exception list', () => {
    expect(checkIbgeCode(2201918)).toEqual({
      ok: false,
      reason: 'IBGE municipality code check digit does not match (expected 1)',
    });
    expect(checkIbgeCode(2201911)).toEqual({ ok: true });
  });

  it('rejects a prefix that is no state', () => {
    const result = checkIbgeCode(9950308);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain('99');
    expect(checkIbgeCode(3450308).ok).toBe(false);
  });

  it('rejects anything but 7 digits', () => {
    for (const code of [
      355030,
      35503080,
      3550308.5,
      '355030',
      '3550308 ',
      ' 3550308',
      '35503O8',
      '',
      -3550308,
    ]) {
      expect(checkIbgeCode(code)).toEqual({ ok: false, reason: 'an IBGE municipality code has 7 digits' });
    }
  });
});
