import { describe, expect, it } from 'vitest';
import { centsToNumber, formatCents, isMoney, toCents } from '../../src/domain/money.js';

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
      if (toCents(centsToNumber(cents)) !== cents) expect.fail(`round trip lost ${cents}`);
    }
    expect(toCents(centsToNumber(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
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
