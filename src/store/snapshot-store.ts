// Named copies of the whole database state, kept in an in-memory schema attached to the same
// connection: every store module keeps its prepared statements, and a restore is one transaction of
// DELETE and INSERT ... SELECT per table (milliseconds for tens of thousands of rows).
import type Database from 'better-sqlite3';
import type { Db } from './db.js';

const SCHEMA = 'sb_snapshots';

interface Slot {
  /** Rows per table that hold any, when saved. */
  rows: Record<string, number>;
  copies: string[];
  restore: Array<{ table: string; del: Database.Statement; insert: Database.Statement }>;
}

export class SnapshotStore {
  private readonly slots = new Map<string, Slot>();
  private seq = 0;
  /** The snapshot the tables not marked changed are equal to (the last one saved or restored). */
  private synced: string | null = null;
  private tracking: { changed: Database.Statement; clear: Database.Statement } | undefined;

  /**
   * `settle`: runs the writes queued for a group commit, so that a snapshot never overtakes them;
   * `restored`: told after a restore put rows back in bulk.
   */
  constructor(
    private readonly db: Db,
    private readonly settle: () => void = () => undefined,
    private readonly restored: () => void = () => undefined,
  ) {
    const attached = (db.pragma('database_list') as Array<{ name: string }>).some((d) => d.name === SCHEMA);
    if (!attached) db.exec(`ATTACH DATABASE ':memory:' AS ${SCHEMA}`);
  }

  /**
   * Every table of the state, AUTOINCREMENT counters included when a table uses them, parents before
   * the tables that reference them: a parent copied by whole pages would not clear the pending key
   * checks of children inserted before it.
   */
  private tables(): string[] {
    const parents = this.parentsOf();
    const ordered: string[] = [];
    const visiting = new Set<string>();
    const visit = (t: string) => {
      if (ordered.includes(t) || visiting.has(t)) return;
      visiting.add(t);
      for (const p of parents.get(t) ?? []) visit(p);
      ordered.push(t);
    };
    for (const t of parents.keys()) visit(t);
    return ordered;
  }

  private parents: Map<string, string[]> | undefined;

  /** Every table of the state with the tables its foreign keys reference (the schema is fixed once migrated). */
  private parentsOf(): Map<string, string[]> {
    if (this.parents) return this.parents;
    const names = this.db
      .prepare(
        "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND (name NOT LIKE 'sqlite_%' OR name = 'sqlite_sequence') ORDER BY name",
      )
      .pluck()
      .all() as string[];
    this.parents = new Map(
      names.map((t) => [
        t,
        (this.db.pragma(`main.foreign_key_list("${t}")`) as Array<{ table: string }>)
          .map((fk) => fk.table)
          .filter((p) => p !== t && names.includes(p)),
      ]),
    );
    return this.parents;
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }

  list(): Array<{ name: string; rows: Record<string, number> }> {
    return [...this.slots].map(([name, slot]) => ({ name, rows: slot.rows }));
  }

  /**
   * The statements that make an empty copy of `table` under `copy`: its own CREATE TABLE and CREATE
   * INDEX text, renamed, so that SQLite copies between the two by whole pages (the transfer
   * optimisation) instead of row by row. Undefined when the text is not in the expected form.
   */
  private copyDdl(table: string, n: number): string[] | undefined {
    const objects = this.db
      .prepare(
        'SELECT type, name, sql FROM main.sqlite_schema WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type DESC',
      )
      .all(table) as Array<{ type: string; name: string; sql: string }>;
    const out: string[] = [];
    for (const o of objects) {
      if (o.type === 'table') {
        const m = /^CREATE TABLE\s+(?:IF NOT EXISTS\s+)?("?)(\w+)\1\s*\(/i.exec(o.sql);
        if (!m || m[2] !== table) return undefined;
        out.push(`CREATE TABLE "${SCHEMA}"."s${n}_${table}" (${o.sql.slice(m[0].length)}`);
      } else if (o.type === 'index') {
        const m =
          /^CREATE\s+(UNIQUE\s+)?INDEX\s+(?:IF NOT EXISTS\s+)?("?)(\w+)\2\s+ON\s+("?)(\w+)\4\s*\(/i.exec(
            o.sql,
          );
        if (!m || m[5] !== table) return undefined;
        out.push(
          `CREATE ${m[1] ?? ''}INDEX "${SCHEMA}"."s${n}_${m[3]}" ON "s${n}_${table}" (${o.sql.slice(m[0].length)}`,
        );
      } else {
        return undefined;
      }
    }
    return out;
  }

  /** Copies every table under `name`, replacing a snapshot of that name; returns the row counts. */
  save(name: string): Record<string, number> {
    this.settle();
    this.track();
    const n = ++this.seq;
    const tables = this.tables();
    const rows: Record<string, number> = {};
    const copies: string[] = [];
    // The copies keep their REFERENCES clauses, which would point at tables the snapshot schema does
    // not have: key checks are off while copying (they were checked when the rows were written).
    const foreignKeys = this.db.pragma('foreign_keys', { simple: true });
    this.db.pragma('foreign_keys = OFF');
    try {
      this.db.transaction(() => {
        for (const t of tables) {
          const copy = `"${SCHEMA}"."s${n}_${t}"`;
          const ddl = this.copyDdl(t, n);
          if (ddl) {
            for (const statement of ddl) this.db.exec(statement);
            this.db.exec(`INSERT INTO ${copy} SELECT * FROM main."${t}"`);
          } else {
            this.db.exec(`CREATE TABLE ${copy} AS SELECT * FROM main."${t}"`);
          }
          copies.push(copy);
          const count = this.db.prepare(`SELECT count(*) FROM ${copy}`).pluck().get() as number;
          if (count > 0) rows[t] = count;
        }
      })();
    } finally {
      this.db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    }
    const restore = tables.map((t, i) => ({
      table: t,
      del: this.db.prepare(`DELETE FROM main."${t}"`),
      insert: this.db.prepare(`INSERT INTO main."${t}" SELECT * FROM ${copies[i]}`),
    }));
    const old = this.slots.get(name);
    this.slots.set(name, { rows, copies, restore });
    if (old) this.drop(old);
    this.tracking?.clear.run();
    this.synced = name;
    return rows;
  }

  /**
   * Marks every table that changes from now on, so that a restore copies back only those (and the
   * tables referencing them): restoring a baseline before each test costs what the test changed.
   * TEMP triggers, created at the first snapshot: they live outside the database's schema, and the
   * sandbox pays nothing for them until snapshots are used.
   */
  private track(): void {
    if (this.tracking) return;
    this.db.exec('CREATE TEMP TABLE IF NOT EXISTS sb_changed (name TEXT PRIMARY KEY) WITHOUT ROWID');
    for (const t of this.tables()) if (t !== 'sqlite_sequence') this.db.exec(this.triggers(t, 'create'));
    this.tracking = {
      changed: this.db.prepare('SELECT name FROM temp.sb_changed').pluck(),
      clear: this.db.prepare('DELETE FROM temp.sb_changed'),
    };
  }

  /**
   * The DDL of a table's three change triggers. The body avoids a conflict clause of its own: an
   * outer statement's clause (an upsert's ON CONFLICT, an INSERT OR ...) overrides the one written
   * in a trigger, so `INSERT OR IGNORE` here failed as a UNIQUE violation under an upsert.
   */
  private triggers(table: string, action: 'create' | 'drop'): string {
    return ['insert', 'update', 'delete']
      .map((event) =>
        action === 'drop'
          ? `DROP TRIGGER IF EXISTS temp."sb_changed_${table}_${event}";`
          : `CREATE TEMP TRIGGER IF NOT EXISTS "sb_changed_${table}_${event}" AFTER ${event.toUpperCase()} ON main."${table}"
             BEGIN INSERT INTO temp.sb_changed (name) SELECT '${table}'
               WHERE NOT EXISTS (SELECT 1 FROM temp.sb_changed WHERE name = '${table}'); END;`,
      )
      .join('\n');
  }

  /** The tables a restore of `name` must copy: all, or the changed ones and those referencing them. */
  private toRestore(name: string, slot: Slot): Set<string> {
    const all = new Set(slot.restore.map((s) => s.table));
    if (this.synced !== name || !this.tracking) return all;
    const out = new Set(this.tracking.changed.all() as string[]);
    // A parent's DELETE cascades into its children: they come back too.
    for (let grew = true; grew; ) {
      grew = false;
      for (const [child, parents] of this.parentsOf()) {
        if (!out.has(child) && parents.some((p) => out.has(p))) {
          out.add(child);
          grew = true;
        }
      }
    }
    // AUTOINCREMENT counters move with their tables.
    if (out.size > 0 && all.has('sqlite_sequence')) out.add('sqlite_sequence');
    return out;
  }

  /** Puts every table back as it was saved; false when no snapshot has that name. */
  restore(name: string): boolean {
    const slot = this.slots.get(name);
    if (!slot) return false;
    this.settle();
    const tables = this.toRestore(name, slot);
    const steps = slot.restore.filter((s) => tables.has(s.table));
    // A table with triggers is deleted and copied row by row (SQLite's truncate and page-transfer
    // optimisations need none), so the tables copied back lose their change triggers meanwhile.
    const tracked = this.tracking ? steps.map((s) => s.table).filter((t) => t !== 'sqlite_sequence') : [];
    this.db.transaction(() => {
      for (const t of tracked) this.db.exec(this.triggers(t, 'drop'));
      // Rows come back in table order, parents and children alike: check the keys at commit.
      this.db.pragma('defer_foreign_keys = ON');
      for (const s of [...steps].reverse()) s.del.run();
      for (const s of steps) s.insert.run();
      for (const t of tracked) this.db.exec(this.triggers(t, 'create'));
      this.tracking?.clear.run();
    })();
    this.restored();
    this.synced = name;
    return true;
  }

  delete(name: string): boolean {
    const slot = this.slots.get(name);
    if (!slot) return false;
    if (this.synced === name) this.synced = null;
    this.slots.delete(name);
    this.drop(slot);
    return true;
  }

  clear(): void {
    for (const name of [...this.slots.keys()]) this.delete(name);
  }

  private drop(slot: Slot): void {
    this.db.transaction(() => {
      for (const c of slot.copies) this.db.exec(`DROP TABLE ${c}`);
    })();
  }
}
