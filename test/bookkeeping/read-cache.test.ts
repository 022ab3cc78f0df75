// The extract page and the credential lookups are answered from the store's read cache until a row
// changes (src/store/read-cache.ts). These tests read after every kind of write and compare with
// what the store holds, read without the cache: a cached answer must never be stale.
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUTH,
  bookkeepingApp,
  declaration,
  extractRequests,
  extractUrl,
  OTHER_TENANT,
  OTHER_TOKEN,
  pay,
  TENANT,
  TOKEN,
} from './helpers.js';

interface ListBody {
  extractTradeReceivables: Array<{ extractTradeReceivableRequestId: number }>;
  pagination: { totalItems: number };
}

const ids = (body: unknown) =>
  (body as ListBody).extractTradeReceivables.map((r) => r.extractTradeReceivableRequestId);

/** Sorted by id: the helper's registeredAt restarts with every batch. */
async function list(app: FastifyInstance, query = 'sortBy=extractTradeReceivableRequestId', headers = AUTH, tenantId = TENANT) {
  const res = await app.inject({ url: extractUrl(tenantId, query), headers });
  return { status: res.statusCode, body: res.json() as unknown, text: res.body };
}

async function control(app: FastifyInstance, method: 'POST' | 'DELETE', url: string, payload?: object) {
  const res = await app.inject({ method, url: `/_sandbox${url}`, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as unknown;
}

/** The answer the route must give, read from the store without the cache. */
function expected(app: FastifyInstance, token: string, tenantId: string, page: number, pageSize: number) {
  const store = app.runtime.store.bookkeeping;
  const userId = store.userIdByToken(token);
  if (userId === undefined) return { status: 401 };
  if (!store.userHasTenant(userId, tenantId)) return { status: 403 };
  const total = store.extractRequestCount(tenantId);
  const items = store.extractPage(
    { tenantId, sortBy: 'protocolNumber', desc: true, offset: (page - 1) * pageSize, limit: pageSize },
    total,
  );
  return {
    status: 200,
    body: {
      extractTradeReceivables: items,
      pagination: { page, size: pageSize, totalItems: total, totalPages: Math.ceil(total / pageSize) },
    },
  };
}

describe('extract pages and credentials are never answered stale', () => {
  it('shows extract requests added by fixtures on the next read of a page read before', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 3) });
    expect(ids((await list(app)).body)).toEqual([1, 2, 3]);
    expect(ids((await list(app)).body)).toEqual([1, 2, 3]);
    await control(app, 'POST', '/fixtures', { bookkeeping: { extractRequests: extractRequests(TENANT, 2, 4) } });
    const after = await list(app);
    expect(ids(after.body)).toEqual([1, 2, 3, 4, 5]);
    expect((after.body as ListBody).pagination.totalItems).toBe(5);
  });

  it('answers 401 for a token read before a reset removed its user, and 200 once fixtures bring it back', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 2) });
    expect((await list(app)).status).toBe(200);
    await control(app, 'POST', '/reset', {});
    expect((await list(app)).status).toBe(401);
    await control(app, 'POST', '/fixtures', {
      bookkeeping: { users: [{ userId: 1, accessToken: TOKEN, tenants: [TENANT] }] },
    });
    const back = await list(app);
    expect(back.status).toBe(200);
    expect(ids(back.body)).toEqual([]);
  });

  it('answers 401 before a fixture adds the token\'s user and 200 right after, while another user stays 403', async () => {
    const app = await bookkeepingApp();
    const other = { authorization: `Bearer ${OTHER_TOKEN}` };
    expect((await list(app, undefined, other, TENANT)).status).toBe(403);
    expect((await list(app, undefined, { authorization: 'Bearer bk-token-3' }, TENANT)).status).toBe(401);
    await control(app, 'POST', '/fixtures', {
      bookkeeping: { users: [{ userId: 3, accessToken: 'bk-token-3', tenants: [TENANT] }] },
    });
    expect((await list(app, undefined, { authorization: 'Bearer bk-token-3' }, TENANT)).status).toBe(200);
    expect((await list(app, undefined, other, TENANT)).status).toBe(403);
  });

  it('shows the reset fixtures instead of the page read before the reset', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 4) });
    expect(ids((await list(app)).body)).toEqual([1, 2, 3, 4]);
    await control(app, 'POST', '/reset', {
      fixtures: {
        bookkeeping: {
          users: [{ userId: 1, accessToken: TOKEN, tenants: [TENANT] }],
          extractRequests: extractRequests(TENANT, 1, 50),
        },
      },
    });
    expect(ids((await list(app)).body)).toEqual([50]);
  });

  it('shows the snapshot\'s page after a restore, whichever page was read in between', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 2) });
    await control(app, 'POST', '/snapshots', { name: 'two' });
    await control(app, 'POST', '/fixtures', { bookkeeping: { extractRequests: extractRequests(TENANT, 2, 3) } });
    expect(ids((await list(app)).body)).toEqual([1, 2, 3, 4]);
    await control(app, 'POST', '/snapshots/two/restore');
    expect(ids((await list(app)).body)).toEqual([1, 2]);
    await control(app, 'POST', '/snapshots', { name: 'empty-user' });
    await control(app, 'POST', '/reset', {});
    expect((await list(app)).status).toBe(401);
    await control(app, 'POST', '/snapshots/two/restore');
    expect(ids((await list(app)).body)).toEqual([1, 2]);
  });

  it('keeps answering the same page, byte for byte, across payments, clock changes and writes of other interfaces', async () => {
    const app = await bookkeepingApp({
      extractRequests: extractRequests(TENANT, 3),
      tradeBills: [{ tenantId: TENANT, uid: 'B-1', amount: 100 }],
    });
    const before = await list(app, 'pageSize=2&sortBy=protocolNumber&desc=true');
    expect((await pay(app, 'B-1', declaration(10, true))).statusCode).toBe(204);
    await control(app, 'POST', '/clock', { now: '2027-01-01T00:00:00Z', freeze: true });
    await control(app, 'POST', '/fixtures', {
      registry: { participants: [{ participantId: 'P-1', accessToken: 'rg-1' }] },
      receivables: { funds: [{ fundCnpj: OTHER_TENANT, token: 'rc-1' }] },
    });
    const after = await list(app, 'pageSize=2&sortBy=protocolNumber&desc=true');
    expect(after.text).toBe(before.text);
    expect(after).toEqual({ ...before, body: expected(app, TOKEN, TENANT, 1, 2).body });
    // The payment itself is visible where it shows: the bill's open value.
    expect(app.runtime.store.bookkeeping.tradeBill(TENANT, 'B-1')?.openCents).toBe(9000);
  });

  it('after any sequence of writes, every extract answer equals the store read without the cache', async () => {
    const app = await bookkeepingApp({ tradeBills: [{ tenantId: TENANT, uid: 'B-1', amount: 1000 }] });
    let nextId = 1;
    let nextUser = 10;
    const tenant = fc.constantFrom(TENANT, OTHER_TENANT);
    const write = fc.oneof(
      fc.record({ kind: fc.constant('extracts' as const), tenant, n: fc.integer({ min: 1, max: 4 }) }),
      fc.record({
        kind: fc.constant('user' as const),
        token: fc.constantFrom('bk-token-3', 'bk-token-4'),
        tenants: fc.subarray([TENANT, OTHER_TENANT]),
      }),
      fc.record({ kind: fc.constant('reset' as const), keepUsers: fc.boolean() }),
      fc.record({ kind: fc.constantFrom('save' as const, 'restore' as const) }),
      fc.record({ kind: fc.constant('pay' as const) }),
      fc.record({ kind: fc.constant('participant' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), async (writes) => {
        await control(app, 'POST', '/reset', {
          fixtures: {
            bookkeeping: {
              users: [
                { userId: 1, accessToken: TOKEN, tenants: [TENANT] },
                { userId: 2, accessToken: OTHER_TOKEN, tenants: [OTHER_TENANT] },
              ],
              tradeBills: [{ tenantId: TENANT, uid: 'B-1', amount: 1000 }],
            },
          },
        });
        for (const w of writes) {
          let res: { statusCode: number } | undefined;
          if (w.kind === 'extracts') {
            const rows = extractRequests(w.tenant, w.n, nextId);
            nextId += w.n;
            res = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { bookkeeping: { extractRequests: rows } } });
          } else if (w.kind === 'user') {
            const user = { userId: nextUser++, accessToken: w.token, tenants: w.tenants };
            // A token already taken is refused: that write changes nothing, which is checked too.
            res = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { bookkeeping: { users: [user] } } });
          } else if (w.kind === 'reset') {
            const users = w.keepUsers ? [{ userId: 1, accessToken: TOKEN, tenants: [TENANT, OTHER_TENANT] }] : [];
            res = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: { bookkeeping: { users } } } });
          } else if (w.kind === 'save') {
            res = await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 's' } });
          } else if (w.kind === 'restore') {
            res = await app.inject({ method: 'POST', url: '/_sandbox/snapshots/s/restore' });
          } else if (w.kind === 'pay') {
            res = await pay(app, 'B-1', declaration(0.01, true));
          } else {
            res = await app.inject({
              method: 'POST',
              url: '/_sandbox/fixtures',
              payload: { registry: { participants: [{ participantId: `P-${nextUser}`, accessToken: `rg-${nextUser++}` }] } },
            });
          }
          expect(res.statusCode).toBeLessThan(500);
          for (const token of [TOKEN, OTHER_TOKEN, 'bk-token-3']) {
            for (const tenantId of [TENANT, OTHER_TENANT]) {
              for (const [page, pageSize] of [
                [1, 3],
                [2, 2],
              ] as const) {
                const got = await list(
                  app,
                  `page=${page}&pageSize=${pageSize}&sortBy=protocolNumber&desc=true`,
                  { authorization: `Bearer ${token}` },
                  tenantId,
                );
                const want = expected(app, token, tenantId, page, pageSize);
                expect(got.status).toBe(want.status);
                if (want.body) expect(got.body).toEqual(want.body);
              }
            }
          }
        }
        await app.inject({ method: 'DELETE', url: '/_sandbox/snapshots/s' });
      }),
      { numRuns: 30 },
    );
  });
});
