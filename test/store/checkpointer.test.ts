import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/store/checkpointer.js';
import { openDatabase } from '../../src/store/db.js';
import { Store } from '../../src/store/index.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

describe('WAL checkpoints of a database file', () => {
  it('are run by the background thread while the main connection keeps only a far threshold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const store = new Store(openDatabase(join(dir, 'sandbox.db')).db);
    try {
      expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      for (let i = 0; i < 200; i++) store.setMetaValue(`k${i}`, 'x'.repeat(1000));
      const checkpointer = store.checkpointer;
      expect(checkpointer).toBeDefined();
      // Wait until a checkpoint has copied every frame written so far back to the database file.
      for (let waited = 0; waited < 10_000; waited += 50) {
        const last = checkpointer?.last;
        if (last && last.log > 0 && last.checkpointed === last.log) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(checkpointer?.last?.log).toBeGreaterThan(0);
      expect(checkpointer?.last?.checkpointed).toBe(checkpointer?.last?.log);
      // The rows are in the file: a new connection reads them.
      const reopened = openDatabase(join(dir, 'sandbox.db')).db;
      expect(reopened.prepare("SELECT value FROM sb_meta WHERE key = 'k199'").pluck().get()).toBe('x'.repeat(1000));
      reopened.close();
    } finally {
      store.close();
    }
  });

  it('are not started for an in-memory database', () => {
    const store = new Store(openDatabase(':memory:').db);
    expect(store.checkpointer).toBeUndefined();
    store.close();
  });
});
