// Every response any test provokes is checked against the OpenAPI document the same app serves:
// a vitest setup file (vitest.config.ts) subscribes to Fastify's `fastify.initialization` channel, so
// every instance built in the test process (app.inject and real HTTP alike, buildApp and startSandbox)
// records its responses, and the test that provoked a response the document does not describe fails.
// Servers started as child processes (test/server.test.ts) are outside this process and not seen.
import { subscribe } from 'node:diagnostics_channel';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, afterEach } from 'vitest';
// Types only: a value import of the interface list would load every interface's modules before a
// test file's vi.mock could replace one of them.
import type { Interfaces } from '../../src/http/interface-module.js';

interface Header {
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface Response {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, Header>;
}
interface Operation {
  responses?: Record<string, Response>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
}

/** Headers of the sandbox's own making: present on a response only where the document declares them. */
const OWN_HEADERS = /^(sandbox-|www-authenticate$)/;


export class Checker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, multipleOfPrecision: 6 });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ ...document, $id: 'openapi.json' } as object);
  }

  /** A validator for the schema at this JSON pointer of the document, compiled on first use. */
  validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.compiled.set(pointer, v);
    }
    return v;
  }
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Fastify's route pattern -> the OpenAPI path template. */
const templateOf = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function jsonBody(payload: unknown): { text: string } | { stream: true } {
  if (payload === null || payload === undefined) return { text: '' };
  if (typeof payload === 'string') return { text: payload };
  if (Buffer.isBuffer(payload)) return { text: payload.toString('utf8') };
  return { stream: true };
}

const checkers = new WeakMap<FastifyInstance, Checker>();
const byDocument = new Map<string, Checker>();
const drift: string[] = [];
let seen = 0;

function checkerFor(app: FastifyInstance): Checker {
  let c = checkers.get(app);
  if (!c) {
    const doc = (app as FastifyInstance & { swagger(): unknown }).swagger();
    const key = JSON.stringify(doc);
    c = byDocument.get(key) ?? new Checker(doc as OpenApiDocument);
    byDocument.set(key, c);
    checkers.set(app, c);
  }
  return c;
}

/** What is wrong with this response by the document, or nothing. */
export function problemsOf(
  checker: Checker,
  request: { method: string; url: string; route: string | undefined; hidden: boolean; proxied?: boolean },
  status: number,
  headers: Record<string, unknown>,
  payload: unknown,
  /** The interfaces of the app that answered. */
  interfaces: Interfaces,
): string[] {
  const path = request.url.split('?')[0] ?? '';
  const call = `${request.method} ${path} -> ${status}`;
  if (request.hidden) return [];
  // 204 and 304 go out without a body whatever the handler gave (RFC 9110).
  const body = status === 204 || status === 304 ? { text: '' } : jsonBody(payload);
  if (request.route === undefined) {
    // Not routed: under an interface, the 501 of a named-only operation or a documented status (a fault
    // rule, a URL the router cannot read); elsewhere a 404, or the 400 of an unreadable URL.
    const owner = interfaces.ofPath(path);
    // Outside the prefixes in proxy mode, an upstream that gives no answer is a 502 (proxy-upstream-failure).
    const allowed = owner ? [...owner.contract.statuses, 501] : [400, 404, ...(request.proxied ? [502] : [])];
    return allowed.includes(status) ? [] : [`${call}: no route takes it and ${status} is not one of ${allowed.join(', ')}`];
  }
  const template = templateOf(request.route);
  // HEAD answers as the GET of the same path (assumption head-like-get), which the document describes.
  const method = request.method === 'HEAD' ? 'get' : request.method.toLowerCase();
  const operation = checker.document.paths[template]?.[method];
  if (!operation) return [`${call}: ${method.toUpperCase()} ${template} is a route the document does not describe`];
  const response = operation.responses?.[String(status)] ?? operation.responses?.[`${String(status)[0]}XX`];
  if (!response) {
    const listed = Object.keys(operation.responses ?? {}).join(', ');
    return [`${call}: status ${status} is not documented for ${method.toUpperCase()} ${template} (documented: ${listed})`];
  }
  const problems: string[] = [];
  const base = `/paths/${escape(template)}/${method}/responses/${status}`;
  // Headers: the sandbox's own ones only where declared, valid by their schema; required ones present.
  for (const [name, value] of Object.entries(headers)) {
    if (!OWN_HEADERS.test(name)) continue;
    const declared = Object.entries(response.headers ?? {}).find(([n]) => n.toLowerCase() === name);
    if (!declared) {
      problems.push(`${call}: header ${name} is sent but not declared`);
      continue;
    }
    const type = declared[1].schema?.type;
    const typed = type === 'integer' || type === 'number' ? Number(value) : String(value);
    const v = checker.validator(`${base}/headers/${escape(declared[0])}/schema`);
    if (!v(typed)) problems.push(`${call}: header ${name}: ${value} ${checker['ajv'].errorsText(v.errors)}`);
  }
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    if (h.required && headers[name.toLowerCase()] === undefined)
      problems.push(`${call}: required header ${name} is missing`);
  }
  if ('stream' in body) return problems;
  const media = Object.keys(response.content ?? {});
  if (body.text === '') {
    if (media.length > 0) problems.push(`${call}: the body is empty but the document promises ${media.join(', ')}`);
    return problems;
  }
  if (media.length === 0) return [...problems, `${call}: a body is sent where the document declares none`];
  const contentType = String(headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (!media.includes(contentType))
    return [...problems, `${call}: Content-Type ${contentType} is not one of ${media.join(', ')}`];
  // A text format the document declares (the coverage report as JUnit XML or Markdown) is not JSON.
  if (!/json/.test(contentType)) return problems;
  let value: unknown;
  try {
    value = JSON.parse(body.text);
  } catch {
    return [...problems, `${call}: the body is not JSON`];
  }
  const v = checker.validator(`${base}/content/${escape(contentType)}/schema`);
  if (!v(value)) {
    const errors = (v.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
    problems.push(`${call}: the body does not match the documented schema: ${errors.join('; ')}`);
  }
  return problems;
}

function record(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  seen++;
  const hidden = Boolean((request.routeOptions.schema as { hide?: boolean } | undefined)?.hide);
  // The routeOptions of an unrouted request carry no url (404/501 handlers, bad URLs).
  const route = request.is404 ? undefined : request.routeOptions.url;
  // Bare Fastify instances of unit tests (no OpenAPI document) are not the sandbox.
  if (typeof (app as { swagger?: unknown }).swagger !== 'function') return;
  // An answer of a user-defined operation (a stub mapping) follows the user's contract, not the document.
  if (reply.getHeader('matched-stub-id') !== undefined) return;
  let checker: Checker;
  try {
    checker = checkerFor(app);
  } catch (err) {
    drift.push(`the document could not be read to check ${request.method} ${request.url}: ${String(err)}`);
    return;
  }
  drift.push(
    ...problemsOf(
      checker,
      { method: request.method, url: request.url, route, hidden, proxied: Boolean(request.proxied) },
      reply.statusCode,
      reply.getHeaders(),
      payload,
      app.interfaces,
    ),
  );
}

/** The routes each instance declared (method, Fastify url, hidden), for the route walk. */
const routes = new WeakMap<FastifyInstance, Array<{ method: string; url: string; hidden: boolean }>>();

export function routesOf(app: FastifyInstance): Array<{ method: string; path: string; hidden: boolean }> {
  return (routes.get(app) ?? []).map((r) => ({ method: r.method, path: templateOf(r.url), hidden: r.hidden }));
}

subscribe('fastify.initialization', (message) => {
  const app = (message as { fastify: FastifyInstance }).fastify;
  const declared: Array<{ method: string; url: string; hidden: boolean }> = [];
  routes.set(app, declared);
  app.addHook('onRoute', (route) => {
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide);
    for (const method of [route.method].flat()) declared.push({ method, url: route.url, hidden });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    record(app, request, reply, payload);
    return payload;
  });
});

/** How many responses this test file's process has checked (a test holds it above zero). */
export function responsesChecked(): number {
  return seen;
}

function fail(): void {
  const found = drift.splice(0);
  if (found.length > 0)
    throw new Error(`responses the OpenAPI document does not describe:\n${[...new Set(found)].slice(0, 20).join('\n')}`);
}

afterEach(fail);
afterAll(fail);
