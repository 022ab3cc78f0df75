// ISO 8601 durations for moving the sandbox clock: `P31D`, `PT36H`, `P1M`, `-P1W`. Years and months
// move on the UTC calendar (January 31 plus P1M is the last day of February); the other units are
// fixed lengths (a day is 24 hours: UTC has no daylight saving).

export interface Duration {
  sign: 1 | -1;
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

const PATTERN =
  /^([+-])?P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?!$)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,3})?)S)?)?$/;

/** Parses an ISO 8601 duration; undefined when the text is not one. */
export function parseDuration(text: string): Duration | undefined {
  const m = PATTERN.exec(text.trim().toUpperCase());
  if (!m) return undefined;
  const n = (i: number) => Number((m[i] ?? '0').replace(',', '.'));
  return {
    sign: m[1] === '-' ? -1 : 1,
    years: n(2),
    months: n(3),
    weeks: n(4),
    days: n(5),
    hours: n(6),
    minutes: n(7),
    seconds: n(8),
  };
}

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `from` moved by the duration: calendar years and months first, then the fixed-length units. */
export function addDuration(from: Date, d: Duration): Date {
  let t = from.getTime();
  const months = d.sign * (d.years * 12 + d.months);
  if (months !== 0) {
    const total = from.getUTCFullYear() * 12 + from.getUTCMonth() + months;
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    // The day of the month is kept, or clamped to the last day of a shorter month.
    const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
    const moved = new Date(from.getTime());
    moved.setUTCFullYear(year, month, day);
    t = moved.getTime();
  }
  const fixedMs =
    ((d.weeks * 7 + d.days) * 86_400 + d.hours * 3_600 + d.minutes * 60) * 1000 +
    Math.round(d.seconds * 1000);
  return new Date(t + d.sign * fixedMs);
}

/**
 * A span of time in milliseconds, for waits, timeouts and delays: `250ms`, `5s`, `2m`, `1h`, or an
 * ISO 8601 duration of fixed length (`PT5S`, `P1D`; years and months have no fixed length and are
 * refused). Undefined when the text is none of these, or the span is negative.
 */
export function parseSpanMs(text: string): number | undefined {
  const short = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/i.exec(text);
  if (short) {
    const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(short[2] ?? 's').toLowerCase()] ?? 1000;
    return Math.round(Number(short[1]) * factor);
  }
  const d = parseDuration(text);
  if (!d || d.sign < 0 || d.years > 0 || d.months > 0) return undefined;
  return addDuration(new Date(0), d).getTime();
}
