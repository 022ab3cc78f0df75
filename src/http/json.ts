// The JSON body parser of every interface and the control plane: Fastify's secure parser
// (__proto__ and constructor keys refused) plus a refusal of duplicate keys, which JSON.parse would
// silently resolve to the last occurrence ("each field occurs exactly once" in the receivables table;
// elsewhere a client sending a key twice has a bug that parsers resolve differently).
import { Buffer, isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sameDecimal, significantDigits } from '../domain/decimal.js';
import { MAX_JSON_DEPTH } from '../domain/json-depth.js';
import { DecimalText } from '../domain/money.js';
import { firstInvalidUtf8, LATIN1_HINT, utf8Fault } from '../domain/utf8.js';
import { pointer, SandboxError, validationError } from './errors.js';
import { recordExactNumbers } from './exact-numbers.js';
import { type JsonPosition, JsonReadError, JsonStreamReader, UNEXPECTED_BYTE_ORDER_MARK } from './json-stream.js';
import { refusedTargetOf } from './client-errors.js';
import { FALLBACK } from './outcomes.js';
import { repeatedHeaderError } from './single-headers.js';
import { MAX_DETAILS } from './validation.js';

// One set of messages for a body that is not JSON, whether it was read whole (every route) or as a
// stream (the loan-bond registration): both say what and where from the same reader's findings.

/** A body that is not JSON or not UTF-8: what is wrong, at which byte offset, line and column. */
export function malformedBodyError(problem: JsonReadError): SandboxError {
  if (problem.kind === 'utf8' && problem.bytes !== undefined) return notUtf8Error(problem.bytes, problem.at);
  if (problem.at.offset === 0 && problem.what.startsWith(UNEXPECTED_BYTE_ORDER_MARK)) return byteOrderMarkError();
  const where = `at byte offset ${problem.at.offset} (line ${problem.at.line}, column ${problem.at.column})`;
  if (problem.kind === 'depth') {
    const path = pointer(...(problem.path ?? []));
    const message = `${problem.what} (${where})`;
    return new SandboxError(400, `${path}: ${message}`, { details: [{ path, message }], outcome: FALLBACK.malformed });
  }
  const kind = problem.kind === 'utf8' ? 'UTF-8' : 'JSON';
  return new SandboxError(400, `the body is not valid ${kind}: ${problem.what} ${where}`, { outcome: FALLBACK.malformed });
}

/** A body that starts with a UTF-8 byte-order mark, whether read whole or as a stream. */
export function byteOrderMarkError(): SandboxError {
  return new SandboxError(
    400,
    'the body starts with a UTF-8 byte-order mark (the bytes EF BB BF at byte offset 0), which JSON text must not begin with (RFC 8259, section 8.1): send the body without it',
    { outcome: FALLBACK.malformed },
  );
}

/**
 * A body that is not UTF-8, whether read whole or as a stream: the first byte that starts no UTF-8
 * character, its offset, line and column (in characters), and what is wrong there (the byte at
 * fault may be a later one of `bytes`, which starts at that first byte and holds up to 4 bytes).
 */
export function notUtf8Error(bytes: Uint8Array, at: JsonPosition): SandboxError {
  const byte = bytes[0] as number;
  const hex = byte.toString(16).toUpperCase().padStart(2, '0');
  const fault = utf8Fault(bytes, 0, (i) => `at byte offset ${at.offset + i}`, 'the body');
  const message =
    `the body is not valid UTF-8: the byte 0x${hex} at byte offset ${at.offset} (line ${at.line}, column ${at.column}) ` +
    `${fault.sentence}${fault.looksLatin1 ? ` ${LATIN1_HINT}` : ''}; send the body encoded as UTF-8`;
  return new SandboxError(400, message, { outcome: FALLBACK.malformed });
}

/** A body with no bytes at all. */
export function emptyBodyError(): SandboxError {
  return new SandboxError(400, 'the body is empty: a JSON object is required', { outcome: FALLBACK.malformed });
}

/** A key named __proto__ or constructor (refused: they reach prototypes in JavaScript clients). */
export function forbiddenKeyError(): SandboxError {
  return new SandboxError(400, 'the body is not valid JSON (keys named __proto__ or constructor are refused)', {
    outcome: FALLBACK.malformed,
  });
}

/** The first problem of a text JSON.parse refused, found by the streaming reader. */
export function locateJsonProblem(text: string): JsonReadError | undefined {
  const reader = new JsonStreamReader({ sinkFor: () => undefined, keepLimit: Number.POSITIVE_INFINITY, utf8Checked: true });
  reader.push(Buffer.from(text, 'utf8'));
  try {
    reader.end();
    return undefined;
  } catch (err) {
    if (err instanceof JsonReadError) return err;
    throw err;
  }
}

/** A key that appears twice in one object: a 400 naming its pointer. */
export function duplicateKeyError(path: string): SandboxError {
  const message = 'appears twice in its object: each field occurs exactly once';
  return new SandboxError(400, `${path}: ${message}`, { details: [{ path, message }], outcome: FALLBACK.malformed });
}

export interface JsonTextOptions {
  /** False when the text is not the body as sent (the loan-bond body without its files): no byte offsets. */
  offsets?: boolean;
  /**
   * The text is the body without the contents of strings a stream reader took out (http/json-stream.ts,
   * the receivables submission's file): where a byte offset of the text falls in the body, and the
   * unpaired surrogate escapes of those strings, so that the answer is the whole body's.
   */
  streamed?: { bodyOffset(offset: number): number; loneSurrogates: readonly TakenSurrogate[] };
}

/** An unpaired surrogate escape in a string the stream reader took out of the text: its backslash's byte offset, unit and pointer. */
export interface TakenSurrogate {
  offset: number;
  unit: number;
  path: string;
}

/**
 * Parses a whole JSON text as every body is parsed: Fastify's secure parser (__proto__ and
 * constructor keys refused), then duplicate keys refused and numbers a double would change recorded
 * (http/exact-numbers.ts). Calls back with the value or the error.
 */
export function parseJsonText(
  parse: ReturnType<FastifyInstance['getDefaultJsonParser']>,
  request: FastifyRequest,
  text: string,
  done: (err: Error | null, value?: unknown) => void,
  options: JsonTextOptions = {},
): void {
  // The text's one scan (duplicate keys, numbers) runs before JSON.parse, so that a text nested past
  // the limit is refused before JSON.parse reads it: parsed, 20 MB of "[" held the event loop for 4 s
  // and took 450 MB. Its first problem is the answer, the level too deep or an error of syntax before
  // it (the stream reader judges both in order). Undefined: the scan met what no JSON holds (a key's
  // bad escape), so JSON.parse refuses the text below.
  const scan = scanBeforeParse(text);
  if (scan?.deep) {
    const problem = locateJsonProblem(text);
    if (problem) return done(malformedBodyError(problem));
  }
  parse(request, text, (err, value) => {
    if (err) {
      if ((err as { code?: string }).code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return done(emptyBodyError());
      const problem = locateJsonProblem(text);
      return done(problem ? malformedBodyError(problem) : forbiddenKeyError());
    }
    const scanned = scan ?? scanJson(text);
    if (scanned.duplicate !== undefined) return done(duplicateKeyError(scanned.duplicate));
    if (mayHoldLoneSurrogate(text) || (options.streamed?.loneSurrogates.length ?? 0) > 0) {
      const lone = loneSurrogateError(text, options);
      if (lone) return done(lone);
    }
    if (scanned.inexact.length > 0) recordExactNumbers(value, scanned.inexact);
    done(null, value);
  });
}

/** scanJson within MAX_JSON_DEPTH of a text JSON.parse has not read yet; undefined if the scan throws on it (it is then no JSON). */
function scanBeforeParse(text: string): JsonScan | undefined {
  try {
    return scanJson(text, undefined, MAX_JSON_DEPTH);
  } catch {
    return undefined;
  }
}

/**
 * Whether `text` has a backslash-u escape of a UTF-16 surrogate (D800-DFFF, in either case): the
 * only way valid UTF-8 can carry a surrogate into a parsed string. A scan for the two characters
 * with indexOf, allocating nothing; bodies without such an escape are never looked at again.
 */
export function mayHoldLoneSurrogate(text: string): boolean {
  for (let i = text.indexOf('\\u'); i !== -1; i = text.indexOf('\\u', i + 2)) {
    if (surrogateEscape(text, i) !== 0) return true;
  }
  return false;
}

/** The surrogate an escape at `i` (its backslash) writes, or 0 when it writes none (or is no escape). */
function surrogateEscape(text: string, i: number): number {
  const d = text.charCodeAt(i + 2) | 0x20;
  if (d !== 0x64 /* d */) return 0;
  const unit = Number.parseInt(text.slice(i + 2, i + 6), 16);
  return unit >= 0xd800 && unit <= 0xdfff ? unit : 0;
}

/** Whether the backslash at `i` starts an escape (rather than being the second half of one). */
function startsEscape(text: string, i: number): boolean {
  let before = 0;
  while (text.charCodeAt(i - 1 - before) === BACKSLASH) before++;
  return before % 2 === 0;
}

/** A surrogate escape left unpaired: where it is in the text, and the unit it writes. */
interface LoneSurrogate {
  index: number;
  unit: number;
}

/**
 * Every backslash-u escape of valid JSON `text` (decoded from UTF-8, so holding no surrogate
 * unescaped) that writes half of a surrogate pair without the other half: a high one (D800-DBFF)
 * not followed at once by an escaped low one (DC00-DFFF), or a low one not preceded by a high one.
 */
export function loneSurrogates(text: string): LoneSurrogate[] {
  const lone: LoneSurrogate[] = [];
  let i = text.indexOf('\\u');
  while (i !== -1) {
    const unit = startsEscape(text, i) ? surrogateEscape(text, i) : 0;
    let next = i + 2;
    if (unit >= 0xdc00) lone.push({ index: i, unit });
    else if (unit !== 0) {
      const low = text.charCodeAt(i + 6) === BACKSLASH && text.charCodeAt(i + 7) === 0x75 ? surrogateEscape(text, i + 6) : 0;
      if (low >= 0xdc00) next = i + 12;
      else lone.push({ index: i, unit });
    }
    i = text.indexOf('\\u', next);
  }
  return lone;
}

/**
 * A 400 naming every string (value or key) of valid JSON `text` that a backslash-u escape leaves
 * with an unpaired surrogate, or undefined when there is none. Such a string is no Unicode text:
 * stored as UTF-8 (SQLite's TEXT) it would come back with U+FFFD in its place (assumption
 * json-utf8). `offsets: false` leaves the byte offsets out, for a text that is not the body as sent.
 */
export function loneSurrogateError(text: string, options: JsonTextOptions = {}): SandboxError | undefined {
  const lone = loneSurrogates(text);
  const taken = options.streamed?.loneSurrogates ?? [];
  if (lone.length === 0 && taken.length === 0) return undefined;
  // Only the first MAX_DETAILS of the text's can be among the first MAX_DETAILS of the body's.
  const first = lone.slice(0, MAX_DETAILS);
  const { marks } = scanJson(text, first.map((l) => l.index));
  const bodyOffset = options.streamed?.bodyOffset ?? ((offset: number) => offset);
  const found: TakenSurrogate[] = first.map((l, k) => ({
    offset: bodyOffset(Buffer.byteLength(text.slice(0, l.index))),
    unit: l.unit,
    path: marks[k] ?? '',
  }));
  const shown = taken.length === 0 ? found : [...found, ...taken].sort((a, b) => a.offset - b.offset).slice(0, MAX_DETAILS);
  const details = shown.map((l) => {
    const escape = `\\u${l.unit.toString(16).toUpperCase()}`;
    const where = options.offsets === false ? '' : ` at byte offset ${l.offset}`;
    const half = l.unit < 0xdc00 ? 'a high surrogate not followed by an escaped low one (DC00-DFFF)' : 'a low surrogate not preceded by an escaped high one (D800-DBFF)';
    const message = `holds the escape ${escape}${where}, an unpaired surrogate escape (${half}): it writes no Unicode character, so the string is not Unicode text; escape a character outside the Basic Multilingual Plane as its surrogate pair, or send the character itself`;
    return { path: l.path, message };
  });
  return validationError(details, undefined, lone.length + taken.length).tag(FALLBACK.malformed);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

interface Frame {
  object: boolean;
  keys: Set<string>;
  /** The current key (objects) or index (arrays): the pointer segment of the value inside. */
  segment: string | number;
  expectKey: boolean;
}

/**
 * A number whose text its double does not give back: one the double changes (its value: more
 * digits than it keeps, or out of its range), or one it only writes otherwise (1E+1, 0.10000, -0).
 */
export interface InexactNumber {
  segments: Array<string | number>;
  pointer: string;
  text: string;
  /** Whether the double changes its value, not only its spelling (changedByDouble). */
  changed: boolean;
}

export interface JsonScan {
  /** The text opens an array or object deeper than the depth asked for: nothing after it was scanned. */
  deep?: true;
  /** The JSON pointer of the first key that appears twice in one object. */
  duplicate?: string;
  /**
   * Every number a double would change (more than 15 significant digits that do not read back, or
   * out of a double's range), and every one it would write otherwise than the text (1E+1 as 10).
   */
  inexact: InexactNumber[];
  /** The JSON pointers of the strings holding the offsets asked for (a key's: its member's), in their order. */
  marks: string[];
}

/**
 * Whether a number's text changes when read as a double: more than 15 significant digits that do
 * not read back, or a magnitude a double does not reach (1e400 reads as Infinity, 1e-400 as 0).
 */
export function changedByDouble(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return true;
  const digits = significantDigits(text);
  if (value === 0) return digits > 0;
  return digits > 15 && !sameDecimal(text, String(value));
}

/**
 * Whether the text of a number that is no longer than 15 characters and has no exponent can differ
 * from the double's own text (String): a fraction ending in 0 (0.10000, 1.0), one below 0.000001
 * (written 1e-7 by String: it starts 0.0), and -0. Every other such text is the double's own.
 */
function mayBeRespelled(text: string, i: number, j: number, dot: boolean): boolean {
  const start = text.charCodeAt(i) === MINUS ? i + 1 : i;
  if (text.charCodeAt(start) === 0x30 && (j === start + 1 ? start > i : text.charCodeAt(start + 2) === 0x30)) return true;
  return dot && text.charCodeAt(j - 1) === 0x30;
}

/**
 * Scans valid JSON `text` (call it after parsing) for keys sent twice and numbers a double would
 * change or write otherwise, and names the strings holding the offsets `at` (ascending). Linear:
 * strings are skipped with indexOf, so megabytes of base64 cost little; a number's text is looked
 * at closely only when it is longer than 15 characters, has an exponent (the only ways out of a
 * double's range) or may be spelt otherwise than the double writes it (mayBeRespelled).
 */
export function scanJson(text: string, at?: readonly number[], maxDepth = Number.POSITIVE_INFINITY): JsonScan {
  const stack: Frame[] = [];
  const inexact: InexactNumber[] = [];
  const marks: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j === -1) return { inexact, marks };
        let backslashes = 0;
        while (text.charCodeAt(j - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      const top = stack[stack.length - 1];
      const isKey = top?.object === true && top.expectKey;
      let key: string | undefined;
      if (isKey) {
        const raw = text.slice(i + 1, j);
        key = raw.includes('\\') ? (JSON.parse(text.slice(i, j + 1)) as string) : raw;
        if (top.keys.has(key)) return { duplicate: pointer(...stack.slice(0, -1).map((f) => f.segment), key), inexact, marks };
        top.keys.add(key);
        top.segment = key;
        top.expectKey = false;
      }
      if (at !== undefined) {
        while (marks.length < at.length && (at[marks.length] as number) < j) marks.push(pointer(...stack.map((f) => f.segment)));
      }
      i = j + 1;
      continue;
    }
    if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      let exponent = false;
      let dot = false;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x65 || d === 0x45) exponent = true;
        else if (d === 0x2e) dot = true;
        // Digits, '+', '-': the rest of a valid number.
        else if (!((d >= 0x30 && d <= 0x39) || d === 0x2b || d === MINUS)) break;
      }
      if (exponent || j - i > 15 || mayBeRespelled(text, i, j, dot)) {
        const number = text.slice(i, j);
        const changed = changedByDouble(number);
        if (changed || String(Number(number)) !== number) {
          const segments = stack.map((f) => f.segment);
          inexact.push({ segments, pointer: pointer(...segments), text: number, changed });
        }
      }
      i = j;
      continue;
    }
    if ((c === 0x7b || c === 0x5b) && stack.length >= maxDepth) return { deep: true, inexact, marks };
    if (c === 0x7b /* { */) stack.push({ object: true, keys: new Set(), segment: '', expectKey: true });
    else if (c === 0x5b /* [ */) stack.push({ object: false, keys: new Set(), segment: 0, expectKey: false });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.object) top.expectKey = true;
      else if (top) top.segment = (top.segment as number) + 1;
    }
    i++;
  }
  return { inexact, marks };
}

/** The JSON pointer of the first key that appears twice in one object of valid JSON `text`, or undefined. */
export function findDuplicateKey(text: string): string | undefined {
  return scanJson(text).duplicate;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The body may be absent, or empty under Content-Type: application/json (what many HTTP clients
     * send for a call without one): it then reads as {}. Control-plane calls only; every emulated
     * interface stays strict.
     */
    optionalBody?: boolean;
  }
}

/** What Node's HTTP server takes for Expect: 100-continue (the same test, node:_http_server). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * A 400 for an Expect header other than 100-continue (assumption malformed-http): Node would
 * answer it with a bare 417, a status no interface documents (http/client-errors.ts hands the
 * request on instead).
 */
function expectationError(expectation: string): SandboxError {
  return new SandboxError(
    400,
    `the request has Expect: ${expectation.slice(0, 64)}, an expectation the sandbox cannot meet (it meets only 100-continue): send the request without that Expect header`,
  );
}

/** Whether a request's route reads an absent or empty body as {}. */
function bodyIsOptional(request: FastifyRequest): boolean {
  return request.routeOptions.config?.optionalBody === true;
}

const CHUNKED_ALONE = /^[ \t]*chunked[ \t]*$/i;

/**
 * Installs the JSON-only body parser on an encapsulated instance (other content types: 400). With
 * `optionalBodies`, routes marked `optionalBody` read an absent or empty body as {}.
 */
export function useJsonBodies(app: FastifyInstance, options: { optionalBodies?: boolean } = {}): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  // Fastify ignores a GET's body; a client that sends one believes it is read, so it is refused.
  // A callback, not an async function: every request passes here, and a promise each costs the hot path.
  // The Expect check shares the hook: a header lookup per request, the rest only when one is sent.
  app.addHook('onRequest', (request, _reply, done) => {
    const target = refusedTargetOf(request.raw);
    if (target !== undefined) return done(new SandboxError(400, target));
    const repeated = repeatedHeaderError(request.raw.rawHeaders);
    if (repeated) return done(repeated);
    const expectation = request.headers.expect;
    if (expectation !== undefined && !CONTINUE.test(expectation)) return done(expectationError(expectation));
    const coding = request.headers['transfer-encoding'];
    // Node's parser decodes chunked and lets other codings before it pass (gzip, chunked) with their
    // bytes left coded: read as they are, the body would not be what the client meant.
    if (coding !== undefined && !CHUNKED_ALONE.test(coding))
      return done(
        new SandboxError(
          400,
          `the request is malformed at the HTTP level: Transfer-Encoding "${coding}" is not chunked alone, the one transfer coding the sandbox reads (send the body uncoded, chunked or with a Content-Length)`,
        ),
      );
    if (request.method !== 'GET') return done();
    const length = request.headers['content-length'];
    const chunked = coding !== undefined;
    if (chunked || (length !== undefined && length !== '0'))
      return done(
        new SandboxError(
          400,
          `a GET takes no body, and this one has ${chunked ? 'Transfer-Encoding' : `Content-Length ${length}`}: send the parameters in the query string`,
        ),
      );
    done();
  });
  if (options.optionalBodies) {
    app.addHook('preValidation', async (request) => {
      if (request.body === undefined && bodyIsOptional(request)) request.body = {};
    });
  }
  addJsonBodyParser(app, parse, options.optionalBodies === true);
}

/**
 * The application/json parser of every route that reads its body whole, and of the root's 404: the
 * headers (charset, encoding), then a byte-order mark, UTF-8 and the text (parseJsonText).
 * `optionalBodies`: a blank body reads as {} on a route marked optionalBody.
 */
function addJsonBodyParser(app: FastifyInstance, parse: ReturnType<FastifyInstance['getDefaultJsonParser']>, optionalBodies: boolean): void {
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    const refused = bodyHeadersError(request);
    if (refused) return done(refused, undefined);
    if (optionalBodies && isBlank(bytes) && bodyIsOptional(request)) return done(null, {});
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return done(byteOrderMarkError(), undefined);
    if (!isUtf8(bytes)) return done(utf8Error(bytes), undefined);
    parseJsonText(parse, request, bytes.toString('utf8'), done);
  });
}

/** Only JSON whitespace (or nothing). */
function isBlank(bytes: Buffer): boolean {
  for (const c of bytes) if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  return true;
}

/**
 * What the headers of a JSON body say that makes it unreadable, checked before any byte is read
 * (by the body parser of every route and by the streamed loan-bond registration): a charset other
 * than UTF-8, or a Content-Encoding other than identity. Undefined for every ordinary request.
 */
export function bodyHeadersError(request: FastifyRequest): SandboxError | undefined {
  const { headers } = request;
  return charsetError(headers['content-type']) ?? encodingError(headers['content-encoding']);
}

/**
 * A 400 for a Content-Encoding other than identity (assumption compressed-bodies in http/sandbox-assumptions.ts): the sandbox
 * does not decompress, and read as JSON the compressed bytes would be called "not UTF-8" at the
 * gzip magic number, which says nothing of what the client did.
 */
function encodingError(encoding: string | undefined): SandboxError | undefined {
  if (encoding === undefined) return undefined;
  const trimmed = encoding.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'identity') return undefined;
  return new SandboxError(
    400,
    `Content-Encoding: ${trimmed.slice(0, 64)}: compressed bodies are not accepted; send the body uncompressed (no Content-Encoding, or identity)`,
    { outcome: FALLBACK.malformed },
  );
}

/** Decisions on the charset labels seen, by label as sent: undefined when it names UTF-8. */
const charsets = new Map<string, string | undefined>();

/**
 * A 400 for a Content-Type whose charset parameter names anything but UTF-8 (any of its labels,
 * in any case): JSON is UTF-8 (RFC 8259, section 8.1), and a client declaring another charset has
 * most likely encoded its body in it. Undefined when there is no charset, or it is UTF-8.
 */
export function charsetError(contentType: string | undefined): SandboxError | undefined {
  if (contentType === undefined || !contentType.includes(';')) return undefined;
  // Only a second semicolon can bring a parameter twice.
  if (contentType.indexOf(';') !== contentType.lastIndexOf(';')) {
    const repeated = repeatedParameterError(contentType);
    if (repeated) return repeated;
  }
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  if (!m) return undefined;
  const label = (m[1] ?? m[2] ?? '').slice(0, 64);
  let problem = charsets.get(label);
  if (!charsets.has(label)) {
    let encoding: string | undefined;
    try {
      encoding = new TextDecoder(label).encoding;
    } catch {
      encoding = undefined;
    }
    problem =
      encoding === 'utf-8'
        ? undefined
        : `Content-Type declares charset=${label}${encoding === undefined ? ' (not a known character encoding)' : encoding === label.toLowerCase() ? '' : ` (${encoding})`}: a JSON body must be UTF-8 (RFC 8259, section 8.1); send the body encoded as UTF-8, with charset=utf-8 or no charset parameter`;
    if (charsets.size < 256) charsets.set(label, problem);
  }
  return problem === undefined ? undefined : new SandboxError(400, problem, { outcome: FALLBACK.malformed });
}

/**
 * A 400 for a Content-Type that gives one parameter twice (charset=utf-8; charset=latin1): which
 * one a reader takes differs from one library to the next, so the sandbox takes neither.
 */
function repeatedParameterError(contentType: string): SandboxError | undefined {
  const names: string[] = [];
  for (const m of contentType.matchAll(/;\s*([^\s;=]+)\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;]*)/g)) {
    const name = (m[1] as string).toLowerCase();
    if (names.includes(name))
      return new SandboxError(
        400,
        `Content-Type has the parameter ${name.slice(0, 64)} twice: a parameter of a media type is given once (RFC 6838, section 4.3), and the sandbox reads neither rather than pick one; send it once${name === 'charset' ? ' (charset=utf-8, or no charset parameter)' : ''}`,
        { outcome: FALLBACK.malformed },
      );
    names.push(name);
  }
  return undefined;
}

/** Where bytes known not to be UTF-8 stop being it: offset, line and column (in characters). */
function utf8Position(bytes: Buffer): JsonPosition {
  const offset = firstInvalidUtf8(bytes);
  let line = 1;
  let lineStart = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  // Columns count characters: continuation bytes before the offset on its line are not characters.
  let column = 1;
  for (let i = lineStart; i < offset; i++) if (((bytes[i] as number) & 0xc0) !== 0x80) column++;
  return { offset, line, column };
}

/** The error of bytes known not to be UTF-8. */
function utf8Error(bytes: Buffer): SandboxError {
  const at = utf8Position(bytes);
  return notUtf8Error(bytes.subarray(at.offset, at.offset + 4), at);
}

/**
 * Parses a JSON document that is not a request body (a fixture file), as bodies are read: UTF-8,
 * no key twice, numbers a double would change recorded (http/exact-numbers.ts). Throws an Error
 * saying what is wrong and where.
 */
export function parseJsonDocument(bytes: Buffer): unknown {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw new Error(byteOrderMarkError().message);
  if (!isUtf8(bytes)) throw new Error(utf8Error(bytes).message);
  const text = bytes.toString('utf8');
  const value: unknown = JSON.parse(text);
  const scan = scanJson(text);
  if (scan.duplicate !== undefined) throw new Error(`${scan.duplicate} appears twice in its object: each field occurs exactly once`);
  const lone = mayHoldLoneSurrogate(text) ? loneSurrogateError(text) : undefined;
  if (lone) throw new Error(lone.message);
  recordExactNumbers(value, scan.inexact);
  return value;
}

/**
 * JSON.parse, with the numbers a double would change recorded (http/exact-numbers.ts), so that a
 * reader that compares or writes them back takes their texts: a client's body a mapping compares or
 * a template reads. A number the double only spells otherwise (1E+1) is read as its double here, a
 * value for the template helpers to compare; a mapping's own JSON is read by parseJsonAsWritten.
 * Throws what JSON.parse throws.
 */
export function parseJsonExact(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const changed = scanJson(text).inexact.filter((number) => number.changed);
  if (changed.length > 0) recordExactNumbers(value, changed);
  return value;
}

/**
 * JSON.parse of a document kept and shown or sent back as its writer wrote it: a stub mapping (from a
 * --stubs file or as the sandbox stored it), or a body the sandbox keeps without reading it as an
 * operation's (a user-defined operation's, a proxied request's, a 404's), with every number a double
 * would change or write otherwise recorded, as in a documented operation's body (parseJsonText): a
 * jsonBody of 1.10 or 1E+2 is answered and shown so and compared by its value (stubs/json-equal.ts),
 * the journal shows a body as sent (assumption exact-numbers), and a JSONPath filter's `=~` matches a
 * number as Jayway reads what was written (10.00 is a decimal, 10 an integer: runtime/jsonpath.ts).
 * Throws what JSON.parse throws.
 */
export function parseJsonAsWritten(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const { inexact } = scanJson(text);
  if (inexact.length > 0) recordExactNumbers(value, inexact);
  return value;
}

/**
 * The JSON parser of `app`, the root, whose 404 answers a request outside every prefix: a body is read
 * as every route reads it (a malformed one gets the same 400, with its position), and its numbers are
 * recorded as parseJsonAsWritten records them, so the journal shows the body as sent. Fastify's own
 * parser answered a malformed body there with the message of a forbidden key.
 */
export function useRootJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  addJsonBodyParser(app, parse, false);
}

/**
 * Parses JSON text the sandbox stored itself, for showing: a number a double would change or spell
 * otherwise (an amount, or a number kept as sent, written by stringifyExact) comes back as a
 * DecimalText, written out digit for digit.
 */
export function parseStoredJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const { inexact } = scanJson(text);
  if (inexact.length === 0 || typeof value !== 'object' || value === null) return value;
  for (const { segments, text: digits } of inexact) {
    let holder: unknown = value;
    for (let i = 0; i < segments.length - 1; i++) holder = (holder as Record<string, unknown>)[String(segments[i])];
    const key = segments[segments.length - 1];
    if (key !== undefined && typeof holder === 'object' && holder !== null)
      (holder as Record<string, unknown>)[String(key)] = new DecimalText(digits);
  }
  return value;
}
