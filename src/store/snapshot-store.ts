// Named copies of the whole database state, kept in an in-memory schema attached to the same
// connection: every store module keeps its prepared statements. A restore puts back only what
// changed since the snapshot the state is synced with (the last one saved or restored): TEMP
// triggers log the key of every row inserted, updated or deleted since, and the restore deletes
// those rows and copies them back from the snapshot, so that it costs what a test changed, not the
// size of the state. A table changed in more than half of its rows, emptied by a wipe, or any table
// when another snapshot is restored, is copied back whole (DELETE, then INSERT ... SELECT by whole
// pages where SQLite can), in one step: no other statement may see a state half put back. A save
// through the control plane copies in turns instead (saveInTurns): it only reads the state, and the
// change log tells which rows were written while it copied, to copy again in its last step.
// The copies live in memory whether the state is a file or :memory:. The pages of a snapshot
// deleted or replaced go back to the system, a few per turn of the event loop (incremental vacuum),
// instead of staying free in the schema, where only this workspace's next copies could use them;
// each snapshot knows the bytes of its pages (assumption snapshot-limits).
import type Database from 'better-sqlite3';
import type { Db } from './db.js';

const SCHEMA = 'sb_snapshots';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** How the rows of one table are told apart, in the change log and in the copies. */
interface Table {
  name: string;
  /**
   * The key of a row, as expressions of the table: rowid for a rowid table, the primary key of a
   * WITHOUT ROWID table. Empty for sqlite_sequence, which takes no triggers: it is copied back whole
   * whenever anything changed (it holds a row per AUTOINCREMENT table).
   */
  key: string[];
  /**
   * The declared type of each key column, given to the change log's columns: a comparison applies
   * the affinity of a typed operand to an untyped one, and an index on a column whose affinity the
   * comparison changes is not used (each logged row would scan the whole log).
   */
  keyTypes: string[];
  /**
   * What a copy reads and writes: "*" when that keeps every row's key (a WITHOUT ROWID table, or a
   * rowid that is an INTEGER PRIMARY KEY column), else rowid and every column, so that a copy and a
   * whole restore from it keep the rowids the change log names.
   */
  columns: string;
  /** Rows can be put back one by one (false when its copy cannot keep their keys). */
  byRow: boolean;
}

interface Slot {
  /** Rows per table that hold any, when saved. */
  rows: Record<string, number>;
  /** The bytes of the pages its copies take (tables and indexes). */
  bytes: number;
  /** The copy of each table, by table name. */
  copies: Map<string, string>;
  /** Statements reading this snapshot, prepared on first use. */
  statements: Map<string, Database.Statement>;
}

interface Log {
  /** Rows logged for the table since the last save or restore. */
  count: Database.Statement;
  clear: Database.Statement;
  /** The table was wiped whole since: it is copied back whole, and its rows are not logged. */
  whole: Database.Statement;
}

/**
 * Rows up to which a table copied back whole keeps its logging triggers, silenced meanwhile through
 * temp.sb_whole, and is deleted and copied row by row. Dropping and creating the triggers again is
 * DDL: it made each restore of a small change cost 2 ms more, and every prepared statement compile
 * again on its next use (SQLite's schema cookie). Above it, SQLite's truncation and page transfer,
 * which need a table without triggers, are worth the DDL.
 */
const SMALL_TABLE = 256;

/** How long a turn of saveInTurns copies rows before it yields. */
export const SAVE_TURN_MS = 8;

/** The state was replaced, or the change log cleared, while a save was under way: it starts over. */
class Replaced extends Error {}

export class SnapshotStore {
  private readonly slots = new Map<string, Slot>();
  private seq = 0;
  /**
   * Bumped whenever the change log stops telling what changed since a save began: rows put back by
   * a restore, a wipe, the log cleared by a save. A save in turns that sees it move starts over.
   */
  private epoch = 0;
  /** The saves in turns, one after the other (each clears the change log the other relies on). */
  private saving: Promise<unknown> = Promise.resolve();
  /** The snapshot the state equals but for the logged rows (the last one saved or restored). */
  private synced: string | null = null;
  /** The change log, made at the first save: the sandbox pays nothing for it until snapshots are used. */
  private logs: Map<string, Log> | undefined;
  private markWhole: Database.Statement | undefined;
  private clearWhole: Database.Statement | undefined;
  /** rowsAtMost's statements, by table. */
  private readonly fewRows = new Map<string, Database.Statement>();

  /**
   * `settle`: runs the writes queued for a group commit, so that a snapshot never overtakes them;
   * `restored`: told after a restore put rows back in bulk;
   * `afterChange`: runs after a restore or once a copy is dropped (files no row refers to any more go).
   */
  constructor(
    private readonly db: Db,
    private readonly settle: () => void = () => undefined,
    private readonly restored: () => void = () => undefined,
    private readonly afterChange: () => void = () => undefined,
  ) {
    const attached = (db.pragma('database_list') as Array<{ name: string }>).some((d) => d.name === SCHEMA);
    if (!attached) {
      db.exec(`ATTACH DATABASE ':memory:' AS ${SCHEMA}`);
      // Set while the schema is empty, as SQLite requires: the pages a dropped copy frees can be
      // given back (giveBack). FULL would give them back at once, moving every later page into the
      // gap in one step: 70 MB of copies took half a second, every workspace waiting.
      db.pragma(`${SCHEMA}.auto_vacuum = INCREMENTAL`);
    }
  }

  /**
   * The bytes of the pages of snapshot copy `n`: its tables and their indexes (automatic ones
   * included), as SQLite's dbstat counts them, read for those objects only.
   */
  private bytesOf(n: number): number {
    this.sizeOf ??= this.db
      .prepare(
        `SELECT coalesce(sum(d.pgsize), 0) FROM ${SCHEMA}.sqlite_schema AS o JOIN dbstat('${SCHEMA}', 1) AS d ON d.name = o.name
         WHERE o.tbl_name LIKE ? ESCAPE '\\' AND o.rootpage > 0`,
      )
      .pluck();
    return this.sizeOf.get(`s${n}\\_%`) as number;
  }

  private sizeOf: Database.Statement | undefined;

  private described: Table[] | undefined;

  /**
   * Every table of the state, AUTOINCREMENT counters included when a table uses them, parents before
   * the tables that reference them (the schema is fixed once migrated): a parent copied by whole
   * pages would not clear the pending key checks of children inserted before it.
   */
  private tables(): Table[] {
    if (this.described) return this.described;
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
    // The counters last: copying rows into an AUTOINCREMENT table writes its counter, even for none.
    if (ordered.includes('sqlite_sequence')) ordered.push(...ordered.splice(ordered.indexOf('sqlite_sequence'), 1));
    const withoutRowid = new Set(
      (this.db.pragma('main.table_list') as Array<{ name: string; wr: number }>)
        .filter((t) => t.wr === 1)
        .map((t) => t.name),
    );
    this.described = ordered.map((name): Table => {
      if (name === 'sqlite_sequence') return { name, key: [], keyTypes: [], columns: '*', byRow: false };
      const info = this.db.pragma(`main.table_info(${quote(name)})`) as Array<{ name: string; type: string; pk: number }>;
      const copyable = this.copyDdl(name, 0) !== undefined;
      if (withoutRowid.has(name)) {
        const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
        return { name, key: pk.map((c) => quote(c.name)), keyTypes: pk.map((c) => c.type), columns: '*', byRow: true };
      }
      const alias = this.rowidAlias(name, info);
      // The column, not rowid: a copy made by CREATE TABLE AS has it as a plain column.
      if (alias !== undefined) return { name, key: [quote(alias)], keyTypes: ['INTEGER'], columns: '*', byRow: true };
      // Rowids named: SQLite keeps them in INSERT ... SELECT * only on its page-transfer path, which
      // it leaves for a table with foreign keys (while they are enforced) or without any index.
      // Without its own DDL the copy is a CREATE TABLE AS, which has no rowids to keep: it is copied
      // back whole.
      const columns = copyable ? ['rowid', ...info.map((c) => quote(c.name))].join(', ') : '*';
      return { name, key: ['rowid'], keyTypes: ['INTEGER'], columns, byRow: copyable };
    });
    return this.described;
  }

  /**
   * The column that is the table's rowid (an INTEGER PRIMARY KEY), so that SELECT * carries it; or
   * undefined. Asked of SQLite's plan, which reads such a column as the rowid, rather than guessed
   * from the declared type (INTEGER PRIMARY KEY DESC, for one, is no alias).
   */
  private rowidAlias(table: string, info: Array<{ name: string; pk: number }>): string | undefined {
    const pk = info.filter((c) => c.pk > 0);
    const column = pk[0];
    if (pk.length !== 1 || !column) return undefined;
    const plan = this.db.prepare(`EXPLAIN SELECT ${quote(column.name)} FROM main.${quote(table)}`).all() as Array<{
      opcode: string;
    }>;
    return plan.some((op) => op.opcode === 'Rowid') && !plan.some((op) => op.opcode === 'Column') ? column.name : undefined;
  }

  private parents: Map<string, string[]> | undefined;

  /** Every table of the state with the tables its foreign keys reference. */
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
        (this.db.pragma(`main.foreign_key_list(${quote(t)})`) as Array<{ table: string }>)
          .map((fk) => fk.table)
          .filter((p) => p !== t && names.includes(p)),
      ]),
    );
    return this.parents;
  }

  /** The snapshot copies of `table`, as names a query can read. */
  copiesOf(table: string): string[] {
    return [...this.slots.values()].flatMap((slot) => {
      const copy = slot.copies.get(table);
      return copy === undefined ? [] : [copy];
    });
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }

  list(): Array<{ name: string; rows: Record<string, number>; bytes: number }> {
    return [...this.slots].map(([name, slot]) => ({ name, rows: slot.rows, bytes: slot.bytes }));
  }

  /** The bytes snapshot `name` takes; undefined when there is none. */
  bytes(name: string): number | undefined {
    return this.slots.get(name)?.bytes;
  }

  /** How many snapshots there are. */
  get size(): number {
    return this.slots.size;
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
    const copies = new Map<string, string>();
    // The copies keep their REFERENCES clauses, which would point at tables the snapshot schema does
    // not have: key checks are off while copying (they were checked when the rows were written).
    const foreignKeys = this.db.pragma('foreign_keys', { simple: true });
    this.db.pragma('foreign_keys = OFF');
    try {
      this.db.transaction(() => {
        for (const t of tables) {
          const copy = `"${SCHEMA}"."s${n}_${t.name}"`;
          const ddl = this.copyDdl(t.name, n);
          if (ddl) {
            for (const statement of ddl) this.db.exec(statement);
            this.db.exec(`INSERT INTO ${copy} ${into(t)} SELECT ${t.columns} FROM main.${quote(t.name)}`);
          } else {
            this.db.exec(`CREATE TABLE ${copy} AS SELECT * FROM main.${quote(t.name)}`);
          }
          copies.set(t.name, copy);
          const count = this.db.prepare(`SELECT count(*) FROM ${copy}`).pluck().get() as number;
          if (count > 0) rows[t.name] = count;
        }
        this.clearLog();
      })();
    } finally {
      this.db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    }
    const old = this.slots.get(name);
    this.slots.set(name, { rows, bytes: this.bytesOf(n), copies, statements: new Map() });
    if (old) {
      this.drop(old);
      this.afterChange();
    }
    this.synced = name;
    return rows;
  }

  /**
   * save() in turns of bounded work, so that a large state (a CNAB file of tens of megabytes, 100 000
   * extract requests) never holds the event loop for the whole copy: `turn()` is awaited between
   * two turns of SAVE_TURN_MS, and may throw to abandon the save (its workspace removed). Requests
   * keep writing meanwhile; the change log records the rows they touch, and the last turn, in one
   * transaction, copies those rows again and calls `atEnd` (the clock and key sequence saved with
   * the rows): the snapshot is the state at that moment, as if saved whole then. A restore or a wipe
   * meanwhile starts the copy over. Saves in turns run one after the other.
   *
   * `admit` is told, once every row is copied and before the copy takes the name, the bytes the copy
   * takes and those of the snapshot it replaces (undefined for a new name); it may throw to refuse
   * the save, which then drops the copy and leaves every snapshot as it was.
   */
  saveInTurns(
    name: string,
    turn: () => Promise<void>,
    atEnd: () => void = () => undefined,
    turnMs: number = SAVE_TURN_MS,
    admit: (bytes: number, replacing: number | undefined) => void = () => undefined,
  ): Promise<Record<string, number>> {
    const run = this.saving.then(async () => {
      for (;;) {
        try {
          return await this.copyInTurns(name, turn, atEnd, turnMs, admit);
        } catch (err) {
          if (!(err instanceof Replaced)) throw err;
        }
      }
    });
    this.saving = run.catch(() => undefined);
    return run;
  }

  /** `turnMs`: how long a turn copies (tests shorten it to 0: one page of rows per turn). */
  private async copyInTurns(
    name: string,
    turn: () => Promise<void>,
    atEnd: () => void,
    turnMs: number,
    admit: (bytes: number, replacing: number | undefined) => void,
  ): Promise<Record<string, number>> {
    this.settle();
    this.track();
    const n = ++this.seq;
    const tables = this.tables();
    const copies = new Map<string, string>();
    // From here the log holds what changes while the rows are copied; no snapshot equals the state.
    this.clearLog();
    this.synced = null;
    const epoch = this.epoch;
    const still = async () => {
      await turn();
      if (this.epoch !== epoch) throw new Replaced();
      this.settle();
    };
    try {
      this.withoutKeyChecks(() => {
        for (const t of tables) {
          const copy = `"${SCHEMA}"."s${n}_${t.name}"`;
          const ddl = this.copyDdl(t.name, n);
          if (ddl) for (const statement of ddl) this.db.exec(statement);
          else this.db.exec(`CREATE TABLE ${copy} AS SELECT * FROM main.${quote(t.name)} WHERE 0`);
          copies.set(t.name, copy);
        }
      });
      for (const t of tables) {
        if (!t.byRow) continue;
        const copy = copies.get(t.name) as string;
        let pages: KeyPages | undefined;
        for (let done = false; !done; ) {
          await still();
          const deadline = performance.now() + turnMs;
          this.withoutKeyChecks(() => {
            // Prepared without key checks: an INSERT OR REPLACE into a copy would look for its parents.
            pages ??= new KeyPages(this.db, t, copy);
            do done = pages.next();
            while (!done && performance.now() < deadline);
          });
        }
      }
      await still();
      const rows: Record<string, number> = {};
      this.withoutKeyChecks(() => {
        for (const t of tables) {
          const copy = copies.get(t.name) as string;
          if (t.byRow) {
            // The rows written while the others were copied, as they are now.
            this.db.prepare(`DELETE FROM ${copy} WHERE ${keyIn(t)}`).run();
            this.db.prepare(`INSERT INTO ${copy} ${into(t)} SELECT ${t.columns} FROM main.${quote(t.name)} WHERE ${keyIn(t)}`).run();
          } else {
            // The counters, and a table a copy cannot keep the keys of: small, copied whole.
            this.db.exec(`INSERT INTO ${copy} ${into(t)} SELECT ${t.columns} FROM main.${quote(t.name)}`);
          }
          const count = this.db.prepare(`SELECT count(*) FROM ${copy}`).pluck().get() as number;
          if (count > 0) rows[t.name] = count;
        }
        this.clearLog();
        atEnd();
      });
      const old = this.slots.get(name);
      const bytes = this.bytesOf(n);
      admit(bytes, old?.bytes);
      this.slots.set(name, { rows, bytes, copies, statements: new Map() });
      this.synced = name;
      if (old) {
        this.drop(old);
        this.afterChange();
      }
      return rows;
    } catch (err) {
      if (this.db.open) {
        for (const c of copies.values()) this.db.exec(`DROP TABLE IF EXISTS ${c}`);
        this.giveBack();
      }
      throw err;
    }
  }

  /**
   * `fn` in one transaction with foreign key checks off: the copies keep their REFERENCES clauses,
   * which would point at tables the snapshot schema does not have (the rows were checked when
   * written). The setting is put back before the turn ends, for the writes of the other requests.
   */
  private withoutKeyChecks(fn: () => void): void {
    const foreignKeys = this.db.pragma('foreign_keys', { simple: true });
    this.db.pragma('foreign_keys = OFF');
    try {
      this.db.transaction(fn)();
    } finally {
      this.db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    }
  }

  /**
   * Starts the change log: a TEMP table of keys per table and three TEMP triggers filling it. TEMP:
   * they live outside the database's schema (a database file never holds them). Recursive triggers
   * on, so that the rows an INSERT OR REPLACE deletes are logged too.
   */
  private track(): void {
    if (this.logs) return;
    this.db.pragma('recursive_triggers = ON');
    this.db.exec('CREATE TEMP TABLE IF NOT EXISTS sb_whole (name TEXT PRIMARY KEY) WITHOUT ROWID');
    const logs = new Map<string, Log>();
    for (const t of this.tables()) {
      if (t.key.length === 0) continue;
      const columns = t.key.map((_, i) => `k${i}`).join(', ');
      const typed = t.keyTypes.map((type, i) => `k${i} ${type}`).join(', ');
      this.db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${logTable(t)} (${typed}, PRIMARY KEY (${columns})) WITHOUT ROWID`);
      this.db.exec(this.triggers(t, 'create'));
      logs.set(t.name, {
        count: this.db.prepare(`SELECT count(*) FROM temp.${logTable(t)}`).pluck(),
        clear: this.db.prepare(`DELETE FROM temp.${logTable(t)}`),
        whole: this.db.prepare('SELECT 1 FROM temp.sb_whole WHERE name = ?').pluck(),
      });
    }
    this.markWhole = this.db.prepare(
      'INSERT INTO temp.sb_whole (name) SELECT @name WHERE NOT EXISTS (SELECT 1 FROM temp.sb_whole WHERE name = @name)',
    );
    this.clearWhole = this.db.prepare('DELETE FROM temp.sb_whole');
    this.logs = logs;
  }

  /**
   * The DDL of a table's three logging triggers. The body avoids a conflict clause of its own: an
   * outer statement's clause (an upsert's ON CONFLICT, an INSERT OR ...) overrides the one written
   * in a trigger, so `INSERT OR IGNORE` here failed as a UNIQUE violation under an upsert.
   */
  private triggers(t: Table, action: 'create' | 'drop'): string {
    const log = `temp.${logTable(t)}`;
    const keep = (row: 'NEW' | 'OLD') =>
      `INSERT INTO ${log} (${t.key.map((_, i) => `k${i}`).join(', ')}) SELECT ${t.key.map((k) => `${row}.${k}`).join(', ')}
         WHERE NOT EXISTS (SELECT 1 FROM ${log} WHERE ${t.key.map((k, i) => `k${i} = ${row}.${k}`).join(' AND ')});`;
    const rows: Record<string, string> = { insert: keep('NEW'), update: `${keep('OLD')} ${keep('NEW')}`, delete: keep('OLD') };
    return Object.entries(rows)
      .map(([event, body]) => {
        const trigger = quote(`sb_log_${t.name}_${event}`);
        return action === 'drop'
          ? `DROP TRIGGER IF EXISTS temp.${trigger};`
          : `CREATE TEMP TRIGGER IF NOT EXISTS ${trigger} AFTER ${event.toUpperCase()} ON main.${quote(t.name)}
             WHEN NOT EXISTS (SELECT 1 FROM temp.sb_whole WHERE name = '${t.name.replace(/'/g, "''")}') BEGIN ${body} END;`;
      })
      .join('\n');
  }

  /** Every table is about to lose all its rows (a wipe): none of them is logged row by row. */
  wholeFromNow(): void {
    this.epoch += 1;
    if (!this.logs || !this.markWhole) return;
    for (const name of this.logs.keys()) this.markWhole.run({ name });
  }

  private clearLog(): void {
    this.epoch += 1;
    if (!this.logs) return;
    for (const log of this.logs.values()) log.clear.run();
    this.clearWhole?.run();
  }

  /** A statement of `slot`, prepared once. */
  private statement(slot: Slot, key: string, sql: () => string): Database.Statement {
    let s = slot.statements.get(key);
    if (!s) {
      s = this.db.prepare(sql());
      slot.statements.set(key, s);
    }
    return s;
  }

  /**
   * What a restore of `slot` copies back: undefined when nothing changed since; else the tables to
   * copy back whole (all of them unless the state is synced with this snapshot; else those changed
   * in more than half their rows or wiped, the tables referencing them, whose rows a DELETE of their
   * parent takes, and the AUTOINCREMENT counters) and the others, put back row by row.
   */
  private plan(name: string, slot: Slot): { whole: Set<string> } | undefined {
    const tables = this.tables();
    const all = new Set(tables.map((t) => t.name));
    if (this.synced !== name || !this.logs) return { whole: all };
    const whole = new Set<string>();
    let changed = false;
    for (const t of tables) {
      const log = this.logs.get(t.name);
      if (!log) continue;
      const wiped = log.whole.get(t.name) !== undefined;
      const count = log.count.get() as number;
      if (count === 0 && !wiped) continue;
      changed = true;
      if (wiped || !t.byRow || count > (slot.rows[t.name] ?? 0) / 2) whole.add(t.name);
    }
    if (!changed) return undefined;
    for (let grew = true; grew; ) {
      grew = false;
      for (const [child, parents] of this.parentsOf()) {
        if (!whole.has(child) && parents.some((p) => whole.has(p))) {
          whole.add(child);
          grew = true;
        }
      }
    }
    if (all.has('sqlite_sequence')) whole.add('sqlite_sequence');
    return { whole };
  }

  /** Puts every table back as it was saved; false when no snapshot has that name. */
  restore(name: string): boolean {
    const slot = this.slots.get(name);
    if (!slot) return false;
    this.settle();
    const plan = this.plan(name, slot);
    if (plan) {
      this.copyBack(slot, plan.whole);
      this.restored();
    }
    this.synced = name;
    this.afterChange();
    return true;
  }

  private copyBack(slot: Slot, whole: Set<string>): void {
    const tables = this.tables();
    // A table with triggers is deleted and copied row by row (SQLite's truncate and page-transfer
    // optimisations need none), so the large tables copied back whole lose their triggers meanwhile;
    // the small ones keep them, silenced (SMALL_TABLE).
    const withTriggers = tables.filter((t) => whole.has(t.name) && t.key.length > 0);
    const markWhole = this.markWhole;
    const silenced = markWhole ? withTriggers.filter((t) => (slot.rows[t.name] ?? 0) <= SMALL_TABLE && this.rowsAtMost(t, SMALL_TABLE)) : [];
    const untracked = withTriggers.filter((t) => !silenced.includes(t));
    const logged = (t: Table) => (this.logs?.get(t.name)?.count.get() as number | undefined) ?? 0;
    this.db.transaction(() => {
      for (const t of silenced) markWhole?.run({ name: t.name });
      for (const t of untracked) this.db.exec(this.triggers(t, 'drop'));
      // Rows come back in table order, parents and children alike: keys are checked at commit.
      this.db.pragma('defer_foreign_keys = ON');
      // Children first, as a parent's key may be RESTRICTed. A logged row of a parent deleted here
      // takes its children's rows by cascade: the triggers log them, and they come back below.
      for (const t of [...tables].reverse()) {
        if (whole.has(t.name)) this.statement(slot, `${t.name}:delete`, () => `DELETE FROM main.${quote(t.name)}`).run();
        else if (logged(t) > 0) this.deleteLogged(slot, t).run();
      }
      for (const t of tables) {
        const copy = slot.copies.get(t.name) as string;
        if (whole.has(t.name)) {
          // The counters, last: what the inserts above wrote to them goes first.
          if (t.key.length === 0) this.statement(slot, `${t.name}:delete`, () => `DELETE FROM main.${quote(t.name)}`).run();
          this.statement(slot, `${t.name}:insert`, () => `INSERT INTO main.${quote(t.name)} ${into(t)} SELECT ${t.columns} FROM ${copy}`).run();
        } else if (logged(t) > 0) {
          // Again: rows an action of a parent's key changed after this table's turn above.
          this.deleteLogged(slot, t).run();
          this.statement(
            slot,
            `${t.name}:insert-logged`,
            () => `INSERT INTO main.${quote(t.name)} ${into(t)} SELECT ${t.columns} FROM ${copy} WHERE ${keyIn(t)}`,
          ).run();
        }
      }
      for (const t of untracked) this.db.exec(this.triggers(t, 'create'));
      this.clearLog();
    })();
  }

  /** Whether main's `t` has at most `n` rows (reading at most n + 1 of them). */
  private rowsAtMost(t: Table, n: number): boolean {
    let s = this.fewRows.get(t.name);
    if (!s) {
      s = this.db.prepare(`SELECT count(*) FROM (SELECT 1 FROM main.${quote(t.name)} LIMIT ${n + 1})`).pluck();
      this.fewRows.set(t.name, s);
    }
    return (s.get() as number) <= n;
  }

  private deleteLogged(slot: Slot, t: Table): Database.Statement {
    return this.statement(slot, `${t.name}:delete-logged`, () => `DELETE FROM main.${quote(t.name)} WHERE ${keyIn(t)}`);
  }

  delete(name: string): boolean {
    const slot = this.slots.get(name);
    if (!slot) return false;
    if (this.synced === name) this.synced = null;
    this.slots.delete(name);
    this.drop(slot);
    this.afterChange();
    return true;
  }

  clear(): void {
    for (const name of [...this.slots.keys()]) this.delete(name);
  }

  private drop(slot: Slot): void {
    this.db.transaction(() => {
      for (const c of slot.copies.values()) this.db.exec(`DROP TABLE ${c}`);
    })();
    this.giveBack();
  }

  /** Settles once the pages of the copies dropped so far are given back to the system. */
  givenBack: Promise<void> = Promise.resolve();
  private givingBack = false;

  /**
   * Gives the free pages of the snapshot schema back to the system, in turns of at most
   * SAVE_TURN_MS (a page moved from the end of the schema into each free one, the schema then cut):
   * other requests are answered meanwhile. Stops when none is left or the connection closed.
   */
  private giveBack(): void {
    if (this.givingBack) return;
    this.givingBack = true;
    const free = () => (this.db.open ? (this.db.pragma(`${SCHEMA}.freelist_count`, { simple: true }) as number) : 0);
    this.givenBack = (async () => {
      try {
        while (free() > 0) {
          await new Promise((resolve) => setImmediate(resolve));
          if (!this.db.open) break;
          this.settle();
          if (this.db.inTransaction) continue;
          const deadline = performance.now() + SAVE_TURN_MS;
          while (free() > 0 && performance.now() < deadline) this.db.pragma(`${SCHEMA}.incremental_vacuum(64)`);
        }
      } finally {
        this.givingBack = false;
      }
    })().catch(() => {
      // Pages not given back stay free in the schema, where this workspace's next copies use them;
      // the process must not stop for it (nobody awaits this but tests).
    });
  }
}

/**
 * The rows of a table copied into its copy a page at a time, in the order of its key (rowid, or
 * primary key): each page ends at the key of its last row, the next starts after it. A page's size
 * follows how long the last took, so that a page of 1 MiB rows (a CNAB file's parts) stays as short
 * as one of small rows. A row written after its page was copied is copied again at the end
 * (SnapshotStore.saveInTurns), so a page replaces what it meets in the copy (INSERT OR REPLACE: a
 * UNIQUE value a changed row held).
 */
class KeyPages {
  private after: unknown[] | undefined;
  /** Rows of the next page: one at first (a row may hold a megabyte), doubled while pages are quick. */
  private size = 1;
  private readonly last: { first: Database.Statement; then: Database.Statement };
  private readonly copy: { first: Database.Statement; then: Database.Statement; rest: Database.Statement; all: Database.Statement };

  constructor(db: Db, t: Table, copy: string) {
    const key = t.key.join(', ');
    const row = t.key.length === 1 ? (t.key[0] as string) : `(${key})`;
    const params = t.key.length === 1 ? '?' : `(${t.key.map(() => '?').join(', ')})`;
    const from = `FROM main.${quote(t.name)}`;
    const insert = `INSERT OR REPLACE INTO ${copy} ${into(t)} SELECT ${t.columns} ${from}`;
    this.last = {
      first: db.prepare(`SELECT ${key} ${from} ORDER BY ${key} LIMIT 1 OFFSET ?`).raw(),
      then: db.prepare(`SELECT ${key} ${from} WHERE ${row} > ${params} ORDER BY ${key} LIMIT 1 OFFSET ?`).raw(),
    };
    this.copy = {
      first: db.prepare(`${insert} WHERE ${row} <= ${params}`),
      then: db.prepare(`${insert} WHERE ${row} > ${params} AND ${row} <= ${params}`),
      rest: db.prepare(`${insert} WHERE ${row} > ${params}`),
      all: db.prepare(insert),
    };
  }

  /** Copies the next page; true when it was the last. */
  next(): boolean {
    const started = performance.now();
    const after = this.after;
    const last = (after ? this.last.then.get(...after, this.size - 1) : this.last.first.get(this.size - 1)) as unknown[] | undefined;
    if (last === undefined) {
      if (after) this.copy.rest.run(...after);
      else this.copy.all.run();
      return true;
    }
    if (after) this.copy.then.run(...after, ...last);
    else this.copy.first.run(...last);
    this.after = last;
    const took = performance.now() - started;
    if (took > 2 && this.size > 1) this.size = Math.max(1, this.size >> 1);
    else if (took < 0.5 && this.size < 4096) this.size *= 2;
    return false;
  }
}

/** The TEMP table logging the keys of `t`'s changed rows. */
function logTable(t: Table): string {
  return quote(`sb_log_${t.name}`);
}

/** The column list of an INSERT into a table or its copy ("" when SELECT * is what is copied). */
function into(t: Table): string {
  return t.columns === '*' ? '' : `(${t.columns})`;
}

/** A condition true for the rows of `t` whose key is in its change log. */
function keyIn(t: Table): string {
  const columns = t.key.map((_, i) => `k${i}`).join(', ');
  const key = t.key.length === 1 ? (t.key[0] as string) : `(${t.key.join(', ')})`;
  return `${key} IN (SELECT ${columns} FROM temp.${logTable(t)})`;
}
