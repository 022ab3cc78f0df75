// A part of the store that an interface brings with it: tables of its own, their migrations, and the
// object that holds its statements. The sandbox's own schema (migrations.ts, under PRAGMA
// user_version) stays as it is; a part's migrations are recorded per part in sb_part_migrations, so
// parts can be added to, or left out of, a database without renumbering anything.
import type { Db } from './db.js';
import type { Migration } from './migrations.js';
import type { ReadCache } from './read-cache.js';
import { plural } from '../domain/plural.js';

export interface StorePart<T> {
  /** Unique among the parts; its migrations are recorded under it. Its tables start with `<name>_`. */
  name: string;
  /** Append-only, as the sandbox's own: a released migration is never edited. */
  migrations: readonly Migration[];
  /** Prepares the part's statements on the migrated connection. */
  open(db: Db, cache: ReadCache): T;
}

/** The table recording how many migrations of each part a database holds (kept by wipes and restores). */
export const PART_MIGRATIONS_TABLE = 'sb_part_migrations';

/** Applies the migrations each part has pending, all in one transaction. */
export function migrateParts(db: Db, parts: readonly StorePart<unknown>[]): void {
  if (parts.length === 0) return;
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${PART_MIGRATIONS_TABLE} (part TEXT PRIMARY KEY, applied INTEGER NOT NULL) WITHOUT ROWID`,
  );
  const applied = db.prepare(`SELECT applied FROM ${PART_MIGRATIONS_TABLE} WHERE part = ?`).pluck();
  const record = db.prepare(
    `INSERT INTO ${PART_MIGRATIONS_TABLE} (part, applied) VALUES (?, ?) ON CONFLICT (part) DO UPDATE SET applied = excluded.applied`,
  );
  db.transaction(() => {
    for (const part of parts) {
      const found = (applied.get(part.name) as number | undefined) ?? 0;
      if (found > part.migrations.length)
        throw new Error(
          `the database holds ${plural(found, 'migration')} of the store part "${part.name}", which knows ${part.migrations.length}: it was written by a newer sandbox`,
        );
      for (const m of part.migrations.slice(found)) db.exec(m.sql);
      if (found < part.migrations.length) record.run(part.name, part.migrations.length);
    }
  })();
}
