// The runtime: everything one sandbox's state is made of (database, clock, key generator, journal,
// fault rules, snapshots, asynchronous work) and the settings that belong to it, in one object.
// Routes, the control plane and the journal/fault hooks reach it only through runtimeOf(request);
// runners get it as their argument. So a sandbox holding several isolated states (workspaces) only
// changes how the app resolves a request's runtime (installRuntime), nothing below.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { openDatabase } from '../store/db.js';
import { Store } from '../store/index.js';
import type { StorePart } from '../store/part.js';
import { validationError } from '../http/errors.js';
import { SandboxClock } from './clock.js';
import { type CoveredOperation, Coverage } from './coverage.js';
import type { SandboxError } from '../http/errors.js';
import type { Outcome } from '../http/outcomes.js';
import { Events } from './events.js';
import { resetDone } from './sandbox-events.js';
import { Faults } from './faults.js';
import { type FixtureDocuments, type LoadCounts, readFixtureFile, under } from './fixture-document.js';
import { SandboxIds } from './ids.js';
import { Journal } from './journal.js';
import { keepSettings, restoreSettings } from './kept-settings.js';
import { type SnapshotRoom, Snapshots } from './snapshots.js';
import { Subscriptions } from './subscriptions.js';
import { ClockTimers } from './timers.js';
import { type Runner, Work } from './work.js';

/** Settings of one sandbox state (server-wide ones, body limit and admin token, stay on the app). */
export interface RuntimeSettings {
  /** Domain checks refuse instead of warning (a request's Sandbox-Strict header can only tighten). */
  strict: boolean;
  /** Seed of the generated keys; undefined: random. */
  seed: string | undefined;
  /** With `seed`: secrets follow the seed too. */
  seedSecrets: boolean;
  /** What reset with "default" loads: a fixture file path, a fixture document, or nothing. */
  fixtures: string | object | null;
  /** Entries the request journal keeps (0: off). */
  journalSize: number;
  /** Events the event feed keeps (1 or more). */
  eventsSize: number;
  /** Sandbox time between a request that stores asynchronous work and its processing (0: at once). */
  workDelayMs: number;
  /** Pending asynchronous items per interface before submissions are refused (default DEFAULT_WORK_BACKLOG). */
  workBacklog?: number;
  /**
   * The room of snapshots (assumption snapshot-limits): one object, which every workspace's settings
   * share by reference, as its bytes count across the sandbox. Default: a room of the state's own,
   * with the default limits.
   */
  snapshotRoom?: SnapshotRoom;
}

/** What a runner may touch: the state, the clock, the settings; never the HTTP layer. */
export interface RunnerContext {
  readonly store: Store;
  readonly clock: SandboxClock;
  /** Client coverage: a runner counts the outcomes it decides (a CNAB import's result). */
  readonly coverage: Coverage;
  readonly settings: RuntimeSettings;
  readonly log: RuntimeLog;
  /** The event feed: a runner emits what its processing changed, once committed. */
  readonly events: Events;
}

/** The part of a pino logger the runtime writes to. */
export interface RuntimeLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What a work kind builds: `run` processes a slice of pending items and returns how many (0: none left). */
export interface WorkInstance {
  run: Runner;
  /** Items waiting for processing (back-pressure: a route refuses what would pass the bound); asked on every submission, so a maintained count. */
  backlog?: () => number;
}

/**
 * An interface's asynchronous work: built once per runtime. Members besides `run` and `backlog` are
 * the interface's own hand-over points.
 */
export interface WorkKind<T extends WorkInstance = WorkInstance> {
  name: string;
  create(ctx: RunnerContext): T;
}

/** What the interfaces bring to every sandbox state (handed in: this layer knows no interface). */
export interface InterfaceParts {
  /** Their asynchronous work, registered in this order. */
  work: readonly WorkKind[];
  /** The fixture document their sections make. */
  fixtures: FixtureDocuments;
  /** Tables of their own beyond the sandbox's schema. */
  store: readonly StorePart<unknown>[];
  /** What coverage counts: the outcomes of the documented operations (none: coverage is off). */
  coverage: { outcomes: readonly Outcome[]; operations: readonly CoveredOperation[] };
}

export interface ResetOptions {
  /** A fixture document, "default" (what the settings name) or undefined (an empty state). */
  fixtures?: unknown;
  /** Restart generated keys from this seed; default the settings' seed. */
  seed?: string;
  /** Secrets follow the seed too; default the settings' choice when no seed is given. */
  seedSecrets?: boolean;
}

export interface Runtime extends RunnerContext {
  readonly ids: SandboxIds;
  readonly fixtures: FixtureDocuments;
  readonly journal: Journal;
  readonly faults: Faults;
  readonly snapshots: Snapshots;
  readonly work: Work;
  /** Timers on the sandbox clock (webhook retries, delayed work). */
  readonly timers: ClockTimers;
  /** Where the events go: Standard Webhooks deliveries to the subscribed URLs. */
  readonly subscriptions: Subscriptions;
  /** The workspace's name ("default" for the sandbox itself). */
  readonly name: string;
  /**
   * Runs the pending work of `kind` once the sandbox clock has moved settings.workDelayMs past now
   * (what a route calls after storing work; POST /_sandbox/work/run runs it at once).
   */
  schedule(kind: string): void;
  /** The instance of an interface's work kind in this runtime (its hand-over points). */
  workOf<T extends WorkInstance>(kind: WorkKind<T>): T;
  /**
   * Wipes the state and loads the fixtures, in one transaction; returns the clock to real time,
   * restarts generated keys, empties the journal, the fault rules and the coverage counts, and
   * releases held processing with the start-up backlog bound. A
   * refused fixture document (a 400 whose pointers start with /fixtures) changes nothing.
   */
  reset(options: ResetOptions): LoadCounts;
  /**
   * Stops the work (waiting for runs in flight) and closes the database. `discard`: its files are
   * removed right after (Store.close).
   */
  close(options?: { discard?: boolean }): Promise<void>;
  /**
   * Set when this state is going away under requests still in flight (a workspace removed): what
   * runtimeOf throws to them from then on, instead of letting them fail on a closed database.
   */
  readonly retired: SandboxError | undefined;
  retire(reason: SandboxError): void;
}

export interface RuntimeOptions {
  /** Database file, or ':memory:'. */
  db: string;
  settings: RuntimeSettings;
  interfaces: InterfaceParts;
  log: RuntimeLog;
  /** Injected clock (tests pin time); default: real time. */
  clock?: SandboxClock;
  /** Injected key generator; default: random, or seeded by settings.seed. */
  ids?: SandboxIds;
  /** The workspace's name (default "default"): the source of its events. */
  name?: string;
}

/** Opens one sandbox state; `isNew`: its database was just created (fixtures may be loaded into it). */
export function createRuntime(options: RuntimeOptions): { runtime: Runtime; isNew: boolean } {
  const { settings, log } = options;
  if (!Number.isInteger(settings.journalSize) || settings.journalSize < 0)
    throw new Error(`journalSize must be a whole number of entries, 0 or more (got ${settings.journalSize})`);
  if (!Number.isInteger(settings.eventsSize) || settings.eventsSize < 1)
    throw new Error(`eventsSize must be a whole number of events, 1 or more (got ${settings.eventsSize})`);
  if (!Number.isFinite(settings.workDelayMs) || settings.workDelayMs < 0)
    throw new Error(`workDelayMs must be 0 or more milliseconds (got ${settings.workDelayMs})`);
  const name = options.name ?? 'default';
  const { db, isNew } = openDatabase(options.db);
  const { interfaces } = options;
  let store: Store;
  try {
    store = new Store(db, interfaces.store);
  } catch (err) {
    db.close();
    throw err;
  }
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
  const timers = new ClockTimers(clock, (err) => log.error({ err }, 'a timer on the sandbox clock failed'));
  const events = new Events(settings.eventsSize, `/ws/${name}`, clock);
  const subscriptions = new Subscriptions({
    clock,
    timers,
    newId: () => `sub_${randomBytes(9).toString('base64url')}`,
    onError: (err) => log.error({ err }, 'a webhook delivery failed unexpectedly'),
  });
  events.listen((event) => subscriptions.deliver(event));
  const work = new Work({
    ...(settings.workBacklog === undefined ? {} : { maxBacklog: settings.workBacklog }),
    onError: (name, err) => log.error({ err, runner: name }, 'asynchronous processing failed; retried after a backoff'),
    onConfigure: () => keep(),
  });
  // The clock's setting and the work settings outlive the process with the rows (assumption
  // restart-settings); an injected clock is the caller's. A write that fails (a full disk) leaves the
  // setting made in memory, as before, and says what a restart would lose.
  const keep = () => {
    try {
      keepSettings(store, clock, work);
    } catch (err) {
      log.error({ err, workspace: name }, 'the clock and work settings could not be written to the database: a restart would not find them');
    }
  };
  if (!isNew) restoreSettings(store, options.clock ? undefined : clock, work, log, name);
  clock.onChange(keep);
  const instances = new Map<string, WorkInstance>();
  let retired: SandboxError | undefined;
  const runtime: Runtime = {
    store,
    clock,
    settings,
    log,
    ids,
    journal: new Journal(settings.journalSize),
    fixtures: interfaces.fixtures,
    coverage: new Coverage(interfaces.coverage.outcomes, interfaces.coverage.operations, () => clock.nowMs()),
    faults: new Faults(),
    snapshots: new Snapshots(store.snapshots, clock, ids, settings.snapshotRoom, name),
    work,
    timers,
    events,
    subscriptions,
    name,
    schedule(kind: string) {
      if (settings.workDelayMs <= 0) work.kick(kind);
      else timers.after(settings.workDelayMs, () => work.kick(kind));
    },
    workOf<T extends WorkInstance>(kind: WorkKind<T>): T {
      const instance = instances.get(kind.name);
      if (!instance) throw new Error(`work "${kind.name}" is not part of this runtime`);
      return instance as T;
    },
    reset(options: ResetOptions): LoadCounts {
      const seed = options.seed ?? settings.seed;
      const seedSecrets = options.seedSecrets ?? (options.seed === undefined && settings.seedSecrets);
      if (seedSecrets && seed === undefined)
        throw validationError([
          { path: '/seedSecrets', message: 'needs a seed: give "seed" too (or start the sandbox with SANDBOX_SEED)' },
        ]);
      let doc = options.fixtures;
      if (doc === 'default') {
        const configured = settings.fixtures;
        doc = typeof configured === 'string' ? readFixtureFile(configured) : (configured ?? {});
      }
      // The clock returns to real time first, so fixture defaults take real timestamps; a refused
      // document puts the clock back too: a rejected reset changes nothing.
      const savedClock = clock.save();
      clock.reset();
      let loaded: LoadCounts;
      try {
        loaded = under('/fixtures', () => interfaces.fixtures.replace(doc, runtime));
      } catch (err) {
        clock.restore(savedClock);
        throw err;
      }
      ids.reseed(seed, { secrets: seedSecrets });
      // A test that resets starts clean: no journal from the test before, no fault rule left over, no
      // coverage counted by another client, no processing held by it.
      runtime.journal.clear();
      runtime.faults.clear();
      runtime.coverage.clear();
      work.resetSettings();
      resetDone(events, loaded);
      return loaded;
    },
    async close(options = {}) {
      // Long polls and waits answer now; no delivery or timer outlives the state.
      runtime.snapshots.release();
      events.close();
      subscriptions.close();
      timers.close();
      await work.close();
      await store.close(options);
    },
    get retired() {
      return retired;
    },
    retire(reason) {
      retired = reason;
    },
  };
  for (const kind of interfaces.work) {
    const instance = kind.create(runtime);
    instances.set(kind.name, instance);
    work.register(kind.name, () => instance.run(), instance.backlog?.bind(instance));
  }
  return { runtime, isNew };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The sandbox state requests resolve to unless the resolver says otherwise. */
    runtime: Runtime;
    /** Which runtime a request works on (see installRuntime). */
    runtimeResolver: (request: FastifyRequest) => Runtime;
  }
}

const resolved = new WeakMap<FastifyRequest, Runtime>();

/**
 * Makes `runtime` the app's state; `resolve` picks a request's runtime (default: always this one).
 * Called once, on the root instance, before any plugin that reads runtimeOf.
 */
export function installRuntime(
  app: FastifyInstance,
  runtime: Runtime,
  resolve: (request: FastifyRequest) => Runtime = () => runtime,
): void {
  app.decorate('runtime', runtime);
  app.decorate('runtimeResolver', resolve);
}

/**
 * The one way a route, hook or control call reaches the state it works on. Throws the reason when that
 * state was retired under the request (its workspace removed): the request is refused, not failed.
 */
export function runtimeOf(request: FastifyRequest): Runtime {
  const runtime = resolvedRuntimeOf(request);
  if (runtime.retired) throw runtime.retired;
  return runtime;
}

/**
 * runtimeOf for what runs after the answer is decided (the journal, coverage): the state even when it
 * was retired meanwhile, since only memory is touched then.
 */
export function resolvedRuntimeOf(request: FastifyRequest): Runtime {
  let runtime = resolved.get(request);
  if (!runtime) {
    runtime = request.server.runtimeResolver(request);
    resolved.set(request, runtime);
    // Whatever the request writes, however it writes it, its database file gets checkpointed.
    runtime.store.touch();
  }
  return runtime;
}
