import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { SnapshotStore } from '../../src/store/snapshot-store.js';

function db() {
  const { db } = openDatabase(':memory:');
  // Shapes later migrations may add: AUTOINCREMENT, IF NOT EXISTS, a foreign key, a partial index.
  db.exec(`
    CREATE TABLE IF NOT EXISTS "xx_parents" (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE);
    CREATE TABLE xx_children (
      id INTEGER PRIMARY KEY,
      parent_id INTEGER NOT NULL REFERENCES xx_parents (id) ON DELETE CASCADE,
      state TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS xx_children_pending ON xx_children (parent_id) WHERE state = 'pending';
  `);
  return db;
}

function state(d: ReturnType<typeof db>) {
  return {
    parents: d.prepare('SELECT * FROM xx_parents ORDER BY id').all(),
    children: d.prepare('SELECT * FROM xx_children ORDER BY id').all(),
    sequence: d.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'xx_parents'").pluck().get(),
  };
}

describe('the snapshot store', () => {
  it('copies back only what changed since, and a parent\'s children with it (its DELETE cascades)', () => {
    const d = db();
    d.exec('CREATE TABLE xx_other (id INTEGER PRIMARY KEY, v TEXT)');
    const snapshots = new SnapshotStore(d);
    const addParent = d.prepare('INSERT INTO xx_parents (name) VALUES (?)');
    const addChild = d.prepare('INSERT INTO xx_children (parent_id, state) VALUES (?, ?)');
    for (let i = 0; i < 3; i++) addChild.run(addParent.run(`p${i}`).lastInsertRowid, 'pending');
    d.prepare("INSERT INTO xx_other (v) VALUES ('kept')").run();
    const saved = state(d);
    snapshots.save('s');

    // Only the parent table changes; restoring it deletes its rows, which cascades into the children.
    d.prepare("UPDATE xx_parents SET name = 'renamed' WHERE id = 2").run();
    const otherRowid = d.prepare('SELECT rowid FROM xx_other').pluck().get();
    expect(snapshots.restore('s')).toBe(true);
    expect(state(d)).toEqual(saved);
    // The untouched table was not rewritten: the same row, not a copy.
    expect(d.prepare("SELECT rowid FROM xx_other WHERE v = 'kept'").pluck().get()).toBe(otherRowid);

    // Another snapshot, then back: tables equal to the first are still right after two restores.
    d.prepare('DELETE FROM xx_children WHERE id = 3').run();
    snapshots.save('t');
    const second = state(d);
    expect(snapshots.restore('s')).toBe(true);
    expect(state(d)).toEqual(saved);
    expect(snapshots.restore('t')).toBe(true);
    expect(state(d)).toEqual(second);
    expect(snapshots.restore('t')).toBe(true);
    expect(state(d)).toEqual(second);
  });

  it('copies a small table back whole without DDL: the change log\'s triggers stay, so no prepared statement compiles again', () => {
    const d = db();
    const snapshots = new SnapshotStore(d);
    const addParent = d.prepare('INSERT INTO xx_parents (name) VALUES (?)');
    const addChild = d.prepare('INSERT INTO xx_children (parent_id, state) VALUES (?, ?)');
    addChild.run(addParent.run('p0').lastInsertRowid, 'pending');
    const saved = state(d);
    snapshots.save('s');
    const schemaVersion = () => d.pragma('temp.schema_version', { simple: true });
    const before = schemaVersion();
    // More than half of each small table changed: both are copied back whole.
    d.prepare("UPDATE xx_parents SET name = 'renamed'").run();
    addChild.run(addParent.run('p1').lastInsertRowid, 'done');
    expect(snapshots.restore('s')).toBe(true);
    expect(state(d)).toEqual(saved);
    expect(schemaVersion()).toBe(before);
    // The triggers still log: a change after the restore is copied back by the next one.
    d.prepare("UPDATE xx_children SET state = 'done'").run();
    expect(snapshots.restore('s')).toBe(true);
    expect(state(d)).toEqual(saved);
    // A large table copied back whole still drops its triggers for SQLite's truncation and page transfer.
    for (let i = 2; i < 600; i++) addParent.run(`p${i}`);
    snapshots.save('big');
    const big = state(d);
    d.prepare('UPDATE xx_parents SET name = name || \'!\'').run();
    const beforeBig = schemaVersion();
    expect(snapshots.restore('big')).toBe(true);
    expect(state(d)).toEqual(big);
    expect(schemaVersion()).not.toBe(beforeBig);
  });

  it('restores parents, children and AUTOINCREMENT counters, on the same connection', () => {
    const d = db();
    const snapshots = new SnapshotStore(d);
    const addParent = d.prepare('INSERT INTO xx_parents (name) VALUES (?)');
    const addChild = d.prepare('INSERT INTO xx_children (parent_id, state) VALUES (?, ?)');
    for (let i = 0; i < 3; i++) addChild.run(addParent.run(`p${i}`).lastInsertRowid, 'pending');
    const saved = state(d);
    expect(snapshots.save('s')).toMatchObject({ xx_parents: 3, xx_children: 3, sqlite_sequence: 1 });

    d.prepare('DELETE FROM xx_parents WHERE id = 1').run();
    addParent.run('p9');
    expect(state(d)).not.toEqual(saved);
    expect(snapshots.restore('s')).toBe(true);
    expect(state(d)).toEqual(saved);
    // The prepared statements still work, and the counter continues from the saved position.
    expect(addParent.run('p3').lastInsertRowid).toBe(4);
    expect(d.pragma('foreign_key_check')).toEqual([]);
    expect(d.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('keeps several snapshots apart and drops their copies on delete', () => {
    const d = db();
    const snapshots = new SnapshotStore(d);
    const addParent = d.prepare('INSERT INTO xx_parents (name) VALUES (?)');
    snapshots.save('empty');
    addParent.run('a');
    snapshots.save('one');
    snapshots.restore('empty');
    expect(state(d).parents).toEqual([]);
    snapshots.restore('one');
    expect(state(d).parents).toEqual([{ id: 1, name: 'a' }]);
    const copies = () => d.prepare('SELECT count(*) FROM sb_snapshots.sqlite_schema').pluck().get() as number;
    const before = copies();
    expect(snapshots.delete('empty')).toBe(true);
    expect(copies()).toBeLessThan(before);
    expect(snapshots.restore('empty')).toBe(false);
    expect(snapshots.list().map((s) => s.name)).toEqual(['one']);
  });
});

/**
 * Every shape of table a restore must put back row by row or whole: an INTEGER PRIMARY KEY with
 * AUTOINCREMENT, a rowid table keyed by text with a second UNIQUE column (INSERT OR REPLACE there
 * deletes another row), its cascading child, a rowid table with no key at all, a WITHOUT ROWID table
 * whose composite key is updated, and a table with a trigger of its own (copied by CREATE TABLE AS).
 */
function shapes(options: { alone?: boolean } = {}) {
  const d = options.alone ? new Database(':memory:') : openDatabase(':memory:').db;
  d.pragma('foreign_keys = ON');
  d.exec(`
    CREATE TABLE xx_counted (id INTEGER PRIMARY KEY AUTOINCREMENT, v INTEGER NOT NULL);
    CREATE TABLE xx_keyed (k TEXT PRIMARY KEY, v INTEGER NOT NULL UNIQUE);
    CREATE TABLE xx_child (k TEXT NOT NULL REFERENCES xx_keyed (k) ON DELETE CASCADE, n INTEGER NOT NULL);
    CREATE INDEX xx_child_k ON xx_child (k);
    CREATE TABLE xx_bare (v INTEGER);
    CREATE TABLE xx_pairs (a INTEGER NOT NULL, b TEXT NOT NULL, v INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID;
    CREATE TABLE xx_audited (v INTEGER);
    CREATE TRIGGER xx_audited_trigger AFTER INSERT ON xx_audited BEGIN SELECT 1; END;
  `);
  return d;
}

/** Every row of every table of `shapes()`, with rowids where a restore must keep them. */
function dump(d: ReturnType<typeof shapes>) {
  return {
    counted: d.prepare('SELECT * FROM xx_counted ORDER BY id').all(),
    keyed: d.prepare('SELECT rowid AS r, * FROM xx_keyed ORDER BY k').all(),
    child: d.prepare('SELECT rowid AS r, * FROM xx_child ORDER BY rowid').all(),
    bare: d.prepare('SELECT rowid AS r, * FROM xx_bare ORDER BY rowid').all(),
    pairs: d.prepare('SELECT * FROM xx_pairs ORDER BY a, b').all(),
    audited: d.prepare('SELECT v FROM xx_audited ORDER BY v').all(),
    sequence: d.prepare('SELECT * FROM sqlite_sequence ORDER BY name').all(),
  };
}

type Real = { d: ReturnType<typeof shapes>; snapshots: SnapshotStore; wipe: () => void };
type Model = { saved: Map<string, ReturnType<typeof dump>> };

class Write implements fc.Command<Model, Real> {
  constructor(
    readonly label: string,
    readonly sql: string,
    readonly params: Record<string, number | string>,
  ) {}
  check = () => true;
  run(_m: Model, r: Real) {
    try {
      r.d.prepare(this.sql).run(this.params);
    } catch (err) {
      // A key clash is a refused write, as a request would have it: nothing changed.
      if (!/constraint failed/i.test((err as Error).message)) throw err;
    }
  }
  toString = () => `${this.label} ${JSON.stringify(this.params)}`;
}

class Save implements fc.Command<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  run(m: Model, r: Real) {
    r.snapshots.save(this.name);
    m.saved.set(this.name, dump(r.d));
  }
  toString = () => `save ${this.name}`;
}

class Restore implements fc.Command<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  run(m: Model, r: Real) {
    const expected = m.saved.get(this.name);
    expect(r.snapshots.restore(this.name)).toBe(expected !== undefined);
    if (expected) expect(dump(r.d)).toEqual(expected);
    expect(r.d.pragma('foreign_key_check')).toEqual([]);
  }
  toString = () => `restore ${this.name}`;
}

class Drop implements fc.Command<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  run(m: Model, r: Real) {
    expect(r.snapshots.delete(this.name)).toBe(m.saved.delete(this.name));
  }
  toString = () => `delete ${this.name}`;
}

class Wipe implements fc.Command<Model, Real> {
  check = () => true;
  run(_m: Model, r: Real) {
    r.wipe();
  }
  toString = () => 'wipe';
}

const small = fc.integer({ min: 1, max: 6 });
const key = fc.constantFrom('a', 'b', 'c', 'd', 'e');

/** Writes to every shape of table, some of them refused (a key clash). */
function writes() {
  return [
    small.map((v) => new Write('counted+', 'INSERT INTO xx_counted (v) VALUES (@v)', { v })),
    small.map((v) => new Write('counted~', 'UPDATE xx_counted SET v = v + 1 WHERE id % 3 = @v % 3', { v })),
    small.map((v) => new Write('counted-', 'DELETE FROM xx_counted WHERE id = @v', { v })),
    fc.tuple(key, small).map(([k, v]) => new Write('keyed replace', 'INSERT OR REPLACE INTO xx_keyed (k, v) VALUES (@k, @v)', { k, v })),
    fc.tuple(key, small).map(([k, v]) => new Write('keyed upsert', 'INSERT INTO xx_keyed (k, v) VALUES (@k, @v) ON CONFLICT (k) DO UPDATE SET v = excluded.v + 10', { k, v })),
    key.map((k) => new Write('keyed-', 'DELETE FROM xx_keyed WHERE k = @k', { k })),
    fc.tuple(key, small).map(([k, n]) => new Write('child+', 'INSERT INTO xx_child (k, n) VALUES (@k, @n)', { k, n })),
    small.map((n) => new Write('child-', 'DELETE FROM xx_child WHERE n = @n', { n })),
    small.map((v) => new Write('bare+', 'INSERT INTO xx_bare (v) VALUES (@v)', { v })),
    small.map((v) => new Write('bare-', 'DELETE FROM xx_bare WHERE v = @v', { v })),
    fc.tuple(small, key, small).map(([a, b, v]) => new Write('pairs+', 'INSERT OR REPLACE INTO xx_pairs (a, b, v) VALUES (@a, @b, @v)', { a, b, v })),
    fc.tuple(small, key).map(([a, b]) => new Write('pairs key~', 'UPDATE OR IGNORE xx_pairs SET a = a + 1 WHERE b = @b AND a = @a', { a, b })),
    small.map((v) => new Write('audited+', 'INSERT INTO xx_audited (v) VALUES (@v)', { v })),
    small.map((v) => new Write('audited-', 'DELETE FROM xx_audited WHERE v = @v', { v })),
    // Hundreds of rows at once: tables over SMALL_TABLE (256) rows are copied back whole with their
    // triggers dropped, smaller ones with their triggers silenced.
    small.map((v) => new Write('counted bulk+', `INSERT INTO xx_counted (v) ${HUNDREDS} SELECT @v + i FROM n`, { v })),
    key.map((k) => new Write('child bulk+', `INSERT INTO xx_child (k, n) ${HUNDREDS} SELECT @k, i FROM n`, { k })),
    fc.tuple(key, small).map(([b, v]) => new Write('pairs bulk+', `INSERT OR REPLACE INTO xx_pairs (a, b, v) ${HUNDREDS} SELECT i + 10, @b, @v FROM n`, { b, v })),
  ];
}

/** 200 numbered rows, for the bulk writes (two of them pass SMALL_TABLE). */
const HUNDREDS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)';

const SHAPE_TABLES = ['xx_child', 'xx_keyed', 'xx_counted', 'xx_bare', 'xx_pairs', 'xx_audited', 'sqlite_sequence'];

describe('the snapshot store, by a model of saves and restores (fast-check)', () => {
  it('puts back exactly the rows saved, rowids and counters included, whatever was written, replaced, cascaded or wiped since', () => {
    const name = fc.constantFrom('s1', 's2');
    const commands = [
      ...writes(),
      name.map((n) => new Save(n)),
      name.map((n) => new Restore(n)),
      name.map((n) => new Drop(n)),
      fc.constant(new Wipe()),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 80, size: 'large' }), (cmds) => {
        const d = shapes();
        const snapshots = new SnapshotStore(d);
        const wipe = () => {
          snapshots.wholeFromNow();
          for (const t of SHAPE_TABLES) d.prepare(`DELETE FROM ${t}`).run();
        };
        fc.modelRun(() => ({ model: { saved: new Map() }, real: { d, snapshots, wipe } }), cmds);
        d.close();
      }),
      { numRuns: 150 },
    );
  });
});

/** What a test does between two turns of a save in turns: a write, a wipe, another snapshot saved or restored. */
type Between = { kind: 'write'; write: Write } | { kind: 'wipe' } | { kind: 'save-other' } | { kind: 'restore-other' };

describe('a save in turns (SnapshotStore.saveInTurns)', () => {
  it('is the state as it is at its last turn, whatever was written, wiped, saved or restored between its turns', async () => {
    const write = fc.oneof(...writes());
    const between: fc.Arbitrary<Between> = fc.oneof(
      { weight: 12, arbitrary: write.map((w): Between => ({ kind: 'write', write: w })) },
      { weight: 1, arbitrary: fc.constant<Between>({ kind: 'wipe' }) },
      { weight: 1, arbitrary: fc.constant<Between>({ kind: 'save-other' }) },
      { weight: 1, arbitrary: fc.constant<Between>({ kind: 'restore-other' }) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(write, { maxLength: 30 }),
        fc.integer({ min: 0, max: 120 }),
        fc.array(between, { maxLength: 40 }),
        fc.array(write, { maxLength: 10 }),
        async (before, rows, during, after) => {
          // Alone: the sandbox's own tables would take the turns before these tables are copied.
          const d = shapes({ alone: true });
          const snapshots = new SnapshotStore(d);
          const real: Real = {
            d,
            snapshots,
            wipe: () => {
              snapshots.wholeFromNow();
              for (const t of SHAPE_TABLES) d.prepare(`DELETE FROM ${t}`).run();
            },
          };
          const model: Model = { saved: new Map() };
          // Enough rows for pages of several sizes in the tables keyed by rowid, key and pair.
          for (let i = 0; i < rows; i++) {
            d.prepare('INSERT INTO xx_counted (v) VALUES (?)').run(i);
            d.prepare('INSERT OR IGNORE INTO xx_pairs (a, b, v) VALUES (?, ?, ?)').run(i, 'k', i);
            d.prepare('INSERT INTO xx_bare (v) VALUES (?)').run(i);
          }
          for (const w of before) w.run(model, real);
          snapshots.save('other');
          let next = 0;
          let expected: ReturnType<typeof dump> | undefined;
          await snapshots.saveInTurns(
            's',
            async () => {
              // A few steps between two turns (a table's pages, one of them per turn).
              for (const step of during.slice(next, (next += 3))) {
                if (step.kind === 'write') step.write.run(model, real);
                if (step.kind === 'wipe') real.wipe();
                if (step.kind === 'save-other') snapshots.save('other');
                if (step.kind === 'restore-other') snapshots.restore('other');
              }
            },
            () => {
              expected = dump(d);
            },
            0,
          );
          expect(expected).toEqual(dump(d));
          // Restored after changes (the rows changed since), and after another snapshot (whole).
          for (const w of after) w.run(model, real);
          expect(snapshots.restore('s')).toBe(true);
          expect(dump(d)).toEqual(expected);
          expect(d.pragma('foreign_key_check')).toEqual([]);
          snapshots.restore('other');
          expect(snapshots.restore('s')).toBe(true);
          expect(dump(d)).toEqual(expected);
          expect(d.pragma('foreign_keys', { simple: true })).toBe(1);
          d.close();
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it('takes many turns for many rows, and gives up on a state whose turn throws, leaving no copy', async () => {
    const d = shapes();
    const snapshots = new SnapshotStore(d);
    for (let i = 0; i < 500; i++) d.prepare('INSERT INTO xx_counted (v) VALUES (?)').run(i);
    let turns = 0;
    await snapshots.saveInTurns('s', async () => void turns++, undefined, 0);
    // One page a turn: the first page is one row, and a page at most doubles the one before.
    expect(turns).toBeGreaterThan(Math.log2(500));
    const copies = () => d.prepare('SELECT count(*) FROM sb_snapshots.sqlite_schema').pluck().get() as number;
    const before = copies();
    await expect(
      snapshots.saveInTurns('gone', async () => {
        throw new Error('the workspace was removed');
      }),
    ).rejects.toThrow('the workspace was removed');
    expect(copies()).toBe(before);
    expect(snapshots.list().map((s) => s.name)).toEqual(['s']);
    d.close();
  });
});
