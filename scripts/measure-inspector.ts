// How long the inspector takes to render a large sandbox: 10 000 trade bills on one tenant and a
// journal of 10 000 requests. Prints the time from navigation until every section has drawn, in
// chromium (as the browser tests run it). A measurement, not a test: numbers depend on the machine.
//   npx tsc -p tsconfig.bench.json && node dist-bench/scripts/measure-inspector.js
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { findChromium } from './chromium.js';
import type { FixtureDocument } from '../src/interfaces.js';

const N = 10_000;
const TENANT = '11222333000181';
const RUNS = 3;

// This script is compiled without the DOM's types: the page's document, as far as it is used here.
type PageGlobals = { document: { querySelectorAll(selector: string): { length: number } } };

async function main(): Promise<void> {
  const demo = JSON.parse(readFileSync('fixtures/demo.json', 'utf8')) as FixtureDocument;
  const bills = Array.from({ length: N }, (_, i) => ({
    tenantId: TENANT,
    uid: `BULK-${String(i).padStart(5, '0')}`,
    amount: 100 + (i % 900),
  }));
  const doc = {
    ...demo,
    bookkeeping: { ...demo.bookkeeping, tradeBills: [...(demo.bookkeeping?.tradeBills ?? []), ...bills] },
  } as FixtureDocument;
  const app = await buildApp({ db: ':memory:', logger: false, fixtures: doc, journalSize: N });
  const url = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract?page=1&pageSize=10`;
  for (let i = 0; i < N; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, () =>
        app.inject({ url, headers: { authorization: 'Bearer bk-demo-token-7' } }),
      ),
    );
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  process.stdout.write(`sandbox with ${N} trade bills and ${app.runtime.journal.count} journal entries at ${base}\n`);

  const browser = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), 'inspector-measure-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.executablePath,
      env: browser.env,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: browser.args,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const t0 = performance.now();
      await page.goto(`${base}/_sandbox/ui`);
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobals).document.querySelectorAll('.body[aria-busy]').length === 0,
        undefined,
        { timeout: 60_000 },
      );
      await page.waitForSelector('tr[data-uid="BULK-00000"]');
      times.push(performance.now() - t0);
    }
    const t1 = performance.now();
    await page.click(`[data-tenant="${TENANT}"] .pager button:has-text("Next")`);
    await page.waitForSelector('tr[data-uid="BULK-00050"]');
    const nextPage = performance.now() - t1;
    const rows = await page.locator('tr[data-uid]').count();
    const entries = await page.locator('#journal-body li').count();
    const sorted = [...times].sort((a, b) => a - b);
    process.stdout.write(
      `page drawn in ${times.map((t) => t.toFixed(0)).join(', ')} ms (first load cold; median ${sorted[1]?.toFixed(0)} ms); ` +
        `next page of bills ${nextPage.toFixed(0)} ms; ${rows} bill rows and ${entries} journal entries in the page\n`,
    );
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  await app.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
