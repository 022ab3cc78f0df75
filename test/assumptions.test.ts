import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS as allAssumptions } from '../src/interfaces.js';
import { testApp } from './helpers.js';

describe('the assumptions table', () => {
  const readme = readFileSync('README.md', 'utf8');
  // Rows of the README's assumption tables: | `id` | ... (cells may be padded).
  const rows = [...readme.matchAll(/^\|\s*`([a-z0-9-]+)`\s*\|/gm)].map((m) => m[1] ?? '');

  it('lists every assumption the code declares in the README, by id', () => {
    const missing = allAssumptions.filter((a) => !rows.includes(a.id)).map((a) => a.id);
    expect(missing).toEqual([]);
  });

  it('declares every assumption id only once', () => {
    const ids = allAssumptions.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists no README row whose id the code does not declare', () => {
    const declared = new Set(allAssumptions.map((a) => a.id));
    expect(rows.filter((id) => !declared.has(id))).toEqual([]);
  });

  it('carries every assumption in the OpenAPI document', async () => {
    const app = await testApp();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as {
      info: { 'x-sandbox-assumptions': Array<{ id: string; text: string }> };
    };
    const listed = doc.info['x-sandbox-assumptions'].map((a) => a.id);
    expect(listed).toEqual(allAssumptions.map((a) => a.id));
    for (const a of doc.info['x-sandbox-assumptions']) expect(a.text).toContain(a.id);
  });

  it('marks every assumption on an operation or a field of the OpenAPI document, not only in the list', async () => {
    const app = await testApp();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as {
      paths: unknown;
      components: unknown;
    };
    // Operations and fields: the paths, and the named schemas they reference.
    const paths = JSON.stringify([doc.paths, doc.components]);
    const unmarked = allAssumptions.filter((a) => !paths.includes(`[${a.id}]`)).map((a) => a.id);
    expect(unmarked).toEqual([]);
  });
});
