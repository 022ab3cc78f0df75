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
import { renderError, SandboxError, standardBody } from './http/errors.js';
import { useStandardErrors } from './http/interface-plugin.js';
import { CATALOG, INTERFACES, interfaceOfPath, OUTCOMES } from './interfaces.js';
import { type LogSettings, loggerOptions } from './http/logging.js';
import { validatorCompiler } from './http/validation.js';
import { loanbondPlugin } from './loanbond/routes.js';
import { receivablesPlugin } from './receivables/routes.js';
import { registryPlugin } from './registry/routes.js';
import { SandboxClock } from './runtime/clock.js';
import { Faults } from './runtime/faults.js';
import { type FixtureDocument, loadFixtures, readFixtureFile } from './control/fixtures.js';
import { installControlHooks, journalUnrouted } from './runtime/hooks.js';
import { SandboxIds } from './runtime/ids.js';
import { sandboxPlugin } from './control/index.js';
import { Journal } from './runtime/journal.js';
import { Coverage } from './runtime/coverage.js';
import { Snapshots } from './runtime/snapshots.js';
import { Work } from './runtime/work.js';
import { openDatabase } from './store/db.js';
import { Store } from './store/index.js';

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
  /** Inject a clock (tests pin time); default: a SandboxClock on real time. */
  clock?: SandboxClock;
  /** Inject the key generator; default: random, or seeded by `seed`. */
  ids?: SandboxIds;
}

export interface Settings {
  bodyLimit: number;
  adminToken: string | undefined;
  strict: boolean;
  seed: string | undefined;
  seedSecrets: boolean;
  fixtures: string | FixtureDocument | null;
  journalSize: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    clock: SandboxClock;
    ids: SandboxIds;
    settings: Settings;
    work: Work;
    journal: Journal;
    faults: Faults;
    snapshots: Snapshots;
    coverage: Coverage;
  }
}

export async function buildApp(options: AppOptions = {}): Promise<FastifyInstance> {
  const settings: Settings = {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    adminToken: options.adminToken || undefined,
    strict: options.strict ?? false,
    seed: options.seed,
    seedSecrets: options.seedSecrets ?? false,
    fixtures: options.fixtures ?? null,
    journalSize: options.journalSize ?? DEFAULT_JOURNAL_SIZE,
  };
  if (!Number.isInteger(settings.journalSize) || settings.journalSize < 0)
    throw new Error(`journalSize must be a whole number of entries, 0 or more (got ${settings.journalSize})`);
  const { db, isNew } = openDatabase(options.db ?? ':memory:');
  const store = new Store(db);
  const clock = options.clock ?? new SandboxClock();
  const ids = options.ids ?? new SandboxIds(settings.seed, { secrets: settings.seedSecrets });
  if (!options.ids && settings.seed !== undefined && !isNew) {
    // A seeded sequence restarts with every process: on a database that already holds keys from the
    // same seed, it would hand them out again. Each restart on an existing database continues from a
    // new generation of the seed instead (still reproducible run to run from a new database).
    const generation = Number(store.meta('idsGeneration') ?? '0') + 1;
    store.setMetaValue('idsGeneration', String(generation));
    ids.reseed(`${settings.seed}#${generation}`, { secrets: settings.seedSecrets });
  }

  try {
    if (isNew && settings.fixtures) {
      const doc =
        typeof settings.fixtures === 'string' ? readFixtureFile(settings.fixtures) : settings.fixtures;
      loadFixtures(doc, { store, clock });
    }
  } catch (err) {
    store.close();
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
      journalUnrouted(app, request, 400, body);
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

  app.decorate('store', store);
  app.decorate('clock', clock);
  app.decorate('ids', ids);
  app.decorate('settings', settings);
  const work = new Work((name, err) =>
    app.log.error({ err, runner: name }, 'asynchronous processing failed'),
  );
  app.decorate('work', work);
  app.decorate('journal', new Journal(settings.journalSize));
  app.decorate('faults', new Faults());
  // Counted per sandbox state, like the journal; cleared by reset.
  app.decorate('coverage', new Coverage(OUTCOMES, CATALOG, () => clock.now().getTime()));
  app.decorateRequest('outcome', null);
  app.decorate('snapshots', new Snapshots(store.snapshots, clock, ids));
  app.addHook('onClose', async () => {
    await work.close();
    store.close();
  });

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
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info,
      tags: [
        { name: 'bookkeeping', description: 'trade-bill bookkeeping (duplicatas escriturais)' },
        { name: 'registry', description: 'trade-bill registry' },
        { name: 'receivables', description: 'receivables management: CNAB operation files' },
        { name: 'loanbond', description: 'loan-bond (CCB) registration' },
        { name: 'sandbox control plane', description: 'the sandbox itself, under /_sandbox' },
      ],
    },
  });
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
  );

  await app.ready();
  // Resume what a previous run left pending.
  work.kickAll();
  return app;
}
