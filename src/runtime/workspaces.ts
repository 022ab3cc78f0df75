// Workspaces: several isolated sandbox states (runtimes) in one process, one per parallel test worker.
// A client reaches workspace {name} by putting /ws/{name} in front of every path (its base URL); the
// prefix is taken off before routing (workspaceRewrite), so routes, the journal, fault patterns and
// error pointers all see the path relative to the base URL, exactly as in the default workspace.
import type { IncomingMessage } from 'node:http';
import { SandboxError } from '../http/errors.js';
import type { Runtime, RuntimeLog } from './index.js';

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_MAX_WORKSPACES = 256;
/** Idle time after which an in-memory workspace is removed (0: never). */
export const DEFAULT_WORKSPACE_IDLE_MS = 60 * 60 * 1000;
export const WORKSPACE_NAME = /^[a-z0-9-]{1,64}$/;
export const WORKSPACE_NAME_RULE = 'a workspace name is 1 to 64 characters of a-z, 0-9 and -';

const PREFIX = '/ws/';
const NAME = Symbol('sandbox.workspace');
const INVALID = Symbol('sandbox.workspace.invalid');

interface MarkedRequest extends IncomingMessage {
  [NAME]?: string;
  [INVALID]?: string;
}

/**
 * Fastify's rewriteUrl: `/ws/{name}/rest` -> `/rest`, remembering {name} on the raw request. A path
 * with an invalid name is left as it is (the /ws/* route then refuses it, naming the rule); every
 * other path passes untouched at the cost of one prefix test.
 */
export function workspaceRewrite(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (!url.startsWith(PREFIX)) return url;
  let end = PREFIX.length;
  while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
  const name = url.slice(PREFIX.length, end);
  if (!WORKSPACE_NAME.test(name)) {
    (req as MarkedRequest)[INVALID] = name;
    return url;
  }
  (req as MarkedRequest)[NAME] = name;
  const rest = url.slice(end);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The workspace a request named in its path (undefined: none, the default workspace). */
export function workspaceNameOf(req: IncomingMessage): string | undefined {
  return (req as MarkedRequest)[NAME];
}

/** The invalid name a request put after /ws/, if it did. */
export function invalidWorkspaceNameOf(req: IncomingMessage): string | undefined {
  return (req as MarkedRequest)[INVALID];
}

export type WorkspaceStorage = 'memory' | 'file';

/** What opening a workspace's state needs; the app supplies it (fixtures are not this layer's). */
export interface WorkspaceOpener {
  storage: WorkspaceStorage;
  /**
   * Opens (or creates) the state of `name`; `fixtures` undefined: the sandbox's start-up fixtures.
   * Returns when it was created: now for a new one, or as recorded in its file.
   */
  open(name: string, fixtures: object | undefined): { runtime: Runtime; createdAt: string };
  /** Removes what `name` keeps outside memory (its database file); called after close. */
  destroy(name: string): void;
  /** Names kept from an earlier run (database files), opened at start. */
  persisted(): string[];
}

export interface WorkspaceInfo {
  name: string;
  createdAt: string;
  lastUsedAt: string;
  storage: WorkspaceStorage;
  rows: Record<string, number>;
}

interface Entry {
  name: string;
  runtime: Runtime;
  createdAt: string;
  lastUsed: number;
  /** Requests being answered now: a workspace in use is never evicted. */
  active: number;
}

export interface WorkspacesOptions {
  defaultRuntime: Runtime;
  opener: WorkspaceOpener;
  /** Workspaces besides `default`. */
  max: number;
  /** In-memory workspaces unused this long are removed; 0: never. */
  idleMs: number;
  log: RuntimeLog;
  /** Real time in milliseconds (tests move it). */
  now?: () => number;
}

export class WorkspaceLimitError extends SandboxError {
  constructor(max: number) {
    super(
      429,
      `this sandbox already holds ${max} workspaces besides default (SANDBOX_MAX_WORKSPACES=${max}): ` +
        'DELETE /_sandbox/workspaces/{name} one that is no longer used, or start the sandbox with a higher limit',
    );
  }
}

export class Workspaces {
  private readonly entries = new Map<string, Entry>();
  private readonly defaultEntry: Entry;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: WorkspacesOptions) {
    this.now = options.now ?? Date.now;
    this.defaultEntry = {
      name: DEFAULT_WORKSPACE,
      runtime: options.defaultRuntime,
      createdAt: new Date(this.now()).toISOString(),
      lastUsed: this.now(),
      active: 0,
    };
  }

  get max(): number {
    return this.options.max;
  }

  get storage(): WorkspaceStorage {
    return this.options.opener.storage;
  }

  /** How many workspaces besides `default` are open. */
  get size(): number {
    return this.entries.size;
  }

  /** Opens the workspaces an earlier run left in files (up to the limit). */
  openPersisted(): void {
    for (const name of this.options.opener.persisted()) {
      if (name === DEFAULT_WORKSPACE || this.entries.has(name)) continue;
      if (this.entries.size >= this.options.max) {
        this.options.log.error({ workspace: name, max: this.options.max }, 'workspace file not opened: over SANDBOX_MAX_WORKSPACES');
        continue;
      }
      this.add(name, undefined);
    }
  }

  has(name: string): boolean {
    return name === DEFAULT_WORKSPACE || this.entries.has(name);
  }

  /** The runtime of `name`, created with the start-up fixtures on first use. */
  runtime(name: string): Runtime {
    return this.entry(name).runtime;
  }

  /** runtime(name) for a request: in use (never evicted) until release(name). */
  use(name: string): Runtime {
    const entry = this.entry(name);
    entry.lastUsed = this.now();
    entry.active++;
    return entry.runtime;
  }

  private entry(name: string): Entry {
    if (name === DEFAULT_WORKSPACE) return this.defaultEntry;
    return this.entries.get(name) ?? this.add(name, undefined);
  }

  /** A request that used `name` is answered. */
  release(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.lastUsed = this.now();
    if (entry.active > 0) entry.active--;
  }

  /** The runtime of an open workspace, without counting a use; undefined when there is none. */
  peek(name: string): Runtime | undefined {
    return name === DEFAULT_WORKSPACE ? this.options.defaultRuntime : this.entries.get(name)?.runtime;
  }

  /** Creates `name` with `fixtures` (undefined: the start-up ones); undefined when it exists already. */
  create(name: string, fixtures: object | undefined): WorkspaceInfo | undefined {
    if (this.has(name)) return undefined;
    return this.infoOf(this.add(name, fixtures));
  }

  list(): WorkspaceInfo[] {
    const named = [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name));
    return [this.defaultEntry, ...named].map((e) => this.infoOf(e));
  }

  private infoOf(entry: Entry): WorkspaceInfo {
    return {
      name: entry.name,
      createdAt: entry.createdAt,
      lastUsedAt: new Date(entry === this.defaultEntry ? this.now() : entry.lastUsed).toISOString(),
      storage: this.options.opener.storage,
      // The sandbox's own bookkeeping table (sb_meta) is not a user's row.
      rows: Object.fromEntries(Object.entries(entry.runtime.store.tableCounts()).filter(([t]) => !t.startsWith('sb_'))),
    };
  }

  /** Closes and forgets `name`, and removes its file; false when there is none. */
  async remove(name: string): Promise<boolean> {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    await entry.runtime.close();
    this.options.opener.destroy(name);
    return true;
  }

  /** Removes the in-memory workspaces idle longer than the configured time; returns their names. */
  async evictIdle(): Promise<string[]> {
    const { idleMs } = this.options;
    if (idleMs <= 0 || this.options.opener.storage !== 'memory') return [];
    const cutoff = this.now() - idleMs;
    const idle = [...this.entries.values()].filter((e) => e.active === 0 && e.lastUsed <= cutoff);
    for (const entry of idle) {
      await this.remove(entry.name);
      this.options.log.info(
        { workspace: entry.name, idleMs: this.now() - entry.lastUsed },
        'workspace evicted after being idle (its state is gone; the next use creates it again)',
      );
    }
    return idle.map((e) => e.name);
  }

  /** Checks for idle workspaces every so often (never keeps the process alive). */
  startEviction(): void {
    const { idleMs } = this.options;
    if (idleMs <= 0 || this.options.opener.storage !== 'memory' || this.timer) return;
    const every = Math.max(100, Math.min(60_000, Math.floor(idleMs / 4)));
    this.timer = setInterval(() => {
      this.evictIdle().catch((err: unknown) => this.options.log.error({ err }, 'workspace eviction failed'));
    }, every);
    this.timer.unref();
  }

  /** Closes every workspace but `default` (whose owner closes it). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.runtime.close()));
  }

  private add(name: string, fixtures: object | undefined): Entry {
    if (this.closed) throw new SandboxError(503, 'the sandbox is closing');
    if (this.entries.size >= this.options.max) throw new WorkspaceLimitError(this.options.max);
    const { runtime, createdAt } = this.options.opener.open(name, fixtures);
    const entry: Entry = { name, runtime, createdAt, lastUsed: this.now(), active: 0 };
    this.entries.set(name, entry);
    runtime.work.kickAll();
    this.options.log.info({ workspace: name }, 'workspace opened');
    return entry;
  }
}
