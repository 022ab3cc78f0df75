// Conditions on numbers a client wrote otherwise than a double writes them (money with two decimals:
// 1500.50, 10.00): `=~` matches a number as Jayway's text in GET /_sandbox/requests/count, a wait on a
// view and a mapping's matchesJsonPath alike, and `equals` compares JSON numbers by their exact
// decimal value, its misses showing the values as sent.
import { AssertionError } from 'node:assert';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { COVERAGE_FIXTURES } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { stubbed } from '../stubs/helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

const TENANT_BILLS = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';
const PAY = `${TENANT_BILLS}/IUD-OPEN/payment`;
const BILL_VIEW = '/_sandbox/bookkeeping/tenants/11222333000181/trade-bills/IUD-OPEN';
const REGISTER = '/api/v1.0/service/dup/registrar_documentos';

/** A partial payment of IUD-OPEN whose paymentValue is the JSON text `value`, exactly as written. */
const paymentBody = (value: string, extra = '') =>
  `{"type":"bankSlip","informantId":"directByDrawerHolder","isPartial":true,"paymentValue":${value}${extra}}`;

async function pay(app: App, value: string, extra = ''): Promise<number> {
  const res = await app.inject({
    method: 'PUT',
    url: PAY,
    headers: { authorization: 'Bearer bk-token-1', 'content-type': 'application/json' },
    payload: paymentBody(value, extra),
  });
  return res.statusCode;
}

async function count(app: App, query: Record<string, string>) {
  const res = await app.inject({ url: `/_sandbox/requests/count?${new URLSearchParams(query).toString()}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ count: number; closest?: Array<{ missed: string[] }> }>();
}

describe('=~ on a number: Jayway\'s text, the same in a count, a wait and a mapping', () => {
  it('counts registrations by valorDuplicata =~ as Jayway reads 1500.5, 1500.50 and 10.00', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    for (const v of ['1500.5', '1500.50', '10.00']) {
      const res = await app.inject({
        method: 'POST',
        url: REGISTER,
        headers: { authorization: 'Bearer rg-token-1', 'content-type': 'application/json' },
        payload: `{"registros":[{"numeroDuplicata":"V${v}","valorDuplicata":${v}}]}`,
      });
      expect(res.statusCode, res.body).toBeLessThan(500);
    }
    const matching = async (re: string) =>
      (await count(app, { jsonpath: `$.registros[?(@.valorDuplicata =~ ${re})]` })).count;
    // Jayway reads 1500.50 as the double 1500.5 and 10.00 as 10.0, and matches their Java texts.
    expect(await matching('/1500.*/')).toBe(2);
    expect(await matching('/1500\\.5/')).toBe(2);
    expect(await matching('/1500\\.50/')).toBe(0);
    expect(await matching('/10\\.0/')).toBe(1);
    expect(await matching('/10.*/')).toBe(1);
    expect(await matching('/10/')).toBe(0);
    expect(await matching('/.*/')).toBe(3);
  });

  it("matches a mapping's matchesJsonPath the same way", async () => {
    const app = await testApp();
    const cases: Array<[string, string, boolean]> = [
      ['1500.50', '/1500.*/', true],
      ['1500.50', '/1500\\.5/', true],
      ['1500.50', '/1500\\.50/', false],
      ['10.00', '/10\\.0/', true],
      ['10.00', '/10/', false],
      ['10', '/10/', true],
      ['10', '/10\\.0/', false],
      ['1E+1', '/10\\.0/', true],
      ['12345678901234567890', '/12345678901234567890/', true],
    ];
    for (const [i, [, re]] of cases.entries())
      await stubbed(app, {
        request: { method: 'POST', urlPath: `/api/v1.0/service/dup/jp${i}`, bodyPatterns: [{ matchesJsonPath: `$[?(@.v =~ ${re})]` }] },
        response: { status: 200, body: 'matched' },
      });
    for (const [i, [value, re, matches]] of cases.entries()) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1.0/service/dup/jp${i}`,
        headers: { 'content-type': 'application/json' },
        payload: `{"v":${value}}`,
      });
      expect(res.statusCode === 200, `${value} =~ ${re}`).toBe(matches);
    }
  });

  it('holds a wait on a view as the count holds it', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    expect(await pay(app, '10.00')).toBe(204);
    const wait = async (re: string) => {
      const res = await app.inject({
        method: 'POST',
        url: '/_sandbox/wait',
        payload: { inspect: { path: BILL_VIEW, jsonpath: `$.payments[?(@.declaration.paymentValue =~ ${re})]` }, timeout: '20ms' },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ held: boolean }>().held;
    };
    expect(await wait('/10\\.0/')).toBe(true);
    expect(await wait('/10/')).toBe(false);
    const counted = await count(app, { jsonpath: '$[?(@.paymentValue =~ /10\\.0/)]' });
    expect(counted.count).toBe(1);
  });
});

describe('equals on a number: its exact decimal value', () => {
  it('counts a payment sent as 10.00 for equals 10, 10.0, 10.00 and 1E+1, and shows the miss as sent', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    expect(await pay(app, '10.00')).toBe(204);
    for (const equals of ['10', '10.0', '10.00', '1E+1', '1.000e1'])
      expect((await count(app, { operation: 'declare-payment', jsonpath: '$.paymentValue', equals })).count, equals).toBe(1);
    const miss = await count(app, { operation: 'declare-payment', jsonpath: '$.paymentValue', equals: '10.010', closest: '1' });
    expect(miss.count).toBe(0);
    expect(miss.closest?.[0]?.missed).toEqual(['$.paymentValue selects [10.00] in its body, not 10.010']);
  });

  it('tells 12345678901234567890 from 12345678901234567891, which a double would confuse', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    // Refused (no such field), and journaled as sent.
    expect(await pay(app, '10', ',"reference":12345678901234567890')).toBe(400);
    const on = (equals: string) => count(app, { jsonpath: '$.reference', equals, closest: '1' });
    expect((await on('12345678901234567890')).count).toBe(1);
    expect((await on('1.2345678901234567890E19')).count).toBe(1);
    const miss = await on('12345678901234567891');
    expect(miss.count).toBe(0);
    expect(miss.closest?.[0]?.missed).toEqual(['$.reference selects [12345678901234567890] in its body, not 12345678901234567891']);
  });

  it('compares objects and arrays by their numbers\' values too', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    expect(await pay(app, '10', ',"notes":{"a":[1.50,2],"b":"x"}')).toBe(400);
    expect((await count(app, { jsonpath: '$.notes', equals: '{"b":"x","a":[1.5,2.0]}' })).count).toBe(1);
    expect((await count(app, { jsonpath: '$.notes', equals: '{"b":"x","a":[1.5,2.01]}' })).count).toBe(0);
    expect((await count(app, { jsonpath: '$.notes', equals: '{"a":[1.5,2]}' })).count).toBe(0);
    expect((await count(app, { jsonpath: '$.notes.a', equals: '[1.5,"2"]' })).count).toBe(0);
  });

  it('shows what a wait on a view selected as the view wrote it', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    expect(await pay(app, '10.00')).toBe(204);
    const wait = (equals: string) =>
      app.inject({
        method: 'POST',
        url: '/_sandbox/wait',
        headers: { 'content-type': 'application/json' },
        payload: `{"inspect":{"path":"${BILL_VIEW}","jsonpath":"$.payments[0].declaration.paymentValue","equals":${equals}},"timeout":"20ms"}`,
      });
    expect((await wait('10.0')).json()).toMatchObject({ held: true });
    const missed = (await wait('10.50')).json<{ held: boolean; message: string }>();
    expect(missed.held).toBe(false);
    expect(missed.message).toContain('selecting 10.50 ');
    expect(missed.message).toContain('selected [10.00]');
  });
});

describe('sandbox.verify, in process, for a client that writes 10.00', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it("holds docs/events.md's example, and shows a miss as the client sent it", async () => {
    sandbox = await startSandbox({ fixtures: COVERAGE_FIXTURES });
    const res = await fetch(`${sandbox.url}${PAY}`, {
      method: 'PUT',
      headers: { authorization: 'Bearer bk-token-1', 'content-type': 'application/json' },
      body: paymentBody('10.00'),
    });
    expect(res.status).toBe(204);
    await sandbox.verify({ operation: 'declare-payment', jsonpath: '$.paymentValue', equals: 10 }, { times: 1 });
    await sandbox.workspace('default').verify({ operation: 'declare-payment', jsonpath: '$.paymentValue', equals: 10 }, { times: 1 });
    const err = await sandbox
      .verify({ operation: 'declare-payment', jsonpath: '$.paymentValue', equals: 10.5 }, { times: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssertionError);
    expect((err as AssertionError).message).toMatch(/-> 204: \$\.paymentValue selects \[10\.00\] in its body, not 10\.5/);
  });
});
