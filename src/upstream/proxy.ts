// Forwarding one request to the real service and its answer back unchanged: status, reason phrase,
// end-to-end headers in their order and case, body bytes. Hop-by-hop headers (RFC 9110 section 7.6.1:
// Connection and the headers it names, Keep-Alive, Transfer-Encoding, TE, Trailer, Upgrade,
// Proxy-*) belong to each connection and are not forwarded; nor are the sandbox's own request
// headers (Sandbox-*: the admin key must never reach another service). Connections to each upstream
// are kept alive and reused. A copy of each body, up to a limit, is kept for the journal, the
// recorder and the conformance report.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

export type ForwardResult = { answered: Exchange } | { failed: string };

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
  /** Called when the answer starts, with ways to read the copies of both bodies kept so far. */
  started?(responseBody: () => Buffer | null, requestBody: () => Buffer | null): void;
}

/**
 * Forwards the request and, once the upstream answers, writes its answer to the client as it comes
 * (the reply is hijacked: Fastify sends nothing of its own). Resolves when the answer is complete, or
 * with `failed` when no answer came (nothing was sent then: the caller answers).
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
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      if (!reply.sent && !settled) {
        raw.unpipe(outgoing);
        settle({ failed: err.code ? `${err.code} (${err.message})` : err.message });
      } else {
        // The answer had begun: the client's connection is cut, as the upstream's was.
        reply.raw.destroy();
      }
    });
    outgoing.on('response', (incoming: IncomingMessage) => {
      const status = incoming.statusCode ?? 502;
      const statusMessage = incoming.statusMessage ?? '';
      const responseHeaders = endToEnd(incoming.rawHeaders, () => false);
      const responseCopy = new Capture(options.captureLimit);
      options.started?.(() => responseCopy.bytes, () => requestCopy.bytes);
      reply.hijack();
      const res = reply.raw;
      // Only the upstream's headers: no Date of the sandbox's own when the upstream sent none.
      res.sendDate = false;
      res.writeHead(status, statusMessage, responseHeaders.flat());
      incoming.on('data', (chunk: Buffer) => responseCopy.add(chunk));
      incoming.pipe(res);
      const done = (complete: boolean) =>
        settle({
          answered: {
            upstream,
            method: request.method,
            url,
            requestHeaders,
            requestBody: requestCopy.bytes,
            status,
            statusMessage,
            responseHeaders,
            responseBody: responseCopy.bytes,
            complete,
          },
        });
      incoming.on('end', () => done(true));
      incoming.on('aborted', () => {
        res.destroy();
        done(false);
      });
      res.on('close', () => {
        if (!incoming.complete) {
          incoming.destroy();
          done(false);
        }
      });
    });
    raw.on('data', (chunk: Buffer) => requestCopy.add(chunk));
    raw.on('aborted', () => outgoing.destroy());
    raw.pipe(outgoing);
  });
}
