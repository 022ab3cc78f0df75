// The control plane's eye on the emulated interfaces: root hooks that apply fault rules and write
// the journal. Installed before the interfaces are registered, so every interface inherits them
// (its documented routes, its 501s) and so do the 404s outside every prefix.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InterfaceId } from '../http/errors.js';
import { faultBody } from '../runtime/faults.js';
import { runtimeOf } from '../runtime/index.js';
import { captureText, captureValue, type SentRequest } from '../runtime/journal.js';
import { redact } from '../runtime/redact.js';
import { pathOf } from '../http/url.js';
import { faultSlug } from '../http/outcomes.js';

/** The response header naming the outcome of an answer of a documented operation. */
export const OUTCOME_HEADER = 'sandbox-outcome';


interface Trace {
  interface: InterfaceId | null;
  path: string;
  time: string;
  realTime: string;
  fault: string | null;
  response: unknown;
  /** The outcome id the answer carries (Sandbox-Outcome), null: none. */
  outcome: string | null;
}

const CONTROL_PREFIX = '/_sandbox';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The count of warnings in a Sandbox-Warnings header: an integer, or a comma-separated list. */
/** The request line and headers as sent (redacted when the journal is read). */
function sentRequest(request: FastifyRequest): SentRequest {
  const raw = request.raw;
  return { method: raw.method ?? request.method, url: request.originalUrl, httpVersion: raw.httpVersion, rawHeaders: raw.rawHeaders };
}

export function warningCount(header: unknown): number | null {
  if (header === undefined || header === null) return null;
  const text = Array.isArray(header) ? header.join(',') : String(header);
  if (/^\s*\d+\s*$/.test(text)) return Number(text);
  return text.split(',').filter((s) => s.trim() !== '').length;
}

export function installControlHooks(app: FastifyInstance): void {
  const traces = new WeakMap<FastifyRequest, Trace>();
  const { interfaces } = app;

  // Root onRequest hooks run before every interface's own, so a fault rule pre-empts everything the
  // service would check (credentials, body): it stands for the service itself failing. A faulted
  // request's body is therefore never read, and the journal shows it as null.
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(request.url);
    if (path.startsWith(CONTROL_PREFIX)) return;
    const owner = interfaces.ofPath(path);
    const iface = owner?.contract.id ?? null;
    // Outside the interfaces only the 404s are journaled (not /docs, /openapi.json): nothing to do for
    // the others, and a workspace named in their path is not created by them.
    if (iface === null && !request.is404) return;
    const { journal, faults, clock } = runtimeOf(request);
    if (iface === null && !journal.enabled) return;
    const trace: Trace = {
      interface: iface,
      path,
      time: clock.now().toISOString(),
      // The real clock on purpose: the journal says when a request really came, next to sandbox time.
      realTime: new Date().toISOString(),
      fault: null,
      response: undefined,
      outcome: null,
    };
    traces.set(request, trace);
    if (owner === undefined || faults.size === 0) return;
    const rule = faults.take(request.method, path, owner.contract.id);
    if (!rule) return;
    trace.fault = rule.id;
    request.log.debug({ fault: rule.id }, 'fault rule applied');
    if (rule.delayMs > 0) await sleep(rule.delayMs);
    if (rule.status !== null) {
      // Answered by the rule, not by the service: the operation's fault outcome for that status.
      if (request.routeOptions.config.operation !== undefined) request.outcome = faultSlug(rule.status);
      reply.code(rule.status).type('application/json').send(faultBody(rule, owner.contract.shape));
      return reply;
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const trace = traces.get(request);
    const slug = request.outcome;
    // Only an answer that is journaled or tagged needs its runtime (resolving it may create a workspace).
    if (slug === null && !trace) return payload;
    const { coverage, journal } = runtimeOf(request);
    if (slug !== null && coverage.enabled) {
      // Counted as it is sent; a tag whose status is not the one sent is a bug of the sandbox, never counted.
      const operation = request.routeOptions.config.operation;
      const counter = operation === undefined ? undefined : coverage.find(operation, slug);
      if (counter !== undefined && counter.outcome.status === reply.statusCode) {
        coverage.hit(counter);
        reply.header(OUTCOME_HEADER, counter.outcome.id);
        if (trace) trace.outcome = counter.outcome.id;
      } else {
        request.log.error({ operation, outcome: slug, statusCode: reply.statusCode }, 'answer tagged with an outcome that does not fit it');
      }
    }
    if (trace && journal.enabled) trace.response = payload;
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    const trace = traces.get(request);
    if (!trace) return;
    const journal = runtimeOf(request).journal;
    // A trace exists only under an interface prefix or for a 404 (onRequest above decides).
    if (!journal.enabled) return;
    const config = request.routeOptions.config;
    journal.add({
      id: journal.nextId(),
      time: trace.time,
      realTime: trace.realTime,
      interface: trace.interface,
      operation: config.operation ?? null,
      method: request.method,
      path: trace.path,
      query: captureValue(request.query ?? {}, 0),
      sent: sentRequest(request),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      warnings: warningCount(reply.getHeader('sandbox-warnings')),
      fault: trace.fault,
      outcome: trace.outcome,
      requestBody: captureValue(request.body, Number(request.headers['content-length'] ?? Number.POSITIVE_INFINITY)),
      responseBody: captureText(trace.response),
    });
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
    requestBody: captureValue(null, 0),
    responseBody: { redacted: true, value: redact(body) },
  });
}
