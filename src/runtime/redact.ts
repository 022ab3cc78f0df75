// Copies of request and response bodies for the journal: secrets and document bytes replaced by key
// anywhere in the tree, long strings cut, and a budget per body so that a 100 MB request costs the
// journal a few kilobytes. The copy is built while walking, so the walk stops where the budget ends.
import { Buffer } from 'node:buffer';
import { DecimalText } from '../domain/money.js';
import { numberText } from '../http/exact-numbers.js';

/**
 * The one rule for what names a secret, shared by the journal's headers, path and query parameters
 * and body keys (and the recorder's and conformance report's copies): a name whose letters and digits, read
 * without case and separators, contain token, secret, password, passwd, pwd, bearer, credential,
 * authoriz(ation), apikey, private, signature, session, cookie or senha; or one of whose words
 * (split at separators and lower-to-upper case changes) is key, pass, pin or auth. So accessToken,
 * x-api-key, client_secret, refreshToken, privateKey, pwd, passwd, pass, bearer, API_KEY.
 * Compound names holding `key` as a word count too (Idempotency-Key): a value redacted for nothing
 * costs a reader less than a secret kept. A name whose last word is `type` names what kind of secret
 * (OAuth's token_type "Bearer"), not one, and is kept.
 */
const NOT_SECRET = /[^a-z0-9]type$/;
const SECRET_FRAGMENTS = /token|secret|passw|pwd|bearer|credential|authori[sz]|apikey|private|signature|session|cookie|senha/;
const SECRET_WORDS = /(?:^|[^a-z0-9])(?:key|pass|pin|auth)(?:$|[^a-z0-9])/;
/** Keys of document bytes (base64 PDFs, CNAB files): not secrets, but never journaled either. */
const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['documento', 'conteudo', 'operationfile']);

/** Whether `name` names a secret by the rule above. */
export function namesSecret(name: string): boolean {
  // Words: a separator before each lower-to-upper change, then lower case.
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  if (NOT_SECRET.test(words)) return false;
  return SECRET_FRAGMENTS.test(words.replace(/[^a-z0-9]/g, '')) || SECRET_WORDS.test(words);
}

// Each distinct name is read once: the journal tests every key of every body it shows, and a body's
// keys repeat from one request to the next. Names come from clients, so the cache is bounded.
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 4096;

/** Whether the value under `key` never reaches the journal: a secret (namesSecret) or document bytes. */
export function isRedactedKey(key: string): boolean {
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = namesSecret(key) || DOCUMENT_KEYS.has(key.toLowerCase());
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

export const REDACTED = '[redacted]';

/**
 * A form-encoded body (application/x-www-form-urlencoded: an OAuth token request, a login form) as
 * it was sent. Shown as its text with the value of each field named like a secret redacted, as a
 * query string is; its secret values are looked for in answers that echo the request.
 */
export class FormText {
  constructor(readonly text: string) {}
}

/** Whether a Content-Type names a form-encoded body. */
export function isFormType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType);
}

/**
 * Where the value of a form or query pair (name=value) named like a secret begins, or -1. A name
 * that is not percent-encoding is read as sent.
 */
export function secretValueAt(pair: string): number {
  const eq = pair.indexOf('=');
  if (eq === -1) return -1;
  let name = pair.slice(0, eq);
  try {
    name = decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    // Kept as sent.
  }
  return isRedactedKey(name) ? eq + 1 : -1;
}

/**
 * The pairs of a query string or form body, with the separators between them (at odd indexes).
 * `;` separates pairs here as `&` does: the sandbox parses a query as Node's URLSearchParams does
 * (`;` is part of a value), but some servers split at `;`, so a secret named after one is redacted
 * too (a value redacted for nothing costs less than a secret kept).
 */
function pairsOf(text: string): string[] {
  return text.split(/([&;])/);
}

/** A query string or form body as sent, the value of each field named like a secret redacted. */
export function redactPairs(text: string): string {
  return pairsOf(text)
    .map((pair, i) => {
      const at = i % 2 === 1 ? -1 : secretValueAt(pair);
      return at === -1 ? pair : `${pair.slice(0, at)}${REDACTED}`;
    })
    .join('');
}

/**
 * A URL (a Location, a Referer, a request target) with the values of its query parameters and of its
 * path parameters (redactPathParameters) named like a secret redacted.
 */
export function redactUrlSecrets(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return redactPathParameters(url);
  const hash = url.indexOf('#', mark);
  const end = hash === -1 ? url.length : hash;
  return `${redactPathParameters(url.slice(0, mark))}?${redactPairs(url.slice(mark + 1, end))}${url.slice(end)}`;
}

/**
 * A parameter of a path segment, `;name=value` (RFC 3986, section 3.3): its name, and its value up to
 * the next `;`, `/`, `?` or `#`. A servlet container reads a session id so (`/cart;jsessionid=...`).
 */
const PATH_PARAMETER = /;([^;/?#=]*)=([^;/?#]*)/g;

/** Where the path of a URL or request target ends: at its query or fragment. */
function pathEnd(url: string): number {
  const mark = url.search(/[?#]/);
  return mark === -1 ? url.length : mark;
}

/**
 * Calls `each` for every path parameter of `url` (before its query) whose name names a secret
 * (isRedactedKey, the name percent-decoded): with the offsets of its value. Allocates nothing for a
 * URL without `;` in its path, as almost every one is.
 */
function eachSecretPathParameter(url: string, each: (start: number, end: number) => void): void {
  const semi = url.indexOf(';');
  if (semi === -1) return;
  const end = pathEnd(url);
  if (semi > end) return;
  const path = url.slice(0, end);
  for (const m of path.matchAll(PATH_PARAMETER)) {
    const value = m[2] as string;
    if (value === '' || !isRedactedKey(decodedName(m[1] as string))) continue;
    const start = (m.index as number) + m[0].length - value.length;
    each(start, start + value.length);
  }
}

/**
 * A path, or a URL, with the value of each path parameter named like a secret redacted
 * (`/cart;jsessionid=[redacted]`); its query is left as it is. The journal and the log line show
 * paths so, and the recorder names its files and mappings so.
 */
export function redactPathParameters(url: string): string {
  let out = '';
  let from = 0;
  eachSecretPathParameter(url, (start, end) => {
    out += `${url.slice(from, start)}${REDACTED}`;
    from = end;
  });
  return from === 0 ? url : out + url.slice(from);
}

/** The values of the path parameters named like a secret in `url`: as sent, and decoded. */
export function pathParameterSecretValues(url: string, add: (value: string) => void): void {
  eachSecretPathParameter(url, (start, end) => {
    const value = url.slice(start, end);
    add(value);
    try {
      add(decodeURIComponent(value));
    } catch {
      // Not percent-encoding: nothing a template could have echoed decoded.
    }
  });
}

const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/**
 * How a recorded mapping matches `url` (a path, or a path and query) exactly: `exact` (url, urlPath)
 * as it is; or, when a path parameter names a secret, its regular-expression twin (urlPattern,
 * urlPathPattern) matching the same text with any value of that parameter, as a secret query
 * parameter is matched by any value.
 */
export function recordedUrl(url: string, exact: 'url' | 'urlPath'): Record<string, string> {
  let pattern = '';
  let from = 0;
  eachSecretPathParameter(url, (start, end) => {
    pattern += `${escapeRegex(url.slice(from, start))}[^;/?#]*`;
    from = end;
  });
  return from === 0 ? { [exact]: url } : { [`${exact}Pattern`]: pattern + escapeRegex(url.slice(from)) };
}

/** The values of the fields named like a secret in a query string or form body: as sent, and decoded. */
export function pairSecretValues(text: string, add: (value: string) => void): void {
  pairsOf(text).forEach((pair, i) => {
    const at = i % 2 === 1 ? -1 : secretValueAt(pair);
    if (at === -1) return;
    add(pair.slice(at));
    try {
      add(decodeURIComponent(pair.slice(at).replaceAll('+', ' ')));
    } catch {
      // Not percent-encoding: nothing a template could have echoed decoded.
    }
  });
}

/** Index just past the JSON string opening at `start` (its closing quote), or the text's end when it is cut. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** Index just past the JSON value starting at `start`: a string, an object or array (to its match), or a scalar; the text's end when it is cut. */
function valueEnd(text: string, start: number): number {
  const c = text[start];
  if (c === '"') return stringEnd(text, start);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const d = text[i];
      if (d === '"') i = stringEnd(text, i) - 1;
      else if (d === '{' || d === '[') depth += 1;
      else if ((d === '}' || d === ']') && --depth === 0) return i + 1;
    }
    return text.length;
  }
  SCALAR_END.lastIndex = start;
  return SCALAR_END.exec(text) ? SCALAR_END.lastIndex - 1 : text.length;
}

const SCALAR_END = /[\s,}\]]/g;

/** Between a key and its colon, and after the colon: white space, and the same written as a regular expression writes it (`\s*`). */
const SEPARATOR = /(?:\s|\\s[*+?]?|[*+?])*/y;

/** Index past the separator starting at `at`. */
function skipSeparator(text: string, at: number): number {
  SEPARATOR.lastIndex = at;
  SEPARATOR.exec(text);
  return SEPARATOR.lastIndex;
}

/**
 * JSON text with the value of each member whose key names a secret (isRedactedKey) replaced by
 * "[redacted]", as redact() replaces it in the parsed value, without parsing: so it reads a text that
 * does not parse as a whole, an answer cut midway (`{"access_token":"abc` ends `{"access_token":"[redacted]"`)
 * or a fragment a mapping quotes (`"password":"pw"`, `"token"\s*:\s*"t"` in a pattern). A string
 * followed by a colon is a key; null is kept, as redact() keeps it.
 */
export function redactJsonText(text: string): string {
  if (!text.includes('"')) return text;
  let out = '';
  let from = 0;
  for (let i = text.indexOf('"'); i !== -1 && i < text.length; i = text.indexOf('"', i)) {
    const end = stringEnd(text, i);
    let at = skipSeparator(text, end);
    if (end === text.length || text[at] !== ':') {
      i = end;
      continue;
    }
    let key: string;
    try {
      key = JSON.parse(text.slice(i, end)) as string;
    } catch {
      key = text.slice(i + 1, end - 1);
    }
    at = skipSeparator(text, at + 1);
    if (at >= text.length || !isRedactedKey(key)) {
      i = at;
      continue;
    }
    const stop = valueEnd(text, at);
    if (text.slice(at, stop) !== 'null') {
      out += `${text.slice(from, at)}"${REDACTED}"`;
      from = stop;
    }
    i = stop;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * A name, then `=` (a form's or a query's pair) or a comparison (a JSONPath filter's `==`, `!=`,
 * `=~`), then its value: quoted, or up to the next separator.
 */
const NAMED_VALUE = /([\p{L}\p{N}_.~%+-]+)(\s*(?:===?|!==?|=~)\s*|=)('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&;'"()\]]*)/gu;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

/**
 * A text a mapping gives (a body pattern's equalTo, contains or regular expression, a JSONPath) as a
 * reason may quote it: the values it gives under names that name a secret (isRedactedKey) redacted,
 * as JSON members (redactJsonText), as name=value pairs (a form, a query, `client_secret=...` in a
 * pattern) and in comparisons (`@.token == 'abc'`).
 */
export function redactSecretText(text: string): string {
  return redactJsonText(text).replace(NAMED_VALUE, (all, name: string, separator: string, value: string) => {
    if (value === '' || value.includes(REDACTED) || !isRedactedKey(decodedName(name))) return all;
    const quote = value[0] === "'" || value[0] === '"' ? value[0] : '';
    return `${name}${separator}${quote}${REDACTED}${quote}`;
  });
}

export interface RedactLimits {
  /** Characters kept of one string before it is cut. */
  maxString: number;
  /** Rough size of the whole copy, in characters; past it, the rest is summarised. */
  budget: number;
  maxDepth: number;
}

export const DEFAULT_LIMITS: RedactLimits = { maxString: 512, budget: 16_384, maxDepth: 24 };

export function truncatedMarker(what: string): string {
  return `[truncated: ${what}]`;
}

/** A number as the client wrote it, where its double would change it or spell it otherwise (http/exact-numbers.ts). */
function exactOrSame(holder: object, key: string | number, v: number, state: { left: number }): unknown {
  state.left -= 8;
  const text = numberText(holder, key);
  return text === undefined ? v : new DecimalText(text);
}

export function redact(value: unknown, limits: RedactLimits = DEFAULT_LIMITS): unknown {
  const state = { left: limits.budget };
  return walk(value, limits, state, 0);
}

function walk(value: unknown, limits: RedactLimits, state: { left: number }, depth: number): unknown {
  if (value instanceof FormText) return walk(redactPairs(value.text), limits, state, depth);
  if (typeof value === 'string') {
    if (value.length <= limits.maxString) {
      state.left -= value.length + 2;
      return value;
    }
    state.left -= limits.maxString + 40;
    return `${value.slice(0, limits.maxString)}…${truncatedMarker(`${value.length} characters`)}`;
  }
  if (value === null || typeof value !== 'object') {
    state.left -= 8;
    return value;
  }
  if (depth >= limits.maxDepth) return truncatedMarker('nested too deep');
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (state.left <= 0) {
        out.push(truncatedMarker(`${value.length - i} more items`));
        break;
      }
      const v: unknown = value[i];
      out.push(typeof v === 'number' ? exactOrSame(value, i, v, state) : walk(v, limits, state, depth + 1));
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (state.left <= 0) {
      out['[truncated]'] = `${keys.length - i} more fields`;
      break;
    }
    const v = (value as Record<string, unknown>)[key];
    state.left -= key.length + 4;
    out[key] =
      v !== null && v !== undefined && isRedactedKey(key)
        ? REDACTED
        : typeof v === 'number'
          ? exactOrSame(value, key, v, state)
          : walk(v, limits, state, depth + 1);
  }
  return out;
}

/**
 * A secret of this many characters or more is replaced wherever it appears in an echo. A shorter one
 * (a 4-digit PIN) only where it stands whole: "1234" as a PIN would otherwise turn every 1234 of the
 * answer (an amount, an id) into [redacted].
 */
export const MIN_ECHOED_SECRET = 6;

/** What Handlebars' `{{...}}` writes for each character it escapes (its escapeExpression). */
const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
  '`': '&#x60;',
  '=': '&#x3D;',
};

const htmlEscaped = (text: string) => text.replace(/[&<>"'`=]/g, (c) => HTML_ESCAPES[c] ?? c);
const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The ways an answer may carry `secret`: as it is, HTML-escaped as `{{...}}` writes it, JSON-escaped
 * as in a JSON text that quotes it (a password holding `"`), both, and percent-encoded (as a URL
 * component and as a form field); and in upper and in lower case, as the `upper` and `lower` helpers
 * write it (HTML-escaped too). Its base64 is looked for in base64 runs (EchoSecrets.scrubBase64).
 */
function formsOf(secret: string): string[] {
  const forms = [secret, htmlEscaped(secret), jsonEscaped(secret), htmlEscaped(jsonEscaped(secret))];
  try {
    forms.push(encodeURIComponent(secret), new URLSearchParams([['', secret]]).toString().slice(1));
  } catch {
    // A lone surrogate has no percent-encoding: nothing could have echoed it encoded.
  }
  for (const cased of [secret.toUpperCase(), secret.toLowerCase()]) if (cased !== secret) forms.push(cased, htmlEscaped(cased));
  return forms;
}

/**
 * What `secret`'s UTF-8 bytes alone decide of any base64 text that encodes them (standard alphabet,
 * no padding), at each of the three offsets they may start at: base64 writes each group of three
 * bytes as four characters, so the same bytes are written differently at each offset, and the one to
 * three characters at each end, shared with the bytes around them, depend on those too (they carry
 * at most 4 bits of the secret each). A secret of 6 bytes gives 7 or 8 characters at each offset.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.alloc(offset + bytes.length);
    bytes.copy(shifted, offset);
    // Character k holds bits 6k to 6k+6 of the text; the secret's are bits 8*offset to 8*(offset+length).
    cores.push(shifted.toString('base64').slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)));
  }
  return cores;
}

/** Credentials of a Basic Authorization ("user:password" in base64), decoded; undefined when they are not. */
function basicCredentials(encoded: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  return decoded.includes(':') && !decoded.includes('\uFFFD') ? decoded : undefined;
}

/** Whether `c` continues a token: a letter, a digit, `_` or `-`. */
const TOKEN_CHAR = /[\p{L}\p{N}_-]/u;

/**
 * The secret values one request carried, to be replaced by [redacted] wherever an answer (or the
 * entry's other parts) echoes them: a stub's template with `{{request.headers.Authorization}}` or
 * `{{request.body}}`, a real service that quotes the request. Each value is looked for in every
 * form of formsOf, and in base64 (scrubBase64); Basic credentials also decoded (user:password, and
 * the password alone); each cookie's value. A value of MIN_ECHOED_SECRET characters or more is
 * replaced wherever it appears; a shorter one where it stands whole: the whole of a string, key or
 * number, or a run of a string not touching a letter, digit, `_` or `-` on either side ("PIN 4321
 * refused", `pin=4321&`). The forms are found by one search each, in each string of the entry, and
 * only an entry whose request carried a secret is searched.
 */
export class EchoSecrets {
  /** Forms of long secrets, replaced anywhere. */
  private readonly anywhere = new Set<string>();
  /** Forms of short secrets, replaced where they stand whole. */
  private readonly whole = new Set<string>();
  private longestFirst: string[] | undefined;
  /** What a long secret's bytes alone decide of its base64 at each offset (base64Cores), in both alphabets. */
  private readonly cores = new Set<string>();
  /** The base64 of each short secret, unpadded, in both alphabets: replaced where it is a whole base64 run. */
  private readonly shortBase64 = new Set<string>();

  /**
   * The secrets of a request: its headers (name, value), its target's path parameters and query
   * string, and its body (parsed, or FormText).
   */
  static ofRequest(headers: Iterable<readonly [string, string]>, target: string, body: unknown): EchoSecrets {
    const secrets = new EchoSecrets();
    for (const [name, value] of headers) secrets.addHeader(name, value);
    pathParameterSecretValues(target, (v) => secrets.add(v));
    const mark = target.indexOf('?');
    if (mark !== -1) pairSecretValues(target.slice(mark + 1), (v) => secrets.add(v));
    collectSecretValues(body, (v) => secrets.add(v));
    return secrets;
  }

  get empty(): boolean {
    return this.anywhere.size === 0 && this.whole.size === 0;
  }

  add(value: string): void {
    if (value === '') return;
    const long = value.length >= MIN_ECHOED_SECRET;
    const into = long ? this.anywhere : this.whole;
    for (const form of formsOf(value)) into.add(form);
    const encoded = long ? base64Cores(value) : [Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, '')];
    for (const form of encoded) for (const alphabet of [form, urlSafe(form)]) (long ? this.cores : this.shortBase64).add(alphabet);
    this.longestFirst = undefined;
  }

  /** A header's value, when its name names a secret. */
  addHeader(name: string, value: string): void {
    if (!isRedactedKey(name)) return;
    const lower = name.toLowerCase();
    if (lower.includes('cookie')) {
      // Cookie: every name=value pair; Set-Cookie: its first pair (the rest are attributes: Path=/).
      this.add(value);
      const pairs = value.split(';');
      for (const pair of lower === 'cookie' ? pairs : pairs.slice(0, 1)) {
        const cookie = pair.slice(pair.indexOf('=') + 1).trim();
        this.add(cookie);
        if (/^".*"$/.test(cookie)) this.add(cookie.slice(1, -1));
      }
      return;
    }
    // "Bearer abc": the credentials alone, so that an echo reads "Bearer [redacted]" as the header does.
    const credentials = /^[A-Za-z][\w.+-]*\s+(\S.*)$/.exec(value)?.[1];
    if (credentials === undefined) {
      this.add(value);
      return;
    }
    this.add(credentials);
    const basic = /^basic\s/i.test(value) ? basicCredentials(credentials) : undefined;
    if (basic !== undefined) {
      this.add(basic);
      this.add(basic.slice(basic.indexOf(':') + 1));
    }
  }

  private has(text: string): boolean {
    return this.anywhere.has(text) || this.whole.has(text);
  }

  /** `text` with every echo of a secret replaced by [redacted]. */
  scrubText(text: string): string {
    if (this.empty || text === '') return text;
    if (this.has(text)) return REDACTED;
    this.longestFirst ??= [...this.anywhere].sort((a, b) => b.length - a.length);
    let out = text;
    // The longest first: a secret that holds a shorter one is replaced whole.
    for (const form of this.longestFirst) if (out.includes(form)) out = out.split(form).join(REDACTED);
    for (const form of this.whole) if (out.includes(form)) out = replaceWhole(out, form);
    return this.scrubBase64(out);
  }

  /**
   * `text` with each base64 run (replaceRuns) that encodes a secret replaced whole: one that holds
   * what a long secret's bytes alone decide of its base64 (`{{base64 request.headers.Authorization}}`
   * encodes "Bearer " before the token, `request.bodyAsBase64` a whole body), or that is a short
   * one's base64 exactly. Found as the other forms are, by a search for each.
   */
  private scrubBase64(text: string): string {
    let out = text;
    for (const core of this.cores) if (out.includes(core)) out = replaceRuns(out, core, false);
    for (const form of this.shortBase64) if (out.includes(form)) out = replaceRuns(out, form, true);
    return out;
  }

  /** `value` (a body or query already redacted by key) with every echo of a secret replaced, in keys too. */
  scrub(value: unknown): unknown {
    if (this.empty) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.scrubText(v);
      if (typeof v === 'number') return this.has(String(v)) ? REDACTED : v;
      if (v instanceof DecimalText) return this.has(v.text) ? REDACTED : v;
      if (v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return v.map(walk);
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) out[this.scrubText(key)] = walk(inner);
      return out;
    };
    return walk(value);
  }
}

const urlSafe = (base64: string) => base64.replaceAll('+', '-').replaceAll('/', '_');

/** A character of base64 text, in either alphabet. */
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/**
 * `text` with each base64 run holding `form` replaced whole: the run of base64 characters (either
 * alphabet) around it, with its padding (`=`, or `&#x3D;` as `{{...}}` escapes it). `exact`: only a
 * run that is `form` itself.
 */
function replaceRuns(text: string, form: string, exact: boolean): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, Math.max(at + 1, from))) {
    let start = at;
    let end = at + form.length;
    while (start > from && BASE64_CHAR.test(text[start - 1] as string)) start -= 1;
    while (end < text.length && BASE64_CHAR.test(text[end] as string)) end += 1;
    if (exact && (start !== at || end !== at + form.length)) continue;
    for (let pads = 0; pads < 2; pads++) {
      if (text[end] === '=') end += 1;
      else if (text.startsWith('&#x3D;', end)) end += '&#x3D;'.length;
    }
    out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** `text` with each occurrence of `form` that touches no token character on either side replaced. */
function replaceWhole(text: string, form: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + form.length)) {
    const before = text[at - 1];
    const after = text[at + form.length];
    if ((before !== undefined && TOKEN_CHAR.test(before)) || (after !== undefined && TOKEN_CHAR.test(after))) continue;
    out += text.slice(from, at) + REDACTED;
    from = at + form.length;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * The values under redacted keys anywhere in `value` (a request body), given to `add`: strings, and
 * numbers as written (a numeric PIN).
 */
export function collectSecretValues(value: unknown, add: (secret: string) => void, depth = 0): void {
  if (value instanceof FormText) {
    pairSecretValues(value.text, add);
    return;
  }
  if (value === null || typeof value !== 'object' || depth > DEFAULT_LIMITS.maxDepth) return;
  if (Array.isArray(value)) {
    for (const v of value) collectSecretValues(v, add, depth + 1);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    // Document bytes are redacted but are no secret to look for in an answer (megabytes of base64).
    if (isRedactedKey(key) && !DOCUMENT_KEYS.has(key.toLowerCase())) {
      if (typeof v === 'string') add(v);
      else if (typeof v === 'number') add(numberText(value, key) ?? String(v));
      else collectSecretValues(v, add, depth + 1);
    } else collectSecretValues(v, add, depth + 1);
  }
}
