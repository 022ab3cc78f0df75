// Subscriptions whose payload is shaped by a Handlebars template (runtime/templates.ts): the payload a
// user knows the real service sends, rendered over the event with the helpers every sandbox template
// has, `inspect` included; signed like any message (verified by the standardwebhooks library).
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { injectClient } from './helpers.js';
import { Receiver } from './receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const receivers: Receiver[] = [];
afterEach(async () => {
  while (receivers.length > 0) await receivers.pop()?.close();
});

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

const pay = (app: FastifyInstance) => DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));

interface Delivery {
  id: string;
  status: string;
  attempts: unknown[];
  error: string | null;
}

async function deliveries(app: FastifyInstance, id: string): Promise<Delivery[]> {
  const res = await app.inject({ url: `/_sandbox/subscriptions/${id}/deliveries` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ deliveries: Delivery[] }>().deliveries;
}

async function subscribe(app: FastifyInstance, payload: Record<string, unknown>): Promise<{ id: string; template: string }> {
  const res = await app.inject({ method: 'POST', url: '/_sandbox/subscriptions', payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('a subscription with a template', () => {
  it('sends the payload the template renders over the event, inspect reading the state the event left, signed', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const template =
      '{"kind":"{{event.type}}","bill":"{{event.data.uid}}","open":{{event.data.openValueAfter}},' +
      '"payments":{{#with (inspect (concat \'/\' event.subject))}}{{payments.length}}{{/with}} }';
    expect(await subscribe(app, { url: r.url, types: ['sandbox.bookkeeping.*'], secret: SECRET, template })).toMatchObject({ template });
    await pay(app);
    await pay(app);
    await r.until(2);
    // Each payload as rendered when its event was emitted: the first saw one payment, the second two.
    expect(r.verified(SECRET)).toEqual([
      { kind: 'sandbox.bookkeeping.payment.declared', bill: expect.any(String), open: 90, payments: 1 },
      { kind: 'sandbox.bookkeeping.payment.declared', bill: expect.any(String), open: 80, payments: 2 },
    ]);
    expect(r.received[0]?.headers['content-type']).toBe('application/json');
  });

  it('is refused with a 400 at /template when it does not parse, and nothing is created', async () => {
    const app = await testApp();
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/subscriptions',
      payload: { url: 'http://127.0.0.1:9/hooks', types: ['*'], template: '{"a":"{{#if event.type}}"}' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: Array<{ path: string; message: string }> }>().details).toEqual([
      expect.objectContaining({ path: '/template', message: expect.stringContaining('does not parse') }),
    ]);
    expect((await app.inject({ url: '/_sandbox/subscriptions' })).json()).toEqual({ subscriptions: [] });
  });

  it.each([
    // A brace right after }} would read as Handlebars' }}}: a space keeps them apart.
    { when: 'a helper fails on the event', template: "{\"x\": {{inspect '/no/such/view'}} }", error: /template failed.*not an inspection call/ },
    { when: 'what it renders is not JSON', template: 'paid {{event.data.uid}}', error: /not JSON/ },
    {
      when: 'it passes the limit of a render',
      template: '{"x": "{{#each (range 0 10000)}}{{#each (range 0 3000)}}x{{/each}}{{/each}}" }',
      error: /template failed.*100000 block iterations/,
    },
  ])('when $when, that delivery fails without an attempt, saying why; it cannot be redelivered', async ({ template, error }) => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    const sub = await subscribe(app, { url: r.url, types: ['*'], template });
    await pay(app);
    const [delivery] = await deliveries(app, sub.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: [], error: expect.stringMatching(error) });
    const again = await app.inject({ method: 'POST', url: `/_sandbox/subscriptions/${sub.id}/deliveries/${delivery?.id}/redeliver` });
    expect(again.statusCode).toBe(409);
    expect(r.received).toHaveLength(0);
    // The request that caused the event was answered as ever.
    expect((await app.inject({ url: '/_sandbox/requests?limit=1' })).json()).toMatchObject({ entries: [{ status: 204 }] });
  });

  it('writes a value as JSON with toJson: the payload carries the event data as the feed shows it', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const r = await receiver();
    await subscribe(app, { url: r.url, types: ['sandbox.bookkeeping.payment.declared'], secret: SECRET, template: '{"id":{{toJson event.id}},"data":{{toJson event.data}} }' });
    await pay(app);
    await r.until(1);
    const feed = (await app.inject({ url: '/_sandbox/events?type=sandbox.bookkeeping.payment.declared' })).json<{
      events: Array<{ id: string; data: unknown }>;
    }>();
    const [event] = feed.events;
    expect(r.verified(SECRET)).toEqual([{ id: event?.id, data: event?.data }]);
  });
});
