import { describe, expect, it } from 'vitest';
import {
  checkTaxId,
  cnpjCheckDigits,
  cpfCheckDigits,
  isValidCnpj,
  isValidCpf,
  normalizeTaxId,
  type TaxIdOptions,
} from '../../src/domain/tax-id.js';

/** Changes the character at `index` to another digit. */
function changeDigit(value: string, index: number): string {
  const digit = Number(value.charAt(index));
  return `${value.slice(0, index)}${(digit + 1) % 10}${value.slice(index + 1)}`;
}

/** The wrong reading seen in public code: letters valued 10-35 (base 36) instead of ASCII - 48. */
function cnpjCheckDigitsWithAAsTen(first12: string): string {
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const w2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const values = Array.from(first12, (ch) => Number.parseInt(ch, 36));
  const dv = (vals: number[], weights: number[]) => {
    const r = vals.reduce((sum, v, i) => sum + v * (weights[i] ?? 0), 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const dv1 = dv(values, w1);
  const dv2 = dv([...values, dv1], w2);
  return `${dv1}${dv2}`;
}

const VALID_CPFS = ['52998224725', '11144477735'];
const VALID_CNPJS = ['11222333000181', '11444777000161'];
const VALID_ALPHANUMERIC_CNPJS = ['12ABC34501DE35', '6A3EDMWP000168', 'Q2GROWP7000185'];

describe('check digit helpers', () => {
  it('computes the CPF check digits of the reference vectors', () => {
    expect(cpfCheckDigits('529982247')).toBe('25');
    expect(cpfCheckDigits('111444777')).toBe('35');
  });

  it('computes the CNPJ check digits of numeric and alphanumeric vectors', () => {
    expect(cnpjCheckDigits('112223330001')).toBe('81');
    expect(cnpjCheckDigits('12ABC34501DE')).toBe('35');
    expect(cnpjCheckDigits('6A3EDMWP0001')).toBe('68');
    expect(cnpjCheckDigits('Q2GROWP70001')).toBe('85');
  });

  it('refuses a base of the wrong length or with punctuation', () => {
    expect(() => cpfCheckDigits('52998224')).toThrow(RangeError);
    expect(() => cpfCheckDigits('52998224A')).toThrow(RangeError);
    expect(() => cnpjCheckDigits('11.222.333/0001')).toThrow(RangeError);
    expect(() => cnpjCheckDigits('12abc34501de')).toThrow(RangeError);
  });
});

describe('normalizeTaxId', () => {
  it('strips punctuation and surrounding whitespace but keeps letters', () => {
    expect(normalizeTaxId(' 12.abc.345/01de-35 ')).toBe('12ABC34501DE35');
    expect(normalizeTaxId('529.982.247-25')).toBe('52998224725');
  });
});

describe('isValidCpf', () => {
  it.each(VALID_CPFS)('accepts the valid CPF %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(true);
  });

  it.each(VALID_CPFS.flatMap((cpf) => [changeDigit(cpf, 9), changeDigit(cpf, 10)]))(
    'rejects %s, a valid CPF with one check digit changed',
    (cpf) => {
      expect(isValidCpf(cpf)).toBe(false);
    },
  );

  it('rejects all ten all-equal numbers', () => {
    for (let d = 0; d <= 9; d++) expect(isValidCpf(String(d).repeat(11))).toBe(false);
  });

  it('rejects punctuation, letters and the wrong length', () => {
    expect(isValidCpf('529.982.247-25')).toBe(false);
    expect(isValidCpf('5299822472A')).toBe(false);
    expect(isValidCpf('5299822472')).toBe(false);
  });
});

describe('isValidCnpj', () => {
  it.each([...VALID_CNPJS, ...VALID_ALPHANUMERIC_CNPJS])('accepts the valid CNPJ %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true);
  });

  it.each(
    [...VALID_CNPJS, ...VALID_ALPHANUMERIC_CNPJS].flatMap((cnpj) => [
      changeDigit(cnpj, 12),
      changeDigit(cnpj, 13),
    ]),
  )('rejects %s, a valid CNPJ with one check digit changed', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(false);
  });

  it('rejects a CNPJ whose second check digit is wrong', () => {
    expect(isValidCnpj('11222333000182')).toBe(false);
  });

  it('rejects letters in the check-digit positions', () => {
    expect(isValidCnpj('12ABC34501DEA5')).toBe(false);
    expect(isValidCnpj('12ABC34501DE3E')).toBe(false);
  });

  it('rejects the all-equal numbers, including 00000000000000 whose arithmetic passes', () => {
    expect(cnpjCheckDigits('000000000000')).toBe('00');
    for (let d = 0; d <= 9; d++) expect(isValidCnpj(String(d).repeat(14))).toBe(false);
  });

  it('rejects check digits computed with A valued as 10', () => {
    const wrong = cnpjCheckDigitsWithAAsTen('12ABC34501DE');
    expect(wrong).not.toBe('35');
    expect(isValidCnpj(`12ABC34501DE${wrong}`)).toBe(false);
  });

  it('expects a normalised value: punctuation and lower case are not bare', () => {
    expect(isValidCnpj('12.ABC.345/01DE-35')).toBe(false);
    expect(isValidCnpj('12abc34501de35')).toBe(false);
  });
});

describe('checkTaxId', () => {
  it('accepts a punctuated CPF and returns it bare', () => {
    expect(checkTaxId('529.982.247-25')).toEqual({ ok: true, kind: 'cpf', value: '52998224725' });
  });

  it('accepts a punctuated alphanumeric CNPJ and returns it bare', () => {
    expect(checkTaxId('12.ABC.345/01DE-35')).toEqual({ ok: true, kind: 'cnpj', value: '12ABC34501DE35' });
  });

  it('refuses lower-case letters wherever a CNPJ is read, as the NF-e key and CNAB files do: the letters are A-Z', () => {
    const cases: Array<[string, TaxIdOptions]> = [
      ['12.abc.345/01de-35', {}],
      ['12abc34501de35', {}],
      ['12abc34501de35', { punctuation: false, kinds: ['cnpj'] }],
    ];
    for (const [input, options] of cases) {
      expect(checkTaxId(input, options)).toEqual({
        ok: false,
        reason: expect.stringMatching(/^letters of an alphanumeric CNPJ are upper case \(A-Z\): found "a" at position \d+; send "12(\.)?ABC/),
      });
    }
  });

  it('takes exactly two forms when punctuation is allowed: the bare characters, or the whole mask', () => {
    expect(checkTaxId('11.222.333/0001-81')).toEqual({ ok: true, kind: 'cnpj', value: '11222333000181' });
    expect(checkTaxId('11222333000181')).toEqual({ ok: true, kind: 'cnpj', value: '11222333000181' });
    expect(checkTaxId('529.982.247-25')).toEqual({ ok: true, kind: 'cpf', value: '52998224725' });
    expect(checkTaxId('12.ABC.345/01DE-35', { kinds: ['cnpj'] })).toEqual({ ok: true, kind: 'cnpj', value: '12ABC34501DE35' });
  });

  it('refuses surrounding whitespace and punctuation outside the mask, saying which forms are accepted', () => {
    const both = 'send it bare (11 or 14 characters) or in its mask, NNN.NNN.NNN-NN (CPF) or NN.NNN.NNN/NNNN-NN (CNPJ)';
    const cases: Array<[string, TaxIdOptions, RegExp]> = [
      ['  11.222.333/0001-81\n', {}, /^contains a space at position 1; /],
      [' 11222333000181 ', { kinds: ['cnpj'] }, /^contains a space at position 1; /],
      ['11222333000181 ', {}, /^contains a space at position 15; /],
      ['112223330001/81', {}, /position 3 where the mask NN.NNN.NNN\/NNNN-NN has "\."/],
      ['11.222.333/000181', {}, /"8" at position 16 where the mask NN.NNN.NNN\/NNNN-NN has "-"/],
      ['11222333/0001-81', {}, /position 3/],
      ['11.222.333.0001-81', {}, /position 11/],
      ['529.98224725', {}, /"2" at position 8 where the mask NNN.NNN.NNN-NN has "\."/],
      ['529.982.247.25', {}, /position 12/],
      ['52998224725-', {}, /position 4/],
      ['529.982.247-25', { kinds: ['cnpj'] }, /"\." at position 4/],
    ];
    for (const [input, options, where] of cases) {
      const result = checkTaxId(input, options);
      expect(result.ok, JSON.stringify(input)).toBe(false);
      const reason = result.ok ? '' : result.reason;
      expect(reason, JSON.stringify(input)).toMatch(where);
      if (options.kinds?.[0] === 'cnpj') expect(reason).toContain('send it bare (14 characters) or in its mask, NN.NNN.NNN/NNNN-NN');
      else expect(reason).toContain(both);
    }
  });

  it('names the expected check digits when they do not match', () => {
    expect(checkTaxId('11222333000182')).toEqual({
      ok: false,
      reason: 'CNPJ check digits do not match (expected 81)',
    });
    expect(checkTaxId('52998224726')).toEqual({
      ok: false,
      reason: 'CPF check digits do not match (expected 25)',
    });
  });

  it('rejects a space inside the value, naming its position', () => {
    const result = checkTaxId('529 982 247 25');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain('position 4');
  });

  it('rejects characters other than digits, letters and punctuation', () => {
    expect(checkTaxId('529_982_247_25').ok).toBe(false);
    expect(checkTaxId('52998224725!').ok).toBe(false);
  });

  it('rejects letters in a CPF', () => {
    const result = checkTaxId('5299822A725');
    expect(result).toEqual({ ok: false, reason: 'a CPF has digits only (found "A" at position 8)' });
  });

  it('rejects a letter in a check-digit position of a CNPJ', () => {
    const result = checkTaxId('12.ABC.345/01DE-3A');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/^CNPJ check digits .* must be digits .*position 18/);
  });

  it('rejects all-equal numbers', () => {
    expect(checkTaxId('000.000.000-00').ok).toBe(false);
    expect(checkTaxId('00.000.000/0000-00').ok).toBe(false);
  });

  it('rejects a length that is neither a CPF nor a CNPJ', () => {
    const expected = { ok: false, reason: 'must be a CPF (11 digits) or a CNPJ (14 characters)' };
    expect(checkTaxId('')).toEqual(expected);
    expect(checkTaxId('1122233300018')).toEqual(expected);
    expect(checkTaxId('1'.repeat(200))).toEqual(expected);
  });

  it('refuses punctuation and surrounding whitespace when punctuation is off', () => {
    expect(checkTaxId('529.982.247-25', { punctuation: false }).ok).toBe(false);
    expect(checkTaxId(' 52998224725', { punctuation: false }).ok).toBe(false);
    expect(checkTaxId('52998224725', { punctuation: false })).toEqual({
      ok: true,
      kind: 'cpf',
      value: '52998224725',
    });
  });

  it('accepts only the requested kinds', () => {
    expect(checkTaxId('52998224725', { kinds: ['cnpj'] })).toEqual({
      ok: false,
      reason: 'must be a CNPJ (14 characters)',
    });
    expect(checkTaxId('11222333000181', { kinds: ['cpf'] })).toEqual({
      ok: false,
      reason: 'must be a CPF (11 digits)',
    });
    expect(checkTaxId('11222333000181', { kinds: ['cnpj'] }).ok).toBe(true);
  });

  it('rejects check digits computed with A valued as 10', () => {
    const wrong = cnpjCheckDigitsWithAAsTen('12ABC34501DE');
    expect(wrong).not.toBe('35');
    expect(checkTaxId(`12.ABC.345/01DE-${wrong}`)).toEqual({
      ok: false,
      reason: 'CNPJ check digits do not match (expected 35)',
    });
  });
});
