// A condition on a JSON document (a journaled request body, an inspection view), written in JSONPath
// and read as the stub mappings read it (runtime/jsonpath.ts: jsonpath-plus with its safe evaluator,
// Jayway's dialect). It holds when the expression selects at least one value, or, with
// `equals`, when one of the selected values equals that JSON value.
//
// A filter at the root (`$[?(@.total > 5)]`) applies to the document itself, as Jayway JsonPath and
// WireMock's matchesJsonPath read it.
//
// Numbers are compared by their exact decimal value, as equalToJson compares them (stubs/json-equal.ts):
// 10.00 equals 10 and 1E+1, and 12345678901234567890 is not 12345678901234567891 (a double would
// confuse them). Selected values keep the text the document wrote them with, so a miss shows 10.00 as
// it was sent.
import { sameDecimal } from '../domain/decimal.js';
import { DecimalText } from '../domain/money.js';
import { exactCopy } from '../http/exact-numbers.js';
import { parseJsonAsWritten } from '../http/json.js';
import { jsonPathExactQuery, jsonPathSyntaxProblem } from './jsonpath.js';

export interface Condition {
  jsonpath: string;
  /** When given: a selected value must equal it (JSON equality, numbers by their exact decimal value). */
  equals?: unknown;
}

export class ConditionError extends Error {
  override name = 'ConditionError';
}

/** Why `jsonpath` cannot be a condition's expression, or undefined when it can. */
export function jsonpathProblem(jsonpath: string): string | undefined {
  if (!jsonpath.startsWith('$')) return 'must be a JSONPath expression starting with $ (e.g. $.status)';
  const syntax = jsonPathSyntaxProblem(jsonpath);
  if (syntax !== undefined) return `is not a JSONPath expression: it ${syntax}`;
  try {
    select(jsonpath, {});
  } catch (err) {
    return `is not a JSONPath expression jsonpath-plus can evaluate: ${(err as Error).message}`;
  }
  return undefined;
}

/**
 * The values `jsonpath` selects in `doc` (read as the stub mappings read it), each number the document
 * wrote otherwise than its double as a DecimalText of that text; throws ConditionError when it cannot
 * be evaluated.
 */
export function select(jsonpath: string, doc: unknown): unknown[] {
  try {
    return jsonPathExactQuery(doc, jsonpath).map(exactCopy);
  } catch (err) {
    throw new ConditionError((err as Error).message);
  }
}

/**
 * `equals` given as text (a query parameter): the JSON value it reads as, its numbers as written
 * (a DecimalText where a double would change or respell one), or the text itself when it is no JSON.
 */
export function conditionValue(text: string): unknown {
  let value: unknown;
  try {
    value = parseJsonAsWritten(text);
  } catch {
    return text;
  }
  // A bare number has no holder to record its text by: it is kept whole (JSON.parse allowed only
  // JSON's white space around it).
  return typeof value === 'number' ? new DecimalText(text.trim()) : exactCopy(value);
}

/** A number's decimal text: a DecimalText's own, a double's shortest (the text it was read from). */
function decimalText(value: unknown): string | undefined {
  if (value instanceof DecimalText) return value.text;
  return typeof value === 'number' ? String(value) : undefined;
}

/**
 * Whether two JSON values are equal: numbers by their exact decimal value, strings, booleans and null
 * as themselves, arrays item by item in order, objects by the same keys in any order. Numbers a
 * double would change must be DecimalTexts (as select and conditionValue give them).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const x = decimalText(a);
  const y = decimalText(b);
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && sameDecimal(x, y);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((k) => Object.hasOwn(right, k) && sameJson(left[k], right[k]));
}

/** Whether `condition` holds for `doc`, with the values it selected (numbers as the document wrote them). */
export function evaluate(condition: Condition, doc: unknown): { holds: boolean; selected: unknown[] } {
  const selected = doc === undefined || doc === null ? [] : select(condition.jsonpath, doc);
  const holds =
    'equals' in condition && condition.equals !== undefined
      ? selected.some((v) => sameJson(v, condition.equals))
      : selected.length > 0;
  return { holds, selected };
}
