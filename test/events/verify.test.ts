// Verifications over HTTP and in process: counts by the journal's filters and a JSONPath condition on
// the body, the closest misses, the requests that reached no documented operation, and verify()'s
// assertion error.
import { AssertionError } from 'node:assert';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { injectClient } from './helpers.js';

const PAY = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/IUD-OPEN/payment';

async function payments(app: Parameters<typeof injectClient>[0]) {
  const c = injectClient(app);
  await DRIVERS['declare-payment.partial-accepted']?.(c); // 10, partial: 204
  await DRIVERS['declare-payment.above-open-value']?.(c); // 100.01, partial: 400
  await DRIVERS['declare-payment.total-below-open']?.(c); // 50, total: 400
  await DRIVERS['list-extract-requests.listed']?.(c);
}

const count = async (app: Parameters<typeof injectClient>[0], query: string) => {
  const res = await app.inject({ url: `/_sandbox/requests/count?${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ count: number; journal: { count: number; dropped: number }; closest?: Array<{ entry: { id: number; status: number }; missed: string[] }> }>();
};

describe('GET /_sandbox/requests/count', () => {
  it("counts by the journal's filters, the method and a JSONPath condition on the body", async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await payments(app);
    expect((await count(app, 'operation=declare-payment')).count).toBe(3);
    expect((await count(app, 'operation=declare-payment&status=4xx')).count).toBe(2);
    expect((await count(app, 'interface=bookkeeping&method=get')).count).toBe(1);
    expect((await count(app, `jsonpath=${encodeURIComponent('$.paymentValue')}&equals=10`)).count).toBe(1);
    expect((await count(app, `jsonpath=${encodeURIComponent('$[?(@.paymentValue > 20)]')}`)).count).toBe(2);
    expect((await count(app, `jsonpath=${encodeURIComponent('$.informantId')}&equals=directByDrawerHolder`)).count).toBe(3);
    expect((await count(app, `operation=declare-payment&jsonpath=${encodeURIComponent('$.isPartial')}&equals=false`)).count).toBe(1);
    expect(await count(app, 'status=204')).toMatchObject({ count: 1, journal: { count: 4, dropped: 0 } });
  });

  it('answers the closest misses with what each missed', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await payments(app);
    const body = await count(app, `operation=declare-payment&status=204&jsonpath=${encodeURIComponent('$.paymentValue')}&equals=50&closest=2`);
    expect(body.count).toBe(0);
    // One criterion missed each (the total of 50 was refused; the 10 was accepted), newest first.
    expect(body.closest?.map((m) => m.missed)).toEqual([
      ['status is 400, not 204'],
      ['$.paymentValue selects [10] in its body, not 50'],
    ]);
  });

  it('never matches a secret: bodies are counted as journaled, redacted', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    expect((await count(app, `jsonpath=${encodeURIComponent('$.token')}&equals=rc-token-1`)).count).toBe(0);
    expect((await count(app, `jsonpath=${encodeURIComponent('$.token')}&equals=${encodeURIComponent('"[redacted]"')}`)).count).toBe(1);
  });

  it.each([
    ['jsonpath=status', '/jsonpath'],
    ['jsonpath=$[', '/jsonpath'],
    [`jsonpath=${encodeURIComponent('$[?(@.a==)]')}`, '/jsonpath'],
    [`jsonpath=${encodeURIComponent('$.a]')}`, '/jsonpath'],
    [`jsonpath=$.${'a.'.repeat(600)}a`, '/jsonpath'],
    ['equals=1', '/equals'],
    ['closest=99', '/closest'],
    ['status=2x', '/status'],
  ])('refuses %s naming %s', async (query, path) => {
    const app = await testApp();
    const res = await app.inject({ url: `/_sandbox/requests/count?${query}` });
    expect(res.statusCode).toBe(400);
    if (query.startsWith('jsonpath=$')) expect(res.json<{ message: string }>().message).toMatch(/^\/jsonpath: is not a JSONPath expression: it /);
    expect(res.json<{ details: Array<{ path: string }> }>().details.map((d) => d.path)).toContain(path);
  });

  it('counts per workspace', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app, '/ws/a'));
    expect((await app.inject({ url: '/ws/a/_sandbox/requests/count' })).json()).toMatchObject({ count: 1 });
    expect((await app.inject({ url: '/ws/b/_sandbox/requests/count' })).json()).toMatchObject({ count: 0 });
  });
});

describe('GET /_sandbox/requests/unmatched', () => {
  it('lists the 501s, the 404s and unreadable paths, newest first, each with the operation it nearly was', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await app.inject({ method: 'PUT', url: PAY.replace('/payment', '/payments'), payload: {} });
    await app.inject({ url: '/api/v1/service/dup/registrar_documentos' });
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));
    const res = await app.inject({ url: '/_sandbox/requests/unmatched' });
    expect(res.statusCode).toBe(200);
    const { unmatched } = res.json<{
      unmatched: Array<{ entry: { status: number; path: string }; nearest: { operation: string; differences: string[] } | null }>;
    }>();
    expect(unmatched.map((u) => [u.entry.status, u.nearest?.operation])).toEqual([
      [404, 'register-documents'],
      [501, 'declare-payment'],
    ]);
    expect(unmatched[1]?.nearest?.differences).toEqual(['your path has "payments" where the operation has "payment"']);
  });
});

describe('sandbox.verify, in process', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('passes when the count is as expected, and throws an AssertionError showing the closest requests when not', async () => {
    sandbox = await startSandbox({ fixtures: COVERAGE_FIXTURES });
    await payments(sandbox.app);
    await sandbox.verify({ operation: 'declare-payment', status: 204 });
    await sandbox.verify({ operation: 'declare-payment' }, { times: 3 });
    await sandbox.verify({ operation: 'declare-payment', jsonpath: '$.paymentValue', equals: 10 }, { times: { atLeast: 1, atMost: 1 } });
    expect(await sandbox.count({ operation: 'declare-payment', status: '4xx' })).toBe(2);

    const err = await sandbox
      .verify({ operation: 'declare-payment', jsonpath: '$.paymentValue', equals: 75 }, { times: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssertionError);
    const message = (err as AssertionError).message;
    expect(message).toContain('expected exactly 1 request(s) matching');
    expect(message).toContain('found 0');
    expect(message).toContain('closest requests:');
    expect(message).toMatch(/#\d+ PUT \/api\/bookkeeping\/.*\/payment -> 204: \$\.paymentValue selects \[10\] in its body, not 75/);
    expect((err as AssertionError).actual).toBe(0);

    const none = await sandbox.verify({ operation: 'list-extract-requests' }, { times: 0 }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(AssertionError);
    expect(await sandbox.unmatched()).toEqual([]);
  });
});
