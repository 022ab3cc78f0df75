import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { READ_CACHE_ENTRIES, ReadCache } from '../../src/store/read-cache.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

function setup(path = ':memory:') {
  const { db } = openDatabase(path);
  db.exec(`
    CREATE TABLE xx_parents (id INTEGER PRIMARY KEY, v TEXT NOT NULL);
    CREATE TABLE xx_children (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES xx_parents (id) ON DELETE CASCADE);
    CREATE TABLE xx_log (n INTEGER);
    CREATE TRIGGER xx_children_log AFTER DELETE ON xx_children BEGIN INSERT INTO xx_log VALUES (old.id); END;
    INSERT INTO xx_parents (id, v) VALUES (1, 'a');
    INSERT INTO xx_children (id, parent_id) VALUES (10, 1);
  `);
  const cache = new ReadCache(db);
  const read = db.prepare('SELECT v FROM xx_parents WHERE id = 1').pluck();
  /** What the cache answers for the row, and whether it had to read it. */
  const value = () => {
    let fresh = false;
    const v = cache.get('v', () => {
      fresh = true;
      return read.get();
    });
    return { v, fresh };
  };
  return { db, cache, value };
}

/** A commit by another connection to the same database file (a second process, a sqlite3 shell). */
function commitElsewhere(file: string, sql: string): void {
  const other = new Database(file);
  try {
    other.exec(sql);
  } finally {
    other.close();
  }
}

describe('the read cache', () => {
  it('answers from memory until a row changes, whatever statement changed it', () => {
    const { db, value } = setup();
    const changes = [
      "UPDATE xx_parents SET v = 'b' WHERE id = 1",
      "UPDATE xx_parents SET v = v WHERE id = 1", // same value: still a change, still re-read
      'INSERT INTO xx_children (id, parent_id) VALUES (11, 1)',
      'DELETE FROM xx_children WHERE id = 11', // the trigger writes too
      'DELETE FROM xx_log', // a whole-table delete (SQLite's truncate shortcut)
      "INSERT INTO xx_parents (id, v) VALUES (1, 'c') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
    ];
    expect(value()).toEqual({ v: 'a', fresh: true });
    expect(value()).toEqual({ v: 'a', fresh: false });
    for (const sql of changes) {
      db.exec(sql);
      const after = value();
      expect(after.fresh, sql).toBe(true);
      expect(after.v).toBe(db.prepare('SELECT v FROM xx_parents WHERE id = 1').pluck().get());
      expect(value().fresh).toBe(false);
    }
    // A statement that matches no row changes nothing, and the cached answer stays.
    db.exec("UPDATE xx_parents SET v = 'z' WHERE id = 99");
    expect(value()).toEqual({ v: 'c', fresh: false });
  });

  it('never keeps what was read inside a transaction, so a rollback cannot leave it behind', () => {
    const { db, value } = setup();
    expect(value().v).toBe('a');
    expect(() =>
      db.transaction(() => {
        db.exec("UPDATE xx_parents SET v = 'uncommitted' WHERE id = 1");
        expect(value()).toEqual({ v: 'uncommitted', fresh: true });
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(value()).toEqual({ v: 'a', fresh: true });
  });

  it('sees a commit by another connection to the same database file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'read-cache-'));
    dirs.push(dir);
    const file = join(dir, 'sandbox.db');
    const { db, value } = setup(file);
    // The first reads learn the database's versions; from then on the answer comes from memory.
    expect(value().v).toBe('a');
    expect(value().v).toBe('a');
    expect(value()).toEqual({ v: 'a', fresh: false });
    commitElsewhere(file, "UPDATE xx_parents SET v = 'from elsewhere' WHERE id = 1");
    expect(value()).toEqual({ v: 'from elsewhere', fresh: true });
    db.close();
  });

  it("asks other connections once per request, however requests interleave: its later lookups see every change of its own connection, the next request sees the others'", () => {
    const dir = mkdtempSync(join(tmpdir(), 'read-cache-'));
    dirs.push(dir);
    const file = join(dir, 'sandbox.db');
    const { db, cache } = setup(file);
    const read = db.prepare('SELECT v FROM xx_parents WHERE id = 1').pluck();
    const get = (request?: object) => cache.get('v', () => read.get(), request);
    const first = {};
    // The request's first lookup makes the full check, later ones of the same request skip one part.
    for (let i = 0; i < 3; i++) get(first);
    db.exec("UPDATE xx_parents SET v = 'here' WHERE id = 1");
    expect(get(first)).toBe('here');
    // Another request's lookups in between (requests interleave while their bodies arrive).
    expect(get({})).toBe('here');
    commitElsewhere(file, "UPDATE xx_parents SET v = 'elsewhere' WHERE id = 1");
    // Concurrent with the first request, the other connection's commit is not asked about again.
    expect(get(first)).toBe('here');
    expect(get({})).toBe('elsewhere');
    expect(get(first)).toBe('elsewhere');
    db.close();
  });

  describe('a value kept per table (keep)', () => {
    function kept(path = ':memory:') {
      const { db, cache } = setup(path);
      const read = db.prepare('SELECT v FROM xx_parents WHERE id = 1').pluck();
      const value = () => {
        let fresh = false;
        const v = cache.keep(['xx_parents'], 'parent', () => {
          fresh = true;
          return read.get();
        });
        return { v, fresh };
      };
      return { db, value };
    }

    it('survives writes to other tables and is read again after any write to its own, whatever the statement', () => {
      const { db, value } = kept();
      expect(value()).toEqual({ v: 'a', fresh: true });
      db.exec('INSERT INTO xx_log VALUES (1)');
      db.exec('DELETE FROM xx_children');
      expect(value()).toEqual({ v: 'a', fresh: false });
      db.exec("UPDATE xx_parents SET v = 'b' WHERE id = 1");
      expect(value()).toEqual({ v: 'b', fresh: true });
      db.exec("INSERT INTO xx_parents (id, v) VALUES (2, 'c')");
      expect(value()).toEqual({ v: 'b', fresh: true });
      // A whole-table delete (no truncation shortcut: the table has a trigger now) and a copy back.
      db.exec('CREATE TEMP TABLE saved AS SELECT * FROM xx_parents');
      db.exec('DELETE FROM xx_parents');
      expect(value()).toEqual({ v: undefined, fresh: true });
      db.exec('INSERT INTO xx_parents SELECT * FROM temp.saved');
      expect(value()).toEqual({ v: 'b', fresh: true });
      expect(value()).toEqual({ v: 'b', fresh: false });
    });

    it('reads inside a transaction directly, and after a rollback answers the rows as they are', () => {
      const { db, value } = kept();
      expect(value().v).toBe('a');
      expect(() =>
        db.transaction(() => {
          db.exec("UPDATE xx_parents SET v = 'in flight' WHERE id = 1");
          expect(value()).toEqual({ v: 'in flight', fresh: true });
          throw new Error('roll back');
        })(),
      ).toThrow('roll back');
      expect(value().v).toBe('a');
    });

    it('is read again after a commit by another connection to the same file', () => {
      const dir = mkdtempSync(join(tmpdir(), 'read-cache-'));
      dirs.push(dir);
      const file = join(dir, 'sandbox.db');
      const { db, value } = kept(file);
      expect(value()).toEqual({ v: 'a', fresh: true });
      db.exec('INSERT INTO xx_log VALUES (1)');
      expect(value()).toEqual({ v: 'a', fresh: false });
      commitElsewhere(file, "UPDATE xx_parents SET v = 'from elsewhere' WHERE id = 1");
      expect(value()).toEqual({ v: 'from elsewhere', fresh: true });
      db.close();
    });
  });

  it(`keeps at most ${READ_CACHE_ENTRIES} entries`, () => {
    const { cache } = setup();
    for (let i = 0; i < READ_CACHE_ENTRIES * 2 + 5; i++) cache.get(`k${i}`, () => i);
    expect(cache.size).toBeLessThanOrEqual(READ_CACHE_ENTRIES);
    expect(cache.size).toBeGreaterThan(0);
  });
});
