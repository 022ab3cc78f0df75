// Serving user-defined operations: a request that no documented operation owns (under an interface's
// prefix, or a 404 outside them) is matched against the workspace's stub mappings before the sandbox
// answers its 501 (or 404). Its body is read as bytes, whatever its type (a login form, an XML
// import), so a mapping matches what was sent. With no mapping in the workspace, nothing changes.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Operation } from '../http/catalog.js';
import { type InterfaceId, renderError, SandboxError, standardBody } from '../http/errors.js';
import type { Interfaces } from '../http/interface-module.js';
import { describeBytes, notImplementedBody, outsideBody } from '../http/interface-plugin.js';
import { pathOf } from '../http/url.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import { removalRefusal, workspaceNameOf, WorkspaceRemovingError } from '../runtime/workspaces.js';
import { sentBodyValue } from '../runtime/journal.js';
import { type HelperSet, templateHelpers, TemplateError } from '../runtime/templates.js';
import type { RequestView } from './match.js';
import { ownerOfRequest } from './ownership.js';
import { renderAnswer } from './respond.js';
import type { StubSet } from './stub-set.js';
import type { Stub } from './mapping.js';

/** What the journal and coverage learn of an answer given by a mapping. */
export interface StubHit {
  stub: Stub;
  /** The interface the request belongs to: the mapping's operation's, else the path's prefix's. */
  interface: InterfaceId | null;
  /** False: the mapping sent no Content-Type, and none is added. */
  contentType: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The mapping that answered this request, if one did. */
    stubHit: StubHit | null;
  }
}

export interface StubServing {
  stubs: StubSet;
  interfaces: Interfaces;
  interfaceOfPath(path: string): InterfaceId | null;
  /** The catalog: documented operations keep their requests. */
  operations: readonly Operation[];
  /** The 404 message outside every prefix (the same as the sandbox's own 404). */
  outsideMessage(method: string, path: string): string;
  /** What GET /_sandbox{path} answers in a workspace, for the inspect helper (null for a 404). */
  inspect(runtime: Runtime, path: string): unknown;
  bodyLimit: number;
}

class BodyTooLarge extends Error {}

/** The request body as bytes, at most `limit` of them. */
export function readRawBody(raw: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    raw.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    raw.on('end', () => resolve(Buffer.concat(chunks)));
    raw.on('error', reject);
  });
}

/** The base path the request reached its workspace by: /ws/{name} (/ws/default too), or ''. */
function workspaceBase(request: FastifyRequest): string {
  const name = workspaceNameOf(request.raw);
  return name === undefined ? '' : `/ws/${name}`;
}

/** The request as a mapping is matched against it. */
export function requestView(request: FastifyRequest, body: Buffer): RequestView {
  const url = request.url;
  const path = pathOf(url);
  const q = url.indexOf('?');
  const query = new Map<string, string[]>();
  if (q >= 0) {
    for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
      const list = query.get(name);
      if (list) list.push(value);
      else query.set(name, [value]);
    }
  }
  const headers = new Map<string, string[]>();
  const raw = request.raw.rawHeaders ?? [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const list = headers.get(name);
    if (list) list.push(raw[i + 1] ?? '');
    else headers.set(name, [raw[i + 1] ?? '']);
  }
  const scheme = request.protocol;
  return {
    method: request.method,
    url,
    path,
    query,
    headers,
    rawHeaders: raw,
    body,
    text: body.toString('utf8'),
    host: request.hostname,
    port: request.port ?? (scheme === 'https' ? 443 : 80),
    scheme,
    base: workspaceBase(request),
    clientIp: request.ip,
    id: String(request.id),
  };
}

/**
 * Waits `ms`, or less when the workspace's removal starts (events.interrupt): a delayed answer would
 * otherwise hold the removal for its delay, then be refused all the same.
 */
function delay(ms: number, events: Runtime['events']): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
    const stop = events.whenInterrupted(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function installStubs(app: FastifyInstance, serving: StubServing): void {
  const helpers = new WeakMap<Runtime, HelperSet>();
  const helpersOf = (runtime: Runtime): HelperSet => {
    let set = helpers.get(runtime);
    if (!set) {
      set = templateHelpers({ clock: runtime.clock, ids: runtime.ids, inspect: (path) => serving.inspect(runtime, path) });
      helpers.set(runtime, set);
    }
    return set;
  };
  app.decorateRequest('stubHit', null);

  const errorBody = (iface: InterfaceId | null, status: number, message: string) =>
    iface === null ? standardBody(status, message) : renderError(serving.interfaces.contract(iface).shape, new SandboxError(status, message));

  // A callback rather than an async function (a promise per request on the hot path): only a request
  // that a mapping may answer goes on to read its body, and every answer from there on is sent.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const path = pathOf(request.url);
    if (path.startsWith('/_sandbox')) return done();
    const iface = serving.interfaceOfPath(path);
    if (iface === null && !request.is404) return done();
    const runtime = runtimeOf(request);
    if (serving.stubs.isEmpty(runtime, request)) return done();
    if (ownerOfRequest(request.method, path, serving.operations)) return done();
    answerUnowned(request, reply, runtime, iface, path).catch(done);
  });

  /** Answers a request no documented operation owns: a mapping's answer, or the 501 (404) with the nearest mapping. */
  async function answerUnowned(request: FastifyRequest, reply: FastifyReply, runtime: Runtime, iface: InterfaceId | null, path: string): Promise<unknown> {
    let body: Buffer;
    try {
      body = await readRawBody(request.raw, serving.bodyLimit);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      const message = `the body is larger than this sandbox's limit of ${describeBytes(serving.bodyLimit)}; raise SANDBOX_BODY_LIMIT to send more`;
      return reply.code(400).type('application/json').send(errorBody(iface, 400, message));
    }
    const view = requestView(request, body);
    request.body = sentBodyValue(body, request.headers['content-type']);
    const found = serving.stubs.find(runtime, view);
    if (found.stub === null) {
      const nearestStub = found.nearest && {
        id: found.nearest.stub.id,
        name: found.nearest.stub.name,
        differences: found.nearest.differences,
      };
      const base =
        iface === null
          ? outsideBody(request.method, path, serving.outsideMessage(request.method, path), serving.operations)
          : notImplementedBody(serving.interfaces.contract(iface), request.method, path);
      return reply
        .code(iface === null ? 404 : 501)
        .type('application/json')
        .send({ ...base, ...(nearestStub ? { nearestStub } : {}) });
    }
    const stub = found.stub;
    let rendered;
    try {
      rendered = renderAnswer(stub, view, found.pathParams, helpersOf(runtime));
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      request.log.warn({ mapping: stub.id, err: err.message }, 'stub template failed');
      return reply
        .code(500)
        .header('Matched-Stub-Id', stub.id)
        .type('application/json')
        .send(errorBody(iface ?? stub.interface, 500, `the mapping ${stub.id}${stub.name ? ` (${stub.name})` : ''} could not render its response: ${err.message}`));
    }
    const contentType = rendered.headers.some(([name]) => name.toLowerCase() === 'content-type');
    request.stubHit = { stub, interface: stub.interface ?? iface, contentType };
    if (runtime.coverage.enabled) runtime.coverage.hitUserDefined(stub.id);
    if (rendered.delayMs > 0) {
      await delay(rendered.delayMs, runtime.events);
      // The workspace's removal started while the answer waited (workspace-removal): the answer,
      // rendered from a state that is going, is not sent; the request is refused at once.
      const removed = runtime.retired ?? runtime.events.interruption;
      if (removed instanceof WorkspaceRemovingError) {
        request.stubHit = null;
        const { status, body } = removalRefusal(removed, iface === null ? 'standard' : serving.interfaces.contract(iface).shape);
        return reply.code(status).type('application/json').send(body);
      }
    }
    if (rendered.statusMessage !== undefined) reply.raw.statusMessage = rendered.statusMessage;
    reply.code(rendered.status);
    const grouped = new Map<string, string[]>();
    for (const [name, value] of rendered.headers) {
      const list = grouped.get(name.toLowerCase());
      if (list) list.push(value);
      else grouped.set(name.toLowerCase(), [value]);
    }
    for (const [name, values] of grouped) reply.header(name, values.length === 1 ? values[0] : values);
    return reply.send(rendered.body);
  }

  // Fastify gives a body without a Content-Type one of its own; a mapping's answer carries only the
  // headers the mapping gives, as WireMock sends them.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.stubHit && !request.stubHit.contentType) reply.removeHeader('content-type');
    done(null, payload);
  });
}
