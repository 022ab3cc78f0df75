// buildApp(options) -> a ready Fastify instance. It never listens and never reads the environment:
// everything it needs arrives as options (STYLE.md, app/server split).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { allAssumptions } from './assumptions.js';
import { bookkeepingPlugin } from './bookkeeping/routes.js';
import { assumptionText } from './http/assumptions.js';
import { swaggerOptions } from './http/openapi.js';
import { renderError, SandboxError, standardBody } from './http/errors.js';
import { useStandardErrors } from './http/interface-plugin.js';
import { CATALOG, INTERFACES, interfaceOfPath, OUTCOMES } from './interfaces.js';
import { type LogSettings, loggerOptions } from './http/logging.js';
import { validatorCompiler } from './http/validation.js';
import { loanbondPlugin } from './loanbond/routes.js';
import { receivablesPlugin } from './receivables/routes.js';
import { registryPlugin } from './registry/routes.js';
import { type FixtureDocument, loadFixtures, readFixtureFile } from './control/fixtures.js';
import { installControlHooks, journalUnrouted } from './runtime/hooks.js';
import type { SandboxIds } from './runtime/ids.js';
import type { SandboxClock } from './runtime/clock.js';
import { createRuntime, installRuntime } from './runtime/index.js';
import { importWork } from './receivables/runner.js';
import { registrationWork } from './loanbond/runner.js';
import { sandboxPlugin } from './control/index.js';

export const VERSION = '0.1.0';
export const DEFAULT_BODY_LIMIT = 100 * 1024 * 1024;
export const DEFAULT_JOURNAL_SIZE = 1000;
/** Longest path parameter the router reads. */
export const MAX_PARAM_LENGTH = 500;

export interface AppOptions {
  /** Database file, or ':memory:' (the default). */
  db?: string;
  /**
   * Fixtures loaded when the database is new, and by reset with "default": a file path or a fixture
   * document. Default none.
   */
  fixtures?: string | FixtureDocument | null;
  /** false: no logging (the default for tests). */
  logger?: LogSettings | false;
  /** Largest request body in bytes (default 100 MiB). */
  bodyLimit?: number;
  /** When set, /_sandbox calls need the Sandbox-Admin-Token header. */
  adminToken?: string;
  /** Domain checks refuse instead of warning. */
  strict?: boolean;
  /** Seed for reproducible generated keys. */
  seed?: string;
  /** With `seed`: secrets (token_acesso) are reproducible too. Default false: always random. */
  seedSecrets?: boolean;
  /** Entries the request journal keeps (default 1000; 0 turns it off). */
  journalSize?: number;
  /** false: answers carry no Sandbox-Outcome and nothing is counted (GET /_sandbox/coverage is empty). Default true. */
  coverage?: boolean;
  /** Inject a clock (tests pin time); default: a SandboxClock on real time. */
  clock?: SandboxClock;
  /** Inject the key generator; default: random, or seeded by `seed`. */
  ids?: SandboxIds;
}

/** Server-wide settings; those of one sandbox state are the runtime's (runtime/index.ts). */
export interface Settings {
  bodyLimit: number;
  adminToken: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    settings: Settings;
  }
}

/** The asynchronous work of the interfaces, in the order /_sandbox/work/run reports it. */
const WORK_KINDS = [importWork, registrationWork];

export async function buildApp(options: AppOptions = {}): Promise<FastifyInstance> {
  const settings: Settings = {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    adminToken: options.adminToken || undefined,
  };
  const { runtime, isNew } = createRuntime({
    db: options.db ?? ':memory:',
    settings: {
      strict: options.strict ?? false,
      seed: options.seed,
      seedSecrets: options.seedSecrets ?? false,
      fixtures: options.fixtures ?? null,
      journalSize: options.journalSize ?? DEFAULT_JOURNAL_SIZE,
    },
    kinds: WORK_KINDS,
    catalog: options.coverage === false ? { outcomes: [], operations: [] } : { outcomes: OUTCOMES, operations: CATALOG },
    // The app's logger, once it exists (no runner runs before the app is ready).
    log: {
      info: (obj, msg) => app.log.info(obj, msg),
      error: (obj, msg) => app.log.error(obj, msg),
    },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
  });

  try {
    const fixtures = runtime.settings.fixtures;
    if (isNew && fixtures) {
      const doc = typeof fixtures === 'string' ? readFixtureFile(fixtures) : fixtures;
      loadFixtures(doc, runtime);
    }
  } catch (err) {
    await runtime.close();
    if (err instanceof SandboxError) {
      const where = err.details.map((d) => `  ${d.path}: ${d.message}`).join('\n');
      throw new Error(`the fixtures could not be loaded: ${err.message}${where ? `\n${where}` : ''}`);
    }
    throw err;
  }

  const app = Fastify({
    logger: options.logger ? loggerOptions(options.logger) : false,
    bodyLimit: settings.bodyLimit,
    // Our own onResponse line replaces Fastify's two lines per request.
    logController: new LogController({ disableRequestLogging: true }),
    // Bodies are validated as sent; see http/validation.ts.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    // Documented methods only: a HEAD on the extract list is a 501 like any other undocumented method.
    exposeHeadRoutes: false,
    // While closing, in-flight requests finish; a new one gets no undocumented 503.
    return503OnClosing: false,
    // A path the router cannot even read (bad percent-escape, over-long parameter) is refused before
    // any route: without this Fastify answers in its own body, and with 414 for the long parameter.
    frameworkErrors: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const message =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
          : 'the path is not a valid URL: a percent-escape in it is malformed';
      const id = interfaceOfPath(request.url.split('?')[0] ?? '');
      const iface = id ? INTERFACES[id] : undefined;
      const body = iface ? renderError(iface.shape, new SandboxError(400, message)) : standardBody(400, message);
      journalUnrouted(request, 400, body);
      return reply.code(400).type('application/json').send(body);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Response serializers too are built on first use: compiling them all is start-up time.
  const buildSerializer = SerializerSelector()({}, {});
  app.setSerializerCompiler((route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= buildSerializer({ ...route, httpStatus: route.httpStatus ?? '200' }))(data);
  });

  app.decorate('settings', settings);
  installRuntime(app, runtime);
  app.addHook('onClose', () => runtime.close());
  app.decorateRequest('outcome', null);

  // One log line per request, with the operation it reached; no headers, no bodies.
  app.addHook('onResponse', async (request, reply) => {
    const config = request.routeOptions.config;
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?')[0],
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
        interface: config.interface,
        operation: config.operation,
      },
      'request',
    );
  });

  // Fault rules and the request journal, inherited by every plugin registered below.
  installControlHooks(app);

  // x-sandbox-assumptions: every decision in one list (an extension the InfoObject type does not name).
  const info = {
    title: 'tradebill-sandbox',
    version: VERSION,
    description:
      'A stateful sandbox of four interfaces of a Brazilian receivables platform. Behaviour the specification ' +
      'leaves open is marked x-sandbox-assumption; the full list is in info.x-sandbox-assumptions and the README.',
    'x-sandbox-assumptions': allAssumptions.map((a) => ({
      id: a.id,
      interface: a.interface,
      text: assumptionText(a),
    })),
  };
  await app.register(swagger, swaggerOptions(info));
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Fixed order: store (above), control plane, then the four interfaces at their real prefixes.
  await app.register(sandboxPlugin, { prefix: '/_sandbox' });
  await app.register(bookkeepingPlugin, { prefix: INTERFACES.bookkeeping.prefix });
  await app.register(registryPlugin, { prefix: INTERFACES.registry.prefix });
  await app.register(receivablesPlugin, { prefix: INTERFACES.receivables.prefix });
  await app.register(loanbondPlugin, { prefix: INTERFACES.loanbond.prefix });

  useStandardErrors(
    app,
    (request) =>
      `${request.method} ${request.url.split('?')[0]} is outside every emulated interface (see GET /_sandbox/operations)`,
    CATALOG,
  );

  await app.ready();
  // Resume what a previous run left pending.
  runtime.work.kickAll();
  return app;
}
