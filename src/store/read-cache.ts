// Answers of read-only queries kept until the database changes: the hot path (a client polling the
// same extract page with the same token) then reads no rows at all. Freshness does not depend on
// every writer remembering to invalidate: the key is SQLite's own count of rows changed on this
// connection (total_changes(): every INSERT, UPDATE and DELETE, by triggers, foreign-key cascades,
// whole-table deletes and page-transfer copies included, so fixtures, payments, reset, wipe and
// snapshot restore all count) and, for a database file, its data_version (commits by any other
// connection to the file: another process, or a user's sqlite3 shell). Any change empties the cache.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/** Entries kept at most; past it the cache starts over (a client walking every page of a big tenant). */
export const READ_CACHE_ENTRIES = 4096;

export class ReadCache {
  private readonly changes: Statement;
  /** Undefined for an in-memory database, which no other connection can open. */
  private readonly dataVersion: Statement | undefined;
  private lastChanges = -1;
  private lastDataVersion = -1;
  private readonly entries = new Map<string, unknown>();

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
   */
  get<T>(key: string, read: () => T): T {
    if (this.db.inTransaction) return read();
    const changes = this.changes.get() as number;
    const dataVersion = this.dataVersion ? (this.dataVersion.get() as number) : 0;
    if (changes !== this.lastChanges || dataVersion !== this.lastDataVersion) {
      this.entries.clear();
      this.lastChanges = changes;
      this.lastDataVersion = dataVersion;
    } else if (this.entries.has(key)) {
      return this.entries.get(key) as T;
    }
    const value = read();
    if (this.entries.size >= READ_CACHE_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /** Entries held now (the inspector and tests). */
  get size(): number {
    return this.entries.size;
  }
}
