// Ajv set up for a sandbox that must refuse what the real service would refuse: bodies are
// validated as sent (no stripping of unknown fields, no type coercion, every problem reported);
// only query strings and path parameters, which are text on the wire, are coerced.
import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { isCalendarDate, isUtcTimestamp } from '../domain/dates.js';
import { centsFromText, MONEY_MESSAGES, type MoneyProblem, moneyProblem } from '../domain/money.js';
import { type ErrorDetail, pointer } from './errors.js';
import { exactNumbersOf, exactText } from './exact-numbers.js';

/** At most this many details in one error body: a 10 000-item array of mistakes stays readable. */
export const MAX_DETAILS = 100;

const FORMAT_MESSAGES: Record<string, string> = {
  date: 'must be a real calendar date written YYYY-MM-DD',
  'utc-timestamp': 'must be an ISO 8601 UTC timestamp such as 2026-11-01T10:00:00Z',
};

/** Ajv's `money` keyword: from the number's text where its double would change it (http/exact-numbers.ts). */
const checkMoney: SchemaValidateFunction = (_schema, data: number, _parent, cxt) => {
  const text = cxt ? exactText(cxt.parentData, cxt.parentDataProperty) : undefined;
  const problem: MoneyProblem | undefined = text === undefined ? moneyProblem(data) : centsFromText(text).problem;
  if (problem === undefined) return true;
  checkMoney.errors = [{ keyword: 'money', message: MONEY_MESSAGES[problem], params: { problem } }];
  return false;
};

function createAjv(options: Options): Ajv {
  // validateSchema: the route schemas are the sandbox's own and checked against the JSON Schema
  // meta-schema once, in the served document (test/openapi/schemas.test.ts); checking them at each first
  // compile was most of that compile, a pause every request waits out (strict mode still refuses an
  // unknown keyword or type when compiling).
  const ajv = new Ajv({ strict: true, strictTypes: false, strictTuples: false, validateSchema: false, ...options });
  ajv.addKeyword({ keyword: 'x-sandbox-assumption', schemaType: 'string' });
  // OpenAPI-only annotations that may appear in the TypeBox schemas.
  ajv.addKeyword({ keyword: 'example' });
  ajv.addKeyword({
    keyword: 'money',
    type: 'number',
    schemaType: 'boolean',
    errors: true,
    validate: checkMoney,
  });
  ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
  ajv.addFormat('utc-timestamp', { type: 'string', validate: isUtcTimestamp });
  return ajv;
}

export const bodyAjv = createAjv({
  allErrors: true,
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: false,
});
export const textAjv = createAjv({
  allErrors: true,
  removeAdditional: false,
  coerceTypes: true,
  useDefaults: true,
});

/**
 * Fastify's validator compiler: strict for bodies, coercing for the text parts of a request.
 * Compiling every schema of every route is most of the sandbox's start-up time, so each validator
 * is compiled on its first use (a few milliseconds once per route); a route nobody calls costs nothing.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const fields = httpPart === 'body' ? [] : textFields(schema);
  let compiled: ValidateFunction | undefined;
  // Headers are read from a copy: the request keeps them as sent (the journal shows "True", not true).
  const copied = httpPart === 'headers' && fields.length > 0;
  const validate = (sent: unknown): boolean => {
    compiled ??= ajv.compile(schema as object);
    const data = copied && typeof sent === 'object' && sent !== null ? { ...sent } : sent;
    const refused = fields.length > 0 ? readText(fields, data) : null;
    const ok = compiled(data);
    const own = statingRanges(schema, compiled.errors);
    validate.errors = own;
    if (refused) {
      // Every parameter's problem in one answer: Ajv's for the others, beside those read here.
      const paths = new Set(refused.map((e) => e.instancePath));
      validate.errors = [...refused, ...(own ?? []).filter((e) => !paths.has(e.instancePath))];
      return false;
    }
    if (httpPart !== 'body') return ok;
    const errors = withExactNumbers(data, own);
    if (errors === own) return ok;
    validate.errors = errors;
    return errors === null;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

/**
 * Validates a parsed body with a compiled body validator: its schema, then every number a double
 * would change that no money field read (http/exact-numbers.ts). The errors, or null when valid.
 */
export function validateBody(validate: ValidateFunction, data: unknown): ErrorObject[] | null {
  validate(data);
  return statingRanges(validate.schema, withExactNumbers(data, validate.errors)) ?? null;
}

/** A number's bounds as a refusal says them: the whole range when there are both. */
export function rangeText(minimum: number | undefined, maximum: number | undefined): string {
  if (minimum !== undefined && maximum !== undefined) return `must be from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `must be >= ${minimum}`;
  return maximum !== undefined ? `must be <= ${maximum}` : 'is out of the range of numbers';
}

/**
 * Ajv's refusal of a number past one bound says that bound only ("must be <= 100"); where the schema
 * gives both, the refusal states the range ("must be from 1 to 100"). The schema node is found by the
 * error's schema path; one that cannot be found (behind a $ref) keeps Ajv's words.
 */
export function statingRanges<E extends ErrorObject[] | null | undefined>(root: unknown, errors: E): E {
  if (!errors || !errors.some((e) => e.keyword === 'minimum' || e.keyword === 'maximum')) return errors;
  return errors.map((e) => {
    if (e.keyword !== 'minimum' && e.keyword !== 'maximum') return e;
    let node: unknown = root;
    for (const segment of e.schemaPath.split('/').slice(1, -1)) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    const { minimum, maximum } = (node ?? {}) as { minimum?: unknown; maximum?: unknown };
    if (typeof minimum !== 'number' || typeof maximum !== 'number') return e;
    return { ...e, message: rangeText(minimum, maximum) };
  }) as E;
}

/** Comparisons of a number with a bound: untrue of a number the double lost (its stand-in was compared). */
const COMPARISONS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);

/**
 * A body's schema errors with its numbers a double would change taken into account: a refusal for
 * each that no money field read and where the schema found nothing else, and no comparison of a
 * number the double lost altogether (http/exact-numbers.ts). `errors` itself when the body has no
 * such number (every body on the hot path: nothing is allocated).
 */
function withExactNumbers(data: unknown, errors: ValidateFunction['errors']): ValidateFunction['errors'] {
  const numbers = exactNumbersOf(data);
  if (numbers === undefined) return errors;
  const lost = new Set(numbers.filter((n) => n.lost).map((n) => n.pointer));
  const kept = (errors ?? []).filter((e) => !(lost.has(e.instancePath) && COMPARISONS.has(e.keyword)));
  const refused = new Set(kept.map((e) => e.instancePath));
  const inexact = numbers.filter((n) => n.changed && !n.read && !refused.has(n.pointer)).map((n) => refusal(n.pointer, 'exact', inexactMessage(n.text)));
  const all = [...kept, ...inexact];
  return all.length > 0 ? all : null;
}

/** Why a number outside money is refused: what a double makes of it. */
function inexactMessage(text: string): string {
  const value = Number(text);
  if (!Number.isFinite(value))
    return `is ${text}, beyond the largest number a double holds (about 1.8e308): it would be read as ${value > 0 ? '' : '-'}Infinity`;
  if (value === 0) return `is ${text}, nearer to 0 than the smallest number a double holds (about 5e-324): it would be read as 0`;
  return `is ${text}, which has more significant digits than the sandbox keeps exactly (a JSON number is read as a double: 15 digits are always kept, and integers up to ${Number.MAX_SAFE_INTEGER}); it would be read as ${String(value)}`;
}

interface TextField {
  name: string;
  /** Its JSON pointer, made once: the parameters are read on every request. */
  path: string;
  /** How its text is read before Ajv sees it: as a number, a boolean, or left to Ajv. */
  kind: 'integer' | 'number' | 'boolean' | 'other';
  /** A list (an array schema), which may be given more than once. */
  list: boolean;
  /** What a value out of a double's reach is told. */
  range: string;
}

/** The top-level properties of a query or path schema, with how each is read. */
function textFields(schema: unknown): TextField[] {
  type Property = { type?: unknown; minimum?: number; maximum?: number };
  const properties = (schema as { properties?: Record<string, Property> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties).map(([name, p]): TextField => {
    const kind = p.type === 'integer' || p.type === 'number' || p.type === 'boolean' ? p.type : 'other';
    return {
      name,
      path: pointer(name),
      kind,
      list: p.type === 'array',
      range: rangeText(p.minimum, p.maximum),
    };
  });
}

const INTEGER_TEXT = /^[+-]?\d+$/;
/** The words of a boolean query value (assumption query-booleans), matched without regard to case. */
const BOOLEAN_TEXT = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

/**
 * A boolean written as text (a query value, the Sandbox-Strict header): true, false, 1 or 0 in any
 * case; undefined for anything else (assumption query-booleans). The one reading of such a value.
 */
export function readBoolean(text: string): boolean | undefined {
  return BOOLEAN_TEXT.get(text.toLowerCase());
}
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a query string's or path's values before Ajv sees them, refusing each parameter's problem
 * (every one, beside Ajv's for the others: the caller merges them):
 * - a parameter that is not a list given more than once (page=1&page=2), whatever its type;
 * - a boolean read as true, false, 1 or 0 in any case (what Python's and .NET's clients send for
 *   True is "True"), anything else refused naming the words (assumption query-booleans);
 * - a number read as decimal text: Ajv's own coercion takes `0x10`, ` 5` and `1e400` (Infinity)
 *   for numbers, and a value too large for a double reached SQLite as a non-integer. A value that is
 *   not decimal text, or that no double holds exactly, is refused naming the parameter; a good one
 *   is handed to Ajv as a number.
 * Null when nothing is refused (nothing allocated: the extract reads its query on every request).
 */
function readText(fields: readonly TextField[], data: unknown): ErrorObject[] | null {
  if (typeof data !== 'object' || data === null) return null;
  const values = data as Record<string, unknown>;
  let refused: ErrorObject[] | null = null;
  for (const field of fields) {
    const { name, path, kind, range } = field;
    const text = values[name];
    let problem: ErrorObject | undefined;
    if (Array.isArray(text)) {
      if (!field.list) problem = refusal(path, 'repeated', 'is given more than once: give it once');
    } else if (typeof text !== 'string' || kind === 'other') continue;
    else if (kind === 'boolean') {
      const value = readBoolean(text);
      if (value === undefined) problem = refusal(path, 'boolean', `must be true or false (in any case, or 1 or 0), got "${text.slice(0, 40)}"`);
      else values[name] = value;
    } else {
      const integer = kind === 'integer';
      const value = Number(text);
      if (!(integer ? INTEGER_TEXT : NUMBER_TEXT).test(text))
        problem = refusal(path, kind, `must be ${integer ? 'an integer' : 'a number'} written in decimal digits`);
      else if (integer ? !Number.isSafeInteger(value) : !Number.isFinite(value)) problem = refusal(path, 'range', range);
      else values[name] = value;
    }
    if (problem) (refused ??= []).push(problem);
  }
  return refused;
}

function refusal(instancePath: string, keyword: string, message: string): ErrorObject {
  return { instancePath, schemaPath: '#/properties', keyword, params: {}, message };
}

const PART_LABEL: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/** What one branch of a union accepts, as a message names it; undefined when it cannot say in a few words. */
function alternative(e: ErrorObject): string | undefined {
  switch (e.keyword) {
    case 'const':
      return JSON.stringify(e.params.allowedValue);
    case 'enum':
      return (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(' or ');
    case 'type': {
      const type = String(e.params.type);
      return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
    }
    default:
      return undefined;
  }
}

/**
 * Ajv reports a value no branch of a union accepts as one error per branch plus one for the union
 * ("must be equal to constant", "must be object", "must match a schema in anyOf"). When every branch
 * failed on the value itself for a reason that fits in a few words, they become one problem naming
 * what the value may be: `must be "default" or an object`. Otherwise, when the value is of the type
 * of exactly one branch (every other branch refused its type), that branch's errors are the problems
 * and the others' are dropped: a 65-character token of a `string | null` field is "too long", not
 * also "must be null". This is the one place Ajv errors become problems: callers count them here.
 */
export function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  if (!errors.some((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) return [...errors];
  const dropped = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, ErrorObject>();
  for (const union of errors) {
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') continue;
    const branches = errors.filter((e) => e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`));
    // One name per branch (its index follows the union's path): a constant or a list of values says
    // more than the type it shares with them ("default" rather than a string).
    const byBranch = new Map<string, ErrorObject[]>();
    for (const e of branches) {
      const branch = e.schemaPath.slice(union.schemaPath.length + 1).split('/')[0] ?? '';
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
    }
    const nameOf = (own: ErrorObject[]) => {
      if (own.some((e) => e.instancePath !== union.instancePath || alternative(e) === undefined)) return undefined;
      const best = own.find((e) => e.keyword !== 'type') ?? own[0];
      return best && alternative(best);
    };
    const names = [...byBranch.values()].map(nameOf);
    if (branches.length === 0) continue;
    if (names.some((n) => n === undefined)) {
      // The branch of the value's type, when only one is: its own errors say what is wrong.
      const wrongType = (own: ErrorObject[]) => own.some((e) => e.keyword === 'type' && e.instancePath === union.instancePath);
      const ofItsType = [...byBranch.values()].filter((own) => !wrongType(own));
      if (ofItsType.length !== 1 || byBranch.size < 2) continue;
      const kept = new Set(ofItsType[0]);
      dropped.add(union);
      for (const e of branches) if (!kept.has(e)) dropped.add(e);
      continue;
    }
    for (const e of branches) dropped.add(e);
    replaced.set(union, { ...union, message: `must be ${[...new Set(names)].join(' or ')}` });
  }
  return errors.filter((e) => !dropped.has(e)).map((e) => replaced.get(e) ?? e);
}

/**
 * The problems other checks found in a request whose schema refused the fields at `refused`, less
 * those about a refused field or a part of one: its schema problem says what is wrong with it.
 */
export function besideRefused(refused: readonly ErrorDetail[], found: readonly ErrorDetail[]): ErrorDetail[] {
  const paths = refused.map((d) => d.path);
  return found.filter((d) => !paths.some((p) => d.path === p || d.path.startsWith(`${p}/`)));
}

/** Ajv errors -> one detail per problem, each with the JSON pointer of the field at fault. */
export function detailsFromAjv(raw: readonly ErrorObject[], context = 'body'): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  const errors = collapseAlternatives(raw);
  for (const e of errors) {
    let path = e.instancePath;
    let message: string;
    switch (e.keyword) {
      case 'required':
        path += pointer(String(e.params.missingProperty));
        message = 'is required';
        break;
      case 'additionalProperties':
        path += pointer(String(e.params.additionalProperty));
        message = 'is not a documented field: unknown fields are refused';
        break;
      case 'type':
        message = `must be ${String(e.params.type)}`;
        break;
      case 'enum':
        message = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
        break;
      case 'money':
      case 'exact':
        message = e.message ?? 'is invalid';
        break;
      case 'format':
        message = FORMAT_MESSAGES[String(e.params.format)] ?? e.message ?? 'is invalid';
        break;
      default:
        message = e.message ?? 'is invalid';
    }
    if (context !== 'body') {
      const name = path.slice(1) || '(all)';
      message = `${PART_LABEL[context] ?? context} ${name} ${message}`;
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ path, message });
    if (details.length >= MAX_DETAILS) break;
  }
  return details;
}
