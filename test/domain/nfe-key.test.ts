import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkNfeKey, isValidNfeKeyAt, nfeKeyCheckDigit } from '../../src/domain/nfe-key.js';
import { cnpjCheckDigits } from '../../src/domain/tax-id.js';

const VALID_KEY = '35260722333444000181550010001234561123456787';

describe('checkNfeKey', () => {
  it('accepts the reference key', () => {
    expect(checkNfeKey(VALID_KEY)).toEqual({ ok: true });
  });

  it('computes the reference check digit', () => {
    expect(nfeKeyCheckDigit(VALID_KEY.slice(0, 43))).toBe(7);
  });

  it('rejects the key with its check digit changed, naming the expected digit', () => {
    expect(checkNfeKey(`${VALID_KEY.slice(0, 43)}8`)).toEqual({
      ok: false,
      reason: 'NF-e access key check digit does not match (expected 7)',
    });
  });

  it('rejects a 43-character key', () => {
    expect(checkNfeKey(VALID_KEY.slice(0, 43))).toEqual({
      ok: false,
      reason: 'an NF-e access key has 44 characters (got 43)',
    });
  });

  it('rejects a letter outside the issuer CNPJ slot', () => {
    for (const position of [1, 6, 21, 44]) {
      const key = `${VALID_KEY.slice(0, position - 1)}A${VALID_KEY.slice(position)}`;
      const result = checkNfeKey(key);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toContain(`position ${position}`);
    }
  });

  it("rejects a letter in the issuer CNPJ's check digits (positions 19-20), which stay numeric", () => {
    // The reviewer's key: issuer slot 12ABC34501DEAB, its check digits "AB"; a right key DV, so the
    // letters alone are refused.
    const first43 = '35260712ABC34501DEAB55001000123456112345678';
    const key = `${first43}${nfeKeyCheckDigit('35260712ABC34501DE3555001000123456112345678')}`;
    for (const k of [`${first43}6`, key]) {
      const result = checkNfeKey(k);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toContain('position 19');
      expect(!result.ok && result.reason).toContain('positions 7-18');
      expect(isValidNfeKeyAt(k, 0)).toBe(false);
    }
    expect(() => nfeKeyCheckDigit(first43)).toThrow(RangeError);
  });

  it('takes letters exactly at positions 7-18, the first 12 characters of the issuer CNPJ (fast-check)', () => {
    const alnum = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 43 }), alnum, (position, ch) => {
        const first43 = `${VALID_KEY.slice(0, position - 1)}${ch}${VALID_KEY.slice(position, 43)}`;
        const letter = ch >= 'A';
        const allowed = !letter || (position >= 7 && position <= 18);
        if (!allowed) {
          expect(() => nfeKeyCheckDigit(first43)).toThrow(RangeError);
          const key = `${first43}0`;
          expect(checkNfeKey(key).ok).toBe(false);
          expect(isValidNfeKeyAt(key, 0)).toBe(false);
          return;
        }
        const key = `${first43}${nfeKeyCheckDigit(first43)}`;
        expect(checkNfeKey(key)).toEqual({ ok: true });
        expect(isValidNfeKeyAt(`x${key}`, 1)).toBe(true);
      }),
    );
  });

  it('rejects lower-case letters and punctuation', () => {
    expect(checkNfeKey(`${VALID_KEY.slice(0, 10)}a${VALID_KEY.slice(11)}`).ok).toBe(false);
    expect(checkNfeKey(`${VALID_KEY.slice(0, 10)}.${VALID_KEY.slice(11)}`).ok).toBe(false);
  });

  it('accepts a key whose issuer is an alphanumeric CNPJ, letters valued ASCII - 48', () => {
    const issuer = `12ABC34501DE${cnpjCheckDigits('12ABC34501DE')}`;
    const first43 = `352607${issuer}55001000123456112345678`;
    expect(first43).toHaveLength(43);
    const key = `${first43}${nfeKeyCheckDigit(first43)}`;
    expect(checkNfeKey(key)).toEqual({ ok: true });
    // The wrong reading (A = 10, as base 36) gives another digit, and that key is refused.
    let sum = 0;
    for (let i = 42, w = 2; i >= 0; i--, w = w === 9 ? 2 : w + 1)
      sum += Number.parseInt(first43.charAt(i), 36) * w;
    const wrong = sum % 11 < 2 ? 0 : 11 - (sum % 11);
    expect(wrong).not.toBe(nfeKeyCheckDigit(first43));
    expect(checkNfeKey(`${first43}${wrong}`).ok).toBe(false);
  });

  it('makes the check digit 0 when the remainder is 0 or 1', () => {
    // Find bases whose remainder is below 2 by varying the random code, then confirm the digit is 0.
    let found = 0;
    for (let code = 0; code < 200 && found < 2; code++) {
      const first43 = `${VALID_KEY.slice(0, 35)}${String(code).padStart(8, '0')}`;
      let sum = 0;
      for (let i = 42, w = 2; i >= 0; i--, w = w === 9 ? 2 : w + 1) sum += Number(first43.charAt(i)) * w;
      if (sum % 11 < 2) {
        found++;
        expect(nfeKeyCheckDigit(first43)).toBe(0);
      }
    }
    expect(found).toBe(2);
  });

  it('refuses to compute a digit for a malformed base', () => {
    expect(() => nfeKeyCheckDigit(VALID_KEY)).toThrow(RangeError);
    expect(() => nfeKeyCheckDigit(`A${VALID_KEY.slice(1, 43)}`)).toThrow(RangeError);
  });
});
