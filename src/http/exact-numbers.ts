// JSON numbers a double would change or spell otherwise, kept as the client wrote them. JSON.parse
// reads every number as the nearest double, which is exact for texts of up to 15 significant digits
// (every body on the hot path); the scan that refuses duplicate keys (json.ts) also notes any longer
// number whose double would not read back as the same decimal, any number out of a double's range
// (1e400, 1e-400), and any number whose double String writes otherwise (1E+1 as 10, 0.10000 as 0.1,
// -0 as 0). Those few are recorded here beside the parsed value, by the object and key that hold
// them: money is read from its text (moneyCents), any other field holding one the double changes is
// refused (http/validation.ts), and echoes (the journal, copies kept as sent, messages) write the
// text, so nothing is silently changed (assumption exact-numbers).
import { randomUUID } from 'node:crypto';
import { MAX_JSON_DEPTH } from '../domain/json-depth.js';
import { centsFromText, DecimalText, toCents } from '../domain/money.js';

/** A number of a parsed body that its double does not carry exactly. */
export interface ExactNumber {
  /** JSON pointer of the number in the body. */
  pointer: string;
  /** The number as the client wrote it. */
  text: string;
  /** Whether the double changes its value (false: it only spells it otherwise, as 1E+1 for 10). */
  changed: boolean;
  /** Whether a money field read it (see exactText). */
  read: boolean;
  /**
   * Whether the double lost the number altogether: read as 0 (1e-400) or beyond a double's range
   * (1e400, which JSON.parse reads as Infinity). The parsed body then holds 0, or the largest double
   * of its sign in place of Infinity, so that the schema's type checks pass and the number is refused
   * from its text (a money field's magnitude, or an exactness refusal); comparisons of the stand-in
   * (minimum, maximum) say nothing true of what was sent and are left out (http/validation.ts).
   */
  lost: boolean;
}

/** The numbers' texts, by the object or array holding them and their key (an index as a string). */
const texts = new WeakMap<object, Map<string, ExactNumber>>();
/** Every such number of a parsed document, by its root. */
const byRoot = new WeakMap<object, ExactNumber[]>();

/**
 * Records the numbers `found` (pointer segments from the root, and the text) of the parsed `root`.
 * A number at the root itself has no holder and is left to the schema (no body is a bare number).
 */
export function recordExactNumbers(
  root: unknown,
  found: ReadonlyArray<{ segments: ReadonlyArray<string | number>; pointer: string; text: string; changed: boolean }>,
): void {
  if (typeof root !== 'object' || root === null) return;
  const list: ExactNumber[] = [];
  for (const { segments, pointer, text, changed } of found) {
    let holder: unknown = root;
    for (let i = 0; i < segments.length - 1; i++) holder = (holder as Record<string, unknown>)[String(segments[i])];
    const key = segments[segments.length - 1];
    if (key === undefined || typeof holder !== 'object' || holder === null) continue;
    const value = (holder as Record<string, unknown>)[String(key)];
    const lost = changed && (value === 0 || value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY);
    if (lost && value !== 0) (holder as Record<string, unknown>)[String(key)] = Math.sign(value as number) * Number.MAX_VALUE;
    const entry: ExactNumber = { pointer, text, changed, read: false, lost };
    let map = texts.get(holder);
    if (!map) texts.set(holder, (map = new Map()));
    map.set(String(key), entry);
    list.push(entry);
  }
  if (list.length > 0) byRoot.set(root, list);
}

/** The text of the number at `holder[key]` when its double would change it or spell it otherwise; undefined for every other value. */
export function exactText(holder: unknown, key: string | number): string | undefined {
  if (typeof holder !== 'object' || holder === null) return undefined;
  const entry = texts.get(holder)?.get(String(key));
  if (!entry) return undefined;
  entry.read = true;
  return entry.text;
}

/** The text recorded for the number at `holder[key]`, without counting it as read (see exactText). */
function recordedText(holder: object, key: string | number): string | undefined {
  return texts.get(holder)?.get(String(key))?.text;
}

/** The text of the number at `holder[key]` when its double would change it or spell it otherwise, for a reader that compares or echoes, not a money field. */
export function numberText(holder: unknown, key: string | number): string | undefined {
  return typeof holder === 'object' && holder !== null ? recordedText(holder, key) : undefined;
}

/**
 * A copy of a parsed JSON value (read within MAX_JSON_DEPTH) whose numbers a double would change are
 * DecimalTexts of their texts: what a user wrote, to be compared by its decimal value and written
 * back digit for digit (stringifyExact). The value itself when it holds no such number.
 */
export function exactCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || value instanceof DecimalText) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((v, i) => {
      const text = typeof v === 'number' ? recordedText(value, i) : undefined;
      const next = text !== undefined ? new DecimalText(text) : exactCopy(v);
      if (next !== v) (copy ??= [...value])[i] = next;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(value)) {
    const text = typeof v === 'number' ? recordedText(value, key) : undefined;
    const next = text !== undefined ? new DecimalText(text) : exactCopy(v);
    if (next !== v) (copy ??= { ...value })[key] = next;
  }
  return copy ?? value;
}

/** The numbers of `root` a double would change, or undefined when it has none (no allocation: every body asks). */
export function exactNumbersOf(root: unknown): readonly ExactNumber[] | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  return byRoot.get(root);
}


/** The exact cents of the amount at `holder[key]` (validated money): from its text where a double would change it. */
export function moneyCents(holder: object, key: string): number {
  const text = exactText(holder, key);
  if (text === undefined) return toCents((holder as Record<string, unknown>)[key] as number);
  const { cents } = centsFromText(text);
  if (cents === undefined) throw new RangeError(`not a money amount: ${text}`);
  return cents;
}

/** The amount at `holder[key]` as it goes back out: its own text where a double would change it. */
export function exactValue(holder: object, key: string): unknown {
  const text = exactText(holder, key);
  return text === undefined ? (holder as Record<string, unknown>)[key] : new DecimalText(text);
}

/** Levels an answer's envelope adds around a value read within MAX_JSON_DEPTH ({"mappings": [...]} and the like). */
const ENVELOPE_DEPTH = 8;

/** Whether a value to be serialized holds a DecimalText anywhere. */
export function holdsDecimalText(value: unknown, depth = 0): boolean {
  if (value instanceof DecimalText) return true;
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH + ENVELOPE_DEPTH) return false;
  if (Array.isArray(value)) return value.some((v) => holdsDecimalText(v, depth + 1));
  for (const key in value) if (holdsDecimalText((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

// A DecimalText is written as a placeholder string, then the placeholder is replaced by its digits.
// The marker carries a random value of this process, so no string a client sent can look like one.
const MARK = `\u0001${randomUUID()}:`;
const PLACEHOLDER = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(-?[0-9.eE+-]+)"`, 'g');

/**
 * JSON text of `value` with every DecimalText, and every number whose text was recorded when it was
 * parsed (recordExactNumbers), written digit for digit, as a JSON number; indented by `space` as
 * JSON.stringify indents.
 */
export function stringifyExact(value: unknown, space?: number): string {
  const text = JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, v: unknown) {
    const own = this[key];
    if (own instanceof DecimalText) return `${MARK}${own.text}`;
    const recorded = typeof own === 'number' ? recordedText(this, key) : undefined;
    return recorded === undefined ? v : `${MARK}${recorded}`;
  }, space);
  return text.replace(PLACEHOLDER, '$1');
}
