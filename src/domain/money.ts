// Money is integer cents from the moment it is parsed, so sums and comparisons are exact. An amount
// is read from its decimal text wherever a double could not carry it (above about 2^51 cents a double
// no longer tells neighbouring cents apart), and written back as decimal text the same way.
import { decimalParts } from './decimal.js';

/** The largest amount the sandbox holds, in cents: every integer up to it is exact. */
export const MAX_CENTS = Number.MAX_SAFE_INTEGER;

/** Why a number is not an amount: a third decimal place, or beyond MAX_CENTS. */
export type MoneyProblem = 'decimals' | 'magnitude';

export const MONEY_MESSAGES: Record<MoneyProblem, string> = {
  decimals: 'must be an amount with at most two decimal places',
  magnitude: `must be at most ${formatCents(MAX_CENTS)} in absolute value (${MAX_CENTS} cents, the largest amount the sandbox holds exactly)`,
};

/**
 * Below this many cents, `Math.round(v * 100)` is the exact cents of a double read from a decimal with
 * at most two places: the product's error stays far below half a cent. Above it the cents are read
 * from the double's shortest decimal text instead.
 */
const FAST_CENTS = 2 ** 50;

/** Why `value` is not money, or undefined when it is (a finite number, two decimals at most, within MAX_CENTS). */
export function moneyProblem(value: number): MoneyProblem | undefined {
  if (!Number.isFinite(value)) return 'magnitude';
  const cents = Math.round(value * 100);
  if (Math.abs(cents) < FAST_CENTS) return cents / 100 === value ? undefined : 'decimals';
  return centsFromText(String(value)).problem;
}

/**
 * True for a finite number with at most two decimal places whose cents fit in a safe integer.
 * `Math.round(v * 100) / 100 === v` decides this exactly below FAST_CENTS: a JSON number such as 0.29
 * parses to the nearest double, and dividing the integer 29 by 100 yields that same nearest double,
 * while 0.295 (or any value with a third decimal) has no integer cents that round-trip.
 */
export function isMoney(value: unknown): value is number {
  return typeof value === 'number' && moneyProblem(value) === undefined;
}

/** Converts a money amount to integer cents; throws RangeError when it is not money. */
export function toCents(value: number): number {
  if (!isMoney(value)) throw new RangeError(`not a money amount (at most two decimal places): ${value}`);
  const cents = Math.round(value * 100);
  // `+ 0` turns -0 into 0, so -0 never reaches storage or output.
  if (Math.abs(cents) < FAST_CENTS) return cents + 0;
  return (centsFromText(String(value)).cents ?? 0) + 0;
}

/**
 * The exact cents a decimal number's text says (a JSON number, or the shortest text of a double):
 * `cents` when it has at most two decimal places and |cents| <= MAX_CENTS, else the problem.
 * Integer arithmetic on the digits (BigInt), so no binary fraction is ever involved.
 */
export function centsFromText(text: string): { cents?: number; problem?: MoneyProblem } {
  const parts = decimalParts(text);
  if (!parts) return { problem: 'decimals' };
  if (parts.digits === '') return { cents: 0 };
  // The power of ten of the last digit, counted in cents.
  const exponent = parts.exponent + 2;
  if (exponent < 0) return { problem: 'decimals' };
  // More than 16 digits of cents cannot be within MAX_CENTS (16 digits); no huge power is ever built.
  if (parts.digits.length + exponent > 16) return { problem: 'magnitude' };
  const cents = BigInt(parts.digits) * 10n ** BigInt(exponent);
  if (cents > BigInt(MAX_CENTS)) return { problem: 'magnitude' };
  return { cents: parts.negative ? -Number(cents) : Number(cents) };
}

/**
 * Cents back to a JSON number, e.g. 150000 -> 1500, 29 -> 0.29. Exact up to 10^15 cents (a double
 * carries every decimal of 15 digits); an amount beyond that is a DecimalText, which the exact
 * serializer (http/exact-json.ts) writes digit for digit.
 */
export function centsToNumber(cents: number): number | DecimalText {
  assertCents(cents);
  if (Math.abs(cents) < 1e15) return cents / 100 + 0;
  return new DecimalText(formatCents(cents).replace(/\.?0+$/, ''));
}

/** A JSON number held as its decimal text, for values a double would change. */
export class DecimalText {
  constructor(readonly text: string) {}

  /** What a reader that can only take doubles gets. */
  valueOf(): number {
    return Number(this.text);
  }

  toJSON(): number {
    return Number(this.text);
  }
}

/** Cents as a fixed two-decimal string: 150000 -> '1500.00', 29 -> '0.29', -310 -> '-3.10'. */
export function formatCents(cents: number): string {
  assertCents(cents);
  const abs = Math.abs(cents);
  const sign = cents < 0 ? '-' : '';
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a safe integer: ${cents}`);
}
