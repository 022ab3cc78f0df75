// `npm start` builds only when a source is newer than dist/ (scripts/stale.mjs decides).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { needsBuild } from '../scripts/stale.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A checkout with src/a.ts and dist/server.js, every file and directory at time `t` (seconds). */
function checkout(t: number): string {
  const root = mkdtempSync(join(tmpdir(), 'sandbox-stale-'));
  dirs.push(root);
  mkdirSync(join(root, 'src/runtime'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  for (const f of ['src/a.ts', 'src/runtime/b.ts', 'tsconfig.json', 'dist/server.js']) writeFileSync(join(root, f), '');
  for (const p of ['src/a.ts', 'src/runtime/b.ts', 'src/runtime', 'src', 'tsconfig.json', 'dist/server.js'])
    utimesSync(join(root, p), t, t);
  return root;
}

describe('whether npm start builds', () => {
  it('does not build when dist/ is newer than every source', () => {
    const root = checkout(1_000_000);
    utimesSync(join(root, 'dist/server.js'), 1_000_010, 1_000_010);
    expect(needsBuild(root)).toBe(false);
  });

  it('builds when a source deep in src/ or a tsconfig changed after the build', () => {
    const root = checkout(1_000_000);
    utimesSync(join(root, 'src/runtime/b.ts'), 1_000_020, 1_000_020);
    expect(needsBuild(root)).toBe(true);
    const other = checkout(1_000_000);
    utimesSync(join(other, 'tsconfig.json'), 1_000_020, 1_000_020);
    expect(needsBuild(other)).toBe(true);
  });

  it('builds when a source was deleted (its directory changed) or dist/ is missing', () => {
    const root = checkout(1_000_000);
    utimesSync(join(root, 'src/runtime'), 1_000_020, 1_000_020);
    expect(needsBuild(root)).toBe(true);
    rmSync(join(root, 'dist'), { recursive: true });
    expect(needsBuild(root)).toBe(true);
  });
});
