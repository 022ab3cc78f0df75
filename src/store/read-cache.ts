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

/** No data_version read since the cache last started over: nothing may be answered from it yet. */
const UNKNOWN = -1;

export class ReadCache {
  private readonly changes: Statement;
  /** Undefined for an in-memory database, which no other connection can open. */
  private readonly dataVersion: Statement | undefined;
  private lastChanges = -1;
  private lastDataVersion = UNKNOWN;
  /** The request whose lookup last asked other connections (held until the next one asks). */
  private checkedFor: object | undefined;
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
   *
   * `request`: the request the lookup serves (any object that stands for it). Its first lookup makes
   * the full check; its later ones only ask this connection's change count, since a commit by another
   * connection after the request's first check is concurrent with the request, and the state as of
   * that check is what a read then would answer. Without it, every lookup makes the full check.
   */
  get<T>(key: string, read: () => T, request?: object): T {
    if (this.db.inTransaction) return read();
    const changes = this.changes.get() as number;
    if (changes !== this.lastChanges) {
      // A row changed here: start over. Other connections' commits are not asked about now (that
      // read costs more than the rest of the check, and a stream of writes would pay it on every
      // request): the next check asks, and starts over once more.
      this.entries.clear();
      this.lastChanges = changes;
      this.lastDataVersion = UNKNOWN;
    } else if (this.dataVersion && (request === undefined || request !== this.checkedFor)) {
      const dataVersion = this.dataVersion.get() as number;
      this.checkedFor = request;
      if (dataVersion !== this.lastDataVersion) {
        this.entries.clear();
        this.lastDataVersion = dataVersion;
      }
    }
    if (this.entries.has(key)) return this.entries.get(key) as T;
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
