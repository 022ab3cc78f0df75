// The start-up log tells a new user whether the fixtures were loaded or an existing database was
// reused (its state kept, the configured fixtures not loaded), and how to start clean.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { BASE_FIXTURES, LogCapture } from '../helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(db: string, fixtures: typeof BASE_FIXTURES | null): Promise<string[]> {
  const logs = new LogCapture();
  const app = await buildApp({ db, fixtures, logger: { stream: logs } });
  await app.close();
  return logs.lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
}

describe('the start-up log', () => {
  it('says the fixtures were loaded into a new database, then that a restart reused it without loading them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'start-log-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');
    expect(await start(db, BASE_FIXTURES)).toContain('new database: fixtures loaded from the fixture document given');
    const again = await start(db, BASE_FIXTURES);
    const reused = again.find((m) => m.startsWith('reused the existing database'));
    expect(reused).toContain(db);
    expect(reused).toContain('the fixtures (the fixture document given) were not loaded');
    expect(reused).toMatch(/to start clean, delete that file/);
  });

  it('says a new database got no fixtures when none are configured', async () => {
    expect(await start(':memory:', null)).toContain('new database: no fixtures loaded');
  });
});
