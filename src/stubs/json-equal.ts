// WireMock's equalToJson: the body is JSON equal to the expected value, numbers compared by value
// (1 equals 1.0), with JsonUnit's placeholders in the expected value (${json-unit.any-string},
// ${json-unit.any-number}, ${json-unit.any-boolean}, ${json-unit.ignore}, ${json-unit.ignore-element},
// ${json-unit.regex}<expression>) and WireMock's two options: ignoreArrayOrder, and
// ignoreExtraElements (fields and array items beyond the expected ones). JsonUnit is a Java library;
// no JavaScript one reads its placeholders, hence this code. It answers the first difference, for
// the near-miss sentence, or null when equal.
import { pointer } from '../http/errors.js';
import { isRedactedKey, REDACTED } from '../runtime/redact.js';
import { type UserRegex, userRegex } from '../runtime/user-regex.js';

export interface JsonEqualOptions {
  ignoreArrayOrder: boolean;
  ignoreExtraElements: boolean;
}

const PLACEHOLDER = /^\$\{json-unit\.([a-z-]+)\}(.*)$/s;

/** Arrays this long or longer are matched in any order greedily (each item to its first equal one). */
const EXHAUSTIVE_LIMIT = 64;

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** A value of the request as a reason may quote it: never under a secret's key (token, documento...). */
function quoted(value: unknown, at: string): string {
  if (value === undefined) return 'nothing';
  const secret = at.split('/').some((segment) => isRedactedKey(segment.replace(/~1/g, '/').replace(/~0/g, '~')));
  return secret ? REDACTED : show(value);
}

/** Checks a placeholder's own rule; undefined when `expected` is no placeholder. */
function placeholder(expected: string, actual: unknown, at: string): string | null | undefined {
  const m = PLACEHOLDER.exec(expected);
  if (!m) return undefined;
  const [, name, rest] = m;
  switch (name) {
    case 'ignore':
    case 'ignore-element':
      return null;
    case 'any-string':
      return typeof actual === 'string' ? null : `${at || '/'}: expected any string, got ${kind(actual)}`;
    case 'any-number':
      return typeof actual === 'number' ? null : `${at || '/'}: expected any number, got ${kind(actual)}`;
    case 'any-boolean':
      return typeof actual === 'boolean' ? null : `${at || '/'}: expected any boolean, got ${kind(actual)}`;
    case 'regex': {
      if (typeof actual !== 'string') return `${at || '/'}: expected a string matching ${rest}, got ${kind(actual)}`;
      let re: UserRegex;
      try {
        re = userRegex(rest ?? '');
      } catch {
        return `${at || '/'}: the placeholder's regular expression ${rest} does not compile`;
      }
      return re.matchesWhole(actual) ? null : `${at || '/'}: ${quoted(actual, at)} does not match ${rest}`;
    }
    default:
      return undefined;
  }
}

/** The first difference between `expected` and `actual` under the options, or null when they are equal. */
export function jsonDifference(expected: unknown, actual: unknown, options: JsonEqualOptions, at = ''): string | null {
  if (typeof expected === 'string') {
    const p = placeholder(expected, actual, at);
    if (p !== undefined) return p;
  }
  if (expected === null || typeof expected !== 'object') {
    if (typeof expected === 'number' && typeof actual === 'number') {
      return expected === actual ? null : `${at || '/'}: expected ${expected}, got ${quoted(actual, at)}`;
    }
    return expected === actual ? null : `${at || '/'}: expected ${show(expected)}, got ${quoted(actual, at)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at || '/'}: expected an array, got ${kind(actual)}`;
    return arrayDifference(expected, actual, options, at);
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${at || '/'}: expected an object, got ${kind(actual)}`;
  const got = actual as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected as Record<string, unknown>)) {
    const here = `${at}${pointer(key)}`;
    if (!Object.prototype.hasOwnProperty.call(got, key)) {
      if (typeof value === 'string' && /^\$\{json-unit\.ignore-element\}$/.test(value)) continue;
      return `${here}: expected ${show(value)}, the field is missing`;
    }
    const difference = jsonDifference(value, got[key], options, here);
    if (difference !== null) return difference;
  }
  if (!options.ignoreExtraElements) {
    const extra = Object.keys(got).find((key) => !Object.prototype.hasOwnProperty.call(expected, key));
    if (extra !== undefined) return `${at}${pointer(extra)}: a field the expected JSON does not have (ignoreExtraElements allows it)`;
  }
  return null;
}

function arrayDifference(expected: unknown[], actual: unknown[], options: JsonEqualOptions, at: string): string | null {
  if (actual.length < expected.length || (!options.ignoreExtraElements && actual.length !== expected.length)) {
    return `${at || '/'}: expected ${expected.length} item${expected.length === 1 ? '' : 's'}, got ${actual.length}`;
  }
  if (!options.ignoreArrayOrder) {
    for (let i = 0; i < expected.length; i++) {
      const difference = jsonDifference(expected[i], actual[i], options, `${at}/${i}`);
      if (difference !== null) return difference;
    }
    return null;
  }
  // Any order: each expected item needs an equal actual item of its own (a bipartite matching).
  const equal = (i: number, j: number) => jsonDifference(expected[i], actual[j], options, '') === null;
  const owner: Array<number | undefined> = new Array(actual.length);
  const exhaustive = expected.length < EXHAUSTIVE_LIMIT && actual.length < EXHAUSTIVE_LIMIT;
  const place = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < actual.length; j++) {
      if (seen[j] || !equal(i, j)) continue;
      seen[j] = true;
      const current = owner[j];
      if (current === undefined || (exhaustive && place(current, seen))) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < expected.length; i++) {
    if (!place(i, new Array(actual.length).fill(false))) {
      return `${at}/${i}: no item of the array equals the expected ${show(expected[i])} (array order ignored)`;
    }
  }
  return null;
}
