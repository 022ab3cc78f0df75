// A malformed tenantId (path) is named in the same 400 as the problems of the query or the body: it
// makes the access check (403) and the comparisons with a bill meaningless, nothing else. The token
// is still checked first (401), before anything of the request is read (bk-credential-order).
import { describe, expect, it } from 'vitest';
import { AUTH, BASE, bookkeepingApp, paymentUrl, TENANT } from './helpers.js';

const BAD_TENANT = '1122233300018X';
const extract = (tenantId: string, query: string) => `${BASE}/${tenantId}/trade-receivable-certificates/extract?${query}`;
type Detail = { path: string; message: string };

describe('a malformed tenantId', () => {
  it('is named with the problems of the extract query, first', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extract(BAD_TENANT, 'page=0&pageSize=500&sortBy=x&foo=1'), headers: AUTH });
    expect(res.statusCode).toBe(400);
    const paths = (res.json().details as Detail[]).map((d) => d.path);
    expect(paths[0]).toBe('/tenantId');
    expect([...paths].sort()).toEqual(['/foo', '/page', '/pageSize', '/sortBy', '/tenantId']);
    expect(res.json().message).toMatch(/^\/tenantId: path parameter tenantId .* \(and 4 more problems\)$/);
    expect(res.headers['sandbox-outcome']).toBe('list-extract-requests.tenant-id-invalid');
  });

  it('is named alone with a valid query', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extract(BAD_TENANT, 'page=2'), headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect((res.json().details as Detail[]).map((d) => d.path)).toEqual(['/tenantId']);
  });

  it('is named with the schema and domain problems of a payment, not compared with any bill', async () => {
    const app = await bookkeepingApp({ tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 100 }] });
    const res = await app.inject({
      method: 'PUT',
      url: paymentUrl(BAD_TENANT, 'IUD-1'),
      headers: AUTH,
      payload: { type: '', informantId: 'x', isPartial: 'yes', paymentValue: 1.001, extra: 1, beneficiaryDocument: '12345678900' },
    });
    expect(res.statusCode).toBe(400);
    const paths = (res.json().details as Detail[]).map((d) => d.path);
    expect(paths[0]).toBe('/tenantId');
    expect([...paths].sort()).toEqual(['/beneficiaryDocument', '/extra', '/isPartial', '/paymentValue', '/tenantId', '/type']);
    expect(res.headers['sandbox-outcome']).toBe('declare-payment.tenant-id-invalid');
  });

  it('is named with the domain problems of a payment the schema accepts', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({
      method: 'PUT',
      url: paymentUrl(BAD_TENANT, 'IUD-1'),
      headers: AUTH,
      payload: { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 10, paymentDate: '2099-01-01' },
    });
    expect(res.statusCode).toBe(400);
    expect((res.json().details as Detail[]).map((d) => d.path)).toEqual(['/tenantId', '/paymentDate']);
  });

  it('is named with a body that is not JSON', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({
      method: 'PUT',
      url: paymentUrl(BAD_TENANT, 'IUD-1'),
      headers: { ...AUTH, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(400);
    const details = res.json().details as Detail[];
    expect(details.map((d) => d.path)).toEqual(['/tenantId', '']);
  });

  it('still comes after the token (401)', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extract(BAD_TENANT, 'page=0'), headers: { authorization: 'Bearer nope' } });
    expect(res.statusCode).toBe(401);
  });
});
