// Conditions' `equals` (runtime/conditions.ts), as GET /_sandbox/requests/count and a wait read it:
// JSON numbers compared by their exact decimal value, whatever their spelling, never through a double.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonAsWritten, parseJsonDocument } from '../../src/http/json.js';
import { conditionValue, evaluate } from '../../src/runtime/conditions.js';
import { redact } from '../../src/runtime/redact.js';

/** A decimal value: ±digits × 10^exponent, its digits without leading or trailing zeros. */
interface Decimal {
  negative: boolean;
  digits: string;
  exponent: number;
}

const decimal: fc.Arbitrary<Decimal> = fc.record({
  negative: fc.boolean(),
  digits: fc.stringMatching(/^[1-9](\d{0,24}[1-9])?$/),
  exponent: fc.integer({ min: -30, max: 30 }),
});

/** How a value is written: trailing zeros added, and plain, scientific or scientific with a whole mantissa. */
const style = fc.record({
  zeros: fc.integer({ min: 0, max: 4 }),
  form: fc.constantFrom('plain', 'scientific', 'whole-mantissa'),
  e: fc.constantFrom('e', 'E', 'e+', 'E+'),
});

function spelled({ negative, digits, exponent }: Decimal, { zeros, form, e }: { zeros: number; form: string; e: string }): string {
  const all = `${digits}${'0'.repeat(zeros)}`;
  const power = exponent - zeros;
  const sign = negative ? '-' : '';
  const exp = (n: number) => `${n < 0 ? e[0] : e}${n}`;
  if (form === 'whole-mantissa') return `${sign}${all}${exp(power)}`;
  if (form === 'scientific') return `${sign}${all[0]}${all.length > 1 ? `.${all.slice(1)}` : ''}${exp(power + all.length - 1)}`;
  if (power >= 0) return `${sign}${all}${'0'.repeat(power)}`;
  const point = all.length + power;
  return point > 0 ? `${sign}${all.slice(0, point)}.${all.slice(point)}` : `${sign}0.${'0'.repeat(-point)}${all}`;
}

/** The body `{"v":<text>}` as the journal shows it (read as a documented operation's, then redacted) and as a wait reads a view. */
function bodies(text: string): unknown[] {
  const json = `{"v":${text},"list":[${text}],"nested":{"w":${text}}}`;
  return [redact(parseJsonDocument(Buffer.from(json))), parseJsonAsWritten(json)];
}

function holds(body: unknown, jsonpath: string, equals: string): boolean {
  return evaluate({ jsonpath, equals: conditionValue(equals) }, body).holds;
}

describe('equals on numbers', () => {
  it('holds for the same decimal value however either side spells it (fast-check)', () => {
    fc.assert(
      fc.property(decimal, style, style, (value, sent, asked) => {
        const text = spelled(value, sent);
        const equals = spelled(value, asked);
        for (const body of bodies(text)) {
          expect(holds(body, '$.v', equals), `${text} equals ${equals}`).toBe(true);
          expect(holds(body, '$.list', `[${equals}]`)).toBe(true);
          expect(holds(body, '$.nested', `{"w":${equals}}`)).toBe(true);
          expect(holds(body, '$.list[*]', equals)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never holds for another value, however near (fast-check)', () => {
    // Past 15 significant digits a double holds neighbours as one: 12345678901234567890 and ...891.
    const long = fc.record({ negative: fc.boolean(), digits: fc.stringMatching(/^[1-9]\d{15,23}[1-9]$/), exponent: fc.integer({ min: -30, max: 30 }) });
    const neighbour = (d: Decimal) =>
      fc.integer({ min: 1, max: 9 }).filter((n) => String(n) !== d.digits.at(-1)).map((n) => ({ ...d, digits: `${d.digits.slice(0, -1)}${n}` }));
    const other = fc.oneof(
      fc.tuple(decimal, decimal),
      long.chain((d) => fc.tuple(fc.constant(d), neighbour(d))),
      decimal.map((d) => [d, { ...d, negative: !d.negative }] as [Decimal, Decimal]),
    );
    fc.assert(
      fc.property(other, style, style, ([a, b], sent, asked) => {
        fc.pre(a.negative !== b.negative || a.digits !== b.digits || a.exponent !== b.exponent);
        const text = spelled(a, sent);
        const equals = spelled(b, asked);
        for (const body of bodies(text)) {
          expect(holds(body, '$.v', equals), `${text} is not ${equals}`).toBe(false);
          expect(holds(body, '$.list', `[${equals}]`)).toBe(false);
          expect(holds(body, '$.nested', `{"w":${equals}}`)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reads zero in any spelling as zero, and a number never as its text in quotes', () => {
    for (const text of ['0', '-0', '0.0', '0e5', '-0.000E-3'])
      for (const body of bodies(text)) {
        for (const equals of ['0', '0.00', '-0', '0E+1']) expect(holds(body, '$.v', equals), `${text} equals ${equals}`).toBe(true);
        expect(holds(body, '$.v', '1e-400')).toBe(false);
        expect(holds(body, '$.v', `"${text}"`)).toBe(false);
      }
    for (const body of bodies('12345678901234567890')) {
      expect(holds(body, '$.v', '12345678901234567890')).toBe(true);
      expect(holds(body, '$.v', '12345678901234567891')).toBe(false);
    }
  });
});
