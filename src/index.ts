// The package's programmatic entry: run the sandbox inside a test suite, without Docker
// (docs/in-process.md): startSandbox() listens on a free port and hands back the control plane as calls.
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from './app.js';
import type { FixtureDocument, InterfaceId } from './interfaces.js';
import type { LoadCounts } from './runtime/fixture-document.js';
import { readFixtureFile } from './runtime/fixture-document.js';
import type { FaultRule, FaultRuleInput } from './runtime/faults.js';
import type { JournalEntry } from './runtime/journal.js';
import type { CoverageReport } from './runtime/coverage.js';
import { WORKSPACE_NAME, WORKSPACE_NAME_RULE } from './runtime/workspaces.js';

export { type AppOptions, buildApp } from './app.js';
export { type Config, DEMO_FIXTURES, parseConfig } from './config.js';
export type { FaultRule, FaultRuleInput } from './runtime/faults.js';
export type { FixtureDocument, InterfaceId } from './interfaces.js';
export type { InterfaceModule } from './http/interface-module.js';
export type { JournalEntry } from './runtime/journal.js';
export type { CoverageReport, OperationCoverage, OutcomeCoverage } from './runtime/coverage.js';
export type { Outcome } from './http/outcomes.js';
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
