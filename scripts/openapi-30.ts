// The OpenAPI 3.0.3 rendition of the served 3.1 document (GET /openapi-3.0.json), for client generators
// that read 3.0 only or best (openapi-generator for Java and C#, openapi-python-client). The 3.1 document
// stays the one source: @apiture/openapi-down-convert does the conversion it knows (the version, `$ref`
// with siblings wrapped in `allOf` so the x-sandbox-assumption marks stay, `examples` -> `example`,
// `const` -> `enum`, two-member `type` arrays -> `nullable`, content keywords -> `format`); this module
// adds the two 3.1 forms the route schemas use that the converter leaves as they are, so the result is
// a valid 3.0 document (docs/openapi.md).
import { Converter } from '@apiture/openapi-down-convert';

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const isNull = (v: unknown): boolean => isObject(v) && v.type === 'null' && Object.keys(v).length === 1;

/** Keywords whose values are data, not schemas, never rewritten; so are the x- extensions. */
const DATA = new Set(['example', 'examples', 'default', 'enum']);

/** Keywords whose values map names to objects: a name there is not a keyword (a property may be called `default`). */
const NAMES = new Set(['properties', 'paths', 'schemas', 'responses', 'content', 'headers', 'securitySchemes', 'requestBodies']);

/**
 * `anyOf: [X, {type: 'null'}]` (TypeBox's Union with Null) becomes X with `nullable: true`: 3.0 has no
 * null type. The place of use keeps its own annotations (description, marks) over X's. A `$ref` X
 * becomes `allOf: [X]` beside `nullable`, since a reference takes no siblings in 3.0.
 */
function nullableAnyOf(node: Schema): Schema {
  const members = node.anyOf;
  if (!Array.isArray(members) || !members.some(isNull)) return node;
  const rest = members.filter((m) => !isNull(m));
  const { anyOf: _anyOf, ...place } = node;
  if (rest.length !== 1) {
    // 3.0 wants a `type` beside `nullable`: a union of literals of one type is that type's enum.
    const types = new Set(rest.map((m) => m.type));
    const [type] = types;
    if (types.size !== 1 || typeof type !== 'string') return { ...place, anyOf: rest, nullable: true };
    const literals = rest.every((m) => Array.isArray(m.enum) && Object.keys(m).every((k) => k === 'type' || k === 'enum'));
    // null stays among the enum's values: 3.0.3 checks `enum` before `nullable`.
    if (literals) return { ...place, type, enum: [...rest.flatMap((m) => m.enum as unknown[]), null], nullable: true };
    return { ...place, type, anyOf: rest, nullable: true };
  }
  const [only] = rest as [Schema];
  if (typeof only.$ref === 'string') return { ...place, allOf: [only], nullable: true };
  return { ...only, ...place, nullable: true };
}

/** A numeric `exclusiveMinimum`/`exclusiveMaximum` (2020-12) becomes the bound with a boolean flag (draft 4). */
function exclusiveBounds(node: Schema): Schema {
  const out = { ...node };
  if (typeof out.exclusiveMinimum === 'number') {
    out.minimum = out.exclusiveMinimum;
    out.exclusiveMinimum = true;
  }
  if (typeof out.exclusiveMaximum === 'number') {
    out.maximum = out.exclusiveMaximum;
    out.exclusiveMaximum = true;
  }
  return out;
}

function finish(node: unknown, key?: string): unknown {
  if (key !== undefined && (DATA.has(key) || key.startsWith('x-'))) return node;
  if (Array.isArray(node)) return node.map((n) => finish(n));
  if (!isObject(node)) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = NAMES.has(k) && isObject(v) ? Object.fromEntries(Object.entries(v).map(([name, n]) => [name, finish(n)])) : finish(v, k);
  }
  return exclusiveBounds(nullableAnyOf(out));
}

/** The 3.0.3 rendition of a 3.1 document built by registerOpenApi; the input is left unchanged. */
export function toOpenApi30(document: object): Schema {
  const converted = new Converter(document, { allOfTransform: true }).convert();
  return finish(converted) as Schema;
}
