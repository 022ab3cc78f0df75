// Valid values from the TypeBox schemas: a converter for the JSON-schema subset the interfaces use
// (object, array, string with pattern/format/lengths, number with the money keyword, integer, boolean,
// null, string enums). Hints replace the generator of a named property with one that also passes
// the domain checks (a real CPF, a PDF, a CNAB file), mixed with the schema's own values.
import fc from 'fast-check';

export type Hints = Readonly<Record<string, fc.Arbitrary<unknown>>>;

interface JsonSchema {
  type?: string;
  enum?: readonly unknown[];
  const?: unknown;
  format?: string;
  money?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  default?: unknown;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A real calendar date, YYYY-MM-DD, between 2020 and 2030. */
export const calendarDate = (): fc.Arbitrary<string> =>
  fc
    .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
    .map((d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`);

/** A short string: mostly printable ASCII, sometimes any unicode (graphemes, emoji, accents). */
const text = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
  );

/** Money: at most two decimals, inside the schema's bounds. */
const money = (s: JsonSchema): fc.Arbitrary<number> => {
  const lowCents =
    s.exclusiveMinimum !== undefined
      ? Math.floor(s.exclusiveMinimum * 100) + 1
      : s.minimum !== undefined
        ? Math.ceil(s.minimum * 100)
        : 0;
  return fc.integer({ min: lowCents, max: Math.max(lowCents, 10_000_000) }).map((c) => c / 100);
};

export function schemaArbitrary(schema: unknown, hints: Hints = {}, key?: string): fc.Arbitrary<unknown> {
  const s = schema as JsonSchema;
  if (key !== undefined && hints[key] !== undefined) {
    // The hint is the likely case; the schema's own values keep the rest of the space reachable.
    return fc.oneof({ weight: 9, arbitrary: hints[key] }, { weight: 1, arbitrary: plain(s, hints) });
  }
  return plain(s, hints);
}

function plain(s: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  switch (s.type) {
    case 'string': {
      if (s.format === 'date') return calendarDate();
      if (s.format === 'utc-timestamp') {
        return fc
          .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
      const min = s.minLength ?? 0;
      return text(min, Math.max(min, Math.min(s.maxLength ?? 24, 24)));
    }
    case 'number':
      if (s.money === true) return money(s);
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: s.minimum ?? -1e12, max: s.maximum ?? 1e12 });
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 10_000_000 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 3, 3));
      return fc.array(schemaArbitrary(s.items, hints), { minLength, maxLength });
    }
    case 'object': {
      const props = s.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, sub] of Object.entries(props)) model[name] = schemaArbitrary(sub, hints, name);
      return fc.record(model, { requiredKeys: [...(s.required ?? [])] });
    }
  }
  throw new Error(`schemaArbitrary: unsupported schema ${JSON.stringify(s).slice(0, 200)}`);
}
