// Amounts in events are written from their integer cents digit for digit, at every magnitude the
// sandbox accepts (money-cents): on the feed, the long poll, a wait and the webhook deliveries. Above
// about 2^50 cents a double no longer carries every cent, so an event built from one is off by a
// cent. What is checked is the JSON text as it leaves the sandbox: a JSON parser on this side would
// round the amounts again.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { Receiver } from './receiver.js';

const TENANT = '11222333000181';
const BK = { authorization: 'Bearer bk-token-1', 'content-type': 'application/json' };
const MAX = Number.MAX_SAFE_INTEGER;

/** The decimal a JSON number of `cents` cents is written as, computed on the digits (BigInt). */
function decimal(cents: number): string {
  const c = BigInt(cents);
  const units = (c / 100n).toString();
  const fraction = (c % 100n).toString().padStart(2, '0').replace(/0+$/, '');
  return fraction === '' ? units : `${units}.${fraction}`;
}

/** A bill of `amountCents` under `uid`, then a partial payment of `paidCents`; answers the payment's status. */
async function payPartially(app: FastifyInstance, uid: string, amountCents: number, paidCents: number): Promise<void> {
  const load = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    headers: { 'content-type': 'application/json' },
    payload: `{"bookkeeping":{"tradeBills":[{"tenantId":"${TENANT}","uid":"${uid}","amount":${decimal(amountCents)}}]}}`,
  });
  expect(load.statusCode, load.body).toBe(200);
  const paid = await app.inject({
    method: 'PUT',
    url: `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/${uid}/payment`,
    headers: BK,
    payload: `{"type":"bankSlip","informantId":"directByDrawerHolder","isPartial":true,"paymentValue":${decimal(paidCents)}}`,
  });
  expect(paid.statusCode, paid.body).toBe(204);
}

function expectAmounts(text: string, amountCents: number, paidCents: number): void {
  expect(text).toContain(`"paymentValue":${decimal(paidCents)},`);
  expect(text).toContain(`"openValueBefore":${decimal(amountCents)},`);
  expect(text).toContain(`"openValueAfter":${decimal(amountCents - paidCents)},`);
}

/** A bill's amount (2 cents or more) and a partial payment of it, over the whole range of cents. */
const billAndPayment = fc
  .integer({ min: 2, max: MAX })
  .chain((amount) => fc.tuple(fc.constant(amount), fc.integer({ min: 1, max: amount - 1 })));

const receivers: Receiver[] = [];
afterEach(async () => {
  while (receivers.length > 0) await receivers.pop()?.close();
});

describe('amounts in events', () => {
  it("writes the tester's case exactly: 80000000000000.01 paid of 90071992547409.91", async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await payPartially(app, 'BIG-1', 9007199254740991, 8000000000000001);
    const res = await app.inject({ url: '/_sandbox/events?type=sandbox.bookkeeping.payment.declared' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('"paymentValue":80000000000000.01,');
    expect(res.body).toContain('"openValueBefore":90071992547409.91,');
    expect(res.body).toContain('"openValueAfter":10071992547409.9,');
  });

  it('writes every amount from 0.01 to 90071992547409.91 digit for digit on the feed and the long poll', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(billAndPayment, async ([amount, paid]) => {
        n += 1;
        const last = (await app.inject({ url: '/_sandbox/events?limit=1' })).json<{ next: string }>().next;
        await payPartially(app, `P-${n}`, amount, paid);
        const polled = await app.inject({ url: `/_sandbox/events?after=${last}&wait=1s&type=sandbox.bookkeeping.*` });
        expect(polled.statusCode).toBe(200);
        expectAmounts(polled.body, amount, paid);
        const waited = await app.inject({
          method: 'POST',
          url: '/_sandbox/wait',
          payload: { event: { type: 'sandbox.bookkeeping.payment.declared', subject: `bookkeeping/tenants/${TENANT}/trade-bills/P-${n}`, after: last }, timeout: '1s' },
        });
        expect(waited.statusCode, waited.body).toBe(200);
        expectAmounts(waited.body, amount, paid);
      }),
      { numRuns: 60, examples: [[[MAX, 8000000000000001]], [[MAX, MAX - 1]], [[2 ** 50 + 3, 2 ** 50 + 1]], [[1000, 1]]] },
    );
  }, 60_000);

  it('writes them digit for digit in the CloudEvent a webhook receives', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const r = await new Receiver().start();
    receivers.push(r);
    const sub = await app.inject({
      method: 'POST',
      url: '/_sandbox/subscriptions',
      payload: { url: r.url, types: ['sandbox.bookkeeping.*'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    const cases = fc.sample(billAndPayment, { numRuns: 20, seed: 7 });
    cases.push([MAX, 8000000000000001], [MAX, MAX - 1]);
    for (const [i, [amount, paid]] of cases.entries()) await payPartially(app, `W-${i}`, amount, paid);
    await r.until(cases.length);
    for (const [i, [amount, paid]] of cases.entries()) {
      const body = r.received.find((x) => x.body.includes(`/trade-bills/W-${i}"`))?.body ?? '';
      expectAmounts(body, amount, paid);
    }
  }, 60_000);
});
