// Money is integer cents from the moment it is parsed, so sums and comparisons are exact.

/**
 * True for a finite number with at most two decimal places whose cents fit in a safe integer.
 * `Math.round(v * 100) / 100 === v` decides this exactly: a JSON number such as 0.29 parses to the
 * nearest double, and dividing the integer 29 by 100 yields that same nearest double, while 0.295
 * (or any value with a third decimal) has no integer cents that round-trip.
 */
export function isMoney(value: unknown): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  const cents = Math.round(value * 100);
  return Math.abs(cents) <= Number.MAX_SAFE_INTEGER && cents / 100 === value;
}

/** Converts a money amount to integer cents; throws RangeError when it is not money. */
export function toCents(value: number): number {
  if (!isMoney(value)) throw new RangeError(`not a money amount (at most two decimal places): ${value}`);
  // `+ 0` turns -0 into 0, so -0 never reaches storage or output.
  return Math.round(value * 100) + 0;
}

/** Cents back to a JSON number, e.g. 150000 -> 1500, 29 -> 0.29. */
export function centsToNumber(cents: number): number {
  assertCents(cents);
  return cents / 100 + 0;
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
