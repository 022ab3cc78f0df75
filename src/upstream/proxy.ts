// Forwarding one request to the real service and its answer back unchanged: status, reason phrase,
// end-to-end headers in their order and case, body bytes. Hop-by-hop headers (RFC 9110 section 7.6.1:
// Connection and the headers it names, Keep-Alive, Transfer-Encoding, TE, Trailer, Upgrade,
// Proxy-*) belong to each connection and are not forwarded; nor are the sandbox's own request
// headers (Sandbox-*: the admin key must never reach another service). Connections to each upstream
// are kept alive and reused. A copy of each body, up to a limit, is kept for the journal, the
// recorder and the conformance report. Only what Node cannot write back is left out (sendableHead):
// whatever the upstream sends, the sandbox goes on.
import http, { type IncomingMessage, validateHeaderName, validateHeaderValue } from 'node:http';
import https from 'node:https';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { plural } from '../domain/plural.js';
import type { Upstream } from './upstreams.js';

/** One request and answer that went through the proxy. */
export interface Exchange {
  upstream: Upstream;
  method: string;
  /** Path and query as forwarded, relative to the upstream's base URL (the workspace prefix taken off). */
  url: string;
  /** Header names in lower case, as the client sent them. */
  requestHeaders: ReadonlyMap<string, string[]>;
  /** null: longer than the capture limit (the bytes went through, no copy was kept). */
  requestBody: Buffer | null;
  status: number;
  statusMessage: string;
  /** Name and value pairs as the upstream sent them, hop-by-hop headers left out. */
  responseHeaders: Array<[string, string]>;
  responseBody: Buffer | null;
  /** False when the upstream or the client broke off before the answer was complete. */
  complete: boolean;
}

export type ForwardResult =
  | { answered: Exchange }
  | {
      /** Why nothing of the upstream's answer reached the client (nothing was sent: the caller answers). */
      failed: string;
      /** True: the upstream answered, in a form that cannot be passed on; else it gave no answer. */
      unusable?: boolean;
    };

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The end-to-end headers of a raw header list (Node's rawHeaders), as name and value pairs. */
function endToEnd(raw: readonly string[], drop: (lower: string) => boolean): Array<[string, string]> {
  const connection = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] ?? '').toLowerCase() === 'connection') {
      for (const token of (raw[i + 1] ?? '').split(',')) connection.add(token.trim().toLowerCase());
    }
  }
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connection.has(lower) || drop(lower)) continue;
    out.push([name, raw[i + 1] ?? '']);
  }
  return out;
}

/** What Node refuses to write in a reason phrase or a header value (the rule of its writeHead). */
const UNWRITABLE_TEXT = /[^\t\x20-\x7e\x80-\xff]/;

/** The upstream's status line and headers as they can be written to the client. */
type Head = { status: number; statusMessage: string; headers: Array<[string, string]>; changes: string[] } | { unusable: string };

/**
 * The head of the upstream's answer as it can be written to the client. Node's parser lets through
 * what Node's writeHead refuses: a status under 100 (no answer can carry it: the whole answer is
 * unusable), a reason phrase with control characters (left out: the status line goes without one),
 * a header Node would refuse (left out). Each thing left out is named in `changes`, never a value.
 */
function sendableHead(answer: IncomingMessage): Head {
  const status = answer.statusCode ?? 0;
  if (!Number.isInteger(status) || status < 100 || status > 999) {
    return { unusable: `it answered status ${status}, which no HTTP answer can carry (a status runs from 100 to 999)` };
  }
  const changes: string[] = [];
  let statusMessage = answer.statusMessage ?? '';
  if (UNWRITABLE_TEXT.test(statusMessage)) {
    statusMessage = '';
    changes.push('its reason phrase holds a control character: the status line went without one');
  }
  const headers: Array<[string, string]> = [];
  // A 204 carries no Content-Length (RFC 9110 section 8.6); a body it announced is told apart below.
  for (const [name, value] of endToEnd(answer.rawHeaders, (lower) => status === 204 && lower === 'content-length')) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
      headers.push([name, value]);
    } catch {
      changes.push(`its header ${JSON.stringify(name.slice(0, 64))} cannot be written: it was left out`);
    }
  }
  return { status, statusMessage, headers, changes };
}

/** Statuses whose answer never has a body (RFC 9110 sections 6.4.1, 15.3.5, 15.4.5): Node's parser reads none. */
const NO_BODY = new Set([204, 304]);

/** A chunked body's data; what is incomplete or malformed ends it. */
function dechunked(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(bytes.subarray(at, eol).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isInteger(size) || size <= 0) break;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * The body an upstream sent after the head of a status that has none (a 204 "{}"). Node's parser
 * takes those bytes for the next answer and fails on them; its error keeps the chunk it read
 * (`rawPacket`) and how far it got (`bytesParsed`): the body starts after the head's blank line.
 * Framed as the head said: its Content-Length, its chunks, or up to the connection's end. Undefined
 * when the error is not of that kind. Only bytes that arrived with the head are seen: the upstream's
 * connection is closed on the error.
 */
function bodyAfterNoBodyHead(err: NodeJS.ErrnoException, answer: IncomingMessage): Buffer | undefined {
  const { rawPacket, bytesParsed } = err as { rawPacket?: unknown; bytesParsed?: unknown };
  if (!err.code?.startsWith('HPE_') || !Buffer.isBuffer(rawPacket) || typeof bytesParsed !== 'number') return undefined;
  const headEnd = rawPacket.lastIndexOf('\r\n\r\n', Math.max(bytesParsed - 4, 0));
  const after = rawPacket.subarray(headEnd < 0 ? bytesParsed : headEnd + 4);
  if (after.length === 0) return undefined;
  if (/\bchunked\s*$/i.test(String(answer.headers['transfer-encoding'] ?? ''))) return dechunked(after);
  const length = Number(answer.headers['content-length']);
  return Number.isInteger(length) && length >= 0 ? after.subarray(0, length) : after;
}

const agents = new Map<string, http.Agent>();

function agentFor(upstream: Upstream): http.Agent {
  const key = `${upstream.protocol}//${upstream.hostname}:${upstream.port}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: 256, keepAliveMsecs: 1000 };
    agent = upstream.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the kept-alive connections (the app closing). */
export function closeUpstreamConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/** Collects a copy of a stream's bytes up to `limit`; past it, the copy is dropped (null). */
class Capture {
  private chunks: Buffer[] | null = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    if (this.chunks === null) return;
    this.size += chunk.length;
    if (this.size > this.limit) this.chunks = null;
    else this.chunks.push(chunk);
  }

  get bytes(): Buffer | null {
    return this.chunks === null ? null : Buffer.concat(this.chunks);
  }
}

export interface ForwardOptions {
  /** How long the upstream may take to answer, and to go silent within an answer. */
  timeoutMs: number;
  /** Bytes of each body kept for the journal, the recorder and the report. */
  captureLimit: number;
  /**
   * Headers of the sandbox's own written after the upstream's (Sandbox-Recording once a recording is
   * full); not part of the exchange the journal, the recorder and the report see.
   */
  addedHeaders?: ReadonlyArray<[string, string]>;
  /** Called when the answer starts, with ways to read the copies of both bodies kept so far. */
  started?(responseBody: () => Buffer | null, requestBody: () => Buffer | null): void;
  /** Called as the answer starts when its head could not be written as the upstream sent it: what was left out. */
  changed?(changes: readonly string[]): void;
  /**
   * Called when an answer that has begun stops short, with why, just before the client's connection
   * is cut and the request is journaled.
   */
  cut?(note: string): void;
}

/**
 * Forwards the request and, once the upstream answers, writes its answer to the client as it comes
 * (the reply is hijacked: Fastify sends nothing of its own). Resolves when the answer is complete or
 * cut, or with `failed` when nothing of it could be sent (the caller answers then). Every write to the
 * client is guarded: whatever the upstream sends, the sandbox answers or cuts the connection, and goes on.
 */
export function forward(request: FastifyRequest, reply: FastifyReply, upstream: Upstream, options: ForwardOptions): Promise<ForwardResult> {
  return new Promise((resolve) => {
    const raw = request.raw;
    const url = request.url;
    const headers = endToEnd(raw.rawHeaders, (lower) => lower === 'host' || lower.startsWith('sandbox-'));
    headers.unshift(['Host', upstream.host]);
    const requestHeaders = new Map<string, string[]>();
    for (const [name, value] of headers.slice(1)) {
      const lower = name.toLowerCase();
      requestHeaders.set(lower, [...(requestHeaders.get(lower) ?? []), value]);
    }
    const requestCopy = new Capture(options.captureLimit);
    let settled = false;
    const settle = (result: ForwardResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };

    const outgoing = (upstream.protocol === 'https:' ? https : http).request({
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: `${upstream.basePath}${url}`,
      headers: headers.flat(),
      setHost: false,
      agent: agentFor(upstream),
    });
    outgoing.setTimeout(options.timeoutMs, () => outgoing.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
    // Set once the upstream's answer has begun to reach the client: from then on the client's
    // connection can only be cut, no longer answered.
    let began = false;
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      if (!began) {
        raw.unpipe(outgoing);
        settle(err.code?.startsWith('HPE_') ? { failed: `it answered what is not HTTP: ${err.message} (${err.code})`, unusable: true } : { failed: err.code ? `${err.code} (${err.message})` : err.message });
      } else {
        const status = incoming?.statusCode ?? 0;
        const extra = incoming && NO_BODY.has(status) && incoming.complete ? bodyAfterNoBodyHead(err, incoming) : undefined;
        if (extra !== undefined) {
          // The client has its whole answer already: the body is kept for the journal and the report.
          responseCopy?.add(extra);
          options.changed?.([`its ${status} carried a body of ${plural(extra.length, 'byte')}, which a ${status} cannot carry: the client got the ${status} without it; the journal keeps it`]);
          return;
        }
        // The answer had begun: the client's connection is cut, as the upstream's was.
        cut(`the connection to the upstream failed (${err.code ?? err.message})`);
      }
    });
    const res = reply.raw;
    let responseCopy: Capture | undefined;
    let incoming: IncomingMessage | undefined;
    /**
     * Ends an answer that has begun but cannot be completed: the client's connection is cut, the only
     * way left to say so. Fastify's onResponse hooks (the journal entry, the request's log line) run on
     * the response's 'finish' or 'error' only, and a destroyed response emits neither: the error is
     * emitted for them first.
     */
    const cut = (note: string) => {
      if (settled) return;
      done(false);
      options.cut?.(note);
      incoming?.destroy();
      res.emit('error', new Error(note));
      res.destroy();
    };
    const done = (complete: boolean) =>
      settle({
        answered: {
          upstream,
          method: request.method,
          url,
          requestHeaders,
          requestBody: requestCopy.bytes,
          status: res.statusCode,
          statusMessage: res.statusMessage,
          responseHeaders: sentHeaders,
          responseBody: responseCopy?.bytes ?? null,
          complete,
        },
      });
    let sentHeaders: Array<[string, string]> = [];
    let responseBytes = 0;
    // Fastify stops listening for errors once the answer is finished; a late one of a closing
    // connection must not become an uncaught exception.
    res.on('error', () => {});
    outgoing.on('response', (answer: IncomingMessage) => {
      incoming = answer;
      const head = sendableHead(answer);
      if ('unusable' in head) {
        answer.destroy();
        raw.unpipe(outgoing);
        settle({ failed: head.unusable, unusable: true });
        return;
      }
      // Only the upstream's headers: no Date of the sandbox's own when the upstream sent none.
      res.sendDate = false;
      try {
        res.writeHead(head.status, head.statusMessage, [...head.headers, ...(options.addedHeaders ?? [])].flat());
      } catch (err) {
        // Nothing was written (Node checks the head before it keeps it): the sandbox answers instead,
        // with what writeHead left behind undone.
        res.sendDate = true;
        res.statusMessage = '';
        answer.destroy();
        raw.unpipe(outgoing);
        settle({ failed: `its answer's head cannot be written: ${(err as Error).message}`, unusable: true });
        return;
      }
      began = true;
      sentHeaders = head.headers;
      const copy = new Capture(options.captureLimit);
      responseCopy = copy;
      options.started?.(() => copy.bytes, () => requestCopy.bytes);
      if (head.changes.length > 0) options.changed?.(head.changes);
      reply.hijack();
      answer.on('data', (chunk: Buffer) => {
        responseBytes += chunk.length;
        copy.add(chunk);
      });
      answer.pipe(res);
      answer.on('end', () => done(true));
      answer.on('aborted', () => cut(`the upstream's answer broke off after ${responseBytes} bytes of its body`));
      res.on('close', () => {
        if (!answer.complete) cut(`the client's connection closed after ${responseBytes} bytes of the body`);
      });
    });
    raw.on('data', (chunk: Buffer) => requestCopy.add(chunk));
    raw.on('aborted', () => outgoing.destroy());
    raw.pipe(outgoing);
  });
}
