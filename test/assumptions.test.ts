import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assumptionsPage } from '../scripts/docs.js';
import { assumptionText } from '../src/http/assumption-catalog.js';
import { ASSUMPTIONS as allAssumptions } from '../src/interfaces.js';
import { testApp } from './helpers.js';
import { markdownFiles } from './readme.js';

describe('the assumptions', () => {
  const page = readFileSync('docs/assumptions.md', 'utf8');
  // Rows of the page's tables: | `id` | ...
  const rows = [...page.matchAll(/^\|\s*`([a-z0-9-]+)`\s*\|/gm)].map((m) => m[1] ?? '');

  it('are listed by docs/assumptions.md, each once, in the order the code declares them', () => {
    expect(rows).toEqual(allAssumptions.map((a) => a.id));
  });

  it('are listed with the text the code declares (run `npm run docs` after changing one)', () => {
    expect(page).toBe(assumptionsPage());
  });

  it('declare every id only once', () => {
    const ids = allAssumptions.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are not copied into another page: the README and docs/ link to docs/assumptions.md', () => {
    const copies = markdownFiles()
      .filter((f) => f !== 'docs/assumptions.md')
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^\|\s*`([a-z0-9-]+)`\s*\|/gm)].map((m) => `${f}: ${m[1]}`))
      .filter((row) => allAssumptions.some((a) => row.endsWith(`: ${a.id}`)));
    expect(copies).toEqual([]);
  });

  it('named by the README and docs/ are ones the code declares', () => {
    const declared = new Set(allAssumptions.map((a) => a.id));
    // "assumption `x`", "assumptions `x`, `y` and `z`", "(`x` in the [assumptions]...)".
    const named = markdownFiles().flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/assumptions?\s+((?:`[a-z0-9-]+`(?:,\s*|\s+and\s+)?)+)|`([a-z0-9-]+)` in the \[assumptions\]/g)]
        .flatMap((m) => [...(m[1] ?? `\`${m[2]}\``).matchAll(/`([a-z0-9-]+)`/g)].map((id) => id[1] ?? ''))
        .map((id) => ({ file: f, id })),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((n) => !declared.has(n.id))).toEqual([]);
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

describe('x-sandbox-assumption in the OpenAPI document', () => {
  /** Every x-sandbox-assumption value of the document, with where it stands. */
  const extensions = (node: unknown, at: string, out: Array<{ at: string; text: string }>) => {
    if (Array.isArray(node)) node.forEach((v, i) => extensions(v, `${at}/${i}`, out));
    else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'x-sandbox-assumption' && typeof v === 'string') out.push({ at, text: v });
        else extensions(v, `${at}/${k}`, out);
      }
    }
    return out;
  };

  it('is made only of assumption texts, each ending in its [id] (no bare id beside them)', async () => {
    const app = await testApp();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as { paths: unknown; components: unknown };
    const texts = allAssumptions.map(assumptionText).sort((a, b) => b.length - a.length);
    const found = extensions({ paths: doc.paths, components: doc.components }, '', []);
    expect(found.length).toBeGreaterThan(50);
    const leftovers = found
      .map(({ at, text }) => ({ at, rest: texts.reduce((rest, t) => rest.split(t).join(''), text).trim() }))
      .filter((l) => l.rest !== '');
    expect(leftovers).toEqual([]);
  });

  it('marks every query parameter of the extract list, desc included', async () => {
    const app = await testApp();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as {
      paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string; schema?: Record<string, unknown> }> } }>;
    };
    const extract = Object.entries(doc.paths).find(([p]) => p.endsWith('/extract'))?.[1].get;
    const unmarked = (extract?.parameters ?? [])
      .filter((p) => p.in === 'query' && typeof p.schema?.['x-sandbox-assumption'] !== 'string')
      .map((p) => p.name);
    expect(extract?.parameters?.length).toBeGreaterThan(3);
    expect(unmarked).toEqual([]);
    const desc = extract?.parameters?.find((p) => p.name === 'desc');
    expect(desc?.schema?.['x-sandbox-assumption']).toContain('[query-booleans]');
  });
});
