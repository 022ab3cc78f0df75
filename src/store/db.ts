// Opening the database: pragmas, then migrations applied in one transaction under PRAGMA user_version
// (a new file starts from an image of the migrated empty schema).
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export class DatabaseTooNewError extends Error {
  constructor(path: string, found: number, known: number) {
    super(
      `database ${path} is at schema version ${found}, but this sandbox knows versions up to ${known}: ` +
        'it was written by a newer sandbox. Run that version, or point SANDBOX_DB at another file.',
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** Whether a database path means a database in memory (`:memory:`, or empty as SQLite reads it). */
export function isInMemoryPath(path: string): boolean {
  return path === ':memory:' || path === '';
}

export class DatabaseInUseError extends Error {
  constructor(path: string, lock: string) {
    super(
      `the database ${path} is in use by another sandbox process (it holds ${lock}): two processes on one ` +
        'file would each answer from their own view of it. Give each process its own --db (SANDBOX_DB), ' +
        'use --db :memory:, or share one process between test workers through workspaces (/ws/{name}).',
    );
    this.name = 'DatabaseInUseError';
  }
}

/**
 * An exclusive lock on the file at `path` (a file of its own, made if `create` and missing), held while
 * the answered connection stays open and referenced: an exclusive SQLite transaction, which the
 * operating system lets go of when the process ends, however it ends, so a crash leaves no stale lock.
 * Undefined when another process holds it (or, without `create`, when the file is gone).
 */
export function holdFileLock(path: string, create = true): Db | undefined {
  let lock: Db;
  try {
    // No busy timeout: a lock is held for a process's life, so waiting for it would only delay the answer.
    lock = new Database(path, { timeout: 0, fileMustExist: !create });
  } catch (err) {
    if (!create && (err as { code?: string }).code === 'SQLITE_CANTOPEN') return undefined;
    throw err;
  }
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    // Nothing is ever written through it: its journal in memory, not a <path>-journal file left beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
    return lock;
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw err;
  }
}

/** Locks held for the life of the process: a connection nobody refers to is closed when collected, and its lock with it. */
const locks: Db[] = [];

/**
 * Holds `<path>.lock` for the life of the process, so that a second server started on the same
 * database file refuses to start instead of sharing it (holdFileLock; not the database file itself,
 * which the checkpoint worker and readers such as the sqlite3 shell open beside the server).
 * :memory: needs none.
 */
export function lockDatabaseFile(path: string): void {
  if (isInMemoryPath(path)) return;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  // One lock for one file, whichever way its folder is named (a relative path, a symbolic link).
  const lockPath = `${join(realpathSync(dir), basename(path))}.lock`;
  const lock = holdFileLock(lockPath);
  if (lock === undefined) throw new DatabaseInUseError(path, lockPath);
  locks.push(lock);
}

export interface OpenedDatabase {
  db: Db;
  /** True when the database had no schema before this open (fixtures are loaded then). */
  isNew: boolean;
}

/** The page cache of each connection, in KiB (SQLite's own default; PRAGMA cache_size = -N). */
export const PAGE_CACHE_KIB = 2000;

let schemaImage: Buffer | undefined;

/**
 * The bytes of an empty database at the latest schema version, migrated once per process in memory:
 * a new workspace's file starts as a copy of them instead of running every migration again (a few
 * milliseconds of DDL on the event loop for each workspace created).
 */
function emptySchemaImage(): Buffer {
  if (!schemaImage) {
    const db = new Database(':memory:');
    try {
      migrate(db);
      schemaImage = db.serialize();
    } finally {
      db.close();
    }
  }
  return schemaImage;
}

/** Writes the empty schema to `path` unless a file is there already; true when it wrote it. */
function createFromImage(path: string): boolean {
  try {
    writeFileSync(path, emptySchemaImage(), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export function openDatabase(path: string): OpenedDatabase {
  const inMemory = isInMemoryPath(path);
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const created = !inMemory && createFromImage(path);
  const db = new Database(inMemory ? ':memory:' : path);
  try {
    // A new file (or one with no schema yet) is written without syncs until it is in WAL mode and
    // migrated: switching it to WAL and migrating it would otherwise wait for fsyncs (10-20 ms each on
    // a shared disk) on the event loop, for a file that holds nothing yet. A power cut in those
    // milliseconds may leave it torn, as NORMAL below allows for the last transactions anyway; a
    // process crash loses nothing the operating system was handed.
    const creating = created || (!inMemory && db.pragma('user_version', { simple: true }) === 0);
    if (creating) db.pragma('synchronous = OFF');
    if (!inMemory) {
      // WAL: readers never block the writer; NORMAL sync keeps every committed transaction across a
      // process crash (a power cut may lose the last ones, which a sandbox can afford).
      db.pragma('journal_mode = WAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // SQLite's own page cache bound instead of better-sqlite3's build default (16 MB per connection):
    // a connection's cache grows with the pages it touches and is only given back when it closes, so
    // a database that keeps growing (the default workspace of a long-running shared service) takes
    // 16 MB over its first minutes, and so may each of up to SANDBOX_MAX_WORKSPACES workspaces. The
    // pages a request reads again (a tenant's bills, index interiors) fit in far less; the rest of a
    // file is in the operating system's cache, one read away (docs/reliability.md, the service soak).
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    const isNew = migrate(db, path) || created;
    if (!inMemory) db.pragma('synchronous = NORMAL');
    return { db, isNew };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Applies the pending migrations; returns true when the database started empty. */
export function migrate(db: Db, path = ':memory:'): boolean {
  const found = db.pragma('user_version', { simple: true }) as number;
  const known = migrations.length;
  if (found > known) throw new DatabaseTooNewError(path, found, known);
  if (found < known) {
    db.transaction(() => {
      for (let v = found; v < known; v++) {
        const m = migrations[v];
        if (!m) break;
        m.before?.(db, path);
        db.exec(m.sql);
      }
      db.pragma(`user_version = ${known}`);
    })();
  }
  return found === 0;
}
