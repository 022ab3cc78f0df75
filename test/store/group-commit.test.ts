import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { Store } from '../../src/store/index.js';

const stores: Store[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(path = ':memory:'): Store {
  const store = new Store(openDatabase(path).db);
  stores.push(store);
  return store;
}

/** The sb_meta rows whose key starts with `k`, in key order. */
function keys(store: Store): string[] {
  return store.db.prepare("SELECT key FROM sb_meta WHERE key LIKE 'k%' ORDER BY key").pluck().all() as string[];
}

function put(store: Store, key: string): () => number {
  return () => {
    store.db.prepare('INSERT INTO sb_meta (key, value) VALUES (?, ?)').run(key, 'v');
    // What this write sees: the rows of the writes queued before it.
    return keys(store).length;
  };
}

describe('group commit: the writes of one turn share one transaction', () => {
  it('runs the writes in the order they were queued, each seeing the ones before, in one commit', async () => {
    const store = open();
    const seen = await Promise.all(['k1', 'k2', 'k3', 'k4'].map((k) => store.groupWrite(put(store, k))));
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(keys(store)).toEqual(['k1', 'k2', 'k3', 'k4']);
    expect(store.groupCommit.stats).toEqual({ transactions: 1, writes: 4 });
    expect(store.db.inTransaction).toBe(false);
  });

  it('settles a write only after its transaction committed', async () => {
    const store = open();
    const write = store.groupWrite(put(store, 'k1'));
    expect(keys(store)).toEqual([]);
    expect(store.groupCommit.pending).toBe(1);
    await write;
    expect(keys(store)).toEqual(['k1']);
  });

  it('takes back only the rows of a write that throws; the others are committed', async () => {
    const store = open();
    const results = await Promise.allSettled([
      store.groupWrite(put(store, 'k1')),
      store.groupWrite(() => {
        put(store, 'k2')();
        throw new Error('refused after writing');
      }),
      store.groupWrite(put(store, 'k3')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('refused after writing'));
    // The third write did not see the second's row: it was taken back before the third ran.
    expect((results[2] as PromiseFulfilledResult<number>).value).toBe(2);
    expect(keys(store)).toEqual(['k1', 'k3']);
  });

  it('fails every write of a transaction that SQLite rolled back as a whole, keeps none, and goes on', async () => {
    const store = open();
    // RAISE(ROLLBACK) ends the whole transaction, as an I/O or disk-full error does.
    store.db.exec(
      "CREATE TEMP TRIGGER boom BEFORE INSERT ON main.sb_meta WHEN NEW.key = 'k-boom' BEGIN SELECT RAISE(ROLLBACK, 'disk full (simulated)'); END",
    );
    const results = await Promise.allSettled([
      store.groupWrite(put(store, 'k1')),
      store.groupWrite(put(store, 'k-boom')),
      store.groupWrite(put(store, 'k3')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toContain('disk full (simulated)');
    expect(keys(store)).toEqual([]);
    expect(store.db.inTransaction).toBe(false);
    await store.groupWrite(put(store, 'k4'));
    expect(keys(store)).toEqual(['k4']);
  });

  it('runs queued writes before any other write of the store: a transaction, a wipe, a snapshot', async () => {
    const store = open();
    const queued = store.groupWrite(put(store, 'k1'));
    store.transaction(() => put(store, 'k2')());
    expect(keys(store)).toEqual(['k1', 'k2']);
    await expect(queued).resolves.toBe(1);

    store.snapshots.save('base');
    const late = store.groupWrite(put(store, 'k3'));
    // The restore comes after the queued write, so it takes that write back too.
    expect(store.snapshots.restore('base')).toBe(true);
    await expect(late).resolves.toBe(3);
    expect(keys(store)).toEqual(['k1', 'k2']);

    const beforeWipe = store.groupWrite(put(store, 'k5'));
    store.wipe();
    await beforeWipe;
    expect(keys(store)).toEqual([]);
  });

  it('commits queued writes when the store closes: nothing accepted is lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const store = new Store(openDatabase(path).db);
    const writes = ['k1', 'k2'].map((k) => store.groupWrite(put(store, k)));
    await store.close();
    await expect(Promise.all(writes)).resolves.toEqual([1, 2]);
    const reopened = open(path);
    expect(keys(reopened)).toEqual(['k1', 'k2']);
  });
});
