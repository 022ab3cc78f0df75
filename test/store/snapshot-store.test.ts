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
