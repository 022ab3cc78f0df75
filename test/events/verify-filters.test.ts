// A verification whose filter names an operation or a method that cannot exist would count 0 and pass
// a check of "none was sent": such a filter is refused, naming the parameter and where the valid
// values are. GET /_sandbox/operations gives each operation's id, the value those filters take.
import { describe, expect, it } from 'vitest';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { injectClient } from './helpers.js';

type Problem = { statusCode: number; message: string; details: Array<{ path: string; message: string }> };

describe('the journal filters of the verifications', () => {
  it.each([
    ['requests/count?operation=declare-paymnet', '/operation', 'did you mean "declare-payment"?'],
    ['requests?operation=declare-paymnet', '/operation', 'did you mean "declare-payment"?'],
    ['requests/count?operation=something-else-entirely', '/operation', 'GET /_sandbox/operations'],
    ['requests/count?method=PUTT', '/method', 'did you mean "PUT"?'],
    ['requests/count?method=FROB', '/method', 'GET, HEAD, POST, PUT, PATCH, DELETE'],
  ])('refuses %s with a 400 naming %s', async (call, path, hint) => {
    const app = await testApp();
    const res = await app.inject({ url: `/_sandbox/${call}` });
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json<Problem>();
    expect(body.details).toHaveLength(1);
    expect(body.details[0]?.path).toBe(path);
    expect(body.details[0]?.message).toContain(hint);
  });

  it('takes every id of GET /_sandbox/operations, documented and named only, and a method in any case', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));
    const { operations } = (await app.inject({ url: '/_sandbox/operations' })).json<{ operations: Array<{ id: string; status: string }> }>();
    expect(operations.map((o) => o.id)).toEqual(app.interfaces.operations.map((o) => o.id));
    expect(new Set(operations.map((o) => o.status))).toEqual(new Set(['implemented', 'named-only']));
    for (const { id } of operations) {
      const res = await app.inject({ url: `/_sandbox/requests/count?operation=${id}` });
      expect(res.statusCode, id).toBe(200);
      expect(res.json<{ count: number }>().count, id).toBe(id === 'declare-payment' ? 1 : 0);
    }
    for (const method of ['PUT', 'put', 'OPTIONS']) {
      expect((await app.inject({ url: `/_sandbox/requests/count?method=${method}` })).statusCode, method).toBe(200);
    }
    // The journal names the operation by the same id.
    const { entries } = (await app.inject({ url: '/_sandbox/requests' })).json<{ entries: Array<{ operation: string }> }>();
    expect(operations.map((o) => o.id)).toContain(entries[0]?.operation);
  });
});
