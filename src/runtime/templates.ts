// Handlebars templates over a sandbox state: the response templates of user-defined operations
// (WireMock's "response-template" transformer) and any other text the sandbox renders from a model
// (a notification payload over an event). One module so every template gets the same helpers, with
// the same meaning: time from the sandbox clock, generated values from the seeded key generator, and
// `inspect`, which reads the state as the control plane's inspection calls show it.
//
//   const render = compileTemplate('{{request.method}} at {{now}}');  // throws TemplateError
//   const helpers = templateHelpers({ clock, ids, inspect });         // once per sandbox state
//   render({ request }, helpers);                                     // -> string
//
// The helper names and arguments follow WireMock's documentation (docs/stubs.md lists them), so a
// mapping written for WireMock renders the same here.
import { createRequire } from 'node:module';
import type Handlebars from 'handlebars';
import { DecimalText } from '../domain/money.js';
import { stringifyExact } from '../http/exact-numbers.js';
import { parseJsonExact } from '../http/json.js';
import { CLOCK_MAX_MS, CLOCK_MIN_MS } from './clock.js';
import { addDuration, type Duration } from './duration.js';
import { JsonPathError, jsonPathValue } from './jsonpath.js';
import { type UserRegex, userRegex } from './user-regex.js';

/** A Handlebars helper: positional arguments, then Handlebars' options (hash, fn, inverse, data). */
export type Helper = (this: unknown, ...args: unknown[]) => unknown;

/** The helpers a template renders with; built once per sandbox state by templateHelpers(). */
export type HelperSet = Readonly<Record<string, Helper>>;

/** A compiled template: the model in, the text out; throws TemplateError when a helper fails. */
export type Template = (model: object, helpers: HelperSet) => string;

/** A template that does not parse, or a helper that failed while rendering: the message says where. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** What the helpers read from the sandbox state they render in. */
export interface HelperContext {
  /** The sandbox clock (epoch milliseconds). */
  clock: { nowMs(): number };
  /** The key generator: seeded when the sandbox has a seed, so generated values repeat run to run. */
  ids: { randomText(length: number, alphabet: string): string };
  /**
   * What `GET /_sandbox{path}` answers in the same state, as an object (null when it answers 404);
   * absent where no state can be inspected.
   */
  inspect?: (path: string) => unknown;
}

/**
 * What one render may do, so that no template holds a shared sandbox (nested blocks multiply:
 * `{{#each (range 0 10000)}}{{#each (range 0 3000)}}x{{/each}}{{/each}}` would run 30 million
 * iterations and build 30 MB): block iterations (`#each`, a list used as a block, `arrayJoin` as a
 * block), and characters (each iteration's text as it ends, nested blocks counted at each level,
 * the text of the joining helpers, and the whole text). Counted as the render runs, so it stops at the limit, not after.
 */
export const RENDER_LIMITS = { iterations: 100_000, characters: 16 * 1024 * 1024 } as const;

/** The render under way (renders are synchronous: one at a time, a nested one restores the outer's). */
let budget: { iterations: number; characters: number } | undefined;

const limitError = (what: string) =>
  new TemplateError(`the render passes the limit of ${what} in one render (docs/stubs.md, "Limits of a render")`);

function spendIteration(): void {
  if (budget && ++budget.iterations > RENDER_LIMITS.iterations) throw limitError(`${RENDER_LIMITS.iterations} block iterations`);
}

function spendCharacters(n: number): void {
  if (budget && (budget.characters += n) > RENDER_LIMITS.characters) throw limitError(`${RENDER_LIMITS.characters} characters`);
}

/**
 * The text a joining helper builds (join, arrayJoin, concat), counted before it is built: a
 * separator repeated over a list multiplies, so one call could otherwise build hundreds of megabytes
 * before anything measured it.
 */
function joined(parts: readonly string[], separator: string, prefix = '', suffix = ''): string {
  let length = prefix.length + suffix.length + separator.length * Math.max(0, parts.length - 1);
  for (const part of parts) length += part.length;
  spendCharacters(length);
  return `${prefix}${parts.join(separator)}${suffix}`;
}

/** One iteration of a block: counted, and its text measured. */
function iterate(fn: (context: unknown, options?: object) => string, context: unknown, options?: object): string {
  spendIteration();
  const out = fn(context, options);
  spendCharacters(out.length);
  return out;
}

// Handlebars loads on first use (a sandbox with no template never needs it, and loading it is
// start-up time): synchronously, by require, since a template compiles synchronously.
const load = createRequire(import.meta.url);
let environment: typeof Handlebars | undefined;
// An isolated Handlebars environment: no helper or partial registered here leaks into another
// user of the library, and its prototype-access protection stays on (templates read own properties only).
// Its `each` counts each iteration; a list used as a block (`{{#list}}...{{/list}}`) goes through it too.
const handlebars = (): typeof Handlebars => {
  if (environment) return environment;
  const env = (load('handlebars') as typeof Handlebars).create();
  const each = env.helpers.each as Helper;
  env.registerHelper('each', function (this: unknown, context: unknown, options: Options) {
    const fn = options.fn;
    return each.call(this, context, fn ? { ...options, fn: (value: unknown, opts?: object) => iterate(fn, value, opts) } : options);
  });
  return (environment = env);
};

/** An error of the library or the engine (not a helper's own), as a template error that quotes nothing it rendered. */
function engineError(err: unknown): TemplateError {
  if (err instanceof RangeError && /string length/i.test(err.message)) return limitError(`${RENDER_LIMITS.characters} characters`);
  if (err instanceof TypeError && /primitive value/.test(err.message)) return new TemplateError('a value of the template is an object that cannot print as text');
  return new TemplateError((err as Error).message);
}

/**
 * WireMock's engine (handlebars.java) reads a numeric path segment as an index, `request.path.3`;
 * Handlebars.js reads only `request.path.[3]`. Numeric segments outside quoted strings of each
 * mustache are bracketed, so a template written for WireMock means the same here.
 */
export function bracketIndexes(source: string): string {
  return source.replace(/\{\{[^}]*\}\}/g, (tag) =>
    tag
      .split(/('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/)
      .map((part, i) => (i % 2 === 1 ? part : part.replace(/((?:[A-Za-z_$][\w$-]*|\]))\.(\d+)(?=[\s}.)]|$)/g, '$1.[$2]')))
      .join(''),
  );
}

interface AstNode {
  type?: string;
  original?: unknown;
  parts?: unknown[];
  data?: boolean;
  depth?: number;
  path?: AstNode;
  params?: AstNode[];
  loc?: { start?: { line?: number } };
}

/**
 * A subexpression `(x ...)` calls the helper x; Handlebars calls whatever x is, so `(request.query.a)`
 * fails at render with its compiled code's words ("...call is not a function"). Only a plain name can
 * be a helper: anything else in that place is named now, with what to write instead.
 */
function checkSubexpressions(node: unknown, parent: string | undefined): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) checkSubexpressions(item, parent);
    return;
  }
  const n = node as AstNode;
  if (n.type === 'SubExpression' && n.path) {
    const p = n.path;
    const plainName = p.type === 'PathExpression' && !p.data && !p.depth && p.parts?.length === 1 && p.original === p.parts[0];
    if (!plainName) {
      const what = typeof p.original === 'string' || typeof p.original === 'number' ? String(p.original) : String(p.type);
      const args = (n.params?.length ?? 0) > 0 ? ' ...' : '';
      const instead = parent && !args ? ` (write {{${parent} ${what}}}, without the parentheses)` : '';
      throw new TemplateError(
        `line ${n.loc?.start?.line ?? 1}: the subexpression (${what}${args}) calls a helper by its first word, and ${what} is a value, not a helper${instead}; docs/stubs.md lists the helpers`,
      );
    }
  }
  const name = n.path && n.path.type === 'PathExpression' && typeof n.path.original === 'string' ? n.path.original : parent;
  for (const [key, value] of Object.entries(n)) {
    if (key !== 'loc' && key !== 'path' && value !== null && typeof value === 'object') checkSubexpressions(value, name);
  }
}

/** Compiles `source` once (syntax errors are thrown now, with their line); render it many times. */
export function compileTemplate(template: string): Template {
  const source = bracketIndexes(template);
  let ast: unknown;
  try {
    // Parsing first reports a syntax error here rather than at the first render.
    ast = handlebars().parse(source);
  } catch (err) {
    throw new TemplateError(`the template does not parse: ${(err as Error).message}`);
  }
  checkSubexpressions(ast, undefined);
  const compiled = handlebars().compile(source);
  return (model, helpers) => {
    const outer = budget;
    budget = { iterations: 0, characters: 0 };
    try {
      const out = compiled(model, { helpers: helpers as Record<string, Handlebars.HelperDelegate> });
      if (out.length > RENDER_LIMITS.characters) throw limitError(`${RENDER_LIMITS.characters} characters`);
      return out;
    } catch (err) {
      if (err instanceof TemplateError) throw err;
      throw engineError(err);
    } finally {
      budget = outer;
    }
  };
}

interface Options {
  hash: Record<string, unknown>;
  fn?: (context: unknown, options?: object) => string;
  inverse?: (context: unknown, options?: object) => string;
  data?: { root?: Record<string, unknown> };
}

/** Splits a helper's arguments into its positional values and Handlebars' options (always last). */
function split(args: unknown[]): { values: unknown[]; options: Options } {
  const options = args[args.length - 1] as Options;
  return { values: args.slice(0, -1), options };
}

/** A value as WireMock prints it: a list of one-or-many values prints its first, null prints nothing. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value instanceof DecimalText) return value.text;
  return String(value);
}

/**
 * A helper's object or array result prints as its JSON (unescaped) where it stands alone in `{{ }}`,
 * and a number read from JSON that a double would change (a DecimalText) as its text: a client's
 * 20-digit id or 80000000000000.01 comes back digit for digit.
 */
function renderableJson<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.prototype.hasOwnProperty.call(value, 'toHTML')) {
    const json = value instanceof DecimalText ? () => value.text : () => stringifyExact(value);
    Object.defineProperty(value, 'toHTML', { value: json, enumerable: false });
    Object.defineProperty(value, 'toString', { value: json, enumerable: false });
  }
  return value;
}

/** Block helpers render their body when true; inline, they return the boolean (for `if` and friends). */
function decide(result: boolean, options: Options, context: unknown): unknown {
  if (options.fn) return result ? options.fn(context) : (options.inverse?.(context) ?? '');
  return result;
}

function comparable(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (value instanceof DecimalText) return value.text;
  if (typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) {
    // A one-or-many value (query parameter, header) or a path compares as the text it prints.
    const printed = String(value);
    if (printed !== '[object Object]') return printed;
  }
  return value;
}

function equal(a: unknown, b: unknown): boolean {
  const x = comparable(a);
  const y = comparable(b);
  if (x === y) return true;
  if (typeof x === 'number' || typeof y === 'number') return Number(x) === Number(y) && x !== null && y !== null && x !== '' && y !== '';
  return false;
}

function order(a: unknown, b: unknown): number {
  const x = comparable(a);
  const y = comparable(b);
  const nx = Number(x);
  const ny = Number(y);
  if (x !== '' && y !== '' && !Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny;
  return String(x).localeCompare(String(y));
}

/**
 * What a helper was given, for its error messages: its kind and size, never its text (a template
 * renders what a client sent: a password in a form, an API key in a header).
 */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string') return `text of ${value.length} characters`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Parses JSON text (a request body), or returns an object as it is. Numbers a double would change are
 * recorded with their texts (http/exact-numbers.ts), so what a helper gives back of them is as sent.
 */
function jsonOf(value: unknown, helper: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return parseJsonExact(value);
  } catch {
    throw new TemplateError(`${helper}: its first argument is not JSON (${kindOf(value)})`);
  }
}

const UNITS: Record<string, keyof Omit<Duration, 'sign'>> = {
  second: 'seconds',
  minute: 'minutes',
  hour: 'hours',
  day: 'days',
  week: 'weeks',
  month: 'months',
  year: 'years',
};

/**
 * WireMock's offsets: '3 days', '-24 seconds', '1 years' (months and years on the UTC calendar). The
 * result stays in the sandbox clock's range, 0001-01-01 to 9998-12-31, so every date prints.
 */
export function applyOffset(from: Date, offset: string, helper = 'now'): Date {
  const m = /^\s*([+-]?\d+)\s*([a-z]+?)s?\s*$/i.exec(offset);
  const unit = m ? UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  if (!m || !unit) {
    throw new TemplateError(`${helper}: the offset is not "<number> <seconds|minutes|hours|days|weeks|months|years>" (${kindOf(offset)})`);
  }
  const n = Number(m[1]);
  const d: Duration = { sign: n < 0 ? -1 : 1, years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };
  d[unit] = Math.abs(n);
  const at = Number.isSafeInteger(n) ? addDuration(from, d) : new Date(NaN);
  const ms = at.getTime();
  if (!(ms >= CLOCK_MIN_MS && ms <= CLOCK_MAX_MS)) {
    throw new TemplateError(`${helper}: the offset takes the date outside 0001-01-01 to 9998-12-31, the dates the sandbox writes`);
  }
  return at;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

interface Wall {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  /** Minutes east of UTC. */
  offset: number;
}

/** The wall-clock fields of an instant in a time zone (UTC when none is named). */
function wallClock(date: Date, timezone: string | undefined): Wall {
  let offset = 0;
  if (timezone && timezone.toUpperCase() !== 'UTC' && timezone.toUpperCase() !== 'GMT') {
    let parts: Intl.DateTimeFormatPart[];
    try {
      parts = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      }).formatToParts(date);
    } catch {
      throw new TemplateError(`the time zone is unknown (${kindOf(timezone)}; an IANA name such as America/Sao_Paulo)`);
    }
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    const local = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
    offset = Math.round((local - (date.getTime() - date.getUTCMilliseconds())) / 60_000);
  }
  const shifted = new Date(date.getTime() + offset * 60_000);
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth(),
    day: shifted.getUTCDate(),
    weekday: shifted.getUTCDay(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
    second: shifted.getUTCSeconds(),
    ms: shifted.getUTCMilliseconds(),
    offset,
  };
}

const pad = (n: number, width: number) => String(Math.abs(n)).padStart(width, '0');

function zone(offset: number, colon: boolean, zForZero: boolean): string {
  if (offset === 0 && zForZero) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const h = pad(Math.floor(Math.abs(offset) / 60), 2);
  const m = pad(Math.abs(offset) % 60, 2);
  return colon ? `${sign}${h}:${m}` : `${sign}${h}${m}`;
}

/**
 * Formats a date with a Java SimpleDateFormat pattern, the syntax WireMock's `now` and `date` take
 * (yyyy, yy, MMMM, MMM, MM, M, dd, d, EEEE, EEE, HH, H, hh, h, mm, m, ss, s, SSS, a, Z, X, XX, XXX,
 * 'quoted text'), or 'epoch' (milliseconds) and 'unix' (seconds). No maintained library reads that
 * syntax (JavaScript date libraries use Unicode tokens, which differ on Z, X and E), hence this code.
 * Without a pattern: ISO 8601 in UTC (or with the zone's offset), without milliseconds, as WireMock.
 */
export function formatDate(date: Date, pattern: string | undefined, timezone: string | undefined): string {
  if (pattern === 'epoch') return String(date.getTime());
  if (pattern === 'unix') return String(Math.floor(date.getTime() / 1000));
  const w = wallClock(date, timezone);
  if (pattern === undefined) {
    const base = `${pad(w.year, 4)}-${pad(w.month + 1, 2)}-${pad(w.day, 2)}T${pad(w.hour, 2)}:${pad(w.minute, 2)}:${pad(w.second, 2)}`;
    return `${base}${zone(w.offset, true, true)}`;
  }
  let out = '';
  const tokens = pattern.match(/'(?:[^']|'')*'|([A-Za-z])\1*|[^A-Za-z']+/g) ?? [];
  for (const token of tokens) {
    if (token.startsWith("'")) {
      out += token === "''" ? "'" : token.slice(1, -1).replace(/''/g, "'");
      continue;
    }
    const letter = token[0] ?? '';
    const n = token.length;
    switch (letter) {
      case 'y':
        out += n === 2 ? pad(w.year % 100, 2) : pad(w.year, n);
        break;
      case 'M':
        out += n >= 4 ? MONTHS[w.month] : n === 3 ? MONTHS[w.month]?.slice(0, 3) : pad(w.month + 1, n);
        break;
      case 'd':
        out += pad(w.day, n);
        break;
      case 'E':
        out += n >= 4 ? DAYS[w.weekday] : DAYS[w.weekday]?.slice(0, 3);
        break;
      case 'H':
        out += pad(w.hour, n);
        break;
      case 'h':
        out += pad(w.hour % 12 === 0 ? 12 : w.hour % 12, n);
        break;
      case 'm':
        out += pad(w.minute, n);
        break;
      case 's':
        out += pad(w.second, n);
        break;
      case 'S':
        out += pad(w.ms, 3).slice(0, Math.max(n, 1)).padEnd(n, '0');
        break;
      case 'a':
        out += w.hour < 12 ? 'AM' : 'PM';
        break;
      case 'Z':
        out += zone(w.offset, false, false);
        break;
      case 'X':
        out += n === 1 ? (w.offset === 0 ? 'Z' : zone(w.offset, false, false).slice(0, 3)) : zone(w.offset, n >= 3, true);
        break;
      default:
        if (/[A-Za-z]/.test(letter)) throw new TemplateError(`the date format uses the letter "${letter}", which is not supported (docs/stubs.md lists the letters)`);
        out += token;
    }
  }
  return out;
}

/** Reads a date the way WireMock's parseDate does without a format: ISO 8601 or RFC 1123, or epoch/unix. */
export function parseDateText(value: unknown, format: string | undefined, helper = 'parseDate'): Date {
  const raw = text(value).trim();
  const given = `${helper}: its first argument (${kindOf(raw)})`;
  if (format === 'epoch' || format === 'unix') {
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n)) throw new TemplateError(`${given} is not a number`);
    return new Date(format === 'unix' ? n * 1000 : n);
  }
  if (format !== undefined) {
    const parsed = parseWithPattern(raw, format, helper);
    if (parsed) return parsed;
    throw new TemplateError(`${given} does not fit the format`);
  }
  // A date without time is midnight UTC; anything Date.parse reads (ISO 8601, RFC 1123) otherwise.
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Date.parse(raw);
  if (Number.isNaN(ms)) throw new TemplateError(`${given} is not an ISO 8601 or RFC 1123 date`);
  return new Date(ms);
}

/** The numeric fields of a SimpleDateFormat pattern (yyyy MM dd HH mm ss SSS, literals in between), in UTC. */
function parseWithPattern(raw: string, pattern: string, helper: string): Date | undefined {
  const fields: string[] = [];
  const source = (pattern.match(/'(?:[^']|'')*'|([A-Za-z])\1*|[^A-Za-z']+/g) ?? [])
    .map((token) => {
      if (token.startsWith("'")) return token.slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (/^[yMdHms]+$/.test(token) || /^S+$/.test(token)) {
        fields.push(token[0] ?? '');
        return `(\\d{1,${Math.max(token.length, token[0] === 'y' ? 4 : 2)}})`;
      }
      if (/[A-Za-z]/.test(token)) throw new TemplateError(`${helper}: the format uses the letter "${token[0] ?? ''}", which is not supported (docs/stubs.md lists the letters)`);
      return token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  const m = new RegExp(`^${source}$`).exec(raw);
  if (!m) return undefined;
  const v: Record<string, number> = { y: 1970, M: 1, d: 1, H: 0, m: 0, s: 0, S: 0 };
  fields.forEach((f, i) => (v[f] = Number(m[i + 1])));
  const date = new Date(Date.UTC(v.y ?? 1970, (v.M ?? 1) - 1, v.d ?? 1, v.H ?? 0, v.m ?? 0, v.s ?? 0, v.S ?? 0));
  return date.getUTCDate() === v.d && date.getUTCMonth() === (v.M ?? 1) - 1 ? date : undefined;
}

const ALPHABETS: Record<string, string> = {
  ALPHANUMERIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ALPHABETIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  NUMERIC: '0123456789',
  HEXADECIMAL: '0123456789abcdef',
  ALPHANUMERIC_AND_SYMBOLS: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~',
};

/** A UUID (version 4 layout) drawn from a key generator: seeded when the sandbox has a seed. */
export function newUuid(ids: HelperContext['ids']): string {
  return uuidOf(ids.randomText(32, ALPHABETS.HEXADECIMAL ?? ''));
}

function uuidOf(hex: string): string {
  const variant = '89ab'[parseInt(hex[16] ?? '0', 16) % 4];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A helper's pattern argument: RE2's reason quotes the pattern, which may be what a client sent, so it is not repeated. */
function regexArg(value: unknown, helper: string): UserRegex {
  try {
    return userRegex(text(value));
  } catch {
    throw new TemplateError(`${helper}: its second argument (${kindOf(text(value))}) is not a regular expression RE2 reads (no backreferences or lookaround)`);
  }
}

function numberArg(value: unknown, helper: string, name: string): number {
  const n = typeof value === 'number' ? value : Number(text(value));
  if (text(value) === '' || !Number.isFinite(n)) throw new TemplateError(`${helper}: ${name} must be a number (got ${kindOf(value)})`);
  return n;
}

/**
 * The helpers every template renders with, bound to one sandbox state. WireMock's documented helpers
 * (a subset: docs/stubs.md lists it), Handlebars' own (if, unless, each, with, lookup), and `inspect`.
 */
export function templateHelpers(context: HelperContext): HelperSet {
  const now = () => new Date(context.clock.nowMs());
  const helpers: Record<string, Helper> = {
    // --- state ---------------------------------------------------------------------------------
    inspect(...args) {
      const { values } = split(args);
      if (!context.inspect) throw new TemplateError('inspect: no sandbox state to inspect here');
      const path = values.map(text).join('');
      if (!path.startsWith('/')) throw new TemplateError(`inspect: the path must start with "/" (as after /_sandbox; got ${kindOf(path)})`);
      return renderableJson(context.inspect(path));
    },

    // --- time (the sandbox clock) --------------------------------------------------------------
    now(...args) {
      const { options } = split(args);
      const { offset, format, timezone } = options.hash;
      const at = offset === undefined ? now() : applyOffset(now(), text(offset), 'now');
      return formatDate(at, format === undefined ? undefined : text(format), timezone === undefined ? undefined : text(timezone));
    },
    date(...args) {
      const { values, options } = split(args);
      const { offset, format, timezone } = options.hash;
      const base = values[0] instanceof Date ? values[0] : values[0] === undefined ? now() : parseDateText(values[0], undefined, 'date');
      const at = offset === undefined ? base : applyOffset(base, text(offset), 'date');
      return formatDate(at, format === undefined ? undefined : text(format), timezone === undefined ? undefined : text(timezone));
    },
    parseDate(...args) {
      const { values, options } = split(args);
      const format = options.hash.format;
      return parseDateText(values[0], format === undefined ? undefined : text(format));
    },

    // --- generated values (the seeded key generator) -------------------------------------------
    randomValue(...args) {
      const { options } = split(args);
      const type = text(options.hash.type ?? 'ALPHANUMERIC').toUpperCase();
      if (type === 'UUID') return newUuid(context.ids);
      const alphabet = ALPHABETS[type];
      if (!alphabet) throw new TemplateError(`randomValue: type must be one of ${[...Object.keys(ALPHABETS), 'UUID'].join(', ')} (got ${kindOf(type)})`);
      const length = numberArg(options.hash.length ?? 36, 'randomValue', 'length');
      if (!Number.isInteger(length) || length < 0 || length > 10_000) throw new TemplateError('randomValue: length must be a whole number from 0 to 10000');
      const value = context.ids.randomText(length, alphabet);
      return options.hash.uppercase === true ? value.toUpperCase() : value;
    },
    randomInt(...args) {
      const { options } = split(args);
      const lower = options.hash.lower === undefined ? -2147483648 : numberArg(options.hash.lower, 'randomInt', 'lower');
      const upper = options.hash.upper === undefined ? 2147483647 : numberArg(options.hash.upper, 'randomInt', 'upper');
      if (upper < lower) throw new TemplateError('randomInt: upper is below lower');
      const span = Math.floor(upper) - Math.ceil(lower) + 1;
      const draw = Number(context.ids.randomText(15, ALPHABETS.NUMERIC ?? ''));
      return Math.ceil(lower) + (draw % span);
    },

    // --- JSON ----------------------------------------------------------------------------------
    jsonPath(...args) {
      const { values, options } = split(args);
      let found: unknown;
      try {
        found = jsonPathValue(jsonOf(values[0], 'jsonPath'), text(values[1]));
      } catch (err) {
        throw err instanceof JsonPathError ? new TemplateError(err.message) : err;
      }
      if ((found === undefined || found === null) && options.hash.default !== undefined) return options.hash.default;
      return renderableJson(Array.isArray(found) ? found.map(renderableJson) : found === undefined ? null : found);
    },
    parseJson(...args) {
      const { values, options } = split(args);
      const source = options.fn ? options.fn(this) : values[0];
      const parsed = renderableJson(jsonOf(source, 'parseJson'));
      const variable = options.fn ? values[0] : values[1];
      if (variable !== undefined && options.data?.root) {
        options.data.root[text(variable)] = parsed;
        return '';
      }
      return parsed;
    },
    toJson(...args) {
      const { values } = split(args);
      return new (handlebars().SafeString)(stringifyExact(values[0] ?? null));
    },
    formatJson(...args) {
      const { values, options } = split(args);
      const source = options.fn ? options.fn(this) : values[0];
      const json = jsonOf(source, 'formatJson');
      if (json === undefined) return '';
      return new (handlebars().SafeString)(stringifyExact(json, options.hash.format === 'compact' ? undefined : 2));
    },

    // --- text ----------------------------------------------------------------------------------
    concat(...args) {
      return joined(split(args).values.map(text), '');
    },
    upper: (...args) => text(split(args).values[0]).toUpperCase(),
    lower: (...args) => text(split(args).values[0]).toLowerCase(),
    capitalize: (...args) => text(split(args).values[0]).replace(/(^|\s)(\S)/g, (_m, s: string, c: string) => s + c.toUpperCase()),
    trim(...args) {
      const { values, options } = split(args);
      return (options.fn ? options.fn(this) : text(values[0])).trim();
    },
    base64(...args) {
      const { values, options } = split(args);
      const source = options.fn ? options.fn(this).trim() : text(values[0]);
      if (options.hash.decode === true) return Buffer.from(source, 'base64').toString('utf8');
      const encoded = Buffer.from(source, 'utf8').toString('base64');
      return options.hash.padding === false ? encoded.replace(/=+$/, '') : encoded;
    },
    urlEncode(...args) {
      const { values, options } = split(args);
      const source = options.fn ? options.fn(this).trim() : text(values[0]);
      try {
        return options.hash.decode === true ? decodeURIComponent(source) : encodeURIComponent(source);
      } catch {
        throw new TemplateError(`urlEncode: its argument (${kindOf(source)}) is not ${options.hash.decode === true ? 'percent-encoded UTF-8' : 'text of whole characters'}`);
      }
    },
    regexExtract(...args) {
      const { values, options } = split(args);
      const re = regexArg(values[1], 'regexExtract');
      const m = re.exec(text(values[0]));
      if (!m) {
        if (options.hash.default !== undefined) return options.hash.default;
        throw new TemplateError('regexExtract: the pattern matches nothing and no default was given');
      }
      if (values[2] !== undefined && options.data?.root) {
        options.data.root[text(values[2])] = m.slice(1);
        return '';
      }
      return m[0];
    },
    size(...args) {
      const value = split(args).values[0];
      if (Array.isArray(value)) return value.length;
      if (value !== null && typeof value === 'object' && !(value instanceof DecimalText)) return Object.keys(value).length;
      return text(value).length;
    },
    contains(...args) {
      const { values, options } = split(args);
      const [haystack, needle] = values;
      const found = Array.isArray(haystack) ? haystack.some((v) => equal(v, needle)) : text(haystack).includes(text(needle));
      return decide(found, options, this);
    },
    matches(...args) {
      const { values, options } = split(args);
      const re = regexArg(values[1], 'matches');
      return decide(re.matchesWhole(text(values[0])), options, this);
    },

    // --- numbers and lists ---------------------------------------------------------------------
    math(...args) {
      const { values } = split(args);
      const a = numberArg(values[0], 'math', 'the left operand');
      const b = numberArg(values[2], 'math', 'the right operand');
      switch (text(values[1])) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          if (b === 0) throw new TemplateError('math: division by zero');
          return Number.isInteger(a) && Number.isInteger(b) ? Math.trunc(a / b) : a / b;
        case '%':
          if (b === 0) throw new TemplateError('math: division by zero');
          return a % b;
        default:
          throw new TemplateError(`math: the operator must be one of + - * / % (got ${kindOf(values[1])})`);
      }
    },
    range(...args) {
      const { values } = split(args);
      const from = numberArg(values[0], 'range', 'the start');
      const to = numberArg(values[1], 'range', 'the end');
      if (to - from > 10_000) throw new TemplateError('range: at most 10000 numbers');
      return renderableJson(Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i));
    },
    array: (...args) => renderableJson(split(args).values),
    arrayJoin(...args) {
      const { values, options } = split(args);
      const [separator, ...rest] = values;
      const items = rest.length === 1 && Array.isArray(rest[0]) ? (rest[0] as unknown[]) : rest;
      const fn = options.fn;
      const parts = fn ? items.map((item) => iterate(fn, item)) : items.map(text);
      return joined(parts, text(separator), text(options.hash.prefix), text(options.hash.suffix));
    },
    join(...args) {
      // handlebars.java's join: the items, then the separator last.
      const { values } = split(args);
      const separator = values.length > 1 ? text(values[values.length - 1]) : ',';
      const items = values.slice(0, -1);
      const list = items.length === 1 && Array.isArray(items[0]) ? (items[0] as unknown[]) : items;
      return joined(list.map(text), separator);
    },
    val(...args) {
      const { values, options } = split(args);
      const fallback = options.hash.or ?? options.hash.default;
      const value = values[0] === undefined || values[0] === null ? (fallback ?? null) : values[0];
      if (options.hash.assign !== undefined && options.data?.root) {
        options.data.root[text(options.hash.assign)] = value;
        return '';
      }
      return value;
    },
    assign(...args) {
      const { values, options } = split(args);
      if (options.fn && options.data?.root) options.data.root[text(values[0])] = options.fn(this);
      return '';
    },

    // --- conditions (inline they return a boolean, as blocks they choose a branch) --------------
    eq(...args) {
      const { values, options } = split(args);
      return decide(equal(values[0], values[1]), options, this);
    },
    neq(...args) {
      const { values, options } = split(args);
      return decide(!equal(values[0], values[1]), options, this);
    },
    gt(...args) {
      const { values, options } = split(args);
      return decide(order(values[0], values[1]) > 0, options, this);
    },
    gte(...args) {
      const { values, options } = split(args);
      return decide(order(values[0], values[1]) >= 0, options, this);
    },
    lt(...args) {
      const { values, options } = split(args);
      return decide(order(values[0], values[1]) < 0, options, this);
    },
    lte(...args) {
      const { values, options } = split(args);
      return decide(order(values[0], values[1]) <= 0, options, this);
    },
    and(...args) {
      const { values, options } = split(args);
      return decide(values.every((v) => Boolean(comparable(v))), options, this);
    },
    or(...args) {
      const { values, options } = split(args);
      return decide(values.some((v) => Boolean(comparable(v))), options, this);
    },
    not(...args) {
      const { values, options } = split(args);
      return decide(!comparable(values[0]), options, this);
    },
  };
  return Object.freeze(helpers);
}

/** The helper names a template may call (Handlebars' built-in ones besides), for the docs and their test. */
export const HELPER_NAMES: readonly string[] = Object.keys(
  templateHelpers({ clock: { nowMs: () => 0 }, ids: { randomText: () => '' } }),
);
