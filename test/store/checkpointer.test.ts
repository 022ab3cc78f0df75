import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpoints, FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/store/checkpointer.js';
import { openDatabase } from '../../src/store/db.js';
import { Store } from '../../src/store/index.js';
import { until } from '../helpers.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
  dirs.push(dir);
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The operating system's threads of this process (Linux): what a thread per database would show. */
const threads = () => readdirSync('/proc/self/task').length;

describe('WAL checkpoints of a database file', () => {
  it('are run by the background thread while the main connection keeps only a far threshold', async () => {
    const dir = tempDir();
    const store = new Store(openDatabase(join(dir, 'sandbox.db')).db);
    try {
      expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      for (let i = 0; i < 200; i++) store.setMetaValue(`k${i}`, 'x'.repeat(1000));
      const checkpointer = store.checkpointer;
      expect(checkpointer).toBeDefined();
      // Wait until a checkpoint has copied every frame written so far back to the database file.
      await until('checkpointed', () => {
        const last = checkpointer?.last;
        return last !== undefined && last.log > 0 && last.checkpointed === last.log;
      });
      // The rows are in the file: a new connection reads them.
      const reopened = openDatabase(join(dir, 'sandbox.db')).db;
      expect(reopened.prepare("SELECT value FROM sb_meta WHERE key = 'k199'").pluck().get()).toBe('x'.repeat(1000));
      reopened.close();
    } finally {
      await store.close();
    }
  });

  it('are not started for an in-memory database', async () => {
    const store = new Store(openDatabase(':memory:').db);
    expect(store.checkpointer).toBeUndefined();
    await store.close();
  });

  it('share one thread among many database files, and hold none once they are quiet', async () => {
    const dir = tempDir();
    const before = threads();
    const stores = Array.from({ length: 16 }, (_, i) => new Store(openDatabase(join(dir, `w${i}.db`)).db));
    try {
      for (const [i, store] of stores.entries()) for (let k = 0; k < 50; k++) store.setMetaValue(`k${k}`, `${i}`.repeat(2000));
      // Every file gets checkpointed...
      await until('checkpointed', () =>
        stores.every((s) => s.checkpointer?.last !== undefined && s.checkpointer.last.checkpointed === s.checkpointer.last.log),
      );
      // ...by one thread for all of them (a thread each would add 16).
      expect(threads() - before).toBeLessThanOrEqual(3);
      // Quiet files are let go: nothing watched, no connection held, and then no thread at all.
      await until('idle', () => checkpoints.awake === 0 && checkpoints.connections === 0 && !checkpoints.running);
      expect(threads()).toBeLessThanOrEqual(before + 1);
      // A later write wakes its file alone.
      stores[3]?.setMetaValue('late', 'x'.repeat(5000));
      expect(checkpoints.awake).toBe(1);
      const runs = stores[3]?.checkpointer?.runs ?? 0;
      await until('checkpointed again', () => (stores[3]?.checkpointer?.runs ?? 0) > runs);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    expect(checkpoints.connections).toBe(0);
  });

  it('closes its connection to a file before the store says it is closed, so the file can go at once', async () => {
    const dir = tempDir();
    for (let round = 0; round < 5; round++) {
      const path = join(dir, `r${round}.db`);
      const store = new Store(openDatabase(path).db);
      for (let k = 0; k < 50; k++) store.setMetaValue(`k${k}`, 'y'.repeat(2000));
      // Close while the worker may hold the file open or be checkpointing it.
      await sleep(round * 40);
      await store.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(checkpoints.connections).toBe(0);
  });
});
