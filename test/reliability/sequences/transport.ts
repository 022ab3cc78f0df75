// How the sequence suite reaches a sandbox: one `send` for every call, over app.inject or real HTTP,
// with the base URL prefix as a parameter (a workspace prefix such as /ws/a is one more segment in
// front of every path, the control plane's included). No vitest import: `npm run soak` runs it too.
import type { FastifyInstance } from 'fastify';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Call {
  method: Method;
  /** The path and query below the base prefix, e.g. /_sandbox/clock. */
  path: string;
  headers?: Record<string, string>;
  /** A JSON body (sent with Content-Type: application/json unless headers say otherwise). */
  json?: unknown;
  /** A body sent as these exact characters. */
  raw?: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON (or empty). */
  json: unknown;
  /** Real time (ms) just before the call went out and just after its answer came back. */
  sentAt: number;
  receivedAt: number;
}

export interface Transport {
  /** Sends a call with the full path (base prefix included). */
  send(call: Call): Promise<Answer>;
}

function body(call: Call): { payload?: string; headers: Record<string, string> } {
  const headers = { ...(call.headers ?? {}) };
  if (call.json !== undefined) {
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    return { payload: JSON.stringify(call.json), headers };
  }
  if (call.raw !== undefined) return { payload: call.raw, headers };
  return { headers };
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Through Fastify's inject: no socket, the fastest way. */
export function injectTransport(app: FastifyInstance): Transport {
  return {
    async send(call) {
      const { payload, headers } = body(call);
      const sentAt = Date.now();
      const res = await app.inject({
        method: call.method,
        url: call.path,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      const receivedAt = Date.now();
      const out: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(res.headers)) out[k] = v === undefined ? undefined : String(v);
      return { status: res.statusCode, headers: out, text: res.body, json: parse(res.body), sentAt, receivedAt };
    },
  };
}

/** Over a real socket with fetch, as a client would. */
export function httpTransport(url: string): Transport {
  return {
    async send(call) {
      const { payload, headers } = body(call);
      const sentAt = Date.now();
      const res = await fetch(`${url}${call.path}`, {
        method: call.method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
      const text = await res.text();
      const receivedAt = Date.now();
      const out: Record<string, string | undefined> = {};
      res.headers.forEach((v, k) => {
        out[k] = v;
      });
      return { status: res.status, headers: out, text, json: parse(text), sentAt, receivedAt };
    },
  };
}

/** A transport under a base prefix, with headers sent on every call (the admin token). */
export function under(transport: Transport, base: string, always: Record<string, string> = {}): Transport {
  return {
    send: (call) => transport.send({ ...call, path: `${base}${call.path}`, headers: { ...always, ...(call.headers ?? {}) } }),
  };
}
