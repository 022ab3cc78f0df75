// The text Java gives a JSON number that Jayway JsonPath has read (domain/java-number.ts): what a
// `=~` of a JSONPath filter matches a number as. Expected texts are Java's own: Double.toString (the
// shortest digits that read back, at least one after the point, Java 19 and later) and
// BigDecimal.toString (its javadoc's table).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameDecimal } from '../../src/domain/decimal.js';
import { bigDecimalText, javaDoubleText, jaywayNumberText } from '../../src/domain/java-number.js';

describe("Java's texts of numbers", () => {
  it('writes a double as Double.toString does: plain from 10^-3 to 10^7, else d.dddEn', () => {
    const cases: Array<[number, string]> = [
      [10, '10.0'],
      [100, '100.0'],
      [1500.5, '1500.5'],
      [0.1, '0.1'],
      [0.001, '0.001'],
      [123456.789, '123456.789'],
      [9999999, '9999999.0'],
      [1e7, '1.0E7'],
      [12345678.5, '1.23456785E7'],
      [1e23, '1.0E23'],
      [1.5e-4, '1.5E-4'],
      [1e-4, '1.0E-4'],
      [0, '0.0'],
      [-0, '-0.0'],
      [-2.5, '-2.5'],
      [Number.MIN_VALUE, '4.9E-324'],
      [Number.MAX_VALUE, '1.7976931348623157E308'],
    ];
    for (const [d, text] of cases) expect(javaDoubleText(d), String(d)).toBe(text);
  });

  it("writes a decimal as BigDecimal.toString does (the javadoc's examples among them)", () => {
    const cases: Array<[string, string]> = [
      ['123', '123'],
      ['-123', '-123'],
      ['1.23E3', '1.23E+3'],
      ['0.123', '0.123'],
      ['123E-10', '1.23E-8'],
      ['-123E-12', '-1.23E-10'],
      ['10.0', '10.0'],
      ['1.0E7', '1.0E+7'],
      ['1.23456785E7', '12345678.5'],
      ['1.0E-4', '0.00010'],
      ['1.0E-7', '1.0E-7'],
      ['-0.0', '0.0'],
      ['0.00', '0.00'],
      ['0E+3', '0E+3'],
      ['1E+1', '1E+1'],
      ['-1.50', '-1.50'],
    ];
    for (const [text, java] of cases) expect(bigDecimalText(text), text).toBe(java);
  });

  it('gives a JSON number the text Jayway matches it as (json-smart reads it, Java writes it)', () => {
    const cases: Array<[string, string | undefined]> = [
      ['10', '10'],
      ['10.00', '10.0'],
      ['10.0', '10.0'],
      ['1500.50', '1500.5'],
      ['1500.5', '1500.5'],
      ['1E+1', '10.0'],
      ['1e1', '10.0'],
      ['0.10000', '0.1'],
      ['-0', '0'],
      ['-0.0', '0.0'],
      ['-2.50', '-2.5'],
      ['12345678901234567890', '12345678901234567890'],
      // 17 characters: a Double, which holds 80000000000000.015625.
      ['80000000000000.01', '80000000000000.02'],
      ['1e7', '1.0E+7'],
      ['12345678.50', '12345678.5'],
      ['0.00010', '0.00010'],
      ['1e-5', '0.000010'],
      ['1e-7', '1.0E-7'],
      // More than 18 characters: json-smart keeps a BigDecimal of the text.
      ['1500.500000000000000', '1500.500000000000000'],
      ['0.1234567890123456789', '0.1234567890123456789'],
      // Beyond a double: Java reads Infinity, which Jayway cannot make a number of.
      ['1e400', undefined],
    ];
    for (const [text, java] of cases) expect(jaywayNumberText(text), text).toBe(java);
  });

  it('reads back as the same double, and names the value Java read (fast-check)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const text = javaDoubleText(d);
        expect(text).toMatch(/^-?\d+\.\d+(E-?\d+)?$/);
        expect(Object.is(Number(text), d)).toBe(true);
        const jayway = jaywayNumberText(String(d).includes('.') || String(d).includes('e') ? String(d) : `${String(d)}.0`);
        expect(jayway !== undefined && sameDecimal(jayway, text)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps an integer digit for digit and a long decimal as written, only ever respelled (fast-check)', () => {
    const digits = fc.stringMatching(/^[1-9]\d{0,30}$/);
    fc.assert(
      fc.property(digits, fc.boolean(), (d, negative) => {
        const text = `${negative ? '-' : ''}${d}`;
        expect(jaywayNumberText(text)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^-?\d{1,12}\.\d{6,20}$/), (text) => {
        const java = jaywayNumberText(text);
        expect(java).toBeDefined();
        if (text.length > 18) expect(sameDecimal(java as string, text)).toBe(true);
        else expect(Number(java)).toBe(Number(text));
      }),
    );
  });
});
