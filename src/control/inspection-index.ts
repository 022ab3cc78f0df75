// The inspection calls of the control plane, callable from a template: `inspect '/registry/batches/X'`
// answers what GET /_sandbox/registry/batches/X answers in the same workspace, computed by the same
// handler (called directly, not through HTTP) and shaped by the same response schema. Every GET route
// of the control plane is indexed as it is registered; those whose handler answers synchronously (the
// inspection views read SQLite, which is synchronous) can be read this way.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { SandboxError } from '../http/errors.js';
import { textAjv } from '../http/validation.js';
import type { Runtime } from '../runtime/index.js';
import { rawRequestIn } from '../runtime/workspaces.js';
import { TemplateError } from '../runtime/templates.js';

type Handler = (this: unknown, request: unknown, reply: unknown) => unknown;

interface IndexedRoute {
  url: string;
  segments: string[];
  handler: Handler;
  querystring: unknown;
  response: unknown;
  validateQuery?: ValidateFunction;
  serialize?: (data: unknown) => string;
}

const buildSerializer = SerializerSelector()({}, {});

function isParam(segment: string): boolean {
  return segment.startsWith(':');
}

export class InspectionIndex {
  private readonly routes: IndexedRoute[] = [];
  private server: FastifyInstance | undefined;

  /** Indexes a GET route of the control plane (`url` as registered, under /_sandbox). */
  add(route: RouteOptions, server: FastifyInstance): void {
    const methods = [route.method].flat();
    if (!methods.includes('GET') || typeof route.handler !== 'function') return;
    const url = route.url.replace(/^\/_sandbox/, '') || '/';
    const schema = (route.schema ?? {}) as { querystring?: unknown; response?: Record<string, unknown> };
    this.server ??= server;
    this.routes.push({
      url,
      segments: url.split('/').slice(1),
      handler: route.handler as Handler,
      querystring: schema.querystring,
      response: schema.response?.['200'] ?? schema.response?.[200],
    });
    // Literal segments win over parameters, as in the router.
    this.routes.sort((a, b) => this.rank(a) - this.rank(b));
  }

  private rank(route: IndexedRoute): number {
    return route.segments.reduce((n, s, i) => n + (isParam(s) ? 2 ** (10 - Math.min(i, 10)) : 0), 0);
  }

  private find(path: string): { route: IndexedRoute; params: Record<string, string> } | undefined {
    const sent = path.split('/').slice(1);
    for (const route of this.routes) {
      if (route.segments.length !== sent.length) continue;
      const params: Record<string, string> = {};
      const fits = route.segments.every((segment, i) => {
        const value = sent[i] ?? '';
        if (isParam(segment)) {
          if (value === '') return false;
          try {
            params[segment.slice(1)] = decodeURIComponent(value);
          } catch {
            return false;
          }
          return true;
        }
        return segment === value;
      });
      if (fits) return { route, params };
    }
    return undefined;
  }

  /** What GET /_sandbox{path} answers in `runtime`, as an object; null where it answers 404. */
  read(runtime: Runtime, pathAndQuery: string): unknown {
    const q = pathAndQuery.indexOf('?');
    const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
    const found = this.find(path);
    if (!found || !this.server) throw new TemplateError(`inspect: GET /_sandbox${path} is not an inspection call (GET /openapi.json lists them)`);
    const { route, params } = found;
    const query: Record<string, unknown> = Object.fromEntries(new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1)));
    if (route.querystring) {
      route.validateQuery ??= textAjv.compile(route.querystring as object);
      if (!route.validateQuery(query)) {
        const e = route.validateQuery.errors?.[0];
        throw new TemplateError(`inspect: GET /_sandbox${pathAndQuery}: query ${e?.instancePath || ''} ${e?.message ?? 'is invalid'}`);
      }
    }
    const server = this.server;
    const request = {
      params,
      query,
      method: 'GET',
      url: `/_sandbox${pathAndQuery}`,
      headers: {},
      raw: rawRequestIn(runtime.name, `/_sandbox${pathAndQuery}`),
      log: server.log,
      // runtimeOf(request) resolves to the workspace the template renders in.
      server: Object.assign(Object.create(server) as object, { runtimeResolver: () => runtime }),
    };
    let sent: unknown;
    const reply = {
      code: () => reply,
      status: () => reply,
      type: () => reply,
      header: () => reply,
      send: (value: unknown) => {
        sent = value;
        return reply;
      },
    };
    let result: unknown;
    try {
      result = route.handler.call(server, request, reply);
    } catch (err) {
      if (err instanceof SandboxError && err.status === 404) return null;
      if (err instanceof SandboxError) throw new TemplateError(`inspect: GET /_sandbox${pathAndQuery} answers ${err.status}: ${err.message}`);
      // A handler that needs more of an HTTP request than a template's call has: the template names
      // the path, the log keeps the cause.
      server.log.error({ err, path: pathAndQuery }, 'an inspection call failed when a template read it');
      throw new TemplateError(`inspect: GET /_sandbox${path} cannot be read from a template (GET it over HTTP instead)`);
    }
    if (result instanceof Promise) {
      result.catch(() => undefined);
      throw new TemplateError(`inspect: GET /_sandbox${path} is not answered synchronously, so a template cannot read it`);
    }
    const value = result === reply ? sent : result;
    if (typeof value === 'string' || Buffer.isBuffer(value)) {
      throw new TemplateError(`inspect: GET /_sandbox${path} does not answer JSON`);
    }
    if (!route.response) return value;
    route.serialize ??= buildSerializer({ schema: route.response, method: 'GET', url: route.url, httpStatus: '200' });
    return JSON.parse(route.serialize(value));
  }
}
