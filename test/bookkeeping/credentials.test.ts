import { describe, expect, it } from 'vitest';
import {
  AUTH,
  BASE,
  bookkeepingApp,
  declaration,
  extractRequests,
  extractUrl,
  OTHER_TENANT,
  OTHER_TOKEN,
  pay,
  TENANT,
} from './helpers.js';

const bills = [
  { tenantId: TENANT, uid: 'IUD-A', amount: 100 },
  { tenantId: OTHER_TENANT, uid: 'IUD-B', amount: 100 },
];

describe('bookkeeping credentials', () => {
  it('refuses a request without an Authorization header with 401', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extractUrl(TENANT) });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    expect(res.json().message).toContain('missing');
  });

  it('refuses an Authorization header that is not "Bearer <token>" with 401', async () => {
    const app = await bookkeepingApp();
    for (const authorization of ['bk-token-1', 'Basic bk-token-1', 'Bearer', 'Bearer a b']) {
      const res = await app.inject({ url: extractUrl(TENANT), headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json().message).toContain('Bearer <accessToken>');
    }
  });

  it('refuses an unknown bearer token with 401 and never echoes it', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({
      url: extractUrl(TENANT),
      headers: { authorization: 'Bearer secret-guess-123' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('secret-guess-123');
  });

  it('accepts the Bearer scheme in any case', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({
      url: extractUrl(TENANT),
      headers: { authorization: 'bearer bk-token-1' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('accepts one or more spaces after Bearer (RFC 6750, 1*SP) but not a tab or a second word', async () => {
    const app = await bookkeepingApp();
    for (const authorization of ['Bearer  bk-token-1', 'Bearer   bk-token-1']) {
      const res = await app.inject({ url: extractUrl(TENANT), headers: { authorization } });
      expect(res.statusCode, authorization).toBe(200);
    }
    for (const authorization of ['Bearer\tbk-token-1', 'Bearer bk-token-1 x']) {
      const res = await app.inject({ url: extractUrl(TENANT), headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
    }
  });

  it("refuses a tenant outside the user's tenants with 403", async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extractUrl(OTHER_TENANT), headers: AUTH });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  });

  it('refuses a valid but unknown tenant with 403', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extractUrl('52998224725'), headers: AUTH });
    expect(res.statusCode).toBe(403);
  });

  it('refuses a tenantId that is not 11 or 14 digits with 400 naming the path parameter', async () => {
    const app = await bookkeepingApp();
    for (const tenantId of ['1122233300018', '11.222.333/0001-81', 'ACME', '112223330001811']) {
      const res = await app.inject({ url: extractUrl(encodeURIComponent(tenantId)), headers: AUTH });
      expect(res.statusCode, tenantId).toBe(400);
      expect(res.json().details).toEqual([
        { path: '/tenantId', message: expect.stringContaining('path parameter tenantId must be a CPF') },
      ]);
    }
  });

  it('refuses a tenantId with wrong check digits with 400', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extractUrl('11222333000182'), headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toContain('check digits');
  });

  it('checks the token before the tenantId, and the tenantId before access', async () => {
    const app = await bookkeepingApp();
    const noToken = await app.inject({ url: extractUrl('bad') });
    expect(noToken.statusCode).toBe(401);
    const badTenant = await app.inject({ url: extractUrl('bad'), headers: AUTH });
    expect(badTenant.statusCode).toBe(400);
  });

  it('checks access before the query parameters', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extractUrl(OTHER_TENANT, 'page=zero'), headers: AUTH });
    expect(res.statusCode).toBe(403);
  });

  it('applies the same credentials to the payment, before reading the body', async () => {
    const app = await bookkeepingApp({ tradeBills: bills });
    expect((await pay(app, 'IUD-A', declaration(1, true), { headers: {} })).statusCode).toBe(401);
    expect(
      (await pay(app, 'IUD-A', declaration(1, true), { headers: { authorization: 'Bearer nope' } }))
        .statusCode,
    ).toBe(401);
    expect((await pay(app, 'IUD-B', declaration(1, true), { tenantId: OTHER_TENANT })).statusCode).toBe(403);
    expect((await pay(app, 'IUD-A', declaration(1, true), { tenantId: '123' })).statusCode).toBe(400);
    const malformed = await app.inject({
      method: 'PUT',
      url: `${BASE}/${TENANT}/trade-receivable-certificates/IUD-A/payment`,
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(malformed.statusCode).toBe(401);
  });
});

describe('tenant isolation', () => {
  it("never lists another tenant's extract requests", async () => {
    const app = await bookkeepingApp({
      extractRequests: [...extractRequests(TENANT, 3, 1), ...extractRequests(OTHER_TENANT, 5, 100)],
    });
    const mine = (await app.inject({ url: extractUrl(TENANT, 'pageSize=100'), headers: AUTH })).json();
    expect(
      mine.extractTradeReceivables.map(
        (r: { extractTradeReceivableRequestId: number }) => r.extractTradeReceivableRequestId,
      ),
    ).toEqual([1, 2, 3]);
    expect(mine.pagination.totalItems).toBe(3);
    const theirs = (
      await app.inject({ url: extractUrl(OTHER_TENANT), headers: { authorization: `Bearer ${OTHER_TOKEN}` } })
    ).json();
    expect(theirs.pagination.totalItems).toBe(5);
  });

  it("never pays another tenant's bill through one's own tenant", async () => {
    const app = await bookkeepingApp({ tradeBills: bills });
    const res = await pay(app, 'IUD-B', declaration(1, true));
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: '/uid', message: expect.stringContaining('has no trade bill "IUD-B"') },
    ]);
    const bill = await app.inject({ url: `/_sandbox/bookkeeping/tenants/${OTHER_TENANT}/trade-bills/IUD-B` });
    expect(bill.json()).toMatchObject({ openValue: 100, status: 'open', payments: [] });
  });
});

describe('paths next to the documented ones', () => {
  it('answers GET of a single trade bill (named only) with 501, never reading "extract" as a uid', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({
      url: `${BASE}/${TENANT}/trade-receivable-certificates/IUD-A`,
      headers: AUTH,
    });
    expect(res.statusCode).toBe(501);
    expect(res.json().namedOnlyOperations).toContain('trade-bill info');
  });

  it('answers PUT .../extract/payment with 501, even without credentials', async () => {
    const app = await bookkeepingApp({ tradeBills: [{ tenantId: TENANT, uid: 'IUD-A', amount: 1 }] });
    for (const headers of [{}, AUTH]) {
      const res = await pay(app, 'extract', declaration(1, false), { headers });
      expect(res.statusCode).toBe(501);
      expect(res.json().interface).toBe('bookkeeping');
    }
  });

  it('answers POST on the extract path with 501', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ method: 'POST', url: extractUrl(TENANT), headers: AUTH, payload: {} });
    expect(res.statusCode).toBe(501);
  });
});
