// The store: one database connection and one module per interface. Routes never see SQL.
import type { Statement } from 'better-sqlite3';
import { BookkeepingStore } from './bookkeeping.js';
import { type CheckpointHandle, checkpoints } from './checkpointer.js';
import type { Db } from './db.js';
import { DocumentFiles, documentsDir } from './documents.js';
import { GroupCommit } from './group-commit.js';
import { LoanbondStore } from './loanbond.js';
import { migrateParts, PART_MIGRATIONS_TABLE, type StorePart } from './part.js';
import { ReadCache } from './read-cache.js';
import { RowCounts } from './row-counts.js';
import { ReceivablesStore } from './receivables.js';
import { RegistryStore } from './registry.js';
import { SnapshotStore } from './snapshot-store.js';
import { StubStore } from './stubs.js';

/**
 * Rows per table as the control plane shows them: the interfaces' tables, the sandbox's own sb_
 * tables left out (a workspace keeps its creation time and fixtures there, a lone sandbox does not),
 * so that a workspace reads as a lone sandbox holding the same state.
 */
export function interfaceRows(rows: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(rows).filter(([table]) => !table.startsWith('sb_')));
}

/**
 * What a state is, not what it holds: a workspace's creation time and the fixtures it was created with
 * (control/workspace-routes.ts), which a reset to "default" loads, after a restart too. A reset wipes
 * every other row of sb_meta with the data.
 */
export const WORKSPACE_META = { createdAt: 'workspaceCreatedAt', fixtures: 'workspaceFixtures' } as const;
const KEPT_THROUGH_RESET = [WORKSPACE_META.createdAt, WORKSPACE_META.fixtures];

export class Store {
  readonly bookkeeping: BookkeepingStore;
  readonly registry: RegistryStore;
  readonly receivables: ReceivablesStore;
  readonly loanbond: LoanbondStore;
  /** User-defined operations added at run time, and scenario states. */
  readonly stubs: StubStore;
  /** Named copies of the whole state (the control plane's snapshots). */
  readonly snapshots: SnapshotStore;
  /** Read answers kept until any row changes (read-cache.ts): the hot path's lookups and pages. */
  readonly readCache: ReadCache;
  /** Writes queued during one turn of the event loop, committed together (group-commit.ts). */
  readonly groupCommit: GroupCommit;
  /** Loan-bond files beside the database (documents.ts). */
  readonly documents: DocumentFiles;
  /** WAL checkpoints by the process's checkpoint worker, for a database file (checkpointer.ts). */
  readonly checkpointer: CheckpointHandle | undefined;
  /** Rows per table and per watched state, kept as the modules write (row-counts.ts). */
  readonly counts: RowCounts;
  private readonly wipeAll: () => void;
  private readonly getMeta;
  private readonly setMeta;
  private readonly deleteMeta;
  private readonly parts = new Map<StorePart<unknown>, unknown>();
  private replaced = 0;

  /** `parts`: tables the interfaces bring beyond the sandbox's schema (migrated here, before anything reads the table list). */
  constructor(
    readonly db: Db,
    parts: readonly StorePart<unknown>[] = [],
  ) {
    migrateParts(db, parts);
    this.readCache = new ReadCache(db);
    // A part's tables are counted when read: only the sandbox's own modules count as they write.
    this.counts = new RowCounts(db, parts.map((p) => `${p.name}_`));
    this.groupCommit = new GroupCommit(db, this.counts);
    this.bookkeeping = new BookkeepingStore(db, this.readCache, this.counts);
    this.registry = new RegistryStore(db, this.counts);
    this.receivables = new ReceivablesStore(db, this.counts);
    this.documents = new DocumentFiles(db, db.memory ? undefined : documentsDir(db.name), () =>
      this.snapshots.copiesOf('lb_documents'),
    );
    this.loanbond = new LoanbondStore(db, this.counts, this.documents);
    this.stubs = new StubStore(db);
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all()
      .filter((t) => t !== PART_MIGRATIONS_TABLE) as string[];
    const deletes = tables.map((t) => db.prepare(`DELETE FROM "${t}"`));
    this.getMeta = db.prepare('SELECT value FROM sb_meta WHERE key = ?').pluck();
    this.setMeta = db.prepare(
      'INSERT INTO sb_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.wipeAll = db.transaction(() => {
      const kept = KEPT_THROUGH_RESET.map((key) => [key, this.getMeta.get(key) as string | undefined] as const);
      // Foreign keys are checked at commit, so the order of the deletes does not matter.
      db.pragma('defer_foreign_keys = ON');
      for (const d of deletes) d.run();
      for (const [key, value] of kept) if (value !== undefined) this.setMeta.run(key, value);
    });
    this.deleteMeta = db.prepare('DELETE FROM sb_meta WHERE key = ?');
    // Last: it attaches its own schema, which the table list above must not see.
    this.snapshots = new SnapshotStore(
      db,
      () => {
        this.groupCommit.flush();
        this.touch();
      },
      () => {
        this.replaced += 1;
        this.counts.invalidate();
      },
      () => this.documents.sweep(),
    );
    this.checkpointer = db.memory ? undefined : checkpoints.register(db);
    // Files of a database file that no row refers to (a crash between a file and its row).
    this.documents.sweep();
    for (const part of parts) this.parts.set(part, part.open(db, this.readCache));
  }

  /**
   * Bumped whenever rows are put back or wiped in bulk (a snapshot restored, a reset): what a runner
   * keeps in memory about rows (a job half done, bytes handed over by id) belongs to an earlier
   * state once it changed, even where a key came back with other content (a seeded sequence).
   */
  get generation(): number {
    return this.replaced;
  }

  /** The statements of a part given to the constructor. */
  part<T>(part: StorePart<T>): T {
    if (!this.parts.has(part)) throw new Error(`the store part "${part.name}" is not part of this store`);
    return this.parts.get(part) as T;
  }

  /**
   * Runs `fn` in the transaction shared by the writes of this turn of the event loop, in its own
   * savepoint (group-commit.ts): for the hot path's writes, which many concurrent requests make. The
   * promise settles once that transaction committed. The write lock is taken before the first read,
   * as with `immediate` below.
   */
  groupWrite<T>(fn: () => T): Promise<T> {
    this.touch();
    return this.groupCommit.run(fn);
  }

  /**
   * Runs `fn` in one transaction (nested calls become savepoints). `immediate`: the write lock is
   * taken before the first read, so no other writer (another process on the same file) can slip in
   * between what a read-modify-write reads and what it writes.
   */
  transaction<T>(fn: () => T, options: { immediate?: boolean } = {}): T {
    // A write queued for the group commit came first: it runs first.
    this.groupCommit.flush();
    this.touch();
    const tx = this.db.transaction(fn);
    // What the modules count inside counts once this transaction (or savepoint) committed.
    this.counts.begin();
    try {
      const result = options.immediate ? tx.immediate() : tx();
      this.counts.commit();
      return result;
    } catch (err) {
      this.counts.rollback();
      throw err;
    }
  }

  /**
   * This store may write (or just wrote): its file's WAL is watched until it is quiet and checkpointed.
   * The write paths above call it, and so does every request that reaches this store's runtime.
   */
  touch(): void {
    this.checkpointer?.touch();
  }

  /**
   * Throws unless the database answers a query (the health check). Prepared once: preparing it on
   * every check was 40 us of each health answer (a closed connection still throws on `get`).
   */
  ping(): void {
    this.pingStatement ??= this.db.prepare('SELECT 1');
    this.pingStatement.get();
  }
  private pingStatement: Statement | undefined;

  /** Deletes every row of every table: the sandbox's state is gone, the schema stays. */
  wipe(): void {
    this.groupCommit.flush();
    this.touch();
    // Every row goes: a restore copies every table back whole, so the change log need not list them.
    this.snapshots.wholeFromNow();
    this.replaced += 1;
    this.wipeAll();
    this.counts.invalidate();
    this.documents.sweep();
  }

  /** Rows per user table (the sandbox's own sb_ tables aside), by table name: maintained, not counted. */
  tableCounts(): Record<string, number> {
    return this.counts.tables();
  }

  meta(key: string): string | undefined {
    return this.getMeta.get(key) as string | undefined;
  }

  setMetaValue(key: string, value: string): void {
    this.groupCommit.flush();
    this.touch();
    this.setMeta.run(key, value);
  }

  /** Sets `key`, or removes it when `value` is undefined (a value that need not be kept). */
  keepMetaValue(key: string, value: string | undefined): void {
    if (value !== undefined) return this.setMetaValue(key, value);
    if (this.getMeta.get(key) === undefined) return;
    this.groupCommit.flush();
    this.touch();
    this.deleteMeta.run(key);
  }

  /**
   * Closes the connection, and the checkpoint worker's before it (their files are settled after).
   * `discard`: the files are removed right after (a workspace removed), so the checkpoint SQLite runs
   * as its last connection closes syncs nothing: two fsyncs on the event loop for files about to go.
   */
  async close(options: { discard?: boolean } = {}): Promise<void> {
    // Writes already queued are kept: they commit before the connection closes.
    this.groupCommit.flush();
    await this.checkpointer?.stop();
    if (options.discard && this.db.open && !this.db.memory) this.db.pragma('synchronous = OFF');
    if (this.db.open) this.db.close();
    this.documents.close();
  }
}
