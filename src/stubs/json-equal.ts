// WireMock's equalToJson: the body is JSON equal to the expected value, numbers compared by value
// (1 equals 1.0), with JsonUnit's placeholders in the expected value (${json-unit.any-string},
// ${json-unit.any-number}, ${json-unit.any-boolean}, ${json-unit.ignore}, ${json-unit.ignore-element},
// ${json-unit.regex}<expression>) and WireMock's two options: ignoreArrayOrder, and
// ignoreExtraElements (fields and array items beyond the expected ones). JsonUnit is a Java library;
// no JavaScript one reads its placeholders, hence this code. It answers the first difference, for
// the near-miss sentence, or null when equal. Numbers are compared by their exact decimal value: a
// mapping's as written (DecimalText where a double would change it), a body's from its text where
// one would (http/exact-numbers.ts), so 12345678901234567890 never equals 12345678901234567891.
import { sameDecimal } from '../domain/decimal.js';
import { DecimalText } from '../domain/money.js';
import { pointer } from '../http/errors.js';
import { numberText, stringifyExact } from '../http/exact-numbers.js';
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
  if (value instanceof DecimalText) return 'a number';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const show = (value: unknown) => {
  const text = value === undefined ? 'nothing' : stringifyExact(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** A value of the request as a reason may quote it: never under a secret's key (token, documento...). */
function quoted(value: unknown, at: string, text?: string): string {
  if (value === undefined) return 'nothing';
  const secret = at.split('/').some((segment) => isRedactedKey(segment.replace(/~1/g, '/').replace(/~0/g, '~')));
  return secret ? REDACTED : (text ?? show(value));
}

/** A number's decimal text: a DecimalText's own, else the text recorded for it, else the double's. */
function decimalOf(value: number | DecimalText, recorded: string | undefined): string {
  return value instanceof DecimalText ? value.text : (recorded ?? String(value));
}

const isNumber = (value: unknown): value is number | DecimalText => typeof value === 'number' || value instanceof DecimalText;

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
      return isNumber(actual) ? null : `${at || '/'}: expected any number, got ${kind(actual)}`;
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

/**
 * The first difference between `expected` and `actual` under the options, or null when they are
 * equal. `actualText`: the text recorded for `actual` when it is a number a double would change.
 */
export function jsonDifference(expected: unknown, actual: unknown, options: JsonEqualOptions, at = '', actualText?: string): string | null {
  if (typeof expected === 'string') {
    const p = placeholder(expected, actual, at);
    if (p !== undefined) return p;
  }
  if (isNumber(expected) && isNumber(actual)) {
    const want = decimalOf(expected, undefined);
    const got = decimalOf(actual, actualText);
    return sameDecimal(want, got) ? null : `${at || '/'}: expected ${want}, got ${quoted(actual, at, got)}`;
  }
  if (expected === null || typeof expected !== 'object' || expected instanceof DecimalText) {
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
    const difference = jsonDifference(value, got[key], options, here, numberText(got, key));
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
      const difference = jsonDifference(expected[i], actual[i], options, `${at}/${i}`, numberText(actual, i));
      if (difference !== null) return difference;
    }
    return null;
  }
  // Any order: each expected item needs an equal actual item of its own (a bipartite matching).
  const equal = (i: number, j: number) => jsonDifference(expected[i], actual[j], options, '', numberText(actual, j)) === null;
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
