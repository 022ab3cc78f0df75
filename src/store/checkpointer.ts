// WAL checkpoints of database files, off the event loop. SQLite checkpoints inside the COMMIT that
// crosses its threshold (1000 pages), and with synchronous=NORMAL a checkpoint syncs the database
// file: that commit, and every request waiting behind it on the event loop, stalls for the sync
// (20-50 ms on a shared disk, measured: the payment benchmark's whole p99). One worker thread for the
// whole process runs PASSIVE checkpoints instead (they never block the writer), for every database
// file that changed; the main connections keep a far threshold only as a net should the worker stop.
//
// An idle database costs nothing: no thread of its own, no connection in the worker, no timer. A
// store calls touch() when it may have written; the database is then watched on a shared timer,
// checkpointed whenever its connection's change count moved (SQLite's total_changes(), which counts
// every row written however it was written), and let go once it stayed unchanged for a few rounds
// after a checkpoint that copied its whole log. The worker closes its connection to a database let
// go, and the thread itself ends when no database is watched.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/** How often a watched database is looked at. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** Rounds without a change (after a complete checkpoint) before a database is let go. */
export const QUIET_ROUNDS = 3;
/** How long the worker thread outlives the last watched database (a burst of writes reuses it). */
export const WORKER_LINGER_MS = 2000;
/** The main connection's own threshold, in pages: reached only if the worker stops. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const connections = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'checkpoint') {
    try {
      let db = connections.get(m.id);
      if (!db) {
        db = new Database(m.path, { fileMustExist: true });
        db.pragma('busy_timeout = 5000');
        connections.set(m.id, db);
      }
      const [result] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ op: 'result', id: m.id, result });
    } catch (err) {
      // Busy, locked, or the file is gone: the next round tries again.
      parentPort.postMessage({ op: 'result', id: m.id, error: String(err && err.message) });
    }
  } else if (m.op === 'release') {
    const db = connections.get(m.id);
    connections.delete(m.id);
    try { if (db) db.close(); } catch (err) { /* closed already */ }
    parentPort.postMessage({ op: 'released', id: m.id });
  }
});
`;

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

type WorkerMessage =
  | { op: 'result'; id: number; result?: CheckpointResult; error?: string }
  | { op: 'released'; id: number };

/** One database file as the shared worker sees it (Store.checkpointer). */
export class CheckpointHandle {
  /** Checkpoints the worker has run for this database (tests and the inspector). */
  runs = 0;
  last: CheckpointResult | undefined;
  /** Watched on the shared timer now. */
  awake = false;
  /** total_changes() when last looked at. */
  lastChanges = -1;
  quietRounds = 0;
  /** A checkpoint asked of the worker and not answered yet. */
  inFlight = false;
  /** The worker may hold a connection to the file. */
  connected = false;
  /** The last checkpoint copied the whole log (nothing left for this database to do). */
  complete = true;
  closed = false;
  readonly changes: Statement;

  constructor(
    private readonly service: Checkpoints,
    readonly id: number,
    readonly path: string,
    db: Db,
  ) {
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    this.changes = db.prepare('SELECT total_changes()').pluck();
  }

  /** The database may have been written: watch it until it is quiet and checkpointed. */
  touch(): void {
    if (!this.awake && !this.closed) this.service.wake(this);
  }

  /**
   * Lets the database go and waits until the worker closed its connection to the file: a caller that
   * removes the database files right after closing must not race its last checkpoint.
   */
  stop(): Promise<void> {
    this.closed = true;
    return this.service.release(this);
  }
}

/** The process's one checkpoint worker and the databases it watches. */
export class Checkpoints {
  private worker: Worker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly watched = new Set<CheckpointHandle>();
  private readonly byId = new Map<number, CheckpointHandle>();
  private readonly releasing = new Map<number, { promise: Promise<void>; done: () => void }>();
  /** Worker threads started since the process began (tests: one at a time, however many files). */
  threadsStarted = 0;

  /** Puts a database file under the shared worker (nothing runs until it is touched). */
  register(db: Db): CheckpointHandle {
    const handle = new CheckpointHandle(this, this.nextId++, db.name, db);
    this.byId.set(handle.id, handle);
    return handle;
  }

  /** Databases watched now (0 when every file is idle). */
  get awake(): number {
    return this.watched.size;
  }

  /** Connections the worker holds now. */
  get connections(): number {
    let n = 0;
    for (const h of this.byId.values()) if (h.connected) n++;
    return n;
  }

  /** Whether the worker thread runs now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  wake(handle: CheckpointHandle): void {
    handle.awake = true;
    handle.quietRounds = 0;
    this.watched.add(handle);
    if (!this.timer) {
      this.timer = setInterval(() => this.round(), CHECKPOINT_INTERVAL_MS);
      // Never what keeps the process alive.
      this.timer.unref();
    }
  }

  private round(): void {
    for (const h of this.watched) {
      let changes: number;
      try {
        changes = h.changes.get() as number;
      } catch {
        // The connection closed under us: nothing more to checkpoint here.
        this.sleep(h);
        continue;
      }
      if (changes !== h.lastChanges || !h.complete) {
        if (changes !== h.lastChanges) h.quietRounds = 0;
        h.lastChanges = changes;
        if (!h.inFlight) this.checkpoint(h);
      } else if (!h.inFlight && ++h.quietRounds >= QUIET_ROUNDS) {
        this.sleep(h);
      }
    }
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private checkpoint(h: CheckpointHandle): void {
    if (this.linger) {
      clearTimeout(this.linger);
      this.linger = undefined;
    }
    h.inFlight = true;
    h.connected = true;
    this.thread().postMessage({ op: 'checkpoint', id: h.id, path: h.path });
  }

  /** Quiet and checkpointed: the worker closes its connection; the thread ends when none is left. */
  private sleep(h: CheckpointHandle): void {
    h.awake = false;
    this.watched.delete(h);
    void this.disconnect(h);
  }

  async release(h: CheckpointHandle): Promise<void> {
    h.awake = false;
    this.watched.delete(h);
    // A release asked when the file went quiet may be followed by a checkpoint that connected again.
    await this.releasing.get(h.id)?.promise;
    this.byId.delete(h.id);
    return this.disconnect(h);
  }

  /** Asks the worker to close its connection to `h`'s file; resolves once it has (or could not). */
  private disconnect(h: CheckpointHandle): Promise<void> {
    const pending = this.releasing.get(h.id);
    if (pending) return pending.promise;
    const worker = this.worker;
    if (!worker || (!h.connected && !h.inFlight)) {
      this.lingerIfIdle();
      return Promise.resolve();
    }
    h.connected = false;
    let done = () => undefined as void;
    const promise = new Promise<void>((resolve) => {
      // Bounded, should the worker hang.
      const timer = setTimeout(() => done(), 5000);
      timer.unref();
      done = () => {
        clearTimeout(timer);
        this.releasing.delete(h.id);
        resolve();
        this.lingerIfIdle();
      };
    });
    this.releasing.set(h.id, { promise, done: () => done() });
    worker.postMessage({ op: 'release', id: h.id });
    return promise;
  }

  /** With nothing watched nor asked, the thread ends after a while (a burst of writes reuses it). */
  private lingerIfIdle(): void {
    if (!this.worker || this.watched.size > 0 || this.releasing.size > 0 || this.linger) return;
    for (const h of this.byId.values()) if (h.inFlight || h.connected) return;
    this.linger = setTimeout(() => {
      this.linger = undefined;
      if (!this.worker || this.watched.size > 0 || this.releasing.size > 0) return;
      const worker = this.worker;
      this.worker = undefined;
      void worker.terminate();
    }, WORKER_LINGER_MS);
    this.linger.unref();
  }
  private linger: NodeJS.Timeout | undefined;

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    this.threadsStarted++;
    worker.unref();
    worker.on('message', (m: WorkerMessage) => this.answer(m));
    // A worker that cannot start or dies leaves checkpoints to the main connections' threshold until
    // the next round starts another.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      for (const h of this.byId.values()) {
        h.inFlight = false;
        h.connected = false;
      }
      for (const r of [...this.releasing.values()]) r.done();
    });
    this.worker = worker;
    return worker;
  }

  private answer(m: WorkerMessage): void {
    if (m.op === 'released') {
      this.releasing.get(m.id)?.done();
      return;
    }
    const h = this.byId.get(m.id);
    if (!h) return;
    h.inFlight = false;
    if (m.result) {
      h.runs++;
      h.last = m.result;
      h.complete = m.result.busy === 0 && m.result.checkpointed >= m.result.log;
    } else {
      h.complete = false;
    }
  }
}

/** The one checkpoint service of this process. */
export const checkpoints = new Checkpoints();
