// The JSON body parser of every interface and the control plane: Fastify's secure parser
// (__proto__ and constructor keys refused) plus a refusal of duplicate keys, which JSON.parse would
// silently resolve to the last occurrence ("each field occurs exactly once" in the receivables table;
// elsewhere a client sending a key twice has a bug that parsers resolve differently).
import { Buffer } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pointer, SandboxError } from './errors.js';
import { JsonReadError, JsonStreamReader } from './json-stream.js';
import { FALLBACK } from './outcomes.js';

// One set of messages for a body that is not JSON, whether it was read whole (every route) or as a
// stream (the loan-bond registration): both say what and where from the same reader's findings.

/** A body that is not JSON or not UTF-8: what is wrong, at which byte offset, line and column. */
export function malformedBodyError(problem: JsonReadError): SandboxError {
  const where = `at byte offset ${problem.at.offset} (line ${problem.at.line}, column ${problem.at.column})`;
  const message =
    problem.kind === 'utf8'
      ? `the body is not valid UTF-8: ${problem.what} ${where}`
      : `the body is not valid JSON: ${problem.what} ${where}`;
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
  const reader = new JsonStreamReader({ sinkFor: () => undefined, keepLimit: Number.POSITIVE_INFINITY });
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

/**
 * Parses a whole JSON text as every body is parsed: Fastify's secure parser (__proto__ and
 * constructor keys refused), then duplicate keys refused. Calls back with the value or the error.
 */
export function parseJsonText(
  parse: ReturnType<FastifyInstance['getDefaultJsonParser']>,
  request: FastifyRequest,
  text: string,
  done: (err: Error | null, value?: unknown) => void,
): void {
  parse(request, text, (err, value) => {
    if (err) {
      if ((err as { code?: string }).code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return done(emptyBodyError());
      const problem = locateJsonProblem(text);
      return done(problem ? malformedBodyError(problem) : forbiddenKeyError());
    }
    const duplicate = findDuplicateKey(text);
    if (duplicate === undefined) return done(null, value);
    done(duplicateKeyError(duplicate));
  });
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Frame {
  object: boolean;
  keys: Set<string>;
  /** The current key (objects) or index (arrays): the pointer segment of the value inside. */
  segment: string | number;
  expectKey: boolean;
}

/**
 * The JSON pointer of the first key that appears twice in one object of `text`, or undefined.
 * `text` must be valid JSON (call it after parsing). Linear: strings are skipped with indexOf, so
 * megabytes of base64 cost little.
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j === -1) return undefined;
        let backslashes = 0;
        while (text.charCodeAt(j - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      const top = stack[stack.length - 1];
      if (top?.object && top.expectKey) {
        const raw = text.slice(i + 1, j);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, j + 1)) as string) : raw;
        if (top.keys.has(key)) return pointer(...stack.slice(0, -1).map((f) => f.segment), key);
        top.keys.add(key);
        top.segment = key;
        top.expectKey = false;
      }
      i = j + 1;
      continue;
    }
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
  return undefined;
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

/** Whether a request's route reads an absent or empty body as {}. */
function bodyIsOptional(request: FastifyRequest): boolean {
  return request.routeOptions.config?.optionalBody === true;
}

/**
 * Installs the JSON-only body parser on an encapsulated instance (other content types: 400). With
 * `optionalBodies`, routes marked `optionalBody` read an absent or empty body as {}.
 */
export function useJsonBodies(app: FastifyInstance, options: { optionalBodies?: boolean } = {}): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  // Fastify ignores a GET's body; a client that sends one believes it is read, so it is refused.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET') return;
    const length = request.headers['content-length'];
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (chunked || (length !== undefined && length !== '0'))
      throw new SandboxError(
        400,
        `a GET takes no body, and this one has ${chunked ? 'Transfer-Encoding' : `Content-Length ${length}`}: send the parameters in the query string`,
      );
  });
  if (options.optionalBodies) {
    app.addHook('preValidation', async (request) => {
      if (request.body === undefined && bodyIsOptional(request)) request.body = {};
    });
  }
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (options.optionalBodies && (body as string).trim() === '' && bodyIsOptional(request)) return done(null, {});
    parseJsonText(parse, request, String(body), done);
  });
}
