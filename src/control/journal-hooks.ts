// The journal's side of every request under an interface prefix (and of every 404): the trace started
// when it arrives, the response body kept as it is sent, and the entry written once it is answered
// (runtime/journal.ts keeps the entries; control/journal-routes.ts serves them). A request refused
// before routing is journaled by journalUnrouted.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InterfaceId } from '../http/errors.js';
import { pathOf } from '../http/url.js';
import { runtimeOf } from '../runtime/index.js';
import { type Captured, captureCutText, captureText, captureValue, type PackedRequest, packRequest } from '../runtime/journal.js';
import { redact, truncatedMarker } from '../runtime/redact.js';

/** What the journal keeps of a request while it is answered. */
export interface Trace {
  interface: InterfaceId | null;
  path: string;
  time: string;
  realTime: string;
  /** The fault rule that answered or delayed it (control/fault-hook.ts). */
  fault: string | null;
  response: unknown;
  /** The outcome id the answer carries (Sandbox-Outcome, control/outcome-hook.ts); null: none. */
  outcome: string | null;
}

/** The count of warnings in a Sandbox-Warnings header: an integer, or a comma-separated list. */
export function warningCount(header: unknown): number | null {
  if (header === undefined || header === null) return null;
  const text = Array.isArray(header) ? header.join(',') : String(header);
  if (/^\s*\d+\s*$/.test(text)) return Number(text);
  return text.split(',').filter((s) => s.trim() !== '').length;
}

/** The request line and headers as sent, packed (redacted when the journal is read). */
function sentRequest(request: FastifyRequest): PackedRequest {
  const raw = request.raw;
  return packRequest({ method: raw.method ?? request.method, url: request.originalUrl, httpVersion: raw.httpVersion, rawHeaders: raw.rawHeaders });
}

/** The trace of a request that arrived now (the sandbox clock, and the real one beside it). */
export function startTrace(request: FastifyRequest, iface: InterfaceId | null, path: string): Trace {
  return {
    interface: iface,
    path,
    time: runtimeOf(request).clock.now().toISOString(),
    // The real clock on purpose: the journal says when a request really came, next to sandbox time.
    realTime: new Date().toISOString(),
    fault: null,
    response: undefined,
    outcome: null,
  };
}

/**
 * A proxied answer's body as the client got it. One cut midway ends with a marker saying so: the
 * status was sent, the body broke off, and the client saw its connection cut.
 */
function proxiedBody(body: Buffer | null, cut: string | null): Captured {
  if (cut === null) return captureText(body);
  return captureCutText(body, truncatedMarker(`${cut}; the client's connection was cut`));
}

/** Writes the journal entry of an answered request. */
export function writeEntry(request: FastifyRequest, reply: FastifyReply, trace: Trace): void {
  const journal = runtimeOf(request).journal;
  if (!journal.enabled) return;
  const config = request.routeOptions.config;
  // A user-defined operation names the named-only operation it implements, if any; a proxied
  // answer went to the client unseen by onSend, its copy is read here.
  const hit = request.stubHit;
  const proxied = request.proxied;
  const response = proxied && trace.response === undefined ? proxiedBody(proxied.responseBody(), proxied.cut) : captureText(trace.response);
  journal.add({
    id: journal.nextId(),
    time: trace.time,
    realTime: trace.realTime,
    interface: hit ? (hit.interface ?? trace.interface) : trace.interface,
    operation: hit ? hit.stub.operation : (config.operation ?? null),
    method: request.method,
    path: trace.path,
    query: captureValue(request.query ?? {}, 0),
    sent: sentRequest(request),
    status: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 100) / 100,
    warnings: warningCount(reply.getHeader('sandbox-warnings')),
    fault: trace.fault,
    outcome: trace.outcome,
    mapping: hit ? hit.stub.id : null,
    upstream: proxied ? proxied.upstream : null,
    requestBody: captureValue(
      proxied && request.body === undefined ? proxied.requestBody() : request.body,
      Number(request.headers['content-length'] ?? Number.POSITIVE_INFINITY),
    ),
    responseBody: response,
  });
}

/**
 * Journals a request refused before routing (a path the router cannot read): no hook runs for it, yet
 * it came under an interface prefix and the client needs to see what it sent.
 */
export function journalUnrouted(request: FastifyRequest, status: number, body: unknown): void {
  const path = pathOf(request.url);
  const iface = request.server.interfaces.ofPath(path)?.contract.id;
  if (iface === undefined) return;
  let runtime;
  try {
    runtime = runtimeOf(request);
  } catch {
    // Its workspace could not be created (the limit): there is no journal to write to.
    return;
  }
  const { journal, clock } = runtime;
  if (!journal.enabled) return;
  const now = clock.now().toISOString();
  journal.add({
    id: journal.nextId(),
    time: now,
    realTime: new Date().toISOString(),
    interface: iface,
    operation: null,
    method: request.method,
    path,
    query: captureValue({}, 0),
    sent: sentRequest(request),
    status,
    durationMs: 0,
    warnings: null,
    fault: null,
    outcome: null,
    mapping: null,
    upstream: null,
    requestBody: captureValue(null, 0),
    responseBody: { redacted: true, value: redact(body) },
  });
}
