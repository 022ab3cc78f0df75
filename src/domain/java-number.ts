// The text Java gives a JSON number that Jayway JsonPath has read: what WireMock's matchesJsonPath
// matches a number as in a filter's `a =~ /re/` (runtime/jsonpath.ts). Jayway reads JSON with
// json-smart in its permissive mode: an integer (no point, no exponent) as an Integer, Long or
// BigInteger, a decimal of at most 18 characters as a Double, a longer one as a BigDecimal of its
// text. A filter then turns the value into a BigDecimal of its Java text (Number.toString) and matches
// that BigDecimal's toString. So 10.00 matches as 10.0, 1500.50 as 1500.5, 1E+1 as 10.0, 1e7 as
// 1.0E+7, and 10 as 10 (assumption stub-format).
import { decimalParts } from './decimal.js';

/** The longest decimal json-smart reads as a Double: a longer one is a BigDecimal of its text. */
const DOUBLE_TEXT_MAX = 18;

/**
 * Java's Double.toString of a finite double: the shortest digits that read back as it (two when one
 * would do, the nearer of them: Double.MIN_VALUE is 4.9E-324), as Java 19 and later choose them; plain
 * from 10^-3 to 10^7 with at least one digit after the point, else d.dddE<n>.
 */
export function javaDoubleText(d: number): string {
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const sign = d < 0 ? '-' : '';
  let [mantissa = '', exponent = '0'] = Math.abs(d).toExponential().split('e');
  if (mantissa.length === 1) [mantissa = '', exponent = '0'] = Math.abs(d).toExponential(1).split('e');
  const digits = mantissa.replace('.', '');
  const e = Number(exponent);
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const whole = e >= 0 ? digits.slice(0, e + 1).padEnd(e + 1, '0') : '0';
    const fraction = e >= 0 ? digits.slice(e + 1) : `${'0'.repeat(-e - 1)}${digits}`;
    return `${sign}${whole}.${fraction.replace(/0+$/, '') || '0'}`;
  }
  return `${sign}${digits[0] ?? '0'}.${digits.slice(1).replace(/0+$/, '') || '0'}E${e}`;
}

const BIG_DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Java's BigDecimal.toString of new BigDecimal(text): its unscaled digits and scale as written (1.50
 * keeps its zero), plain when the scale is at least 0 and the adjusted exponent at least -6, else one
 * digit, the rest after a point, and E+n or E-n. Undefined when Java would not read the text.
 */
export function bigDecimalText(text: string): string | undefined {
  const m = BIG_DECIMAL.exec(text);
  const whole = m?.[2] ?? '';
  const fraction = m?.[3] ?? '';
  if (!m || (whole === '' && fraction === '')) return undefined;
  const unscaled = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  const scale = fraction.length - Number(m[4] ?? '0');
  if (!Number.isSafeInteger(scale)) return undefined;
  const sign = m[1] === '-' && /[1-9]/.test(unscaled) ? '-' : '';
  const adjusted = unscaled.length - 1 - scale;
  if (scale === 0) return `${sign}${unscaled}`;
  if (scale > 0 && adjusted >= -6) {
    // The scale is then at most the number of digits plus 6: the padding stays that short.
    const padded = unscaled.padStart(scale + 1, '0');
    return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  }
  const point = unscaled.length > 1 ? `${unscaled[0]}.${unscaled.slice(1)}` : unscaled;
  return `${sign}${point}${adjusted === 0 ? '' : `E${adjusted > 0 ? '+' : '-'}${Math.abs(adjusted)}`}`;
}

/**
 * The text a Jayway filter's `=~` matches the JSON number written `text` as (see the top of this
 * file); undefined for a number Java reads as Infinity (1e400), which Jayway cannot make a BigDecimal
 * of: such a number matches no pattern.
 */
export function jaywayNumberText(text: string): string | undefined {
  if (!/[.eE]/.test(text)) {
    // An integer: its digits (JSON writes none before the first that is not 0); -0 is the int 0.
    const parts = decimalParts(text);
    return parts === undefined ? undefined : parts.digits === '' ? '0' : text.replace(/^\+/, '');
  }
  if (text.length > DOUBLE_TEXT_MAX) return bigDecimalText(text);
  const d = Number(text);
  return Number.isFinite(d) ? bigDecimalText(javaDoubleText(d)) : undefined;
}
