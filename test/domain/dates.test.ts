import { describe, expect, it } from 'vitest';
import {
  addMonthsUtc,
  isCalendarDate,
  isUtcTimestamp,
  parseCnabDate,
  toIsoDate,
  toIsoUtc,
} from '../../src/domain/dates.js';

describe('isCalendarDate', () => {
  it.each(['2026-11-01', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31', '2026-04-30'])(
    'accepts the real date %s',
    (text) => {
      expect(isCalendarDate(text)).toBe(true);
    },
  );

  it.each([
    '2026-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '0000-01-01',
    '2026-1-01',
    '26-01-01',
    '2026/01/01',
    '2026-01-01T00:00:00Z',
    ' 2026-01-01',
    '',
  ])('rejects %j', (text) => {
    expect(isCalendarDate(text)).toBe(false);
  });
});

describe('isUtcTimestamp', () => {
  it.each([
    '2026-11-01T10:00:00Z',
    '2026-11-01T10:00:00.123Z',
    '2026-11-01T10:00:00.1Z',
    '2026-11-01T23:59:59.123456789Z',
    '2024-02-29T00:00:00Z',
  ])('accepts %s', (text) => {
    expect(isUtcTimestamp(text)).toBe(true);
  });

  it.each([
    '2026-11-01T10:00:00',
    '2026-11-01T10:00:00+00:00',
    '2026-11-01 10:00:00Z',
    '2026-11-01T10:00Z',
    '2026-11-01T24:00:00Z',
    '2026-11-01T10:60:00Z',
    '2026-11-01T10:00:60Z',
    '2026-11-01T10:00:00.Z',
    '2026-11-01T10:00:00.1234567890Z',
    '2026-02-29T10:00:00Z',
    '2026-11-01t10:00:00z',
    '2026-11-01',
  ])('rejects %s', (text) => {
    expect(isUtcTimestamp(text)).toBe(false);
  });
});

describe('parseCnabDate', () => {
  it('reads DDMMAA with years 00-69 as 20xx and 70-99 as 19xx', () => {
    expect(parseCnabDate('010126')).toBe('2026-01-01');
    expect(parseCnabDate('311269')).toBe('2069-12-31');
    expect(parseCnabDate('010170')).toBe('1970-01-01');
    expect(parseCnabDate('290200')).toBe('2000-02-29');
  });

  it.each(['000000', '290226', '310426', '011326', '01012', '0101267', '01-126', ''])(
    'rejects %j',
    (text) => {
      expect(parseCnabDate(text)).toBeUndefined();
    },
  );
});

describe('addMonthsUtc', () => {
  it('adds calendar months keeping the day and the time', () => {
    expect(addMonthsUtc(new Date('2026-01-15T10:30:00.000Z'), 1).toISOString()).toBe(
      '2026-02-15T10:30:00.000Z',
    );
    expect(addMonthsUtc(new Date('2026-11-01T00:00:00.000Z'), 3).toISOString()).toBe(
      '2027-02-01T00:00:00.000Z',
    );
  });

  it('clamps to the last day of a shorter month', () => {
    expect(toIsoDate(addMonthsUtc(new Date('2026-01-31T00:00:00Z'), 1))).toBe('2026-02-28');
    expect(toIsoDate(addMonthsUtc(new Date('2024-01-31T00:00:00Z'), 1))).toBe('2024-02-29');
    expect(toIsoDate(addMonthsUtc(new Date('2026-03-31T00:00:00Z'), 1))).toBe('2026-04-30');
    expect(toIsoDate(addMonthsUtc(new Date('2024-02-29T00:00:00Z'), 12))).toBe('2025-02-28');
  });

  it('goes backwards for negative months, across years', () => {
    expect(toIsoDate(addMonthsUtc(new Date('2026-03-31T00:00:00Z'), -1))).toBe('2026-02-28');
    expect(toIsoDate(addMonthsUtc(new Date('2026-01-10T00:00:00Z'), -13))).toBe('2024-12-10');
  });

  it('does not change the date it was given', () => {
    const date = new Date('2026-01-31T00:00:00Z');
    addMonthsUtc(date, 1);
    expect(date.toISOString()).toBe('2026-01-31T00:00:00.000Z');
  });

  it('refuses fractional months and invalid dates', () => {
    expect(() => addMonthsUtc(new Date('2026-01-31T00:00:00Z'), 1.5)).toThrow(RangeError);
    expect(() => addMonthsUtc(new Date(Number.NaN), 1)).toThrow(RangeError);
  });
});

describe('toIsoUtc and toIsoDate', () => {
  it('formats with milliseconds, always in UTC', () => {
    expect(toIsoUtc(new Date(Date.UTC(2026, 10, 1, 10)))).toBe('2026-11-01T10:00:00.000Z');
  });

  it('formats the UTC day', () => {
    expect(toIsoDate(new Date('2026-11-01T23:59:59.999Z'))).toBe('2026-11-01');
    expect(toIsoDate(new Date('2026-11-01T23:59:59.999-03:00'))).toBe('2026-11-02');
  });
});
