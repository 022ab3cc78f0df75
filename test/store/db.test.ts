import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { DatabaseTooNewError, migrate, openDatabase, PAGE_CACHE_KIB } from '../../src/store/db.js';
import { Store } from '../../src/store/index.js';
import { migrations } from '../../src/store/migrations.js';
import { BASE_FIXTURES } from '../helpers.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-db-'));
  dirs.push(dir);
  return join(dir, 'nested', 'sandbox.db');
}
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

describe('opening the database', () => {
  it('migrates a new file to the latest version, in WAL mode with foreign keys on and synchronous NORMAL', () => {
    const path = tempDb();
    const { db, isNew } = openDatabase(path);
    expect(isNew).toBe(true);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    // A new file is created without syncs; what it is used with afterwards is NORMAL (1), as any file.
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
    const again = openDatabase(path);
    expect(again.isNew).toBe(false);
    expect(again.db.pragma('synchronous', { simple: true })).toBe(1);
    again.db.close();
  });

  it('gives a new file the schema every migration gives an empty file, though it starts from a copy of it', () => {
    const schema = (db: Database.Database) =>
      db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all();
    const fresh = openDatabase(tempDb()).db;
    const migratedPath = tempDb();
    mkdirSync(dirname(migratedPath), { recursive: true });
    const migrated = new Database(migratedPath);
    migrate(migrated, migratedPath);
    expect(schema(fresh)).toEqual(schema(migrated));
    expect(fresh.pragma('user_version', { simple: true })).toBe(migrated.pragma('user_version', { simple: true }));
    expect(fresh.pragma('page_size', { simple: true })).toBe(migrated.pragma('page_size', { simple: true }));
    expect(fresh.pragma('integrity_check', { simple: true })).toBe('ok');
    fresh.close();
    migrated.close();
  });

  it('has no triggers: a snapshot restore copies rows back and would fire them twice', () => {
    const { db } = openDatabase(':memory:');
    const triggers = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger'").pluck().all();
    expect(triggers).toEqual([]);
    db.close();
  });

  it('bounds the page cache of every connection it opens: the default workspace and each other workspace', async () => {
    // Without it, better-sqlite3's build default: 16 MB per connection (-16000), kept until it closes.
    expect(PAGE_CACHE_KIB).toBeLessThanOrEqual(2000);
    const { db } = openDatabase(tempDb());
    expect(db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    db.close();
    const app = await buildApp({ db: tempDb(), fixtures: BASE_FIXTURES });
    try {
      expect(app.runtime.store.db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
      const workspace = app.workspaces.runtime('w1').store.db;
      expect(workspace.memory).toBe(false);
      expect(workspace.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    } finally {
      await app.close();
    }
  });

  it('works in memory', () => {
    const { db, isNew } = openDatabase(':memory:');
    expect(isNew).toBe(true);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    db.close();
  });

  it('refuses a database written by a newer sandbox, with a message that says what to do', () => {
    const path = tempDb();
    openDatabase(path).db.close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${migrations.length + 5}`);
    raw.close();
    expect(() => openDatabase(path)).toThrow(DatabaseTooNewError);
    expect(() => openDatabase(path)).toThrow(/newer sandbox.*SANDBOX_DB/);
  });

  it('loads fixtures only when the database is new, and keeps state across restarts', async () => {
    const path = tempDb();
    const first = await buildApp({ db: path, fixtures: BASE_FIXTURES });
    await first.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      payload: { registry: { participants: [{ participantId: 'PART-2', accessToken: 'rg-token-2' }] } },
    });
    await first.close();
    // Loading BASE_FIXTURES again would clash with the rows already there; a reopened database is not new.
    const second = await buildApp({ db: path, fixtures: BASE_FIXTURES });
    expect(second.runtime.store.registry.participantByToken('rg-token-2')).toBe('PART-2');
    expect(second.runtime.store.registry.participantByToken('rg-token-1')).toBe('PART-1');
    await second.close();
  });

  it('refuses to start on a fixture file that does not load, naming the bad fields', async () => {
    await expect(
      buildApp({
        db: ':memory:',
        fixtures: { loanbond: { callers: [{ callerId: 'C', token: 't', products: ['x'] }] } } as never,
      }),
    ).rejects.toThrow(/\/loanbond\/callers\/0\/products\/0/);
    await expect(buildApp({ db: ':memory:', fixtures: 'fixtures/missing.json' })).rejects.toThrow(
      /cannot read the fixture file/,
    );
  });
});

describe('the migration to extract timestamps kept as written', () => {
  it('gives extract requests stored before it their keys, so they keep sorting in time order', () => {
    const db = new Database(':memory:');
    const before = migrations.findIndex((m) => m.name.includes('timestamps kept as written'));
    expect(before).toBeGreaterThan(0);
    for (const m of migrations.slice(0, before)) db.exec(m.sql);
    db.pragma(`user_version = ${before}`);
    const insert = db.prepare(
      `INSERT INTO bk_extract_requests (request_id, tenant_id, registered_at, registered_by_user_id, protocol_number,
         current_step_type, generated_at) VALUES (?, 'T', ?, 1, 'P', 'executed', ?)`,
    );
    // What the code before it stored: toISOString, milliseconds always.
    insert.run(1, '2026-10-02T04:00:00.123Z', '2026-10-02T04:05:00.000Z');
    insert.run(2, '2026-10-02T04:00:00.000Z', '2026-10-02T04:05:00.999Z');
    migrate(db);
    expect(db.prepare('SELECT request_id, registered_key, generated_key FROM bk_extract_requests ORDER BY request_id').raw().all()).toEqual([
      [1, '2026-10-02T04:00:00.123000000Z', '2026-10-02T04:05:00.000000000Z'],
      [2, '2026-10-02T04:00:00.000000000Z', '2026-10-02T04:05:00.999000000Z'],
    ]);
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT request_id FROM bk_extract_requests WHERE tenant_id = 'T' ORDER BY registered_key DESC, request_id DESC")
      .all()
      .map((r) => (r as { detail: string }).detail)
      .join('\n');
    // An index range, no sort of the rows.
    expect(plan).toContain('COVERING INDEX bk_extract_requests_by_registered');
    expect(plan).not.toContain('TEMP B-TREE');
    db.close();
  });
});

describe('the health ping', () => {
  it('answers while the connection is open and throws once it is closed, its statement prepared once', async () => {
    const store = new Store(openDatabase(':memory:').db);
    const prepare = vi.spyOn(store.db, 'prepare');
    for (let i = 0; i < 3; i++) expect(() => store.ping()).not.toThrow();
    expect(prepare.mock.calls.filter(([sql]) => sql === 'SELECT 1')).toHaveLength(1);
    await store.close();
    expect(() => store.ping()).toThrow(/not open/);
  });
});
