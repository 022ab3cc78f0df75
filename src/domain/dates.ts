// Calendar dates and UTC timestamps as the wire carries them, checked as real dates.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;

/** Exactly YYYY-MM-DD (years 0001-9999) naming a day that exists. */
export function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** ISO 8601 in UTC with a trailing Z, e.g. 2026-11-01T10:00:00Z or 2026-11-01T10:00:00.123Z. */
export function isUtcTimestamp(text: string): boolean {
  const m = TIMESTAMP.exec(text);
  if (m === null || !isRealDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  // No leap second: seconds stop at 59, as in JavaScript's Date.
  return Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 59;
}

/**
 * A key of a UTC timestamp (isUtcTimestamp) whose text order is its time order to the nanosecond:
 * the fraction padded to 9 digits, '2026-10-02T04:00:00Z' -> '2026-10-02T04:00:00.000000000Z'. A
 * timestamp is kept as written, so the written forms (no fraction, 1 to 9 digits) do not sort as text.
 */
export function timestampSortKey(text: string): string {
  const fraction = text.charCodeAt(19) === 0x2e /* . */ ? text.slice(20, -1) : '';
  return `${text.slice(0, 19)}.${fraction.padEnd(9, '0')}Z`;
}

/**
 * CNAB dates are DDMMAA: the year has two digits, so a pivot is needed. 00-69 read as 2000-2069
 * and 70-99 as 1970-1999, which covers both old issue dates and due dates decades ahead.
 * Returns 'YYYY-MM-DD', or undefined when the field is not a real date ('000000' included).
 */
export function parseCnabDate(ddmmyy: string): string | undefined {
  if (!/^\d{6}$/.test(ddmmyy)) return undefined;
  const day = Number(ddmmyy.slice(0, 2));
  const month = Number(ddmmyy.slice(2, 4));
  const yy = Number(ddmmyy.slice(4, 6));
  const year = yy < 70 ? 2000 + yy : 1900 + yy;
  if (!isRealDate(year, month, day)) return undefined;
  return `${year}-${ddmmyy.slice(2, 4)}-${ddmmyy.slice(0, 2)}`;
}

/**
 * Adds calendar months in UTC, keeping the time of day and clamping the day to the target month's
 * last day (Jan 31 + 1 month = Feb 28, or 29 in a leap year). `months` may be negative.
 */
export function addMonthsUtc(date: Date, months: number): Date {
  if (Number.isNaN(date.getTime())) throw new RangeError('addMonthsUtc needs a valid date');
  if (!Number.isInteger(months)) throw new RangeError(`months must be an integer: ${months}`);
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(date.getUTCDate(), daysInMonth(year, month + 1));
  const result = new Date(date.getTime());
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  result.setUTCFullYear(year, month, day);
  return result;
}

/** The one timestamp format of the output: Date#toISOString, e.g. '2026-11-01T10:00:00.000Z'. */
export function toIsoUtc(date: Date): string {
  return date.toISOString();
}

/** The UTC calendar day of a date as 'YYYY-MM-DD'. */
export function toIsoDate(date: Date): string {
  const iso = date.toISOString();
  return iso.slice(0, iso.indexOf('T'));
}

function isRealDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Days in a month, `month` 1-12. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * parseCnabDate over text[start, start + 6) without slicing first: the same pivot and result, one
 * charCode pass, for loops over the records of large CNAB files.
 */
export function parseCnabDateAt(text: string, start: number): string | undefined {
  const v = cnabDateValue(text, start);
  if (v < 0) return undefined;
  const month = Math.floor(v / 100) % 100;
  const day = v % 100;
  return `${Math.floor(v / 10000)}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/** True when parseCnabDateAt would return a date; allocates nothing. */
export function isCnabDateAt(text: string, start: number): boolean {
  return cnabDateValue(text, start) >= 0;
}

/** The CNAB date at text[start, start + 6) as the number yyyymmdd, or -1 when it is not a real date. */
function cnabDateValue(text: string, start: number): number {
  let value = 0;
  for (let i = 0; i < 6; i++) {
    const v = text.charCodeAt(start + i) - 48;
    if (!(v >= 0 && v <= 9)) return -1;
    value = value * 10 + v;
  }
  const day = Math.floor(value / 10000);
  const month = Math.floor(value / 100) % 100;
  const yy = value % 100;
  const year = yy < 70 ? 2000 + yy : 1900 + yy;
  return isRealDate(year, month, day) ? year * 10000 + month * 100 + day : -1;
}
