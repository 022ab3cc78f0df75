// buildApp(options) -> a ready Fastify instance. It never listens and never reads the environment:
// everything it needs arrives as options; src/server.ts reads the configuration and listens.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { installControlHooks } from './control/hooks.js';
import { journalUnrouted } from './control/journal-hooks.js';
import { sandboxPlugin } from './control/index.js';
import { creationPolicy, installWorkspaces, workspaceOpener } from './control/workspace-routes.js';
import { answerUnusualRequests, clientErrorHandler, trackAnswers } from './http/client-errors.js';
import { SandboxError } from './http/errors.js';
import { type InterfaceModule, Interfaces } from './http/interface-module.js';
import { useStandardErrors } from './http/interface-plugin.js';
import { useRootJsonBodies } from './http/json.js';
import { lazyChildLogger, type LogSettings, loggerOptions, logRequests } from './http/logging.js';
import { routerErrorHandler } from './http/router-errors.js';
import { assumptions as sandboxAssumptions } from './http/sandbox-assumptions.js';
import { useLazySerializers } from './http/serializer.js';
import { registerOpenApi } from './http/swagger.js';
import { pathOf } from './http/url.js';
import { validatorCompiler } from './http/validation.js';
import { INTERFACE_MODULES, INTERFACES } from './interfaces.js';
import type { SandboxClock } from './runtime/clock.js';
import { readFixtureFile } from './runtime/fixture-document.js';
import type { SandboxIds } from './runtime/ids.js';
import { SnapshotRoom } from './runtime/snapshots.js';
import { createRuntime, type InterfaceParts, installRuntime, type Runtime, type RuntimeLog } from './runtime/index.js';
import { type WorkspaceGate, workspaceNameOf, workspaceRewriter, Workspaces } from './runtime/workspaces.js';
import { DEFAULTS } from './config.js';
import { VERSION } from './version.js';
import type { FixtureDocument } from './interfaces.js';
import { InspectionIndex } from './control/inspection-index.js';
import { installUserOperations, outsideMessage, readUserOperations } from './user-operations.js';

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
  /**
   * The emulated interfaces, in order (default: the four of src/interfaces.ts). A test or an embedder
   * adds one by passing the list with its module appended.
   */
  interfaces?: readonly InterfaceModule[];
  /** false: no logging (the default for tests). */
  logger?: LogSettings | false;
  /** Largest request body in bytes of every route but the loan-bond registration (default DEFAULTS.bodyLimit of config.ts). */
  bodyLimit?: number;
  /** Largest body of the loan-bond registration (default DEFAULTS.loanbondBodyLimit: 50 files of 15 MB plus fields). */
  loanbondBodyLimit?: number;
  /** When set, /_sandbox calls need the Sandbox-Admin-Token header. */
  adminToken?: string;
  /** Domain checks refuse instead of warning. */
  strict?: boolean;
  /** Seed for reproducible generated keys. */
  seed?: string;
  /** With `seed`: secrets (token_acesso) are reproducible too. Default false: always random. */
  seedSecrets?: boolean;
  /** Entries the request journal keeps (default DEFAULTS.journalSize; 0 turns it off). */
  journalSize?: number;
  /** Events the event feed of each workspace keeps (default 1000). */
  eventsSize?: number;
  /**
   * Sandbox-clock milliseconds between a request that stores asynchronous work (a CNAB import, a
   * loan-bond batch) and its processing (default 1000; 0: at once).
   */
  workDelayMs?: number;
  /** false: answers carry no Sandbox-Outcome and nothing is counted (GET /_sandbox/coverage is empty). Default true. */
  coverage?: boolean;
  /** Inject a clock (tests pin time); default: a SandboxClock on real time. */
  clock?: SandboxClock;
  /** Inject the key generator; default: random, or seeded by `seed`. */
  ids?: SandboxIds;
  /** Workspaces allowed besides `default` (default DEFAULTS.maxWorkspaces). */
  maxWorkspaces?: number;
  /** In-memory workspaces unused this long are removed (default DEFAULTS.workspaceIdleMs; 0: never). */
  workspaceIdleMs?: number;
  /** WireMock mappings served in every workspace (--stubs): a folder. */
  stubs?: string;
  /** Proxy mode (--upstream): `URL` for every interface, or `IFACE=URL` each. */
  upstreams?: readonly string[];
  /** With an upstream, the folder where exchanges of named-only operations are recorded (--record). */
  record?: string;
  /** Pending CNAB imports (and loan-bond registrations) per workspace before submissions are refused (default DEFAULTS.workBacklog). */
  workBacklog?: number;
  /** Snapshots one workspace keeps (default DEFAULTS.maxSnapshots; assumption snapshot-limits). */
  maxSnapshots?: number;
  /** Bytes the snapshots of every workspace take together (default DEFAULTS.snapshotsSize; at least 1 MiB). */
  snapshotsSize?: number;
  /** How long removing a workspace waits for its requests in flight (default 5 s). */
  workspaceRemovalWaitMs?: number;
}

/** Server-wide settings; those of one sandbox state are the runtime's (runtime/index.ts). */
export interface Settings {
  /** Largest body of every route but the loan-bond registration. */
  bodyLimit: number;
  /** Largest body of the loan-bond registration (read as a stream: a gigabyte costs no memory; lb-body-limit). */
  loanbondBodyLimit: number;
  adminToken: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    settings: Settings;
  }
}


/** The app in a fixed order: server, state, how every request is handled, then what answers it. */
export async function buildApp(options: AppOptions = {}): Promise<FastifyInstance> {
  // An empty key would read as no key: an open control plane the caller did not ask for.
  if (options.adminToken !== undefined && options.adminToken.trim() === '')
    throw new Error('adminToken is empty: give a key, or leave adminToken out for an open control plane');
  const settings: Settings = {
    bodyLimit: options.bodyLimit ?? DEFAULTS.bodyLimit,
    loanbondBodyLimit: options.loanbondBodyLimit ?? DEFAULTS.loanbondBodyLimit,
    adminToken: options.adminToken,
  };
  const interfaces =
    options.interfaces === undefined || options.interfaces === INTERFACE_MODULES
      ? INTERFACES
      : new Interfaces(options.interfaces);
  // The URL rewrite asks the workspaces, which exist once the default state is open.
  let gate: WorkspaceGate = () => 'open';
  const app = Fastify(serverOptions(options, settings, interfaces, (name, req) => gate(name, req))).withTypeProvider<TypeBoxTypeProvider>();
  // A 400 for bytes the HTTP parser refuses waits for the answers of the requests before them.
  trackAnswers(app.server);
  answerUnusualRequests(app.server);
  app.setValidatorCompiler(validatorCompiler);
  useLazySerializers(app);
  app.decorate('settings', settings);
  app.decorate('interfaces', interfaces);
  // The outcome slug a documented operation's rule sets (http/outcomes.ts); counted in control/hooks.ts.
  app.decorateRequest('outcome', null);

  // Settings that refuse a start are read before the state is opened (whose log line would say the
  // fixtures were loaded).
  const userOperations = readUserOperations(interfaces, { stubs: options.stubs, upstreams: options.upstreams ?? DEFAULTS.upstreams, record: options.record });
  // What every sandbox state is made of, in the default runtime and in every workspace alike.
  const parts = interfaces.runtimeParts(options.coverage !== false);
  const runtime = await openRuntime(options, app.log, parts);
  app.addHook('onClose', () => runtime.close());
  const workspaces = new Workspaces({
    defaultRuntime: runtime,
    opener: workspaceOpener({
      db: options.db ?? ':memory:',
      settings: runtime.settings,
      interfaces: parts,
      log: app.log,
    }),
    max: options.maxWorkspaces ?? DEFAULTS.maxWorkspaces,
    idleMs: options.workspaceIdleMs ?? DEFAULTS.workspaceIdleMs,
    log: app.log,
    mayCreate: creationPolicy(settings.adminToken),
    ...(options.workspaceRemovalWaitMs === undefined ? {} : { removalWaitMs: options.workspaceRemovalWaitMs }),
  });
  gate = (name, req) => workspaces.gate(name, req);
  // Waits and long polls (up to 120 s) would hold the close until their timeout, past the server's
  // one second for requests in flight (server.ts): they are answered before the server stops.
  // A kept-alive connection whose request was answered would hold it too, until its client drops it.
  let closingConnections: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    const closing = new SandboxError(503, 'the sandbox is closing (it was stopped): this wait ended before its timeout');
    runtime.events.interrupt(closing);
    workspaces.interruptAll(closing);
    closingConnections = setInterval(() => app.server.closeIdleConnections(), 20);
    closingConnections.unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(closingConnections);
    done();
  });

  logRequests(app, (request) => workspaceNameOf(request.raw));
  // Fault rules and the request journal, inherited by every plugin registered below.
  installControlHooks(app);
  // Each request's runtime: the default one, or the workspace its path names (after the control
  // hooks, so a workspace is released once its journal entry is written).
  installRuntime(app, runtime, installWorkspaces(app, workspaces));
  // User-defined operations and proxy mode: requests no documented operation owns, or every request
  // of an interface with an upstream.
  const inspections = new InspectionIndex();
  installUserOperations(app, interfaces, userOperations, (rt, path) =>
    inspections.read(rt, path),
  );
  await registerOpenApi(app, {
    version: VERSION,
    assumptions: [...sandboxAssumptions, ...interfaces.assumptions],
    interfaces,
  });

  await app.register(sandboxPlugin, { prefix: '/_sandbox', inspections });
  for (const { contract, routes } of interfaces.modules) await app.register(routes, { prefix: contract.prefix });
  // The 404 outside every prefix: its body read as every route reads it, journaled with its numbers as sent.
  useRootJsonBodies(app);
  useStandardErrors(app, (request) => outsideMessage(request.method, pathOf(request.url)), interfaces.operations);

  await app.ready();
  // Resume what a previous run left pending, in every workspace kept in a file.
  runtime.work.kickAll();
  void workspaces.openPersisted();
  workspaces.startEviction();
  return app;
}

function serverOptions(options: AppOptions, settings: Settings, interfaces: Interfaces, gate: WorkspaceGate) {
  return {
    // A base URL /ws/{name} reaches workspace {name}: the prefix is taken off before routing.
    rewriteUrl: workspaceRewriter(gate),
    logger: options.logger ? loggerOptions(options.logger) : false,
    childLoggerFactory: lazyChildLogger,
    bodyLimit: settings.bodyLimit,
    // Our own onResponse line (http/logging.ts) replaces Fastify's two lines per request.
    logController: new LogController({ disableRequestLogging: true }),
    // Bodies are validated as sent; see http/validation.ts.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    // HEAD answers like GET without a body wherever GET is served (assumption head-like-get); on a
    // path no GET serves it is a 501 like any other undocumented method.
    exposeHeadRoutes: true,
    // While closing, in-flight requests finish; a new one gets no undocumented 503.
    return503OnClosing: false,
    // Bytes Node's HTTP parser refuses: a 400 in the interface's shape (docs/errors.md).
    clientErrorHandler: clientErrorHandler((path) => interfaces.ofPath(path)?.contract.shape),
    frameworkErrors: routerErrorHandler({
      maxParamLength: MAX_PARAM_LENGTH,
      shapeOf: (path) => interfaces.ofPath(path)?.contract.shape ?? null,
      record: journalUnrouted,
    }),
  } as const;
}

/**
 * Says at start-up whether the fixtures were loaded or an existing database was reused (and its
 * state kept, whatever fixtures are configured), and how to start clean: a user who restarts after
 * `--fixtures none` otherwise sees an empty sandbox while the configuration names demo.json.
 */
function logStartingState(log: RuntimeLog, db: string, fixtures: string | object | null, isNew: boolean): void {
  const named = typeof fixtures === 'string' ? fixtures : fixtures ? 'the fixture document given' : 'none';
  if (isNew) {
    log.info({ db, fixtures: named, state: 'new' }, fixtures ? `new database: fixtures loaded from ${named}` : 'new database: no fixtures loaded');
    return;
  }
  log.info(
    { db, fixtures: named, state: 'reused' },
    `reused the existing database ${db}: its state is kept and the fixtures (${named}) were not loaded; ` +
      'to start clean, delete that file (or start with --db :memory:), or POST /_sandbox/reset with {"fixtures":"default"}',
  );
}

/** The sandbox's state, with the configured fixtures loaded when its database is new. */
async function openRuntime(options: AppOptions, log: RuntimeLog, interfaces: InterfaceParts): Promise<Runtime> {
  const { runtime, isNew } = createRuntime({
    db: options.db ?? ':memory:',
    settings: {
      strict: options.strict ?? false,
      seed: options.seed,
      seedSecrets: options.seedSecrets ?? false,
      fixtures: options.fixtures ?? null,
      journalSize: options.journalSize ?? DEFAULTS.journalSize,
      eventsSize: options.eventsSize ?? DEFAULTS.eventsSize,
      workDelayMs: options.workDelayMs ?? DEFAULTS.workDelayMs,
      workBacklog: options.workBacklog ?? DEFAULTS.workBacklog,
      // One room for the sandbox: the workspaces' settings are copies of these, sharing it.
      snapshotRoom: new SnapshotRoom(options.maxSnapshots ?? DEFAULTS.maxSnapshots, options.snapshotsSize ?? DEFAULTS.snapshotsSize),
    },
    interfaces,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
  });
  try {
    const fixtures = runtime.settings.fixtures;
    if (isNew && fixtures) runtime.fixtures.load(typeof fixtures === 'string' ? readFixtureFile(fixtures) : fixtures, runtime);
    logStartingState(log, options.db ?? ':memory:', fixtures, isNew);
    return runtime;
  } catch (err) {
    await runtime.close();
    if (err instanceof SandboxError) {
      const where = err.details.map((d) => `  ${d.path}: ${d.message}`).join('\n');
      throw new Error(`the fixtures could not be loaded: ${err.message}${where ? `\n${where}` : ''}`);
    }
    throw err;
  }
}
