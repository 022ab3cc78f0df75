// A condition on a JSON document (a journaled request body, an inspection view), written in JSONPath
// and read as the stub mappings read it (runtime/jsonpath.ts: jsonpath-plus with its safe evaluator,
// Jayway's dialect). It holds when the expression selects at least one value, or, with
// `equals`, when one of the selected values equals that JSON value.
//
// A filter at the root (`$[?(@.total > 5)]`) applies to the document itself, as Jayway JsonPath and
// WireMock's matchesJsonPath read it.
import { isDeepStrictEqual } from 'node:util';
import { jsonPathQuery, jsonPathSyntaxProblem } from './jsonpath.js';

export interface Condition {
  jsonpath: string;
  /** When given: a selected value must equal it (deep equality of JSON values). */
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

/** The values `jsonpath` selects in `doc` (read as the stub mappings read it); throws ConditionError when it cannot be evaluated. */
export function select(jsonpath: string, doc: unknown): unknown[] {
  try {
    return jsonPathQuery(doc, jsonpath);
  } catch (err) {
    throw new ConditionError((err as Error).message);
  }
}

/** Whether `condition` holds for `doc`, with the values it selected. */
export function evaluate(condition: Condition, doc: unknown): { holds: boolean; selected: unknown[] } {
  const selected = doc === undefined || doc === null ? [] : select(condition.jsonpath, doc);
  const holds =
    'equals' in condition && condition.equals !== undefined
      ? selected.some((v) => isDeepStrictEqual(v, condition.equals))
      : selected.length > 0;
  return { holds, selected };
}
