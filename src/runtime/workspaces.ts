// Workspaces: several isolated sandbox states (runtimes) in one process, one per parallel test worker.
// A client reaches workspace {name} by putting /ws/{name} in front of every path (its base URL); the
// prefix is taken off before routing (workspaceRewrite), so routes, the journal, fault patterns and
// error pointers all see the path relative to the base URL, exactly as in the default workspace.
import type { IncomingMessage } from 'node:http';
import { type AdminKeyProblem, adminKeyProblem } from '../http/bearer.js';
import { type ErrorShape, renderError, SandboxError, standardBody } from '../http/errors.js';
import type { Runtime, RuntimeLog } from './index.js';
import { interfaceRows } from '../store/index.js';

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_MAX_WORKSPACES = 256;
/** Idle time after which an in-memory workspace is removed (0: never). */
export const DEFAULT_WORKSPACE_IDLE_MS = 60 * 60 * 1000;
export const WORKSPACE_NAME = /^[a-z0-9-]{1,64}$/;
export const WORKSPACE_NAME_RULE = 'a workspace name is 1 to 64 characters of a-z, 0-9 and -';

const PREFIX = '/ws/';
const NAME = Symbol('sandbox.workspace');
const INVALID = Symbol('sandbox.workspace.invalid');
const REFUSED = Symbol('sandbox.workspace.refused');
const CREATED = Symbol('sandbox.workspace.created');
const REOPENED = Symbol('sandbox.workspace.reopened');

/**
 * Why a base URL /ws/{name} reaches nothing: `unknown`, no such workspace and this request may not
 * create it (the control plane is locked and the request carries no key); `removing`, the workspace
 * is being removed.
 */
export type WorkspaceRefusal = { name: string; reason: 'unknown' | 'removing' };

interface MarkedRequest extends IncomingMessage {
  [NAME]?: string;
  [INVALID]?: string;
  [REFUSED]?: WorkspaceRefusal;
  [CREATED]?: true;
  [REOPENED]?: true;
}

/** What the rewrite asks of the workspaces: may this request reach workspace `name` now? */
export type WorkspaceGate = (name: string, req: IncomingMessage) => 'open' | WorkspaceRefusal['reason'];

/**
 * Fastify's rewriteUrl: `/ws/{name}/rest` -> `/rest`, remembering {name} on the raw request. A path
 * with an invalid name, or one whose workspace `gate` refuses, is left as it is (the /ws/* route then
 * answers, naming the rule or the reason); every other path passes untouched at the cost of one
 * prefix test.
 */
export function workspaceRewriter(gate: WorkspaceGate): (req: IncomingMessage) => string {
  return (req) => {
    const url = req.url ?? '/';
    if (!url.startsWith(PREFIX)) return url;
    let end = PREFIX.length;
    while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
    const name = url.slice(PREFIX.length, end);
    if (!WORKSPACE_NAME.test(name)) {
      (req as MarkedRequest)[INVALID] = name;
      return url;
    }
    const open = gate(name, req);
    if (open !== 'open') {
      (req as MarkedRequest)[REFUSED] = { name, reason: open };
      return url;
    }
    (req as MarkedRequest)[NAME] = name;
    const rest = url.slice(end);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
}

/** The workspace a request named in its path (undefined: none, the default workspace). */
export function workspaceNameOf(req: IncomingMessage): string | undefined {
  return (req as MarkedRequest)[NAME];
}

/**
 * The raw request of a call made from inside workspace `name` without HTTP (a template's inspect
 * helper calls a handler directly): it carries the workspace as a request under /ws/{name} would.
 */
export function rawRequestIn(name: string, url: string): IncomingMessage {
  const raw = { method: 'GET', url, headers: {} } as MarkedRequest;
  if (name !== DEFAULT_WORKSPACE) raw[NAME] = name;
  return raw;
}

/** The invalid name a request put after /ws/, if it did. */
export function invalidWorkspaceNameOf(req: IncomingMessage): string | undefined {
  return (req as MarkedRequest)[INVALID];
}

/** Why the workspace a request named was not reached, if it was not. */
export function refusedWorkspaceOf(req: IncomingMessage): WorkspaceRefusal | undefined {
  return (req as MarkedRequest)[REFUSED];
}

/** Names the workspace a request created on first use in its answer (workspace-created-header). */
export const CREATED_HEADER = 'Sandbox-Workspace-Created';
/** Names the existing workspace a new one's name is near: a likely typo (workspace-created-header). */
export const SIMILAR_HEADER = 'Sandbox-Workspace-Similar';

/** Whether the workspace this request named was created by it (its first use). */
export function createdByRequest(req: IncomingMessage): boolean {
  return (req as MarkedRequest)[CREATED] === true;
}

/**
 * Whether the workspace this request named was opened by it from the file an earlier run left (one
 * not opened at start, being over the limit then): it existed, with its data, so it was not created.
 */
export function reopenedByRequest(req: IncomingMessage): boolean {
  return (req as MarkedRequest)[REOPENED] === true;
}

export type WorkspaceStorage = 'memory' | 'file';

/** What opening a workspace's state needs; the app supplies it (fixtures are not this layer's). */
export interface WorkspaceOpener {
  storage: WorkspaceStorage;
  /**
   * Opens (or creates) the state of `name`; `fixtures` undefined: the sandbox's start-up fixtures.
   * Returns when it was created: now for a new one, or as recorded in its file; `isNew` false when
   * it was opened from its file (its fixtures were not loaded: it kept its data).
   */
  open(name: string, fixtures: object | undefined): { runtime: Runtime; createdAt: string; isNew: boolean };
  /**
   * Removes what `name` keeps outside memory (its database files); called after close, while the name
   * is still taken, so nothing can have opened the files again. It moves them out of the way first:
   * once it returns, no file of that name is left for the removal to touch; the promise settles once
   * the moved files are deleted.
   */
  destroy(name: string): Promise<void>;
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
  /** Undefined: kept in a file from an earlier run and not opened yet (opened in the background or on first use). */
  runtime: Runtime | undefined;
  createdAt: string;
  lastUsed: number;
  /** Requests being answered now: a workspace in use is never evicted, and its removal waits for them. */
  active: number;
  /** Set while the workspace is being removed: settles once its files are gone. */
  removing: Promise<void> | undefined;
  /** Called when `active` falls to 0 (a removal waiting for the requests in flight). */
  idle: (() => void) | undefined;
}

export interface WorkspacesOptions {
  defaultRuntime: Runtime;
  opener: WorkspaceOpener;
  /** Workspaces besides `default`. */
  max: number;
  /** In-memory workspaces unused this long are removed; 0: never. */
  idleMs: number;
  log: RuntimeLog;
  /**
   * Whether a request may create a workspace by using its name (default: every request may). A locked control plane
   * lets only requests carrying its key do so.
   */
  mayCreate?: (req: IncomingMessage) => boolean;
  /** How long a removal waits for the requests in flight before closing the workspace under them. */
  removalWaitMs?: number;
  /** Real time in milliseconds (tests move it). */
  now?: () => number;
}

/** How long a removal waits, at most, for the workspace's requests in flight. */
export const WORKSPACE_REMOVAL_WAIT_MS = 5000;

export class WorkspaceLimitError extends SandboxError {
  constructor(max: number) {
    super(
      429,
      `this sandbox already holds ${max} workspaces besides default (SANDBOX_MAX_WORKSPACES=${max}): ` +
        'DELETE /_sandbox/workspaces/{name} one that is no longer used, or start the sandbox with a higher limit',
    );
  }
}

/** A request reached workspace `name` while it is being removed (409 on the control plane). */
export class WorkspaceRemovingError extends SandboxError {
  constructor(name: string) {
    super(
      409,
      `workspace "${name}" is being removed (DELETE /_sandbox/workspaces/${name}): this request did not reach it; ` +
        'once the removal answered, a new request starts it afresh',
      { code: 'WorkspaceRemoved' },
    );
  }
}

/**
 * What a request refused because its workspace is being removed is answered (assumption
 * workspace-removal): on the control plane a 409; under an interface path the documented 400 in that
 * interface's shape, with the code WorkspaceRemoved; outside every prefix (where a mapping may
 * answer) a 400 in the standard shape, as the sandbox's answers there are 400s and 404s.
 */
export function removalRefusal(err: WorkspaceRemovingError, place: ErrorShape | 'control'): { status: number; body: object } {
  if (place === 'control') return { status: err.status, body: standardBody(err.status, err.message) };
  return { status: 400, body: renderError(place, new SandboxError(400, err.message, { code: err.code })) };
}

/**
 * No workspace `name`, and this request may not create one (a locked control plane, without its key:
 * none sent, an empty one, or another value; each told apart).
 */
export class WorkspaceUnknownError extends SandboxError {
  constructor(name: string, key: AdminKeyProblem = 'missing') {
    const sent =
      key === 'missing'
        ? ''
        : key === 'empty'
          ? ' (the Sandbox-Admin-Token header sent is empty)'
          : ' (the Sandbox-Admin-Token header sent does not match it; the value sent is not echoed)';
    super(
      404,
      `no workspace "${name}": with SANDBOX_ADMIN_TOKEN set, a workspace is created only with the key${sent}: ` +
        `POST /_sandbox/workspaces {"name":"${name}"} with the header Sandbox-Admin-Token (or send that header on a call under /ws/${name})`,
      { code: 'WorkspaceNotFound' },
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
      removing: undefined,
      idle: undefined,
    };
  }

  get max(): number {
    return this.options.max;
  }

  get storage(): WorkspaceStorage {
    return this.options.opener.storage;
  }

  /** How many workspaces besides `default` exist (opened or not yet). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Takes the names an earlier run left in files (up to the limit) and opens them in the background,
   * one per turn of the event loop: the sandbox answers at once, and a request to one not opened yet
   * opens it first. Their pending work resumes as each opens.
   */
  openPersisted(): Promise<void> {
    for (const name of this.options.opener.persisted()) {
      if (name === DEFAULT_WORKSPACE || this.entries.has(name)) continue;
      if (this.entries.size >= this.options.max) {
        this.options.log.error({ workspace: name, max: this.options.max }, 'workspace file not opened: over SANDBOX_MAX_WORKSPACES');
        continue;
      }
      this.entries.set(name, { ...this.blank(name), createdAt: '' });
    }
    return this.openInBackground();
  }

  private async openInBackground(): Promise<void> {
    for (const entry of [...this.entries.values()]) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return;
      if (entry.runtime || entry.removing || this.entries.get(entry.name) !== entry) continue;
      try {
        this.open(entry);
      } catch (err) {
        this.options.log.error({ err, workspace: entry.name }, 'workspace file could not be opened (a request to it will try again)');
      }
    }
  }

  /** Whether `name` exists (opened or not yet), `default` included; a workspace being removed does not. */
  has(name: string): boolean {
    if (name === DEFAULT_WORKSPACE) return true;
    const entry = this.entries.get(name);
    return entry !== undefined && !entry.removing;
  }

  /** The names of the workspaces, `default` included, without those being removed; in no order. */
  names(): string[] {
    return [DEFAULT_WORKSPACE, ...[...this.entries.values()].filter((e) => !e.removing).map((e) => e.name)];
  }

  /** How far `req` may reach workspace `name` now (the URL rewrite asks before routing). */
  gate(name: string, req: IncomingMessage): 'open' | WorkspaceRefusal['reason'] {
    if (name === DEFAULT_WORKSPACE) return 'open';
    const entry = this.entries.get(name);
    if (entry) return entry.removing ? 'removing' : 'open';
    return this.mayCreate(req) ? 'open' : 'unknown';
  }

  private mayCreate(req: IncomingMessage | undefined): boolean {
    return req === undefined || !this.options.mayCreate || this.options.mayCreate(req);
  }

  /** The runtime of `name`, created with the start-up fixtures on first use. */
  runtime(name: string): Runtime {
    return this.runtimeOf(this.entry(name, undefined));
  }

  /**
   * runtime(name) for a request: in use (never evicted, waited for by a removal) until release(name).
   * Throws when the workspace is being removed, or does not exist and `req` may not create it.
   */
  use(name: string, req: IncomingMessage): Runtime {
    const entry = this.entry(name, req);
    const runtime = this.runtimeOf(entry);
    entry.lastUsed = this.now();
    entry.active++;
    return runtime;
  }

  private entry(name: string, req: IncomingMessage | undefined): Entry {
    if (name === DEFAULT_WORKSPACE) return this.defaultEntry;
    const entry = this.entries.get(name);
    if (entry?.removing) throw new WorkspaceRemovingError(name);
    if (entry) return entry;
    if (!this.mayCreate(req)) throw new WorkspaceUnknownError(name, req ? adminKeyProblem(req.headers) : 'missing');
    const { entry: added, isNew } = this.add(name, undefined);
    if (req) (req as MarkedRequest)[isNew ? CREATED : REOPENED] = true;
    return added;
  }

  private runtimeOf(entry: Entry): Runtime {
    return entry.runtime ?? this.open(entry).runtime;
  }

  /** A request that used `name` is answered. */
  release(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.lastUsed = this.now();
    if (entry.active > 0) entry.active--;
    if (entry.active === 0) entry.idle?.();
  }

  /** The runtime of an open workspace, without counting a use; undefined when there is none. */
  peek(name: string): Runtime | undefined {
    return name === DEFAULT_WORKSPACE ? this.options.defaultRuntime : this.entries.get(name)?.runtime;
  }

  /**
   * Creates `name` with `fixtures` (undefined: the start-up ones); undefined when it exists already,
   * also in the file an earlier run left (not opened at start, being over the limit then: it is
   * opened now, with its data, and `fixtures` are not loaded). Throws while a workspace of that name
   * is being removed.
   */
  create(name: string, fixtures: object | undefined): WorkspaceInfo | undefined {
    if (this.entries.get(name)?.removing) throw new WorkspaceRemovingError(name);
    if (this.has(name)) return undefined;
    const { entry, isNew } = this.add(name, fixtures);
    return isNew ? this.infoOf(entry) : undefined;
  }

  /**
   * The workspaces, `default` first, then by name: `limit` of them after the one named `after` (absent:
   * from the start), and how many there are in all.
   */
  list(page: { after?: string; limit?: number } = {}): { workspaces: WorkspaceInfo[]; total: number } {
    const named = [...this.entries.values()].filter((e) => !e.removing);
    const { after, limit = named.length + 1 } = page;
    const all =
      after === undefined
        ? [this.defaultEntry, ...named]
        : named.filter((e) => after === DEFAULT_WORKSPACE || e.name > after);
    const first = all
      .sort((a, b) => (a === this.defaultEntry ? -1 : b === this.defaultEntry ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, limit);
    return { workspaces: first.map((e) => this.infoOf(e)), total: named.length + 1 };
  }

  private infoOf(entry: Entry): WorkspaceInfo {
    const runtime = this.runtimeOf(entry);
    return {
      name: entry.name,
      createdAt: entry.createdAt,
      lastUsedAt: new Date(entry === this.defaultEntry ? this.now() : entry.lastUsed).toISOString(),
      storage: this.options.opener.storage,
      rows: interfaceRows(runtime.store.tableCounts()),
    };
  }

  /**
   * Removes `name`: from now on a request to it is refused (WorkspaceRemovingError); the requests in
   * flight are waited for (at most removalWaitMs, then closed under them: they are refused too); then
   * its state is closed and its files removed, and only then is the name free again, so nothing
   * created under it afterwards can lose a file to this removal. False when there is no such
   * workspace (or another removal of it is under way: that one answers).
   */
  async remove(name: string): Promise<boolean> {
    const entry = this.entries.get(name);
    if (!entry) return false;
    if (entry.removing) {
      await entry.removing;
      return false;
    }
    entry.removing = this.drop(entry);
    await entry.removing;
    return true;
  }

  private async drop(entry: Entry): Promise<void> {
    try {
      // Waits and long polls would hold the removal until their timeout: they are answered now.
      entry.runtime?.events.interrupt(new WorkspaceRemovingError(entry.name));
      if (entry.active > 0) {
        const waitMs = this.options.removalWaitMs ?? WORKSPACE_REMOVAL_WAIT_MS;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          entry.idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        entry.idle = undefined;
        if (entry.active > 0)
          this.options.log.error(
            { workspace: entry.name, requests: entry.active, waitMs },
            'workspace removed with requests still in flight: they are answered that it was removed',
          );
      }
      if (entry.runtime) {
        // A request still in flight that reaches for this state from now on is refused, not failed.
        entry.runtime.retire(new WorkspaceRemovingError(entry.name));
        await entry.runtime.close({ discard: true });
      }
      await this.options.opener.destroy(entry.name);
    } finally {
      this.entries.delete(entry.name);
    }
  }

  /** Removes the in-memory workspaces idle longer than the configured time; returns their names. */
  async evictIdle(): Promise<string[]> {
    const { idleMs } = this.options;
    if (idleMs <= 0 || this.options.opener.storage !== 'memory') return [];
    const cutoff = this.now() - idleMs;
    const idle = [...this.entries.values()].filter((e) => e.active === 0 && !e.removing && e.lastUsed <= cutoff);
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

  /** Ends the waits of every workspace but `default` now, and any later one at once, with `reason` (Events.interrupt). */
  interruptAll(reason: Error): void {
    for (const entry of this.entries.values()) entry.runtime?.events.interrupt(reason);
  }

  /** Closes every workspace but `default` (whose owner closes it), removals under way first. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const all = [...this.entries.values()];
    await Promise.all(all.map((e) => e.removing?.catch(() => undefined)));
    this.entries.clear();
    await Promise.all(all.map((e) => e.runtime?.close()));
  }

  private blank(name: string): Entry {
    return { name, runtime: undefined, createdAt: '', lastUsed: this.now(), active: 0, removing: undefined, idle: undefined };
  }

  /** A workspace not in the list: created, or opened from the file an earlier run left (`isNew` false). */
  private add(name: string, fixtures: object | undefined): { entry: Entry; isNew: boolean } {
    if (this.closed) throw new SandboxError(503, 'the sandbox is closing');
    if (this.entries.size >= this.options.max) throw new WorkspaceLimitError(this.options.max);
    const entry = this.blank(name);
    const { isNew } = this.open(entry, fixtures);
    this.entries.set(name, entry);
    return { entry, isNew };
  }

  private open(entry: Entry, fixtures?: object): { runtime: Runtime; isNew: boolean } {
    if (this.closed) throw new SandboxError(503, 'the sandbox is closing');
    const { runtime, createdAt, isNew } = this.options.opener.open(entry.name, fixtures);
    entry.runtime = runtime;
    entry.createdAt = createdAt;
    runtime.work.kickAll();
    this.options.log.info({ workspace: entry.name }, 'workspace opened');
    return { runtime, isNew };
  }
}
