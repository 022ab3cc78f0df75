import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sameDecimal } from '../../src/domain/decimal.js';
import { centsFromText, centsToNumber, DecimalText, formatCents, isMoney, MAX_CENTS, moneyProblem, toCents } from '../../src/domain/money.js';

describe('isMoney', () => {
  it.each([0.29, 0.1, 30.5, 1500, 0, -3.1, 2470.56])('accepts %s, which has at most two decimals', (v) => {
    expect(isMoney(v)).toBe(true);
  });

  it('accepts negative zero', () => {
    expect(isMoney(-0)).toBe(true);
  });

  it.each([0.295, 0.001, 1.005, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects %s',
    (v) => {
      expect(isMoney(v)).toBe(false);
    },
  );

  it.each(['1', null, undefined, {}, 1n])('rejects the non-number %s', (v) => {
    expect(isMoney(v)).toBe(false);
  });

  it('rejects an amount whose cents exceed the safe-integer range', () => {
    expect(isMoney(Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(isMoney(1e17)).toBe(false);
  });
});

describe('toCents', () => {
  it('converts amounts whose binary value is inexact to exact cents', () => {
    expect(toCents(0.29)).toBe(29);
    expect(toCents(0.1)).toBe(10);
    expect(toCents(30.5)).toBe(3050);
    expect(toCents(1500)).toBe(150000);
    expect(toCents(-3.1)).toBe(-310);
  });

  it('normalises negative zero to zero', () => {
    expect(Object.is(toCents(-0), 0)).toBe(true);
  });

  it('throws a RangeError for a third decimal place', () => {
    expect(() => toCents(0.295)).toThrow(RangeError);
  });
});

describe('centsToNumber', () => {
  it('turns cents back into the JSON amount', () => {
    expect(centsToNumber(29)).toBe(0.29);
    expect(centsToNumber(150000)).toBe(1500);
    expect(centsToNumber(-310)).toBe(-3.1);
  });

  it('round-trips every cent value of a range through toCents', () => {
    for (let cents = -1000; cents <= 100000; cents++) {
      if (toCents(centsToNumber(cents) as number) !== cents) expect.fail(`round trip lost ${cents}`);
    }
  });

  it('gives the decimal text of an amount a double would change', () => {
    expect(centsToNumber(Number.MAX_SAFE_INTEGER)).toEqual(new DecimalText('90071992547409.91'));
    expect(centsToNumber(-8000000000000001)).toEqual(new DecimalText('-80000000000000.01'));
    expect(centsToNumber(8000000000000000)).toEqual(new DecimalText('80000000000000'));
    expect(centsToNumber(999999999999999)).toBe(9999999999999.99);
  });

  it('refuses fractional cents', () => {
    expect(() => centsToNumber(1.5)).toThrow(RangeError);
  });
});

describe('formatCents', () => {
  it.each([
    [150000, '1500.00'],
    [29, '0.29'],
    [-310, '-3.10'],
    [5, '0.05'],
    [-5, '-0.05'],
    [0, '0.00'],
    [-0, '0.00'],
    [247056, '2470.56'],
  ])('formats %s cents as %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('refuses a non-integer cents value', () => {
    expect(() => formatCents(0.5)).toThrow(RangeError);
  });
});

describe('centsFromText', () => {
  it.each([
    ['0', 0],
    ['-0', 0],
    ['0.29', 29],
    ['1.5', 150],
    ['15e-1', 150],
    ['0.015e2', 150],
    ['1.5000000000000000000', 150],
    ['1E2', 10000],
    ['80000000000000.01', 8000000000000001],
    ['-80000000000000.01', -8000000000000001],
    ['90071992547409.91', MAX_CENTS],
  ])('reads %s as %s cents', (text, cents) => {
    expect(centsFromText(text)).toEqual({ cents });
  });

  it.each(['0.295', '1.0000000000000001', '80000000000000.001', '1e-3', 'abc', ''])('finds more than two decimals in %s', (text) => {
    expect(centsFromText(text)).toEqual({ problem: 'decimals' });
  });

  it.each(['90071992547409.92', '1e21', '1e999999999', '-1e14'])('finds %s beyond the largest amount', (text) => {
    expect(centsFromText(text)).toEqual({ problem: 'magnitude' });
  });

  it('agrees with BigInt arithmetic on every two-decimal text up to MAX_CENTS', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -BigInt(MAX_CENTS), max: BigInt(MAX_CENTS) }), (cents) => {
        const abs = cents < 0n ? -cents : cents;
        const text = `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
        expect(centsFromText(text)).toEqual({ cents: Number(cents) + 0 });
      }),
    );
  });
});

describe('moneyProblem of a double', () => {
  it('tells magnitude from decimals', () => {
    expect(moneyProblem(1e21)).toBe('magnitude');
    expect(moneyProblem(Number.POSITIVE_INFINITY)).toBe('magnitude');
    expect(moneyProblem(0.295)).toBe('decimals');
    expect(moneyProblem(1500.5)).toBeUndefined();
  });

  it('reads exact cents from the shortest text of any double of a two-decimal amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_CENTS, max: MAX_CENTS }), (cents) => {
        const text = formatCents(cents);
        const value = Number(text);
        // The double reads back as the amount's text: toCents of it is that amount exactly.
        if (sameDecimal(String(value), text)) expect(toCents(value)).toBe(cents + 0);
        else expect(isMoney(value)).toBe(true);
      }),
    );
  });
});
