// The package's programmatic entry: run the sandbox inside a test suite, without Docker
// (docs/in-process.md): startSandbox() listens on a free port and hands back the control plane as calls.
import { AssertionError } from 'node:assert';
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from './app.js';
import type { FixtureDocument, InterfaceId } from './interfaces.js';
import type { LoadCounts } from './runtime/fixture-document.js';
import { readFixtureFile } from './runtime/fixture-document.js';
import type { FaultRule, FaultRuleInput } from './runtime/faults.js';
import type { JournalEntry } from './runtime/journal.js';
import type { CoverageReport } from './runtime/coverage.js';
import type { WaitRequest, WaitResult } from './control/events.js';
import type { SandboxEvent } from './runtime/events.js';
import type { Delivery, SubscriptionView } from './runtime/subscriptions.js';
import { WORKSPACE_NAME, WORKSPACE_NAME_RULE } from './runtime/workspaces.js';

export { type AppOptions, buildApp } from './app.js';
export { type Config, DEMO_FIXTURES, parseConfig } from './config.js';
export type { FaultRule, FaultRuleInput } from './runtime/faults.js';
export type { FixtureDocument, InterfaceId } from './interfaces.js';
export type { InterfaceModule } from './http/interface-module.js';
export type { JournalEntry } from './runtime/journal.js';
export type { CoverageReport, OperationCoverage, OutcomeCoverage } from './runtime/coverage.js';
export type { Outcome } from './http/outcomes.js';
export type { WaitRequest, WaitResult } from './control/events.js';
export type { SandboxEvent } from './runtime/events.js';
export type { Attempt, Delivery, SubscriptionView } from './runtime/subscriptions.js';
export { OUTCOMES, outcomeTagProblem } from './interfaces.js';

/** `'default'` (the fixtures the sandbox started with) or the path of a fixture file. */
export type FixtureSource = 'default' | (string & {});

export interface StartOptions extends AppOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

export interface RequestFilter {
  interface?: InterfaceId;
  operation?: string;
  status?: number | string;
  since?: string;
  limit?: number;
}

/** A request filter with a condition on the body: what GET /_sandbox/requests/count takes. */
export interface RequestMatch extends Omit<RequestFilter, 'limit'> {
  method?: string;
  /** A JSONPath on the journaled body: the request matches when it selects something... */
  jsonpath?: string;
  /** ...or, when given, a value equal to this one. */
  equals?: unknown;
}

/** How many matching requests verify() expects: exactly n, or a range. Default: at least 1. */
export type Times = number | { atLeast?: number; atMost?: number };

export interface EventQuery {
  after?: string;
  /** One type or several; a type ending with * is a prefix. */
  type?: string | string[];
  subject?: string;
  /** Wait for a matching event this long (e.g. '5s') when there is none yet. */
  wait?: string;
  limit?: number;
}

export interface SubscriptionInput {
  url: string;
  types: string[];
  secret?: string;
  timeout?: string;
  retrySchedule?: string[];
  faults?: { duplicate?: boolean; delay?: string; outOfOrder?: boolean; failFirst?: number };
  /** A Handlebars template of the payload over {event}; absent: the CloudEvent itself. */
  template?: string;
}

/** What waitFor() throws when the timeout came first: the answer is on it. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
  constructor(readonly result: WaitResult) {
    super(result.message);
  }
}

export interface ClockView {
  now: string;
  realNow: string;
  offsetMs: number;
  frozen: boolean;
}

/** The control calls of one workspace (the sandbox itself is the workspace "default"). */
export interface SandboxControls {
  /** Base URL of this workspace, e.g. http://127.0.0.1:41234/ws/w3 (no trailing slash). */
  url: string;
  /**
   * Wipes all state, then loads `fixtures`: a document, `'default'` (the ones the workspace started
   * with), or the path of a fixture file such as `DEMO_FIXTURES`.
   */
  reset(
    fixtures?: FixtureDocument | FixtureSource,
    options?: { seed?: string; seedSecrets?: boolean },
  ): Promise<LoadCounts>;
  /** Adds a fixture document (or the fixture file at a path) to the current state. */
  load(fixtures: FixtureDocument | string): Promise<LoadCounts>;
  snapshot(name: string): Promise<void>;
  restore(name: string): Promise<void>;
  fault(rule: FaultRuleInput): Promise<FaultRule>;
  clearFaults(): Promise<void>;
  /** The journal, newest first: every entry that matches, or `limit` of them. */
  requests(filter?: RequestFilter): Promise<JournalEntry[]>;
  /** `{ now }` or `{ advance: 'P31D' }`, optionally `freeze`. */
  clock(change?: { now?: string; advance?: string; freeze?: boolean }): Promise<ClockView>;
  /** Runs all pending asynchronous processing now; resolves when it is done. */
  runPendingWork(): Promise<Record<string, number>>;
  /**
   * Client coverage since the last reset: every outcome of the documented operations with its hits
   * (GET /_sandbox/coverage); 'junit' or 'markdown' give the report as text.
   */
  coverage(): Promise<CoverageReport>;
  coverage(format: 'junit' | 'markdown'): Promise<string>;
  /** Starts counting coverage again from zero. */
  clearCoverage(): Promise<void>;
  /** The event feed (GET /_sandbox/events): with `wait`, a long poll. */
  events(query?: EventQuery): Promise<{ events: SandboxEvent[]; next: string }>;
  /**
   * Waits until an event comes or an inspection view reaches a state (POST /_sandbox/wait); resolves
   * with the answer when it holds, throws WaitTimeoutError saying what it saw when the timeout came.
   */
  waitFor(request: WaitRequest): Promise<WaitResult>;
  /** How many journaled requests match (GET /_sandbox/requests/count). */
  count(match?: RequestMatch): Promise<number>;
  /**
   * Throws an AssertionError unless the journal holds `times` requests matching `match` (default at
   * least one); its message shows the closest requests and what each missed.
   */
  verify(match?: RequestMatch, options?: { times?: Times }): Promise<void>;
  /** Requests that reached no documented operation, each with its nearest operation. */
  unmatched(): Promise<Array<{ entry: JournalEntry; nearest: { operation: string; method: string; path: string; differences: string[] } | null }>>;
  /** Subscribes a URL to events (POST /_sandbox/subscriptions); a generated secret is on the answer, once. */
  subscribe(input: SubscriptionInput): Promise<SubscriptionView & { secret?: string }>;
  /** The delivery log of a subscription, newest first. */
  deliveries(subscriptionId: string): Promise<Delivery[]>;
}

export interface WorkspaceView {
  name: string;
  createdAt: string;
  lastUsedAt: string;
  storage: 'memory' | 'file';
  rows: Record<string, number>;
}

/** A workspace: its base URL and control calls, created on first use with the start-up fixtures. */
export interface Workspace extends SandboxControls {
  name: string;
  /** Creates it now, with `fixtures` (default: the start-up ones); refused if it exists. */
  create(fixtures?: FixtureDocument | 'default'): Promise<WorkspaceView>;
  /** Drops it with all its state. */
  remove(): Promise<void>;
}

export interface Sandbox extends SandboxControls {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The Fastify instance (app.inject; app.runtime: store, clock, ids, journal, work...). */
  app: FastifyInstance;
  /**
   * Workspace `name` (1-64 of a-z, 0-9, -): an isolated sandbox behind `${url}/ws/${name}`, e.g. one
   * per parallel test worker. Nothing is created until it is first used.
   */
  workspace(name: string): Workspace;
  /** Every workspace, default first. */
  workspaces(): Promise<WorkspaceView[]>;
  close(): Promise<void>;
}

interface CountAnswer {
  count: number;
  journal: { count: number; dropped: number };
  closest?: Array<{ entry: JournalEntry; missed: string[] }>;
}

type UnmatchedEntry = Awaited<ReturnType<SandboxControls['unmatched']>>[number];

function queryString(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
  const qs = query.toString();
  return qs ? `?${qs}` : '';
}

const typeParam = (type: string | string[] | undefined) => (Array.isArray(type) ? type.join(',') : type);

/** A match as query parameters: `equals` travels as JSON. */
function matchParams(match: RequestMatch): Record<string, unknown> {
  const { equals, ...rest } = match;
  return { ...rest, ...(equals === undefined ? {} : { equals: JSON.stringify(equals) }) };
}

function verifyMessage(match: RequestMatch, times: Times, answer: CountAnswer): string {
  const wanted =
    typeof times === 'number'
      ? `exactly ${times}`
      : [times.atLeast === undefined ? '' : `at least ${times.atLeast}`, times.atMost === undefined ? '' : `at most ${times.atMost}`]
          .filter(Boolean)
          .join(' and ');
  const lines = [
    `expected ${wanted} request(s) matching ${JSON.stringify(match)}, found ${answer.count}` +
      ` (the journal holds ${answer.journal.count}${answer.journal.dropped ? `, ${answer.journal.dropped} older ones dropped` : ''})`,
  ];
  const closest = answer.closest ?? [];
  if (closest.length > 0) {
    lines.push('closest requests:');
    for (const { entry, missed } of closest)
      lines.push(`  #${entry.id} ${entry.method} ${entry.path} -> ${entry.status}: ${missed.join('; ')}`);
  } else if (answer.count === 0) {
    lines.push('no other request in the journal');
  }
  return lines.join('\n');
}

/** Builds the app, listens on a free port of 127.0.0.1, and returns the URL and the control calls. */
export async function startSandbox(options: StartOptions = {}): Promise<Sandbox> {
  const { host = '127.0.0.1', port = 0, ...appOptions } = options;
  const app = await buildApp({ logger: false, ...appOptions });
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close();
    throw err;
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  const headers = options.adminToken ? { 'sandbox-admin-token': options.adminToken } : undefined;

  // Through the control plane itself, so the calls validate and answer exactly as over HTTP.
  async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await app.inject({
      method,
      url: path,
      headers,
      ...(body === undefined ? {} : { payload: body as object }),
    });
    const parsed = res.body === '' ? undefined : (JSON.parse(res.body) as unknown);
    if (res.statusCode >= 400) {
      // The message and every detail (a refused field's pointer, or an unexpected error's cause and
      // request id): with the logger off, this error is all the caller sees.
      const body = parsed as { message?: string; details?: Array<{ path: string; message: string }> } | undefined;
      const details = (body?.details ?? []).map((d) => `\n  ${d.path ? `${d.path}: ` : ''}${d.message}`).join('');
      throw new Error(`${method} ${path} answered ${res.statusCode}: ${body?.message ?? res.body}${details}`);
    }
    return parsed as T;
  }

  /** The items of a paged list: its first page only when `one`, else every page in turn. */
  async function pages<T>(
    query: URLSearchParams,
    one: boolean,
    read: (qs: string) => Promise<{ items: T[]; nextCursor: string | null }>,
  ): Promise<T[]> {
    const items: T[] = [];
    for (;;) {
      const qs = query.toString();
      const page = await read(qs ? `?${qs}` : '');
      items.push(...page.items);
      if (one || page.nextCursor === null) return items;
      query.set('cursor', page.nextCursor);
    }
  }

  // A path is read here, in the caller's process: the control plane takes documents, never paths.
  const document = (fixtures: FixtureDocument | string): unknown =>
    typeof fixtures === 'string' && fixtures !== 'default' ? readFixtureFile(fixtures) : fixtures;

  /** The control calls under `base` ('' or /ws/{name}). */
  function controls(base: string): SandboxControls {
    const control = <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
      call<T>(method, `${base}/_sandbox${path}`, body);
    function coverage(): Promise<CoverageReport>;
    function coverage(format: 'junit' | 'markdown'): Promise<string>;
    async function coverage(format?: 'junit' | 'markdown'): Promise<CoverageReport | string> {
      if (format === undefined) return control<CoverageReport>('GET', '/coverage');
      const res = await app.inject({ method: 'GET', url: `${base}/_sandbox/coverage?format=${format}`, headers });
      if (res.statusCode !== 200) throw new Error(`GET ${base}/_sandbox/coverage answered ${res.statusCode}: ${res.body}`);
      return res.body;
    }
    return {
      url: `${url}${base}`,
      reset: async (fixtures, resetOptions = {}) =>
        (
          await control<{ loaded: LoadCounts }>('POST', '/reset', {
            ...(fixtures === undefined ? {} : { fixtures: document(fixtures) }),
            ...resetOptions,
          })
        ).loaded,
      load: async (fixtures) => (await control<{ loaded: LoadCounts }>('POST', '/fixtures', document(fixtures))).loaded,
      snapshot: async (name) => {
        await control('POST', '/snapshots', { name });
      },
      restore: async (name) => {
        await control('POST', `/snapshots/${encodeURIComponent(name)}/restore`);
      },
      fault: (rule) => control<FaultRule>('POST', '/faults', rule),
      clearFaults: async () => {
        await control('DELETE', '/faults');
      },
      requests: async (filter = {}) => {
        const query = new URLSearchParams();
        for (const [k, v] of Object.entries(filter)) if (v !== undefined) query.set(k, String(v));
        // Without a limit, every entry that matches: page after page.
        return pages<JournalEntry>(query, filter.limit !== undefined, (qs) =>
          control<{ entries: JournalEntry[]; nextCursor: string | null }>('GET', `/requests${qs}`).then((p) => ({
            items: p.entries,
            nextCursor: p.nextCursor,
          })),
        );
      },
      clock: (change) =>
        change ? control<ClockView>('POST', '/clock', change) : control<ClockView>('GET', '/clock'),
      runPendingWork: async () =>
        (await control<{ processed: Record<string, number> }>('POST', '/work/run')).processed,
      coverage,
      clearCoverage: async () => {
        await control('DELETE', '/coverage');
      },
      events: (query = {}) => control('GET', `/events${queryString({ ...query, type: typeParam(query.type) })}`),
      waitFor: async (request) => {
        const result = await control<WaitResult>('POST', '/wait', request);
        if (!result.held) throw new WaitTimeoutError(result);
        return result;
      },
      count: async (match = {}) => (await control<{ count: number }>('GET', `/requests/count${queryString(matchParams(match))}`)).count,
      verify: async (match = {}, options = {}) => {
        const times = options.times ?? { atLeast: 1 };
        const answer = await control<CountAnswer>('GET', `/requests/count${queryString({ ...matchParams(match), closest: 5 })}`);
        const { atLeast, atMost } = typeof times === 'number' ? { atLeast: times, atMost: times } : times;
        if ((atLeast === undefined || answer.count >= atLeast) && (atMost === undefined || answer.count <= atMost)) return;
        throw new AssertionError({
          message: verifyMessage(match, times, answer),
          actual: answer.count,
          expected: times,
          operator: 'verify',
        });
      },
      // Every unmatched request: page after page.
      unmatched: () =>
        pages<UnmatchedEntry>(new URLSearchParams(), false, (qs) =>
          control<{ unmatched: UnmatchedEntry[]; nextCursor: string | null }>('GET', `/requests/unmatched${qs}`).then((p) => ({
            items: p.unmatched,
            nextCursor: p.nextCursor,
          })),
        ),
      subscribe: (input) => control('POST', '/subscriptions', input),
      deliveries: async (id) =>
        (await control<{ deliveries: Delivery[] }>('GET', `/subscriptions/${encodeURIComponent(id)}/deliveries`)).deliveries,
    };
  }

  return {
    ...controls(''),
    app,
    workspace: (name) => {
      if (!WORKSPACE_NAME.test(name)) throw new Error(`"${name}" is not a workspace name: ${WORKSPACE_NAME_RULE}`);
      return {
        ...controls(`/ws/${name}`),
        name,
        create: (fixtures) => call<WorkspaceView>('POST', '/_sandbox/workspaces', { name, ...(fixtures ? { fixtures } : {}) }),
        remove: async () => {
          await call('DELETE', `/_sandbox/workspaces/${name}`);
        },
      };
    },
    workspaces: () =>
      pages<WorkspaceView>(new URLSearchParams(), false, (qs) =>
        call<{ workspaces: WorkspaceView[]; nextCursor: string | null }>('GET', `/_sandbox/workspaces${qs}`).then((p) => ({
          items: p.workspaces,
          nextCursor: p.nextCursor,
        })),
      ),
    close: () => app.close(),
  };
}
