// Answers of read-only queries kept until the database changes: the hot path (a client polling the
// same extract page with the same token) then reads no rows at all. Freshness does not depend on
// every writer remembering to invalidate: the key is SQLite's own count of rows changed on this
// connection (total_changes(): every INSERT, UPDATE and DELETE, by triggers, foreign-key cascades,
// whole-table deletes and page-transfer copies included, so fixtures, payments, reset, wipe and
// snapshot restore all count) and, for a database file, its data_version (commits by any other
// connection to the file: another process, or a user's sqlite3 shell). Any change empties the cache.
//
// A few values are read on every request yet change rarely (the stub mappings: is there any?).
// Emptied by every payment, they would be read again on every request that follows a write; they
// are kept per table instead (keep()): TEMP triggers on this connection count every row written to
// their tables, by whatever statement, and a commit by another connection empties them as it empties
// the rest.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/** Entries kept at most; past it the cache starts over (a client walking every page of a big tenant). */
export const READ_CACHE_ENTRIES = 4096;

/** No data_version read yet: nothing may be answered from the cache before the first one. */
const UNKNOWN = -1;

/** The SQL function the TEMP triggers of kept tables call, per row written. */
const TABLE_WRITTEN = 'sandbox_read_cache_table_written';

export class ReadCache {
  private readonly changes: Statement;
  /** Undefined for an in-memory database, which no other connection can open. */
  private readonly dataVersion: Statement | undefined;
  private lastChanges = -1;
  private lastDataVersion = UNKNOWN;
  /** Requests whose lookup already asked other connections (a request's later lookups need not ask again). */
  private readonly checkedFor = new WeakSet<object>();
  private readonly entries = new Map<string, unknown>();
  /** keep()'s values, with the write counts of their tables when they were read. */
  private readonly kept = new Map<string, { writes: number; value: unknown }>();
  /** Rows written per watched table on this connection (TEMP triggers); undefined: not watched yet. */
  private readonly tableWrites = new Map<string, number>();

  constructor(private readonly db: Db) {
    // Two statements: total_changes() reads no table and costs a fraction of a microsecond; the
    // pragma opens a read transaction, and the table-valued form that would join them costs twice.
    this.changes = db.prepare('SELECT total_changes()').pluck();
    this.dataVersion = db.memory ? undefined : db.prepare('PRAGMA data_version').pluck();
  }

  /**
   * The value stored under `key` while no row has changed, else `read()` (stored for later). `read`
   * must only read. Inside a transaction nothing is read from or kept in the cache: rows written
   * there are not committed yet, and a rollback takes them back without counting as a change.
   *
   * `request`: the request the lookup serves (any object that stands for it). Its first lookup makes
   * the full check; its later ones only ask this connection's change count, since a commit by another
   * connection after the request's first check is concurrent with the request, and the state as of
   * that check is what a read then would answer. Without it, every lookup makes the full check.
   */
  get<T>(key: string, read: () => T, request?: object): T {
    if (this.db.inTransaction) return read();
    this.check(request);
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = read();
    if (this.entries.size >= READ_CACHE_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /**
   * Like get, for a value read only from `tables`: kept while no row of those tables changes, whatever
   * else is written (a commit by another connection still empties it). For a few keys read on every
   * request; each table gets TEMP triggers that count its writes on this connection.
   */
  keep<T>(tables: readonly string[], key: string, read: () => T, request?: object): T {
    if (this.db.inTransaction) return read();
    this.check(request);
    let writes = 0;
    for (const table of tables) writes += this.tableWrites.get(table) ?? this.watch(table);
    const entry = this.kept.get(key);
    if (entry && entry.writes === writes) return entry.value as T;
    const value = read();
    this.kept.set(key, { writes, value });
    return value;
  }

  /** Empties the cache when a row changed here, or (once per request) when another connection committed. */
  private check(request: object | undefined): void {
    const changes = this.changes.get() as number;
    if (changes !== this.lastChanges) {
      this.entries.clear();
      this.lastChanges = changes;
    }
    // data_version moves only with other connections' commits, so it is compared with the last one
    // read however many rows this connection changed since.
    if (this.dataVersion && (request === undefined || !this.checkedFor.has(request))) {
      const dataVersion = this.dataVersion.get() as number;
      if (request !== undefined) this.checkedFor.add(request);
      if (dataVersion !== this.lastDataVersion) {
        this.entries.clear();
        this.kept.clear();
        this.lastDataVersion = dataVersion;
      }
    }
  }

  /** Counts the rows written to `table` from now on; 0 so far. */
  private watch(table: string): number {
    if (this.tableWrites.size === 0) {
      this.db.function(TABLE_WRITTEN, { deterministic: false }, (name: unknown) => {
        const n = this.tableWrites.get(String(name));
        if (n !== undefined) this.tableWrites.set(String(name), n + 1);
        return null;
      });
    }
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name the read cache can watch: ${table}`);
    for (const op of ['INSERT', 'UPDATE', 'DELETE'])
      this.db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS read_cache_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table} BEGIN SELECT ${TABLE_WRITTEN}('${table}'); END`,
      );
    this.tableWrites.set(table, 0);
    // Whatever was kept before the triggers existed was read without them.
    this.kept.clear();
    return 0;
  }

  /** Entries held now (the inspector and tests). */
  get size(): number {
    return this.entries.size;
  }
}
