// Decimal number text (a JSON number, or the shortest text of a double) taken apart without any
// binary arithmetic: the sign, the significant digits and the power of ten of the last one.

export interface DecimalParts {
  negative: boolean;
  /** Significant digits, without leading or trailing zeros; '' for zero. */
  digits: string;
  /** The power of ten of the last digit (0 for zero). */
  exponent: number;
}

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** The parts of a decimal number's text, or undefined when it is not one. */
export function decimalParts(text: string): DecimalParts | undefined {
  const m = DECIMAL.exec(text);
  const whole = m?.[2] ?? '';
  const fraction = m?.[3] ?? '';
  if (!m || (whole === '' && fraction === '')) return undefined;
  const all = `${whole}${fraction}`;
  let start = 0;
  while (start < all.length && all.charCodeAt(start) === 0x30) start++;
  let end = all.length;
  while (end > start && all.charCodeAt(end - 1) === 0x30) end--;
  if (start === end) return { negative: m[1] === '-', digits: '', exponent: 0 };
  const exponent = Number(m[4] ?? '0') - fraction.length + (all.length - end);
  return { negative: m[1] === '-', digits: all.slice(start, end), exponent };
}

/**
 * How many significant digits a number's text has, cheaply (leading and trailing zeros and the
 * exponent left out). A double keeps every decimal of up to 15.
 */
export function significantDigits(text: string): number {
  return decimalParts(text)?.digits.length ?? 0;
}

/** True when both texts name the same decimal number (1.50 and 15e-1, -0 and 0). */
export function sameDecimal(a: string, b: string): boolean {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (!x || !y) return false;
  if (x.digits === '' || y.digits === '') return x.digits === y.digits;
  return x.negative === y.negative && x.digits === y.digits && x.exponent === y.exponent;
}
