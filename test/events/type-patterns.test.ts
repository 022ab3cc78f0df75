// One rule for event type patterns, wherever a type filter is given: the feed's type parameter, an
// event wait and a subscription's types. A pattern is a type, or a type's beginning followed by one
// `*` (`*` alone: every type); anything else could match no event, so it is refused the same way in
// all three, rather than waited on for nothing.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

type Problem = { details: Array<{ path: string; message: string }> };

const subscribe = (types: unknown) => ({ method: 'POST' as const, url: '/_sandbox/subscriptions', payload: { url: 'http://127.0.0.1:9/hooks', types } });
const wait = (type: unknown) => ({ method: 'POST' as const, url: '/_sandbox/wait', payload: { event: { type }, timeout: '10ms' } });
const feed = (type: string) => ({ url: `/_sandbox/events?type=${encodeURIComponent(type)}` });

describe('event type patterns', () => {
  it.each(['a**', 'a*b', '*a', 'sandbox.*.declared', 'a b', 'sandbox.registry.**'])('%j is refused by the feed, a wait and a subscription alike', async (pattern) => {
    const app = await testApp();
    const refusals = [
      [await app.inject(feed(pattern)), '/type'],
      [await app.inject(feed(`sandbox.registry.*,${pattern}`)), '/type'],
      [await app.inject(wait(pattern)), '/event/type'],
      [await app.inject(wait(['sandbox.registry.*', pattern])), '/event/type/1'],
      [await app.inject(subscribe(['*', pattern])), '/types/1'],
    ] as const;
    for (const [res, path] of refusals) {
      expect(res.statusCode, `${path} ${res.body}`).toBe(400);
      const details = res.json<Problem>().details;
      expect(details.map((d) => d.path), res.body).toEqual([path]);
      expect(details[0]?.message).toContain(`${JSON.stringify(pattern)} is no event type pattern`);
    }
    expect((await app.inject({ url: '/_sandbox/subscriptions' })).json()).toEqual({ subscriptions: [] });
  });

  it.each(['*', 'sandbox.*', 'sandbox.registry.document.registered', 'test_kind-2.x*'])('%j is taken by all three', async (pattern) => {
    const app = await testApp();
    expect((await app.inject(feed(pattern))).statusCode).toBe(200);
    expect((await app.inject(wait(pattern))).json()).toMatchObject({ held: false });
    expect((await app.inject(subscribe([pattern]))).statusCode).toBe(201);
  });
});
