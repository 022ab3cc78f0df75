// IBGE municipality code: UF(2) municipality(4) check digit(1).

export type IbgeCheck = { ok: true } | { ok: false; reason: string };

// Real municipalities whose codes fail the check-digit rule; IBGE kept them as issued.
const EXCEPTIONS = new Set([
  '2201919',
  '2201988',
  '2202251',
  '2611533',
  '3117836',
  '3152131',
  '4305871',
  '5203939',
  '5203962',
]);

// The 27 federative units' codes.
const UF_CODES = new Set([
  11, 12, 13, 14, 15, 16, 17, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 35, 41, 42, 43, 50, 51, 52, 53,
]);

/** Checks shape, state prefix and check digit (weights 1,2,1,2,1,2, digits of each product summed). */
export function checkIbgeCode(code: number | string): IbgeCheck {
  const text = typeof code === 'number' ? (Number.isInteger(code) ? String(code) : '') : code;
  if (!/^\d{7}$/.test(text)) return { ok: false, reason: 'an IBGE municipality code has 7 digits' };
  const uf = Number(text.slice(0, 2));
  if (!UF_CODES.has(uf)) {
    return {
      ok: false,
      reason: `IBGE municipality code starts with ${text.slice(0, 2)}, which is not a state code`,
    };
  }
  if (EXCEPTIONS.has(text)) return { ok: true };
  let sum = 0;
  for (let i = 0; i < 6; i++) {
    const product = (text.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 2);
    // A product is at most 18, so the sum of its digits is product - 9 when it has two.
    sum += product > 9 ? product - 9 : product;
  }
  const expected = (10 - (sum % 10)) % 10;
  if (text.charCodeAt(6) - 48 !== expected) {
    return { ok: false, reason: `IBGE municipality code check digit does not match (expected ${expected})` };
  }
  return { ok: true };
}
