// The JSON body parser of every interface and the control plane: Fastify's secure parser
// (__proto__ and constructor keys refused) plus a refusal of duplicate keys, which JSON.parse would
// silently resolve to the last occurrence ("each field occurs exactly once" in the receivables table;
// elsewhere a client sending a key twice has a bug that parsers resolve differently).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pointer, SandboxError } from './errors.js';
import { FALLBACK } from './outcomes.js';

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
    parse(request, String(body), (err, value) => {
      if (err) return done(err, undefined);
      const duplicate = findDuplicateKey(body as string);
      if (duplicate === undefined) return done(null, value);
      const message = 'appears twice in its object: each field occurs exactly once';
      done(
        new SandboxError(400, `${duplicate}: ${message}`, { details: [{ path: duplicate, message }], outcome: FALLBACK.malformed }),
        undefined,
      );
    });
  });
}
