// Proxy mode: every request of an interface that has an upstream (`--upstream`) goes to the real
// service, documented operations included, and its answer comes back unchanged. Each answer to a
// documented operation is checked for the conformance report; with `--record DIR`, each exchange of
// an operation the specification names only is written as a mapping. An upstream that gives no
// answer gets one from the sandbox that names it, with a status the interface documents.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Operation } from '../http/catalog.js';
import { type InterfaceId, renderError, SandboxError, standardBody } from '../http/errors.js';
import type { Interfaces } from '../http/interface-module.js';
import { pathOf } from '../http/url.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import { sentBodyValue } from '../runtime/journal.js';
import { ownerOfRequest } from '../stubs/ownership.js';
import type { ConformanceChecker } from './conformance.js';
import { ConformanceLog } from './conformance-report.js';
import { closeUpstreamConnections, forward } from './proxy.js';
import { RECORDING_HEADER, type Recorder } from './record.js';
import type { Upstreams } from './upstreams.js';

/** How long an upstream may take to answer (and to go silent within an answer). */
export const UPSTREAM_TIMEOUT_MS = 30_000;
/** Bytes of each body kept for the journal, the recorder and the report (the rest goes through uncopied). */
export const CAPTURE_LIMIT = 4 * 1024 * 1024;

/** What the journal learns of a proxied request. */
export interface ProxiedAnswer {
  upstream: string;
  /** The copy of the answer's body kept so far (null: none yet, or larger than the capture limit). */
  responseBody(): Buffer | null;
  /** The request body as forwarded, JSON read when it is JSON (undefined: none, or not kept). */
  requestBody(): unknown;
  /** Why the answer stopped short of complete, the client's connection cut (null: it did not). */
  cut: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request went to an upstream. */
    proxied: ProxiedAnswer | null;
  }
}

export interface ProxyServing {
  upstreams: Upstreams;
  interfaces: Interfaces;
  interfaceOfPath(path: string): InterfaceId | null;
  operations: readonly Operation[];
  /** Built once the app is ready (it reads the served OpenAPI document). */
  checker(): ConformanceChecker;
  recorder: Recorder | undefined;
}

const logs = new WeakMap<Runtime, ConformanceLog>();

/** A workspace's conformance observations. */
export function conformanceLogOf(runtime: Runtime): ConformanceLog {
  let log = logs.get(runtime);
  if (!log) logs.set(runtime, (log = new ConformanceLog(() => runtime.clock.nowMs())));
  return log;
}

/** The status an interface answers when its upstream gives none: its documented 500, else its 400. */
export function upstreamFailureStatus(statuses: readonly number[] | null): number {
  if (statuses === null) return 502;
  return statuses.includes(500) ? 500 : 400;
}

export function installProxy(app: FastifyInstance, serving: ProxyServing): void {
  app.decorateRequest('proxied', null);
  if (!serving.upstreams.enabled) return;
  app.addHook('onClose', () => closeUpstreamConnections());

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(request.url);
    if (path.startsWith('/_sandbox')) return;
    const iface = serving.interfaceOfPath(path);
    if (iface === null && !request.is404) return;
    const upstream = serving.upstreams.for(iface);
    if (!upstream) return;
    const proxied: ProxiedAnswer = { upstream: upstream.url, responseBody: () => null, requestBody: () => undefined, cut: null };
    request.proxied = proxied;
    const owner = ownerOfRequest(request.method, path, serving.operations);
    // A recording that is full says so on each answer it would have recorded (assumption record-limit).
    const recorder = owner ? undefined : serving.recorder;
    const result = await forward(request, reply, upstream, {
      addedHeaders: recorder?.full ? [[RECORDING_HEADER, recorder.fullHeader]] : [],
      timeoutMs: UPSTREAM_TIMEOUT_MS,
      captureLimit: CAPTURE_LIMIT,
      started: (responseBody, requestBody) => {
        proxied.responseBody = responseBody;
        proxied.requestBody = () => sentBodyValue(requestBody(), request.headers['content-type']);
      },
      changed: (changes) => request.log.warn({ upstream: upstream.url, changes }, "the upstream's answer could not be passed on unchanged"),
      cut: (note) => {
        proxied.cut = note;
        request.log.warn({ upstream: upstream.url, status: reply.raw.statusCode, note }, "the answer was cut midway: the client's connection is cut");
      },
    });
    if ('failed' in result) {
      const status = upstreamFailureStatus(iface === null ? null : serving.interfaces.contract(iface).statuses);
      const what = result.unusable ? 'gave no answer the sandbox can pass on' : 'gave no answer';
      const message = `the upstream ${upstream.url} ${what}: ${result.failed} (proxy mode sends every ${iface ?? 'request outside the interfaces'}${iface ? ' request' : ''} to it)`;
      request.log.warn({ upstream: upstream.url, reason: result.failed }, `upstream ${what}`);
      const body =
        iface === null
          ? standardBody(status, message)
          : renderError(serving.interfaces.contract(iface).shape, new SandboxError(status, message, { code: 'UpstreamUnavailable' }));
      return reply.code(status).type('application/json').send(body);
    }
    const capture = result.answered;
    try {
      if (owner) {
        const findings = serving.checker().check(owner.id, capture);
        conformanceLogOf(runtimeOf(request)).record(owner.id, capture, findings);
      } else if (recorder) {
        recorder.record(capture, iface);
      }
    } catch (err) {
      // The answer is already with the client; a failure here only costs the report or the file.
      request.log.error({ err }, 'could not check or record a proxied exchange');
    }
    return reply;
  });
}
