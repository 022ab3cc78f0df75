// The inspector in a real browser: the npm-installed Chromium (or CHROMIUM_PATH) driven by playwright-core.
// The sandbox listens on a real port with the demo fixtures, the guided demo fills it, and the page
// must show that state, follow a payment made meanwhile, open a rejected CNAB file at the diagnosed
// line, and ask for nothing outside the sandbox. It ends with the README's screenshot.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../scripts/chromium.js';
import { runDemo, type DemoResult } from '../../scripts/demo.js';
import { buildApp } from '../../src/app.js';
import { OUTCOMES } from '../../src/interfaces.js';
import { Receiver } from '../events/receiver.js';
import { DEMO_FIXTURES, listenOnFreePort } from '../helpers.js';

const WAIT = { timeout: 15_000 };
const BK = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';

describe('the inspector page in chromium', () => {
  let app: FastifyInstance;
  let base: string;
  let demo: DemoResult;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const elsewhere: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const browser = await findChromium();
    // Not testApp: its apps close after each test, and this one serves the whole file.
    app = await buildApp({ db: ':memory:', logger: false, fixtures: DEMO_FIXTURES });
    base = `http://127.0.0.1:${await listenOnFreePort(app)}`;
    const printed: string[] = [];
    demo = await runDemo({ url: base, print: (line) => printed.push(line) });
    expect(printed.join('\n')).toContain(`${base}/_sandbox/ui`);
    // The first import's label says it is pending until the work delay has passed, not that it starts at once.
    const label = printed.find((l) => l.includes('Inspect the first import:')) ?? '';
    expect(label).toContain('pending');
    expect(label).not.toContain('at once');
    // It ends with the coverage table: a row per documented operation and the totals.
    expect(printed.at(-1)).toMatch(new RegExp(`^all +${demo.coverage.covered} of ${demo.coverage.outcomes} +${demo.coverage.hits}$`));
    expect(printed.slice(-7, -1).map((l) => l.split(/ +/)[1])).toEqual([
      'list-extract-requests',
      'declare-payment',
      'register-documents',
      'reconcile-documents',
      'import-cnab',
      'register-loan-bond',
    ]);

    profile = mkdtempSync(join(tmpdir(), 'inspector-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.executablePath,
      env: browser.env,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: browser.args,
      timeout: 30_000,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (r) => {
      if (!r.url().startsWith(`${base}/`) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${base}/_sandbox/ui`, WAIT);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await app?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows the demo state: counts, trade bills, registry keys, imports, loan-bonds, the journal', async () => {
    await page.waitForSelector('[data-count="bookkeeping.trade bills"]', WAIT);
    expect(await page.textContent('[data-count="bookkeeping.trade bills"]')).toBe('7');
    await page.waitForSelector('tr[data-uid="IUD-0002"] .open-value', WAIT);
    expect(await page.textContent('tr[data-uid="IUD-0002"] .open-value')).toBe('400.25');
    expect(await page.textContent('tr[data-uid="IUD-0001"]')).toContain('paid');
    expect(await page.textContent('#registry-body')).toContain(demo.chaveRemessa);
    expect(await page.textContent('#overview-body')).toContain('receivables: 1 CNAB import(s) rejected');
    expect(await page.textContent('#loanbond-body')).toContain(demo.codigoIdentificador);
    expect(await page.textContent('#journal-body')).toContain('/v1/import-cnab');
  });

  it('shows the new open value after a payment made through the API', async () => {
    const res = await fetch(`${base}${BK}/IUD-0002/payment`, {
      method: 'PUT',
      headers: { authorization: 'Bearer bk-demo-token-7', 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'bankSlip',
        informantId: 'directByDrawerHolder',
        isPartial: true,
        paymentValue: 100.25,
      }),
    });
    expect(res.status).toBe(204);
    // Live updates: the page notices the new journal entry and redraws.
    await page.waitForSelector('tr[data-uid="IUD-0002"] .open-value:text-is("300.00")', WAIT);
    await page.click('tr[data-uid="IUD-0002"] summary');
    await page.waitForSelector('tr[data-uid="IUD-0002"] table:has-text("400.25")', WAIT);
  });

  it("shows the event feed and each subscription's deliveries, an attempt's answer when opened", async () => {
    const receiver = await new Receiver((n) => (n === 0 ? 503 : 204)).start();
    try {
      const created = await fetch(`${base}/_sandbox/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, types: ['sandbox.bookkeeping.*'], retrySchedule: ['PT1S'] }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const res = await fetch(`${base}${BK}/IUD-0002/payment`, {
        method: 'PUT',
        headers: { authorization: 'Bearer bk-demo-token-7', 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 0.25 }),
      });
      expect(res.status).toBe(204);
      // The first attempt fails (503); the retry comes a second later on the running clock.
      await receiver.until(2);
      await page.waitForSelector(`#events-body li[data-event] code:text-is("sandbox.bookkeeping.payment.declared")`, WAIT);
      const delivery = `#events-body [data-subscription="${id}"] li[data-delivery]`;
      await page.waitForSelector(`${delivery}:has-text("delivered")`, WAIT);
      await page.click(`${delivery} summary`);
      await page.waitForSelector(`${delivery} table`, WAIT);
      const attempts = await page.textContent(`${delivery} table`);
      expect(attempts).toContain('503');
      expect(attempts).toContain('the receiver answered 503');
      expect(attempts).toContain('204');
      // The overview redraws on its own refresh, which may come after the events panel's.
      await page.waitForSelector('#overview-body:has-text("1: 1 delivered, 0 pending, 0 failed")', WAIT);
      await fetch(`${base}/_sandbox/subscriptions/${id}`, { method: 'DELETE' });
    } finally {
      await receiver.close();
    }
  });

  it('opens the rejected CNAB import, with the diagnosed line and columns marked', async () => {
    // By keyboard: focus the import's button and press Enter.
    await page.focus(`tr[data-import="${demo.rejectedImportId}"] button`);
    await page.keyboard.press('Enter');
    const mark = '#cnab-viewer tr.diag-error[data-line="2"] mark.m-error';
    await page.waitForSelector(mark, WAIT);
    expect(await page.textContent(mark)).toBe('0000000000000');
    expect(await page.getAttribute(mark, 'title')).toContain('face value must be greater than zero');
    expect(await page.locator('#cnab-viewer tr.diag.diag-error').count()).toBe(1);
    expect(await page.textContent('#cnab-viewer')).toContain('columns 127-139');
  });

  it('opens a journal entry with its redacted request', async () => {
    const entry = page.locator('#journal-body li', { hasText: '/v1/import-cnab' }).first();
    await entry.locator('summary').click();
    await entry.locator('pre').first().waitFor(WAIT);
    // What was sent (request line and headers) first, then the body as parsed, both redacted.
    const sent = await entry.locator('pre').first().textContent();
    expect(sent).toMatch(/^POST \/v1\/import-cnab/);
    const request = await entry.locator('h5', { hasText: 'Request body (redacted)' }).locator('xpath=following-sibling::pre[1]').textContent();
    expect(request).toContain('"operationFile": "[redacted]"');
    for (const text of [sent, request]) expect(text).not.toContain('rc-demo-token-1');
  });

  it('shows client coverage per interface, the outcomes not met yet first', async () => {
    await page.waitForSelector('[data-coverage="bookkeeping"] tr[data-outcome]', WAIT);
    const blocks = await page.$$eval('[data-coverage]', (els) => els.map((e) => e.getAttribute('data-coverage')));
    expect(blocks).toEqual(['bookkeeping', 'registry', 'receivables', 'loanbond']);
    expect(await page.textContent('#coverage-totals')).toContain(`of ${OUTCOMES.length} outcomes met`);
    // In each operation's table, every uncovered row comes before every covered one.
    const orders = await page.$$eval('#coverage-body table', (tables) =>
      tables.map((t) => [...t.querySelectorAll('tbody tr')].map((r) => r.className)),
    );
    expect(orders).toHaveLength(6);
    for (const classes of orders) expect(classes).toEqual([...classes].sort((a, b) => (a === b ? 0 : a === 'uncovered' ? -1 : 1)));
    expect(await page.textContent('tr[data-outcome="declare-payment.total-accepted"]')).not.toContain('not met');
    expect(await page.textContent('tr[data-outcome="declare-payment.fault-500"]')).toContain('not met');
  });

  it('opens a registry batch with its chaveRegistro and a reconciliation with its per-item results', async () => {
    await page.click(`#registry-body details[data-key="batch:${demo.chaveRemessa}"] summary`);
    await page.waitForSelector(`#registry-body details[data-key="batch:${demo.chaveRemessa}"] table`, WAIT);
    const batch = await page.textContent(`#registry-body details[data-key="batch:${demo.chaveRemessa}"]`);
    expect(batch).toMatch(/RG[A-Z2-7]{24}/);
    expect(batch).toContain('DEMO-2');
    await page.click('#registry-body details[data-key^="recon:"] summary');
    await page.waitForSelector('#registry-body details[data-key^="recon:"] table', WAIT);
    const recon = await page.textContent('#registry-body details[data-key^="recon:"]');
    expect(recon).toContain('1 matched · 1 diverging · 1 unknown');
    expect(recon).toContain('/valorDuplicata');
  });

  it('opens a loan-bond registration: signers, signatures not imported (rule 7), documents', async () => {
    const item = `#loanbond-body details[data-key="lb:${demo.codigoIdentificador}"]`;
    await page.click(`${item} summary`);
    await page.waitForSelector(`${item} table`, WAIT);
    const text = await page.textContent(item);
    expect(text).toContain('Maria Silva');
    expect(text).toContain('not imported');
    expect(text).toContain('ccb-demo.pdf (main)');
  });

  it('runs the actions: advance the clock, run pending processing', async () => {
    await page.fill('#clock-advance', 'P40D');
    await page.click('#clock-form button');
    await page.waitForSelector('#overview-body li:has-text("participant PART-1 is overdue")', WAIT);
    await page.click('#run-work');
    await page.waitForSelector('#action-result:has-text("Processed")', WAIT);
  });

  it('with an admin token, asks for it, then shows the data', async () => {
    const guarded = await buildApp({ db: ':memory:', logger: false, fixtures: DEMO_FIXTURES, adminToken: 'adm-1' });
    const tab = await context.newPage();
    try {
      await tab.goto(`http://127.0.0.1:${await listenOnFreePort(guarded)}/_sandbox/ui`);
      await tab.waitForSelector('#token-form:not([hidden])', WAIT);
      expect(await tab.locator('tr[data-uid]').count()).toBe(0);
      await tab.fill('#token-input', 'adm-1');
      await tab.press('#token-input', 'Enter');
      await tab.waitForSelector('tr[data-uid="IUD-0001"]', WAIT);
      // The data links cannot carry the header: a click fetches with it and opens what came.
      const [junit] = await Promise.all([context.waitForEvent('page', WAIT), tab.click('a.api-link[href="coverage?format=junit"]')]);
      await junit.waitForURL(/^blob:/, WAIT);
      expect(await junit.content()).toContain('testsuite');
      await junit.close();
      const [events] = await Promise.all([context.waitForEvent('page', WAIT), tab.click('a.api-link[href="events"]')]);
      await events.waitForURL(/^blob:/, WAIT);
      const shown = JSON.parse(await events.innerText('body')) as { events?: unknown };
      expect(Array.isArray(shown.events)).toBe(true);
      await events.close();
    } finally {
      await tab.close();
      await guarded.close();
    }
  });

  it("switches workspaces with the picker: each shows its own state at /ws/{name}/_sandbox/ui", async () => {
    const created = await fetch(`${base}/_sandbox/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'w2', fixtures: {} }),
    });
    expect(created.status).toBe(201);
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (err) => errors.push(err.message));
    try {
      await tab.goto(`${base}/_sandbox/ui`, WAIT);
      await tab.waitForSelector('#workspace option[value="w2"]', { ...WAIT, state: 'attached' });
      expect(await tab.inputValue('#workspace')).toBe('default');
      await tab.selectOption('#workspace', 'w2');
      await tab.waitForURL(`${base}/ws/w2/_sandbox/ui`, WAIT);
      await tab.waitForSelector('[data-count="bookkeeping.trade bills"]', WAIT);
      expect(await tab.textContent('[data-count="bookkeeping.trade bills"]')).toBe('0');
      // The picker fills in beside the sections, not before them.
      await tab.waitForSelector('#workspace option[value="default"]', { ...WAIT, state: 'attached' });
      expect(await tab.inputValue('#workspace')).toBe('w2');
      await tab.selectOption('#workspace', 'default');
      await tab.waitForURL(`${base}/_sandbox/ui`, WAIT);
      await tab.waitForSelector('[data-count="bookkeeping.trade bills"]', WAIT);
      expect(await tab.textContent('[data-count="bookkeeping.trade bills"]')).toBe('7');
      expect(errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('shows more of a journal of large entries by following its pages, which end at their byte budget', async () => {
    const ws = `${base}/ws/journal-pages`;
    const stub = await fetch(`${ws}/_sandbox/stubs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        request: { method: 'POST', urlPath: '/api/v1.0/service/dup/consultar_lote' },
        response: { status: 200, body: '{{{request.body}}}', headers: { 'Content-Type': 'application/json' }, transformers: ['response-template'] },
      }),
    });
    expect(stub.status).toBe(201);
    // About 15 KB each way: an entry of about 30 KB, so a page of 50 ends at its 1 MB budget first.
    const body = JSON.stringify(Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`campo${i}`, `valor ${i}`])));
    for (let i = 0; i < 80; i++) {
      const res = await fetch(`${ws}/api/v1.0/service/dup/consultar_lote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
    }
    const tab = await context.newPage();
    try {
      await tab.goto(`${ws}/_sandbox/ui`, WAIT);
      await tab.waitForSelector('#journal-body li', WAIT);
      const shown = () => tab.locator('#journal-body li').count();
      const first = await shown();
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThan(50);
      expect(await tab.textContent('#journal-body p')).toContain(`Showing ${first} of 80 kept`);
      await tab.click('#journal-body button');
      await tab.locator('#journal-body li').nth(first).waitFor(WAIT);
      const second = await shown();
      expect(second).toBeLessThanOrEqual(80);
      const ids = await tab.locator('#journal-body li').evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-entry'))));
      // Newest first, each entry once.
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(new Set(ids).size).toBe(second);
    } finally {
      await tab.close();
    }
  });

  it('shows the answers of a user-defined operation: its mapping in the journal, its hits in coverage', async () => {
    const ws = `${base}/ws/stubbed`;
    const added = await fetch(`${ws}/_sandbox/stubs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'batch-query-mapping',
        name: 'batch query',
        request: { method: 'GET', urlPath: '/api/v1.0/service/dup/consultar_remessa' },
        response: { status: 200, jsonBody: { situacao: 'PROCESSADA' } },
        metadata: { sandbox: { operation: 'batch-query' } },
      }),
    });
    expect(added.status).toBe(201);
    expect((await fetch(`${ws}/api/v1.0/service/dup/consultar_remessa`)).status).toBe(200);
    const tab = await context.newPage();
    try {
      await tab.goto(`${ws}/_sandbox/ui`, WAIT);
      await tab.waitForSelector('#journal-body li code[data-mapping="batch-query-mapping"]', WAIT);
      expect(await tab.textContent('#journal-body li:has(code[data-mapping])')).toContain('batch-query');
      await tab.waitForSelector('[data-coverage="user-defined"] tr[data-mapping="batch-query-mapping"]', WAIT);
      expect(await tab.textContent('[data-coverage="user-defined"] tr[data-mapping="batch-query-mapping"]')).toContain('GET /api/v1.0/service/dup/consultar_remessa → 200');
    } finally {
      await tab.close();
    }
  });

  it('asked for nothing outside the sandbox and raised no script error; saves the screenshot', async () => {
    expect(elsewhere).toEqual([]);
    expect(pageErrors).toEqual([]);
    // The README's picture: the rejected file open, the payment history of IUD-0002 open.
    await page.click('#overview-h');
    // docs/inspector.png is tracked: it is rewritten only when missing or when UPDATE_SCREENSHOT=1,
    // so a test run leaves the work tree clean; otherwise the picture goes to a temporary folder.
    const scratch =
      process.env.UPDATE_SCREENSHOT === '1' || !existsSync('docs/inspector.png') ? undefined : mkdtempSync(join(tmpdir(), 'inspector-'));
    const target = scratch === undefined ? 'docs/inspector.png' : join(scratch, 'inspector.png');
    try {
      mkdirSync(dirname(target), { recursive: true });
      const png = await page.screenshot({ path: target, fullPage: true });
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(existsSync(target)).toBe(true);
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  });
}, 120_000);
