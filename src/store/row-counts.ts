// Rows per table (and per state where the control plane warns about one), kept up to date by the store
// modules as they write, so the control views read them instead of counting a large database on every
// call. A module adds what it wrote; what a transaction added counts only once the transaction
// committed (a frame per transaction and savepoint: a write taken back is never counted). Bulk
// changes (wipe, snapshot restore) and anything written before the first read are settled by counting
// once, lazily: a database opened and never inspected is never counted.
//
// Kept in memory, not in a table of the database: a counter row would cost every write one more
// statement (the payment's hot path included), and a snapshot restore copying it back would have to
// be reconciled with the rows it restores.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/**
 * Rows counted per value of a column too, under `${table}:${column}=${value}`: the states the overview
 * warns about, and the owners whose lists the control plane pages through with a total.
 */
const GROUPS: ReadonlyArray<{ table: string; column: string }> = [
  { table: 'rc_imports', column: 'status' },
  { table: 'rc_imports', column: 'fund_cnpj' },
  { table: 'lb_registrations', column: 'state' },
  { table: 'lb_registrations', column: 'caller_id' },
  { table: 'bk_trade_bills', column: 'tenant_id' },
  { table: 'rg_documents', column: 'participant_id' },
  { table: 'rg_batches', column: 'participant_id' },
  { table: 'rg_reconciliations', column: 'participant_id' },
];

/** The key of the rows of `table` whose `column` holds `value`. */
export function groupKey(table: string, column: string, value: string): string {
  return `${table}:${column}=${value}`;
}

export class RowCounts {
  private counts = new Map<string, number>();
  private stale = true;
  private readonly frames: Array<Map<string, number>> = [];
  private readonly statements: Array<[string, Statement]>;
  /** Tables whose writers do not count (an interface's store part): counted on every read. */
  private readonly live: Array<[string, Statement]>;
  private readonly groups: Array<[string, string, Statement]>;
  /** Full counts taken (tests: a read between writes must not count again). */
  recounts = 0;

  /** `unmaintained`: prefixes of the tables nobody counts as they are written. */
  constructor(db: Db, unmaintained: readonly string[] = []) {
    // The sandbox's own tables (sb_*) are not a user's rows.
    const all = db
      .prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sb_%' ORDER BY name")
      .pluck()
      .all() as string[];
    const count = (t: string): [string, Statement] => [t, db.prepare(`SELECT count(*) FROM main."${t}"`).pluck()];
    const isLive = (t: string) => unmaintained.some((prefix) => t.startsWith(prefix));
    const tables = all.filter((t) => !isLive(t));
    this.statements = tables.map(count);
    this.live = all.filter(isLive).map(count);
    this.groups = GROUPS.filter((g) => tables.includes(g.table)).map((g) => [
      g.table,
      g.column,
      db.prepare(`SELECT ${g.column}, count(*) FROM main."${g.table}" GROUP BY ${g.column}`).raw(true),
    ]);
  }

  /** `n` rows written to `key` (a table, or a groupKey); negative when removed. */
  add(key: string, n = 1): void {
    if (n === 0) return;
    const frame = this.frames[this.frames.length - 1];
    if (frame) frame.set(key, (frame.get(key) ?? 0) + n);
    else if (!this.stale) this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  /** A row of `table` whose `column` changed from one value to another. */
  move(table: string, column: string, from: string, to: string): void {
    if (from === to) return;
    this.add(groupKey(table, column, from), -1);
    this.add(groupKey(table, column, to), 1);
  }

  /** A transaction (or savepoint) starts: what is added until it ends counts only if it commits. */
  begin(): void {
    this.frames.push(new Map());
  }

  commit(): void {
    const frame = this.frames.pop();
    if (!frame) return;
    for (const [key, n] of frame) this.add(key, n);
  }

  rollback(): void {
    this.frames.pop();
  }

  /** Rows changed in bulk (wipe, restore): count again at the next read. */
  invalidate(): void {
    this.stale = true;
  }

  /** The count of `key` (0 when nothing was counted under it). */
  get(key: string): number {
    return this.current().get(key) ?? 0;
  }

  /** Rows per user table, by table name. */
  tables(): Record<string, number> {
    const counts = this.current();
    return Object.fromEntries([
      ...this.statements.map(([t]): [string, number] => [t, counts.get(t) ?? 0]),
      ...this.live.map(([t, s]): [string, number] => [t, s.get() as number]),
    ]);
  }

  /** The counts as maintained, undefined while they wait for a recount (tests compare them with counted()). */
  maintained(): ReadonlyMap<string, number> | undefined {
    return this.stale || this.frames.length > 0 ? undefined : this.counts;
  }

  /** The counts from the database itself, as a fresh count would give them (tests compare). */
  counted(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [t, s] of this.statements) counts.set(t, s.get() as number);
    for (const [t, column, s] of this.groups)
      for (const [value, n] of s.all() as Array<[string, number]>) counts.set(groupKey(t, column, value), n);
    return counts;
  }

  private current(): Map<string, number> {
    if (this.stale && this.frames.length === 0) {
      this.counts = this.counted();
      this.stale = false;
      this.recounts++;
    }
    return this.counts;
  }
}
