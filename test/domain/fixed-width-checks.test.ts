// The charCode fast paths used on CNAB records decide exactly what the reference checks decide.
import { describe, expect, it } from 'vitest';
import { isCnabDateAt, parseCnabDate, parseCnabDateAt } from '../../src/domain/dates.js';
import { checkNfeKey, isValidNfeKeyAt, nfeKeyCheckDigit } from '../../src/domain/nfe-key.js';
import {
  checkTaxId,
  cnpjCheckDigits,
  cpfCheckDigits,
  isValidCnpjAt,
  isValidCpfAt,
} from '../../src/domain/tax-id.js';

// A small deterministic generator, so a failure is reproducible.
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}
const random = rng(42);
const pick = (chars: string, n: number) =>
  Array.from({ length: n }, () => chars.charAt(Math.floor(random() * chars.length))).join('');
const DIGITS = '0123456789';
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Valid values, then each with one character changed, plus oddities. */
function variants(valid: string[], extra: string[]): string[] {
  const out = [...valid, ...extra];
  for (const v of valid) {
    const i = Math.floor(random() * v.length);
    out.push(`${v.slice(0, i)}${pick(ALNUM, 1)}${v.slice(i + 1)}`);
  }
  return out;
}

describe('isValidCpfAt', () => {
  it('agrees with checkTaxId on valid, mutated and odd CPFs', () => {
    const valid = Array.from({ length: 300 }, () => {
      const base = pick(DIGITS, 9);
      return base + cpfCheckDigits(base);
    });
    for (const v of variants(valid, [
      '52998224725',
      '11111111111',
      '00000000000',
      '5299822472',
      '5299822472 ',
    ])) {
      const expected = checkTaxId(v, { kinds: ['cpf'], punctuation: false }).ok && v.length === 11;
      expect(isValidCpfAt(`xx${v}yy`, 2), v).toBe(expected);
    }
  });

  it('does not read past the end of the text', () => {
    expect(isValidCpfAt('529982247', 0)).toBe(false);
  });
});

describe('isValidCnpjAt', () => {
  it('agrees with checkTaxId on numeric, alphanumeric, mutated and odd CNPJs', () => {
    const valid = Array.from({ length: 300 }, (_, i) => {
      const base = pick(i % 2 ? ALNUM : DIGITS, 12);
      return base + cnpjCheckDigits(base);
    });
    const odd = [
      '11222333000181',
      '12ABC34501DE35',
      '00000000000000',
      'AAAAAAAAAAAA00',
      '12abc34501de35',
      '1122233300018',
    ];
    for (const v of variants(valid, odd)) {
      const expected = checkTaxId(v, { kinds: ['cnpj'], punctuation: false }).ok && v === v.toUpperCase();
      expect(isValidCnpjAt(`x${v}`, 1), v).toBe(expected && v.length === 14);
    }
  });
});

describe('isValidNfeKeyAt', () => {
  it('agrees with checkNfeKey', () => {
    const valid = Array.from({ length: 300 }, (_, i) => {
      // Letters only in the issuer CNPJ's first 12 characters (positions 7-18).
      const first = `${pick(DIGITS, 6)}${pick(i % 2 ? ALNUM : DIGITS, 12)}${pick(DIGITS, 25)}`;
      return first + nfeKeyCheckDigit(first);
    });
    for (const v of variants(valid, [
      '35260722333444000181550010001234561123456787',
      `${'1'.repeat(43)}`,
      '35260712ABC34501DEAB550010001234561123456786',
    ])) {
      expect(isValidNfeKeyAt(`  ${v}`, 2), v).toBe(checkNfeKey(v).ok);
    }
  });
});

describe('parseCnabDateAt and isCnabDateAt', () => {
  it('agree with parseCnabDate on every day of a leap and a common year, and on odd fields', () => {
    const fields: string[] = ['000000', '999999', '3112  ', '310299', '290200', '290201', '31129x'];
    for (let m = 1; m <= 13; m++) {
      for (let d = 0; d <= 32; d++) {
        for (const yy of ['24', '26', '69', '70', '00'])
          fields.push(`${String(d).padStart(2, '0')}${String(m).padStart(2, '0')}${yy}`);
      }
    }
    for (const f of fields) {
      expect(parseCnabDateAt(`A${f}B`, 1), f).toBe(parseCnabDate(f));
      expect(isCnabDateAt(`A${f}B`, 1), f).toBe(parseCnabDate(f) !== undefined);
    }
  });
});
