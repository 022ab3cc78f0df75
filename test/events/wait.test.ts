// POST /_sandbox/wait and sandbox.waitFor: waits on an event or on an inspection view that hold as
// soon as they can, waits that time out saying what they saw, refusals naming the field, isolation.
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox, WaitTimeoutError } from '../../src/index.js';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { injectClient, lastEventId } from './helpers.js';

const wait = (body: unknown, base = '') => ({ method: 'POST' as const, url: `${base}/_sandbox/wait`, payload: body as object });

async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

interface WaitAnswer {
  held: boolean;
  message: string;
  events?: Array<{ type: string; subject: string; id: string }>;
  inspection?: { status: number; selected: unknown[]; body: unknown };
}

describe('POST /_sandbox/wait on an event', () => {
  it('holds when the event comes, with the matching events', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const after = String(await lastEventId(app));
    let answered = false;
    const waiting = app
      .inject(wait({ event: { type: 'sandbox.bookkeeping.payment.declared', after }, timeout: '120s' }))
      .then((res) => {
        answered = true;
        return res;
      });
    await turns();
    expect(answered).toBe(false);
    await DRIVERS['declare-payment.total-accepted']?.(injectClient(app));
    const res = await waiting;
    expect(res.statusCode).toBe(200);
    const body = res.json<WaitAnswer>();
    expect(body).toMatchObject({ held: true, message: expect.stringContaining('sandbox.bookkeeping.payment.declared') });
    expect(body.events?.map((e) => e.subject)).toEqual(['bookkeeping/tenants/11222333000181/trade-bills/IUD-OPEN']);
  });

  it('holds at once when a matching event is already in the feed (no race with a fast operation)', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await DRIVERS['register-documents.registered']?.(injectClient(app));
    const res = await app.inject(wait({ event: { type: ['sandbox.registry.*'], subject: 'registry/documents/*' }, timeout: '120s' }));
    expect(res.json<WaitAnswer>()).toMatchObject({ held: true });
  });

  it('times out with a 200 that says what it waited for and which events came instead', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const after = String(await lastEventId(app));
    const waiting = app.inject(wait({ event: { type: 'sandbox.receivables.import.processed', after }, timeout: '300ms' }));
    await turns();
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));
    const res = await waiting;
    expect(res.statusCode).toBe(200);
    const body = res.json<WaitAnswer>();
    expect(body.held).toBe(false);
    expect(body.message).toContain(`no event of type sandbox.receivables.import.processed after event ${after} within 300 ms`);
    expect(body.message).toContain('sandbox.bookkeeping.payment.declared (bookkeeping/tenants/11222333000181/trade-bills/IUD-OPEN)');
    expect(body.events?.map((e) => e.type)).toEqual(['sandbox.bookkeeping.payment.declared']);
  });
});

describe('POST /_sandbox/wait on an inspection view', () => {
  it('holds once the view reaches the state: read again after every event, not on a timer', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const c = injectClient(app);
    await c.send('POST', '/_sandbox/clock', { body: { now: '2026-11-20T10:00:00Z', freeze: true } });
    const res = await DRIVERS['register-loan-bond.registered-signed']?.(c);
    const id = (JSON.parse((res as { body: string }).body) as { registros: Array<{ codigo_identificador: string }> }).registros[0]
      ?.codigo_identificador;
    const waiting = app.inject(
      wait({ inspect: { path: `/_sandbox/loanbond/registrations/${id}`, jsonpath: '$.state', equals: 'signatures-complete' }, timeout: '120s' }),
    );
    await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    const body = (await waiting).json<WaitAnswer>();
    expect(body).toMatchObject({ held: true, inspection: { status: 200, selected: ['signatures-complete'] } });
  });

  it('a filter at the root applies to the view itself, as WireMock reads it', async () => {
    const app = await testApp();
    const res = await app.inject(wait({ inspect: { path: '/_sandbox/clock', jsonpath: '$[?(@.frozen == false)]' }, timeout: '1s' }));
    expect(res.json<WaitAnswer>()).toMatchObject({ held: true });
  });

  it('times out saying what the view answered instead', async () => {
    const app = await testApp();
    const res = await app.inject(
      wait({ inspect: { path: '/_sandbox/clock', jsonpath: '$.frozen', equals: true }, timeout: '100ms' }),
    );
    const body = res.json<WaitAnswer>();
    expect(body.held).toBe(false);
    expect(body.message).toBe('GET /_sandbox/clock did not reach $.frozen selecting true within 100 ms: it answered 200 and $.frozen selected [false]');
    const missing = await app.inject(
      wait({ inspect: { path: '/_sandbox/receivables/imports/CNAB-NONE', jsonpath: '$.status', equals: 'processed' }, timeout: '100ms' }),
    );
    expect(missing.json<WaitAnswer>()).toMatchObject({ held: false, message: expect.stringContaining('it answered 404') });
  });

  it('is told of a workspace removal while it waits, and keeps nothing once it ended', async () => {
    const app = await testApp();
    const { events } = app.runtime;
    const during: number[] = [];
    const waits = [1, 2, 3].map(() =>
      app.inject(wait({ inspect: { path: '/_sandbox/clock', jsonpath: '$.frozen', equals: true }, timeout: '50ms' })),
    );
    while (during.length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      if (events.toTell > 0) during.push(events.toTell);
    }
    const answers = await Promise.all(waits);
    expect(answers.map((r) => r.json<WaitAnswer>().held)).toEqual([false, false, false]);
    expect(during[0]).toBeGreaterThan(0);
    // A long-lived workspace must not keep a teller per past wait.
    expect(events.toTell).toBe(0);
  });
});

describe('refused waits', () => {
  it.each([
    [{ timeout: '1s' }, ''],
    [{ event: {}, inspect: { path: '/_sandbox/clock', jsonpath: '$.now' } }, ''],
    [{ event: {}, timeout: 'later' }, '/timeout'],
    [{ event: {}, timeout: '3m' }, '/timeout'],
    [{ event: { after: 'x' } }, '/event/after'],
    [{ event: { after: '99' } }, '/event/after'],
    [{ event: { kind: 'x' } }, '/event/kind'],
    [{ inspect: { path: '/_sandbox/clock', jsonpath: 'now' } }, '/inspect/jsonpath'],
    [{ inspect: { path: '/_sandbox/clock', jsonpath: '$[' } }, '/inspect/jsonpath'],
    [{ inspect: { path: '/_sandbox/clock', jsonpath: '$[?(@.frozen ==)]' } }, '/inspect/jsonpath'],
    [{ inspect: { path: '/api/v1.0/service/dup/registrar_documentos', jsonpath: '$' } }, '/inspect/path'],
    [{ inspect: { path: '/_sandbox/events?wait=60s', jsonpath: '$' } }, '/inspect/path'],
  ])('%j is a 400 naming %s', async (body, path) => {
    const app = await testApp();
    const res = await app.inject(wait(body));
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: Array<{ path: string }> }>().details.map((d) => d.path)).toContain(path);
  });
});

describe('waits per workspace', () => {
  it('a wait in one workspace is not held by an event of another', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const waiting = app.inject(wait({ event: { type: 'sandbox.bookkeeping.payment.declared' }, timeout: '300ms' }, '/ws/b'));
    await turns();
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app, '/ws/a'));
    expect((await waiting).json<WaitAnswer>()).toMatchObject({ held: false, message: expect.stringContaining('no event came at all') });
  });
});

describe('sandbox.waitFor, in process', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('resolves with the answer when it holds, and throws WaitTimeoutError with what it saw when it does not', async () => {
    sandbox = await startSandbox({ fixtures: COVERAGE_FIXTURES });
    const ws = sandbox.workspace('w1');
    const { next } = await ws.events();
    const held = ws.waitFor({ event: { type: 'sandbox.bookkeeping.payment.declared', after: next }, timeout: '120s' });
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(sandbox.app, '/ws/w1'));
    expect((await held).events?.[0]?.data).toMatchObject({ openValueAfter: 90 });
    const refused = await ws
      .waitFor({ inspect: { path: '/_sandbox/bookkeeping/tenants/11222333000181/trade-bills/IUD-OPEN', jsonpath: '$.status', equals: 'paid' }, timeout: '100ms' })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(WaitTimeoutError);
    expect((refused as WaitTimeoutError).message).toContain('$.status selected ["partially-paid"]');
  });
});

describe('waits and long polls in a workspace being removed', () => {
  it.each([
    ['an event wait', { method: 'POST' as const, url: '/ws/lp/_sandbox/wait', payload: { event: { type: 'sandbox.bookkeeping.payment.declared' }, timeout: '20s' } }],
    ['a view wait', { method: 'POST' as const, url: '/ws/lp/_sandbox/wait', payload: { inspect: { path: '/_sandbox/clock', jsonpath: '$.frozen', equals: true }, timeout: '20s' } }],
    ['a long poll', { method: 'GET' as const, url: '/ws/lp/_sandbox/events?wait=20s' }],
  ])('%s is answered at once that the workspace is being removed, and the removal is not held by it', async (_name, request) => {
    const app = await testApp();
    expect((await app.inject({ method: 'POST', url: '/_sandbox/workspaces', payload: { name: 'lp' } })).statusCode).toBe(201);
    const waiting = app.inject(request);
    await turns(20);
    const started = performance.now();
    const removed = await app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/lp' });
    const tookMs = performance.now() - started;
    expect(removed.statusCode).toBe(200);
    // The removal waits up to 5 s for requests in flight: a wait must not be one that holds it.
    expect(tookMs).toBeLessThan(2000);
    const res = await waiting;
    expect(res.statusCode).toBe(409);
    expect(res.json<{ message: string }>().message).toMatch(/workspace "lp" is being removed/);
  });
});
