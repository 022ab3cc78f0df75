// Mutations of a valid request: on the value tree (types swapped, fields dropped or added, huge
// strings, deep nesting, odd numbers, invalid base64, prototype keys) and on the bytes sent
// (truncated JSON, wrong content type, duplicate keys, invalid UTF-8, non-object bodies).
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = Array<string | number>;

/** Values that break types and limits: the edge cases a real client sends by mistake. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -0,
    1e308,
    -1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    0.1 + 0.2,
    1.005,
    -1,
    '',
    ' ',
    'NaN',
    'Infinity',
    '-0',
    '1e308',
    'null',
    'true',
    '0x1F',
    '2026-02-30',
    '2026-13-01',
    '9999-12-31',
    '0000-00-00',
    '\u0000',
    '\ud800',
    'é\u0301 😀 ﷽ \u202e',
    '<script>alert(1)</script>',
    "'; DROP TABLE bk_trade_bills; --",
    '../../etc/passwd',
    '%00',
    '===',
    'not base64!',
    'QUJD=', // bad padding
    'QQ',
    [],
    {},
    [null],
    { __proto__: null },
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double(),
  fc.integer(),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
);

export const weirdKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'é', '😀', '$ref'),
  fc.string({ maxLength: 12 }),
);

export const MUTATIONS = [
  'none',
  'swap-type',
  'drop-field',
  'add-field',
  'huge-string',
  'deep-nesting',
  'invalid-base64',
  'odd-number',
  'unicode',
  'proto-key',
  'truncate',
  'content-type',
  'duplicate-key',
  'invalid-utf8',
  'non-object',
  'empty-body',
  'number-overflow-text',
  // Values at the edges of what JSON and the schemas allow.
  'extreme-number',
  'control-chars',
  'lone-surrogate',
  'huge-array',
  'swap-type-at-depth',
] as const;
export type MutationKind = (typeof MUTATIONS)[number];

const COSTLY: readonly MutationKind[] = ['huge-string', 'deep-nesting', 'huge-array'];

export interface Mutation {
  kind: MutationKind;
  pick: number;
  value: unknown;
  key: string;
  cut: number;
  size: number;
  contentType: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  // About one case in four unmutated: valid requests exercise the success paths.
  // The costly kinds (a megabyte of text, 100 000 items, 10 000 levels) half as often as the rest.
  kind: fc.oneof(
    { weight: 12, arbitrary: fc.constant<MutationKind>('none') },
    { weight: (MUTATIONS.length - COSTLY.length) * 2, arbitrary: fc.constantFrom(...MUTATIONS.filter((k) => !COSTLY.includes(k))) },
    { weight: COSTLY.length, arbitrary: fc.constantFrom(...COSTLY) },
  ),
  pick: fc.nat(),
  value: weirdValue,
  key: weirdKey,
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  size: fc.constantFrom(1_000, 70_000, 1_000_000),
  contentType: fc.constantFrom(
    'text/plain',
    'application/xml',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/octet-stream',
    'application/json; charset=utf-16',
    'APPLICATION/JSON',
    'application/jsonx',
    'application/json-patch+json',
    '*/*',
    '',
  ),
});

/**
 * Numbers as JSON text of extreme magnitude, precision and sign: hundreds of digits, exponents past
 * the double range either way, -0, more decimals than a double keeps.
 */
export const EXTREME_NUMBERS = [
  '1e309',
  '-1e309',
  '1E+400',
  '4.9e-325',
  '-0',
  '-0.0',
  '0e0',
  '1E2',
  '1e-7',
  '9'.repeat(400),
  `-${'9'.repeat(400)}`,
  `1${'0'.repeat(308)}`,
  `0.${'0'.repeat(400)}1`,
  `1.${'0'.repeat(30)}1`,
  '123456789012345678901234567890',
  '9007199254740993',
  '-9007199254740993',
  '100.005',
  '0.1e1',
  '2147483648',
  '-2147483649',
] as const;

/** NUL and the other control characters, alone and inside text. */
export const CONTROL_STRINGS: readonly string[] = ['\u0000', 'a\u0000b', '\u0001', '\u0008', '\t', '\n', '\r\n', '\u001b[31m', '\u001f', '\u007f', '\u0085', 'IUD-1\u0000'];

/** Lone and reversed surrogates, as JSON escapes (JSON.stringify writes them escaped too). */
export const SURROGATE_TEXTS = ['"\\ud800"', '"\\udfff"', '"a\\ud83d"', '"\\ude00b"', '"\\udc00\\ud800"', '"\\ud800\\ud800"'];

/** Every path in the tree (objects and arrays included), root first. */
export function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  }
  return out;
}

function getAt(value: unknown, path: Path): unknown {
  let v = value;
  for (const p of path) v = (v as Record<string | number, unknown>)[p];
  return v;
}

/** Sets (or deletes, with `undefined`) the value at `path`; the root itself is returned replaced. */
function setAt(root: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (next === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    Object.defineProperty(parent, last, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

/** The body as sent: a JSON text or raw bytes, and the content type (null: no header). */
export interface Wire {
  payload: string | Buffer | undefined;
  contentType: string | null;
}

/** Applies a mutation to a copy of a valid body. */
export function mutateBody(valid: unknown, m: Mutation): Wire {
  const body: unknown = structuredClone(valid);
  const all = paths(body);
  const pickFrom = <T>(list: T[]): T | undefined => (list.length === 0 ? undefined : list[m.pick % list.length]);
  const json = (v: unknown): Wire => ({ payload: JSON.stringify(v), contentType: 'application/json' });
  const nonRoot = all.filter((p) => p.length > 0);
  const objects = all.filter((p) => {
    const v = getAt(body, p);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  });
  const strings = all.filter((p) => typeof getAt(body, p) === 'string');
  const numbers = all.filter((p) => typeof getAt(body, p) === 'number');

  switch (m.kind) {
    case 'none':
      return json(body);
    case 'swap-type': {
      const p = pickFrom(nonRoot) ?? [];
      return json(setAt(body, p, m.value));
    }
    case 'drop-field': {
      const p = pickFrom(nonRoot);
      return json(p ? setAt(body, p, undefined) : {});
    }
    case 'add-field': {
      const p = pickFrom(objects) ?? [];
      return json(setAt(body, [...p, m.key], m.value));
    }
    case 'huge-string': {
      const p = pickFrom(strings) ?? pickFrom(nonRoot) ?? [];
      return json(setAt(body, p, 'x'.repeat(m.size)));
    }
    case 'deep-nesting': {
      // Written as text: JSON.stringify itself would overflow the stack at these depths.
      const p = pickFrom(nonRoot) ?? [];
      const depth = m.size >= 1_000_000 ? 100_000 : m.size >= 70_000 ? 10_000 : 200;
      const text = JSON.stringify(setAt(body, p, 'DEEP-NESTING-HERE'));
      const deep = `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
      return { payload: text.replace('"DEEP-NESTING-HERE"', deep), contentType: 'application/json' };
    }
    case 'invalid-base64': {
      const p = pickFrom(strings) ?? [];
      const bad = ['%%%%', 'QUJD=', 'QQ', 'QUJD\nRA==', 'QUJ-_A==', 'Q U J D', '====', 'QUJDRA==QUJD'];
      return json(setAt(body, p, bad[m.pick % bad.length]));
    }
    case 'odd-number': {
      const p = pickFrom(numbers) ?? pickFrom(nonRoot) ?? [];
      const odd = [1e308, -1e308, -0, 5e-324, 0.1 + 0.2, 1.005, 123456789012345.67, 2 ** 53 + 1, 'NaN', '1e308'];
      return json(setAt(body, p, odd[m.pick % odd.length]));
    }
    case 'unicode': {
      const p = pickFrom(strings) ?? [];
      const odd = ['\u0000', '\ud800', '\udfff\ud800', 'é\u0301', '😀'.repeat(50), '\u202eevil', 'ﬀ', '\u2028\u2029'];
      return json(setAt(body, p, odd[m.pick % odd.length]));
    }
    case 'proto-key': {
      // JSON.stringify never writes __proto__ from a literal: splice it into the text.
      const text = JSON.stringify(body);
      const inject = ['"__proto__":{"polluted":1}', '"constructor":{"prototype":{"polluted":1}}'][m.pick % 2];
      const at = text.startsWith('{') ? 1 : 0;
      const sep = text === '{}' || !text.startsWith('{') ? '' : ',';
      return { payload: `${text.slice(0, at)}${inject}${sep}${text.slice(at)}`, contentType: 'application/json' };
    }
    case 'truncate': {
      const text = JSON.stringify(body);
      return { payload: text.slice(0, Math.floor(m.cut * text.length)), contentType: 'application/json' };
    }
    case 'content-type':
      return { payload: JSON.stringify(body), contentType: m.contentType || null };
    case 'duplicate-key': {
      const text = JSON.stringify(body);
      const first = Object.keys((body ?? {}) as object)[0];
      if (!first || !text.startsWith('{')) return json(body);
      return { payload: `{"${first}":${JSON.stringify(m.value) ?? 'null'},${text.slice(1)}`, contentType: 'application/json' };
    }
    case 'invalid-utf8': {
      const text = Buffer.from(JSON.stringify(body), 'utf8');
      const at = Math.floor(m.cut * text.length);
      return {
        payload: Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), text.subarray(at)]),
        contentType: 'application/json',
      };
    }
    case 'non-object': {
      const tops = ['[]', 'null', '"text"', '0', 'true', JSON.stringify([body]), '{}'];
      return { payload: tops[m.pick % tops.length], contentType: 'application/json' };
    }
    case 'empty-body':
      return { payload: m.pick % 2 === 0 ? '' : undefined, contentType: 'application/json' };
    case 'extreme-number': {
      // Written as text: most of these have no double that JSON.stringify would write back.
      const p = pickFrom(numbers) ?? pickFrom(nonRoot) ?? [];
      const text = JSON.stringify(setAt(body, p, 424242.4242));
      const raw = EXTREME_NUMBERS[m.pick % EXTREME_NUMBERS.length] ?? '1e309';
      return { payload: text.replace('424242.4242', raw), contentType: 'application/json' };
    }
    case 'control-chars': {
      const p = pickFrom(strings) ?? pickFrom(nonRoot) ?? [];
      return json(setAt(body, p, CONTROL_STRINGS[m.pick % CONTROL_STRINGS.length]));
    }
    case 'lone-surrogate': {
      const p = pickFrom(strings) ?? pickFrom(nonRoot) ?? [];
      const text = JSON.stringify(setAt(body, p, 'LONE-SURROGATE-HERE'));
      return { payload: text.replace('"LONE-SURROGATE-HERE"', SURROGATE_TEXTS[m.pick % SURROGATE_TEXTS.length] ?? '"\\ud800"'), contentType: 'application/json' };
    }
    case 'huge-array': {
      // 100 000 items where the schema has an array or a scalar: scalars of each JSON type, never
      // objects (100 000 empty registry documents would be a valid, and slow, batch).
      const p = pickFrom(nonRoot) ?? [];
      const item = ['0', 'null', '"x"', 'true', '1e309'][m.pick % 5] ?? '0';
      const text = JSON.stringify(setAt(body, p, 'HUGE-ARRAY-HERE'));
      return { payload: text.replace('"HUGE-ARRAY-HERE"', `[${`${item},`.repeat(99_999)}${item}]`), contentType: 'application/json' };
    }
    case 'swap-type-at-depth': {
      // A wrong type at a chosen depth (1 is a top-level field), so every depth is reached.
      const deepest = Math.max(0, ...nonRoot.map((q) => q.length));
      const depth = deepest === 0 ? 0 : 1 + (m.pick % deepest);
      const atDepth = nonRoot.filter((q) => q.length === depth);
      const p = pickFrom(atDepth) ?? [];
      const current = getAt(body, p);
      const wrong =
        typeof current === 'string' ? 1 : typeof current === 'number' ? String(current) : typeof current === 'boolean' ? 'true' : Array.isArray(current) ? {} : current === null ? 0 : [];
      return json(setAt(body, p, wrong));
    }
    case 'number-overflow-text': {
      // 1e400 parses to Infinity; JSON.stringify could never write it.
      const p = pickFrom(numbers);
      if (!p) return { payload: JSON.stringify(body).replace(/^\{/, '{"n":1e400,'), contentType: 'application/json' };
      const text = JSON.stringify(setAt(body, p, 424242.4242));
      return { payload: text.replace('424242.4242', ['1e400', '-1e400', '1E-400', '-0.0'][m.pick % 4] ?? '1e400'), contentType: 'application/json' };
    }
  }
}

/** A query-string value mutated the same way, as text. */
export function mutateQueryValue(m: Mutation): string {
  const odd = [
    '',
    'NaN',
    '-0',
    '1e308',
    '0',
    '-1',
    '1.5',
    '0x10',
    '%zz',
    '%00',
    'true',
    '[]',
    '%E0%A4%A',
    '😀',
    'x'.repeat(m.size),
    // Numbers of extreme magnitude, precision and sign, as a client would write them.
    ...EXTREME_NUMBERS.map(encodeURIComponent),
    '%2B1',
    `${'0'.repeat(300)}1`,
    // Control characters and a lone surrogate, percent-encoded (the only way into a query).
    '%01',
    '%1F',
    '%7F',
    '1%00',
    '%ED%A0%80',
    '%C0%80',
  ];
  return odd[m.pick % odd.length] ?? '';
}
