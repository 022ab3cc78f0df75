// Ajv set up for a sandbox that must refuse what the real service would refuse: bodies are
// validated as sent (no stripping of unknown fields, no type coercion, every problem reported);
// only query strings and path parameters, which are text on the wire, are coerced.
import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { isCalendarDate, isUtcTimestamp } from '../domain/dates.js';
import { centsFromText, MONEY_MESSAGES, type MoneyProblem, moneyProblem } from '../domain/money.js';
import { type ErrorDetail, pointer } from './errors.js';
import { exactText, unreadExactNumbers } from './exact-numbers.js';

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
  const numeric = httpPart === 'body' ? [] : numericFields(schema);
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= ajv.compile(schema as object);
    const refused = numeric.length > 0 ? readNumbers(numeric, data) : null;
    if (refused) {
      validate.errors = refused;
      return false;
    }
    const ok = compiled(data);
    validate.errors = compiled.errors;
    if (httpPart !== 'body') return ok;
    const inexact = inexactErrors(data, compiled.errors);
    if (inexact.length === 0) return ok;
    validate.errors = [...(compiled.errors ?? []), ...inexact];
    return false;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

/**
 * Validates a parsed body with a compiled body validator: its schema, then every number a double
 * would change that no money field read (http/exact-numbers.ts). The errors, or null when valid.
 */
export function validateBody(validate: ValidateFunction, data: unknown): ErrorObject[] | null {
  const ok = validate(data);
  const inexact = inexactErrors(data, validate.errors);
  if (ok && inexact.length === 0) return null;
  return [...(validate.errors ?? []), ...inexact];
}

/** A refusal for each number a double would change, outside money and where the schema found nothing else. */
function inexactErrors(data: unknown, errors: ValidateFunction['errors']): ErrorObject[] {
  const unread = unreadExactNumbers(data);
  if (unread.length === 0) return [];
  const refused = new Set((errors ?? []).map((e) => e.instancePath));
  return unread
    .filter((n) => !refused.has(n.pointer))
    .map((n) =>
      refusal(
        n.pointer,
        'exact',
        `is ${n.text}, which has more significant digits than the sandbox keeps exactly (a JSON number is read as a double: 15 digits are always kept, and integers up to ${Number.MAX_SAFE_INTEGER}); it would be read as ${String(Number(n.text))}`,
      ),
    );
}

interface NumericField {
  name: string;
  integer: boolean;
  /** A boolean (read from its own words, see readNumbers) rather than a number. */
  boolean?: true;
  /** What a value out of a double's reach is told. */
  range: string;
}

/** The top-level integer, number and boolean properties of a query or path schema. */
function numericFields(schema: unknown): NumericField[] {
  type Property = { type?: unknown; minimum?: number; maximum?: number };
  const properties = (schema as { properties?: Record<string, Property> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, p]) => p.type === 'integer' || p.type === 'number' || p.type === 'boolean')
    .map(([name, p]): NumericField => {
      if (p.type === 'boolean') return { name, integer: false, boolean: true, range: '' };
      const bounds = [
        p.minimum === undefined ? undefined : `>= ${p.minimum}`,
        p.maximum === undefined ? undefined : `<= ${p.maximum}`,
      ].filter((b) => b !== undefined);
      return {
        name,
        integer: p.type === 'integer',
        range: bounds.length > 0 ? `must be ${bounds.join(' and ')}` : 'is out of the range of numbers',
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
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a boolean value as true, false, 1 or 0 in any case (what Python's and .NET's clients send
 * for True is "True"), anything else refused naming the words (assumption query-booleans).
 * Reads the numeric values of a query string or path as decimal text, before Ajv sees them: Ajv's
 * own coercion takes `0x10`, ` 5` and `1e400` (Infinity) for numbers, and a value too large for a
 * double reached SQLite as a non-integer. A value that is not decimal text, or that no double holds
 * exactly, is refused here naming the parameter; a good one is handed to Ajv as a number.
 */
function readNumbers(fields: readonly NumericField[], data: unknown): ErrorObject[] | null {
  if (typeof data !== 'object' || data === null) return null;
  const values = data as Record<string, unknown>;
  for (const field of fields) {
    const { name, integer, range } = field;
    const text = values[name];
    const instancePath = pointer(name);
    if (Array.isArray(text)) return [refusal(instancePath, 'repeated', 'is given more than once: give it once')];
    if (typeof text !== 'string') continue;
    if (field.boolean) {
      const value = BOOLEAN_TEXT.get(text.toLowerCase());
      if (value === undefined)
        return [refusal(instancePath, 'boolean', `must be true or false (in any case, or 1 or 0), got "${text.slice(0, 40)}"`)];
      values[name] = value;
      continue;
    }
    if (!(integer ? INTEGER_TEXT : NUMBER_TEXT).test(text))
      return [refusal(instancePath, integer ? 'integer' : 'number', `must be ${integer ? 'an integer' : 'a number'} written in decimal digits`)];
    const value = Number(text);
    if (integer ? !Number.isSafeInteger(value) : !Number.isFinite(value))
      return [refusal(instancePath, 'range', range)];
    values[name] = value;
  }
  return null;
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
 * what the value may be: `must be "default" or an object`. Callers count problems on this list.
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
    if (branches.length === 0 || names.some((n) => n === undefined)) continue;
    for (const e of branches) dropped.add(e);
    replaced.set(union, { ...union, message: `must be ${[...new Set(names)].join(' or ')}` });
  }
  return errors.filter((e) => !dropped.has(e)).map((e) => replaced.get(e) ?? e);
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
