// WAL checkpoints of a database file, off the event loop. SQLite checkpoints inside the COMMIT that
// crosses its threshold (1000 pages), and with synchronous=NORMAL a checkpoint syncs the database
// file: that commit, and every request waiting behind it on the event loop, stalls for the sync
// (20-50 ms on a shared disk, measured: the payment benchmark's whole p99). A worker thread with its
// own connection runs PASSIVE checkpoints instead (they never block the writer); the main connection
// keeps a far threshold only as a net should the worker ever stop.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

/** How often the worker checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** The main connection's own threshold, in pages: reached only if the worker stops. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage(result);
  } catch (err) {
    // Busy or locked: the next round tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export class Checkpointer {
  private readonly worker: Worker;
  /** Checkpoints the worker has run (tests and the inspector). */
  runs = 0;
  last: CheckpointResult | undefined;

  constructor(db: Db) {
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        path: db.name,
        intervalMs: CHECKPOINT_INTERVAL_MS,
      },
    });
    // Never what keeps the process alive.
    this.worker.unref();
    this.worker.on('message', (result: CheckpointResult) => {
      this.runs++;
      this.last = result;
    });
    // A worker that cannot start leaves checkpoints to the main connection's threshold.
    this.worker.on('error', () => undefined);
    this.worker.once('exit', () => {
      this.stopped ??= Promise.resolve();
    });
  }

  /**
   * Asks the worker to close its connection and waits until it has: a caller that removes the database
   * files right after closing must not race the worker's last checkpoint (bounded, should it hang).
   */
  stop(): Promise<void> {
    this.stopped ??= new Promise((resolve) => {
      const timer = setTimeout(resolve, 5000);
      timer.unref();
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage('stop');
    });
    return this.stopped;
  }
  private stopped: Promise<void> | undefined;
}
