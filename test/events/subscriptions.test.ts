// Subscriptions over HTTP, with a receiver in the test that verifies every message with the
// standardwebhooks library: signed deliveries, generated secrets never shown again, retries driven by
// the sandbox clock, each fault switch, a receiver that hangs, the delivery log and redelivery,
// refusals naming the field, isolation per workspace.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { LogCapture, testApp } from '../helpers.js';
import { injectClient } from './helpers.js';
import { Receiver } from './receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PAYMENT = 'sandbox.bookkeeping.payment.declared';

const receivers: Receiver[] = [];
afterEach(async () => {
  while (receivers.length > 0) await receivers.pop()?.close();
});

async function receiver(behaviour?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const r = await new Receiver(behaviour).start();
  receivers.push(r);
  return r;
}

interface Attempt {
  n: number;
  status: number | null;
  ok: boolean;
  error: string | null;
  response: string | null;
  responseCutOff: boolean;
  fault: string | null;
  redelivery: boolean;
}
interface Delivery {
  id: string;
  eventId: string;
  type: string;
  webhookId: string;
  status: string;
  attempts: Attempt[];
  nextAttemptAt: string | null;
}

async function subscribe(app: FastifyInstance, body: Record<string, unknown>, base = '') {
  const res = await app.inject({ method: 'POST', url: `${base}/_sandbox/subscriptions`, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; secret?: string }>();
}

async function deliveries(app: FastifyInstance, id: string, base = ''): Promise<Delivery[]> {
  const res = await app.inject({ url: `${base}/_sandbox/subscriptions/${id}/deliveries` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ deliveries: Delivery[] }>().deliveries;
}

/**
 * Reads the delivery log until `done` holds. An attempt is logged once the receiver's answer is read,
 * a moment after the receiver saw the request; the loop is bounded by count, not by a time budget.
 */
async function logUntil(app: FastifyInstance, id: string, done: (d: Delivery[]) => boolean, base = ''): Promise<Delivery[]> {
  for (let i = 0; i < 2000; i++) {
    const list = await deliveries(app, id, base);
    if (done(list)) return list;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the delivery log never reached the state: ${JSON.stringify(await deliveries(app, id, base))}`);
}

async function turns(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

const pay = (app: FastifyInstance, base = '') => DRIVERS['declare-payment.partial-accepted']?.(injectClient(app, base));
const advance = (app: FastifyInstance, by: string) => app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: by } });
const freeze = (app: FastifyInstance) =>
  app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T10:00:00Z', freeze: true } });

describe('signed deliveries', () => {
  it('POSTs each matching event as a CloudEvent, signed per Standard Webhooks (verified by the standardwebhooks library)', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: ['sandbox.bookkeeping.*'], secret: SECRET });
    expect(sub.secret).toBeUndefined();
    await DRIVERS['register-documents.registered']?.(injectClient(app)); // another type: not sent
    await pay(app);
    await r.until(1);
    const [payload] = r.verified(SECRET) as Array<{ type: string; specversion: string; data: unknown }>;
    expect(payload).toMatchObject({ specversion: '1.0', type: PAYMENT, data: { openValueAfter: 90 } });
    const [first] = r.received;
    expect(first?.headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
    expect(first?.headers['webhook-id']).toMatch(new RegExp(`^msg_${sub.id}_\\d+$`));
    // Signed with another secret, the same message fails verification.
    expect(() => r.verified('whsec_aW5jb3JyZWN0LXNlY3JldC1vZi0yNC1ieXRlcw==')).toThrow(/signature/i);
    const log = await logUntil(app, sub.id, (d) => d[0]?.status === 'delivered');
    expect(log).toEqual([
      expect.objectContaining({ type: PAYMENT, webhookId: first?.headers['webhook-id'], attempts: [expect.objectContaining({ n: 1, status: 204, ok: true })] }),
    ]);
    expect(r.received).toHaveLength(1);
  });

  it('generates a secret when none is given: answered once at creation, never again, never logged', async () => {
    const capture = new LogCapture();
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, logger: { level: 'trace', stream: capture } });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: ['*'] });
    const secret = sub.secret ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await pay(app);
    await r.until(1);
    expect(r.verified(secret)).toHaveLength(1);
    const shown = [
      (await app.inject({ url: '/_sandbox/subscriptions' })).body,
      (await app.inject({ url: `/_sandbox/subscriptions/${sub.id}` })).body,
      (await app.inject({ url: `/_sandbox/subscriptions/${sub.id}/deliveries` })).body,
      (await app.inject({ url: '/_sandbox/requests' })).body,
      (await app.inject({ url: '/_sandbox/events' })).body,
    ].join('\n');
    const key = secret.slice('whsec_'.length);
    expect(shown).not.toContain(key);
    expect(capture.text).not.toContain(key);
    // A secret given is never shown back either.
    const given = await app.inject({ method: 'POST', url: '/_sandbox/subscriptions', payload: { url: r.url, types: ['*'], secret: SECRET } });
    expect(given.body).not.toContain(SECRET.slice(6));
    expect(capture.text).not.toContain(SECRET.slice(6));
  });
});

describe('retries on the sandbox clock', () => {
  it('a failed attempt is retried when the clock reaches the next step of the schedule, not before', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await freeze(app);
    const r = await receiver((n) => (n < 2 ? 503 : 200));
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET });
    await pay(app);
    await r.until(1);
    let log = await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 1);
    expect(log[0]).toMatchObject({
      status: 'pending',
      nextAttemptAt: '2026-11-20T10:00:05.000Z',
      attempts: [{ n: 1, status: 503, ok: false, error: 'the receiver answered 503' }],
    });
    await advance(app, 'PT4S');
    await turns();
    expect(r.received).toHaveLength(1);
    await advance(app, 'PT1S');
    await r.until(2);
    log = await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 2);
    // The second retry waits 5 minutes after the first.
    expect(log[0]?.nextAttemptAt).toBe('2026-11-20T10:05:05.000Z');
    await advance(app, 'PT5M');
    await r.until(3);
    log = await logUntil(app, sub.id, (d) => d[0]?.status === 'delivered');
    expect(log[0]?.attempts.map((a) => [a.n, a.status])).toEqual([
      [1, 503],
      [2, 503],
      [3, 200],
    ]);
    // Every attempt is the same message: same webhook-id, each signed anew.
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    expect(r.verified(SECRET)).toHaveLength(3);
  });

  it('gives up after the last retry of its schedule', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await freeze(app);
    const r = await receiver(() => 500);
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET, retrySchedule: ['PT1S'] });
    await pay(app);
    await r.until(1);
    await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 1);
    await advance(app, 'PT1S');
    const log = await logUntil(app, sub.id, (d) => d[0]?.status === 'failed');
    expect(log[0]).toMatchObject({ nextAttemptAt: null, attempts: [{ n: 1 }, { n: 2 }] });
    expect((await app.inject({ url: `/_sandbox/subscriptions/${sub.id}` })).json()).toMatchObject({
      deliveries: { pending: 0, delivered: 0, failed: 1 },
    });
  });
});

describe('faults per subscription', () => {
  it('duplicate: every message arrives twice with the same webhook-id', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET, faults: { duplicate: true } });
    await pay(app);
    await r.until(2);
    expect(r.received[0]?.headers['webhook-id']).toBe(r.received[1]?.headers['webhook-id']);
    expect(r.verified(SECRET)).toHaveLength(2);
    const log = await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 2);
    expect(log[0]?.attempts.map((a) => a.fault)).toEqual([null, 'duplicate']);
  });

  it('delay: the first attempt waits on the sandbox clock', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await freeze(app);
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET, faults: { delay: 'PT1M' } });
    await pay(app);
    await turns();
    expect(r.received).toHaveLength(0);
    expect((await deliveries(app, sub.id))[0]).toMatchObject({ status: 'pending', attempts: [], nextAttemptAt: '2026-11-20T10:01:00.000Z' });
    await advance(app, 'PT1M');
    await r.until(1);
    expect(r.verified(SECRET)).toHaveLength(1);
  });

  it('outOfOrder: the events that come due together go out newest first', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    await subscribe(app, { url: r.url, types: ['sandbox.registry.*'], secret: SECRET, faults: { outOfOrder: true } });
    await injectClient(app).send('POST', '/api/v1.0/service/dup/registrar_documentos', {
      headers: { authorization: 'Bearer rg-token-1' },
      body: { registros: [{ numeroDuplicata: '1' }, { numeroDuplicata: '2' }, { numeroDuplicata: '3' }] },
    });
    await r.until(3);
    const payloads = r.verified(SECRET) as Array<{ id: string; data: { itemIndex: number } }>;
    expect(payloads.map((p) => p.data.itemIndex)).toEqual([2, 1, 0]);
  });

  it('outOfOrder with delay: the events held by the delay are sent newest first when it ends', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await freeze(app);
    const r = await receiver();
    await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET, faults: { outOfOrder: true, delay: '10s' } });
    await pay(app);
    await pay(app);
    await advance(app, 'PT10S');
    await r.until(2);
    const payloads = r.verified(SECRET) as Array<{ data: { openValueAfter: number } }>;
    expect(payloads.map((p) => p.data.openValueAfter)).toEqual([80, 90]);
  });

  it('failFirst: the first N attempts reach the receiver and are counted failed, so the retries come', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await freeze(app);
    const r = await receiver();
    const sub = await subscribe(app, {
      url: r.url,
      types: [PAYMENT],
      secret: SECRET,
      retrySchedule: ['PT1S', 'PT1S', 'PT1S'],
      faults: { failFirst: 2 },
    });
    await pay(app);
    await r.until(1);
    await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 1);
    await advance(app, 'PT1S');
    await r.until(2);
    await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 2);
    await advance(app, 'PT1S');
    await r.until(3);
    const log = await logUntil(app, sub.id, (d) => d[0]?.status === 'delivered');
    expect(log[0]?.attempts.map((a) => [a.status, a.ok, a.fault])).toEqual([
      [204, false, 'fail-first'],
      [204, false, 'fail-first'],
      [204, true, null],
    ]);
    expect(log[0]?.attempts[0]?.error).toContain('failFirst');
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
  });

  it('PUT .../faults switches them for what comes due next; all off again with {}', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET });
    const on = await app.inject({ method: 'PUT', url: `/_sandbox/subscriptions/${sub.id}/faults`, payload: { duplicate: true } });
    expect(on.json()).toMatchObject({ faults: { duplicate: true, delayMs: 0, outOfOrder: false, failFirst: 0 } });
    await pay(app);
    await r.until(2);
    const off = await app.inject({ method: 'PUT', url: `/_sandbox/subscriptions/${sub.id}/faults`, payload: {} });
    expect(off.json()).toMatchObject({ faults: { duplicate: false } });
    await pay(app);
    await r.until(3);
    await logUntil(app, sub.id, (d) => d.length === 2 && d.every((x) => x.status === 'delivered'));
    expect(r.received).toHaveLength(3);
  });
});

describe('a receiver that hangs', () => {
  it('is cut off by its timeout and slows nothing else: other subscriptions and requests go on meanwhile', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const stuck = await receiver(() => 'hang');
    const healthy = await receiver();
    const slow = await subscribe(app, { url: stuck.url, types: [PAYMENT], secret: SECRET, timeout: '500ms', retrySchedule: [] });
    await subscribe(app, { url: healthy.url, types: [PAYMENT], secret: SECRET });
    await pay(app);
    await stuck.until(1);
    await healthy.until(1);
    // The stuck request is still open while the other receiver got its message and requests are answered.
    expect((await deliveries(app, slow.id))[0]).toMatchObject({ status: 'pending', attempts: [] });
    await pay(app);
    await healthy.until(2);
    const log = await logUntil(app, slow.id, (d) => d.some((x) => x.status === 'failed'));
    const failed = log.find((x) => x.status === 'failed');
    expect(failed?.attempts[0]).toMatchObject({ status: null, ok: false, error: expect.stringContaining('500 ms') });
    expect(failed?.attempts[0]?.responseCutOff).toBe(false);
  });

  it('is delivered when its 2xx came within the timeout though its body did not end: the log keeps the status and the body so far', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const streaming = await receiver(() => 'trickle');
    const sub = await subscribe(app, { url: streaming.url, types: [PAYMENT], secret: SECRET, timeout: '300ms', retrySchedule: [] });
    await pay(app);
    await streaming.until(1);
    const [delivery] = await logUntil(app, sub.id, (d) => d[0]?.status !== 'pending');
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts[0]).toMatchObject({ status: 200, ok: true, error: null, responseCutOff: true });
    expect(delivery?.attempts[0]?.response).toMatch(/^x*$/);
  });
});

describe('the delivery log and redelivery', () => {
  it('redelivers a message now, same webhook-id, new signature; the log shows the attempt', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET });
    await pay(app);
    await r.until(1);
    const [delivery] = await logUntil(app, sub.id, (d) => d[0]?.status === 'delivered');
    const res = await app.inject({ method: 'POST', url: `/_sandbox/subscriptions/${sub.id}/deliveries/${delivery?.id}/redeliver` });
    expect(res.statusCode).toBe(202);
    await r.until(2);
    expect(r.received[1]?.headers['webhook-id']).toBe(r.received[0]?.headers['webhook-id']);
    expect(r.verified(SECRET)).toHaveLength(2);
    const log = await logUntil(app, sub.id, (d) => d[0]?.attempts.length === 2 && d[0].status === 'delivered');
    expect(log[0]?.attempts.map((a) => a.redelivery)).toEqual([false, true]);
    const filtered = await app.inject({ url: `/_sandbox/subscriptions/${sub.id}/deliveries?status=failed` });
    expect(filtered.json()).toEqual({ deliveries: [] });
  });

  it('answers 404 for an unknown subscription or delivery, and a deleted subscription receives nothing more', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: [PAYMENT], secret: SECRET });
    expect((await app.inject({ url: '/_sandbox/subscriptions/sub_none/deliveries' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: `/_sandbox/subscriptions/${sub.id}/deliveries/99/redeliver` })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: `/_sandbox/subscriptions/${sub.id}` })).json()).toEqual({ removed: 1 });
    await pay(app);
    await turns();
    expect(r.received).toHaveLength(0);
    expect((await app.inject({ url: '/_sandbox/subscriptions' })).json()).toEqual({ subscriptions: [] });
  });
});

describe('refused subscriptions', () => {
  it.each([
    [{ url: 'not a url', types: ['*'] }, '/url'],
    [{ url: 'ftp://127.0.0.1/x', types: ['*'] }, '/url'],
    [{ url: 'http://user:pw@127.0.0.1/x', types: ['*'] }, '/url'],
    [{ types: ['*'] }, '/url'],
    [{ url: 'http://127.0.0.1/x', types: [] }, '/types'],
    [{ url: 'http://127.0.0.1/x', types: ['a b'] }, '/types/0'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], secret: 'hunter2' }, '/secret'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], secret: 'whsec_c2hvcnQ=' }, '/secret'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], timeout: '2m' }, '/timeout'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], timeout: '0s' }, '/timeout'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], retrySchedule: ['PT5S', 'soon'] }, '/retrySchedule/1'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], faults: { delay: 'P1M' } }, '/faults/delay'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], faults: { failFirst: 11 } }, '/faults/failFirst'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], faults: { reorder: true } }, '/faults/reorder'],
    [{ url: 'http://127.0.0.1/x', types: ['*'], template: 1 }, '/template'],
  ])('%j is a 400 naming %s', async (body, path) => {
    const app = await testApp();
    const res = await app.inject({ method: 'POST', url: '/_sandbox/subscriptions', payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: Array<{ path: string }> }>().details.map((d) => d.path)).toContain(path);
    // What was sent is never echoed: a secret refused stays unshown.
    if ('secret' in body) expect(res.body).not.toContain(String(body.secret));
    expect((await app.inject({ url: '/_sandbox/subscriptions' })).json()).toEqual({ subscriptions: [] });
  });
});

describe('subscriptions per workspace', () => {
  it('a subscription hears only its own workspace', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: ['*'], secret: SECRET }, '/ws/a');
    expect((await app.inject({ url: '/ws/b/_sandbox/subscriptions' })).json()).toEqual({ subscriptions: [] });
    expect((await app.inject({ url: `/ws/b/_sandbox/subscriptions/${sub.id}` })).statusCode).toBe(404);
    await pay(app, '/ws/b');
    await pay(app, '/ws/a');
    await r.until(1);
    await turns();
    const payloads = r.verified(SECRET) as Array<{ source: string }>;
    expect(payloads.map((p) => p.source)).toEqual(['/ws/a']);
  });
});
