// The served OpenAPI document (GET /openapi.json) and its browsable form (/docs), built by
// @fastify/swagger from the route schemas; x-sandbox-assumptions lists every decision in one place.
// GET /openapi-3.0.json serves its 3.0.3 rendition and /postman/collection.json and
// /postman/environment.json the Postman collection and environment: files of contract/ that
// `npm run docs` converts from this document (scripts/contract.ts) and the package ships.
//
// Neither plugin is needed to answer a first request, and loading them (with `yaml`, @fastify/static
// and their dependencies) was a sixth of the start-up: both load on first use instead. The document
// is still built by @fastify/swagger from the routes it would have seen (see lazyDocument), and /docs
// is still served by @fastify/swagger-ui, in a Fastify instance of its own opened on the first call.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { SwaggerOptions, StaticDocumentSpec, fastifySwagger as FastifySwagger } from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { type Assumption, assumptionText } from './assumption-catalog.js';
import type { Interfaces } from './interface-module.js';
import { swaggerOptions } from './openapi.js';

export interface OpenApiOptions {
  version: string;
  assumptions: readonly Assumption[];
  /** The emulated interfaces: their tags, and their prefixes decide each operation's security. */
  interfaces: Interfaces;
}

export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // x-sandbox-assumptions: an extension the InfoObject type does not name.
  const info = {
    title: 'tradebill-sandbox',
    version: options.version,
    description:
      'A stateful sandbox of interfaces of a Brazilian receivables platform. Behaviour the specification ' +
      'leaves open is marked x-sandbox-assumption; the full list is in info.x-sandbox-assumptions and docs/assumptions.md.',
    'x-sandbox-assumptions': options.assumptions.map((a) => ({
      id: a.id,
      interface: a.interface,
      text: assumptionText(a),
    })),
  };
  lazyDocument(app, swaggerOptions(info, options.interfaces));
  lazyDocs(app, '/docs');
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  serveContractFile(app, '/openapi-3.0.json', 'openapi-3.0.json');
  serveContractFile(app, '/postman/collection.json', 'postman/collection.json');
  serveContractFile(app, '/postman/environment.json', 'postman/environment.json');
}

/**
 * The contract/ folder of the package: two levels above this module, from src/ and from dist/ alike,
 * or one above dist/server.js, the server built as one module (scripts/build.mjs).
 */
const CONTRACT =
  ['../../contract/', '../contract/'].map((d) => new URL(d, import.meta.url)).find((u) => existsSync(new URL('openapi-3.0.json', u))) ??
  new URL('../../contract/', import.meta.url);

/** Serves a file of contract/ as JSON, read once on first request. */
export function serveContractFile(app: FastifyInstance, url: string, file: string): void {
  let text: Promise<string> | undefined;
  app.get(url, { schema: { hide: true } }, async (_request, reply) => {
    text ??= readFile(new URL(file, CONTRACT), 'utf8');
    return reply.type('application/json; charset=utf-8').send(await text);
  });
}

type DocumentOf = FastifyInstance['swagger'];

/** What @fastify/swagger's plugin function uses of the instance it is registered on. */
interface DocumentHost {
  addHook(name: string, hook: (...args: never[]) => unknown): void;
  decorate(name: string, value: DocumentOf): void;
  getSchemas(): Record<string, unknown>;
}

/**
 * app.swagger(), with @fastify/swagger loaded on its first call. The plugin's dynamic mode only
 * records, while the app is built, each route (onRoute) and each child instance (onRegister), and
 * reads the shared schemas once ready (onReady); those are recorded here at the same place in the
 * app, then handed to the plugin's own hooks in the same order when it loads, so the document it
 * builds is the one it would have built registered in the app.
 */
function lazyDocument(app: FastifyInstance, options: SwaggerOptions): void {
  const routes: RouteOptions[] = [];
  const instances: FastifyInstance[] = [];
  let ready = false;
  app.addHook('onRoute', (route) => void routes.push(route));
  app.addHook('onRegister', (instance) => void instances.push(instance));
  app.addHook('onReady', async () => {
    ready = true;
  });
  let document: DocumentOf | undefined;
  const load = (): DocumentOf => {
    const { fastifySwagger } = createRequire(import.meta.url)('@fastify/swagger') as { fastifySwagger: typeof FastifySwagger };
    const hooks = new Map<string, Array<(...args: unknown[]) => unknown>>();
    let decorated: DocumentOf | undefined;
    const host: DocumentHost = {
      addHook: (name, hook) => hooks.set(name, [...(hooks.get(name) ?? []), hook as (...args: unknown[]) => unknown]),
      decorate: (_name, value) => (decorated = value),
      getSchemas: () => app.getSchemas(),
    };
    fastifySwagger(host as unknown as FastifyInstance, options, (err) => {
      if (err) throw err;
    });
    for (const route of routes) for (const hook of hooks.get('onRoute') ?? []) hook(route);
    for (const instance of instances) for (const hook of hooks.get('onRegister') ?? []) void hook(instance);
    for (const hook of hooks.get('onReady') ?? []) hook(() => undefined);
    if (!decorated) throw new Error('@fastify/swagger decorated nothing');
    return decorated;
  };
  const swagger = ((opts?: { yaml?: boolean }) => {
    if (!ready) throw new Error('.swagger() must be called after .ready()');
    document ??= load();
    return document(opts as { yaml: boolean });
  }) as DocumentOf;
  app.decorate('swagger', swagger);
}

/** A header by which the instance of /docs says it has no such file, so that the app answers its own 404. */
const NOT_FOUND = 'x-docs-not-found';
/** Headers the app's reply sets itself from what it sends. */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'date', 'keep-alive']);

/** GET (and HEAD) `prefix` and below, answered by @fastify/swagger-ui in an instance opened on the first call. */
function lazyDocs(app: FastifyInstance, prefix: string): void {
  let ui: Promise<FastifyInstance> | undefined;
  const open = async (): Promise<FastifyInstance> => {
    const [{ fastifySwagger }, { fastifySwaggerUi }] = await Promise.all([import('@fastify/swagger'), import('@fastify/swagger-ui')]);
    const instance = Fastify({ logger: false });
    // The app's document, served as it is (the plugin's static mode), by the files and routes of /docs.
    // (Its types know OpenAPI 2 and 3.0 documents only; the document is 3.1.)
    const document = app.swagger() as unknown as StaticDocumentSpec['document'];
    await instance.register(fastifySwagger, { mode: 'static', specification: { document } });
    instance.setNotFoundHandler((_request, reply) => reply.code(404).header(NOT_FOUND, '1').send());
    await instance.register(fastifySwaggerUi, { routePrefix: prefix });
    await instance.ready();
    return instance;
  };
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    ui ??= open().catch((err: unknown) => {
      ui = undefined;
      throw err;
    });
    // A HEAD is asked as a GET, so that the app's HEAD answer carries the length of the GET's body.
    const answer = await (await ui).inject({
      method: 'GET',
      url: request.url,
      headers: request.headers,
    });
    if (answer.headers[NOT_FOUND] !== undefined) return reply.callNotFound();
    reply.code(answer.statusCode);
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !OWN_HEADERS.has(name)) reply.header(name, value);
    return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
  };
  app.get(prefix, { schema: { hide: true } }, serve);
  app.get(`${prefix}/*`, { schema: { hide: true } }, serve);
}
