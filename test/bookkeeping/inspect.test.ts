import { describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, testApp } from '../helpers.js';
import { bookkeepingApp, declaration, extractRequests, OTHER_TENANT, pay, TENANT } from './helpers.js';

describe('bookkeeping inspection', () => {
  it('lists tenants with their users and counts', async () => {
    const app = await bookkeepingApp({
      tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 10 }],
      extractRequests: extractRequests(TENANT, 4),
    });
    const res = await app.inject({ url: '/_sandbox/bookkeeping/tenants' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      total: 2,
      tenants: [
        { tenantId: TENANT, userIds: [1], extractRequests: 4, tradeBills: 1 },
        { tenantId: OTHER_TENANT, userIds: [2], extractRequests: 0, tradeBills: 0 },
      ],
      nextCursor: null,
    });
    expect(res.body).not.toContain('bk-token');
  });

  it("lists a tenant's bills with amount, open value, status and payment count", async () => {
    const app = await bookkeepingApp({
      tradeBills: [
        { tenantId: TENANT, uid: 'IUD-2', amount: 10, openValue: 4.5, status: 'partially-paid' },
        { tenantId: TENANT, uid: 'IUD-1', amount: 10 },
      ],
    });
    expect((await pay(app, 'IUD-1', declaration(0.29, true))).statusCode).toBe(204);
    const res = await app.inject({ url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills` });
    expect(res.json()).toEqual({
      tenantId: TENANT,
      tradeBills: [
        { uid: 'IUD-1', amount: 10, openValue: 9.71, status: 'partially-paid', payments: 1 },
        { uid: 'IUD-2', amount: 10, openValue: 4.5, status: 'partially-paid', payments: 0 },
      ],
      total: 2,
      nextCursor: null,
    });
  });

  it('answers 404 for a bill the tenant does not have', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/NOPE` });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toContain('has no trade bill "NOPE"');
  });

  it('requires the admin token when one is set', async () => {
    const app = await testApp({ adminToken: 'admin-1' });
    expect((await app.inject({ url: '/_sandbox/bookkeeping/tenants' })).statusCode).toBe(401);
    const ok = await app.inject({
      url: '/_sandbox/bookkeeping/tenants',
      headers: { 'sandbox-admin-token': 'admin-1' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('describes the inspection routes and both operations in the OpenAPI document', async () => {
    const app = await testApp();
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, unknown>; 'x-sandbox-assumption'?: string }>
      >;
    };
    const trb = '/api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates';
    expect(Object.keys(doc.paths[`${trb}/extract`]?.get?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '500',
    ]);
    expect(Object.keys(doc.paths[`${trb}/{uid}/payment`]?.put?.responses ?? {}).sort()).toEqual([
      '204',
      '400',
      '401',
      '403',
      '500',
    ]);
    expect(doc.paths[`${trb}/{uid}/payment`]?.put?.['x-sandbox-assumption']).toContain('[bk-unknown-uid]');
    expect(doc.paths['/_sandbox/bookkeeping/tenants']?.get).toBeDefined();
    expect(doc.paths['/_sandbox/bookkeeping/tenants/{tenantId}/trade-bills/{uid}']?.get).toBeDefined();
  });
});

describe('bookkeeping fixtures', () => {
  it('loads demo fixtures with a few dozen extract requests in several steps and bills in every status', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const list = await app.inject({
      url: '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract?pageSize=100',
      headers: { authorization: 'Bearer bk-demo-token-7' },
    });
    const body = list.json() as {
      extractTradeReceivables: Array<{ currentStepType: string }>;
      pagination: { totalItems: number };
    };
    expect(body.pagination.totalItems).toBeGreaterThanOrEqual(24);
    expect(new Set(body.extractTradeReceivables.map((r) => r.currentStepType)).size).toBeGreaterThanOrEqual(
      3,
    );
    const bills = (
      await app.inject({ url: '/_sandbox/bookkeeping/tenants/11222333000181/trade-bills' })
    ).json() as {
      tradeBills: Array<{ status: string }>;
    };
    expect(new Set(bills.tradeBills.map((b) => b.status))).toEqual(
      new Set(['open', 'partially-paid', 'paid', 'cancelled', 'blocked']),
    );
  });

  it('refuses a trade bill whose uid is "extract"', async () => {
    const app = await testApp();
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      payload: { bookkeeping: { tradeBills: [{ tenantId: TENANT, uid: 'extract', amount: 1 }] } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: '/bookkeeping/tradeBills/0/uid', message: expect.stringContaining('"extract"') },
    ]);
  });
});
