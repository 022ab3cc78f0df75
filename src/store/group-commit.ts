// Group commit: the writes queued during one turn of the event loop share one transaction, each in its
// own savepoint, and every caller hears of its write only after that transaction committed. Under
// concurrent requests one BEGIN and one COMMIT serve the whole turn's writes, and the writes run
// back to back while SQLite's pages are still in the CPU's caches, which makes a payment's write cost
// less (docs/benchmarks.md, "The hot path").
//
// Nothing changes for a single caller: its write runs alone, commits, then answers. Writes queued in
// the same turn run in the order they were queued, each seeing the ones before it, exactly as they
// would one after another; a write that throws takes back its own savepoint only. Any other write of
// the store (its own transaction(), a wipe, a snapshot, closing) first runs what is queued, so a
// write never overtakes one queued before it.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { RowCounts } from './row-counts.js';

interface Queued {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export class GroupCommit {
  private queue: Queued[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly statements: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Statement>;
  /** Transactions committed, and writes run in them (for the tests). */
  readonly stats = { transactions: 0, writes: 0 };

  /** `counts`: what each write adds is counted once its savepoint and the transaction committed. */
  constructor(
    private readonly db: Db,
    private readonly counts?: RowCounts,
  ) {
    this.statements = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT sb_group_write'),
      release: db.prepare('RELEASE sb_group_write'),
      rollbackTo: db.prepare('ROLLBACK TO sb_group_write'),
    };
  }

  /** Writes queued and not yet run. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Queues `fn` (synchronous, reads and writes through this connection) for the turn's transaction.
   * Resolves with its value once that transaction committed; rejects with what it threw (its own
   * writes taken back), or with the error that made the whole transaction fail (nothing of it kept).
   */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => {
        this.scheduled = undefined;
        this.flush();
      });
    });
  }

  /**
   * Runs and commits every queued write now; nothing if there is none or a transaction is open. The
   * queue holds at most one write per request in flight, so one transaction takes them all.
   */
  flush(): void {
    if (this.db.inTransaction || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.commit(batch);
  }

  private commit(batch: Queued[]): void {
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    const counts = this.counts;
    counts?.begin();
    try {
      this.statements.begin.run();
      for (const item of batch) {
        this.statements.savepoint.run();
        counts?.begin();
        let value: unknown;
        try {
          value = item.fn();
        } catch (err) {
          counts?.rollback();
          // An I/O or disk-full error makes SQLite roll the whole transaction back: nothing of the
          // batch holds, so every write of it fails with that error.
          if (!this.db.inTransaction) throw err;
          this.statements.rollbackTo.run();
          this.statements.release.run();
          outcomes.push({ ok: false, value: err });
          continue;
        }
        counts?.commit();
        this.statements.release.run();
        outcomes.push({ ok: true, value });
      }
      this.statements.commit.run();
    } catch (err) {
      counts?.rollback();
      if (this.db.inTransaction) this.statements.rollback.run();
      for (const item of batch) item.reject(err);
      return;
    }
    counts?.commit();
    this.stats.transactions += 1;
    this.stats.writes += batch.length;
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.value);
    });
  }
}
