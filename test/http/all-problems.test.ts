// Every check of a request in one answer: the schema's, the domain's and the cross-field ones, so a
// client that fixes one field does not resend to learn of the next. The only order kept is where one
// check makes another meaningless (a field of the wrong type is not also judged by its domain rule;
// a bill that takes no payment is not compared with the amounts; the file of an unauthenticated
// receivables caller is not read).
import { describe, expect, it } from 'vitest';
import { bookkeepingApp, paymentUrl, TENANT } from '../bookkeeping/helpers.js';
import { BASE_FIXTURES, detailPaths, testApp } from '../helpers.js';
import { REGISTER, validDocument } from '../registry/helpers.js';

const AUTH = { authorization: 'Bearer bk-token-1' };
const BILLS = { tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 100 }] };

function pay(body: Record<string, unknown>) {
  return { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 10, ...body };
}

/** A fresh sandbox with bill IUD-1 (open 100.00), and the answer to a payment of `uid` with `body`. */
async function declare(body: Record<string, unknown>, uid = 'IUD-1') {
  const app = await bookkeepingApp(BILLS);
  const res = await app.inject({ method: 'PUT', url: paymentUrl(TENANT, uid), headers: AUTH, payload: pay(body) });
  return { app, res };
}

describe('a payment', () => {
  it('names a schema error, the beneficiary document and the future date in one answer', async () => {
    const { res } = await declare({ informantId: 7, beneficiaryDocument: '12345678900', paymentDate: '2099-01-01' });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/beneficiaryDocument', '/informantId', '/paymentDate']);
    expect(res.json().message).toMatch(/^\/informantId: must be string \(and 2 more problems\)$/);
  });

  it('compares readable amounts with the bill even when another field is refused', async () => {
    const { res } = await declare({ type: '', paymentValue: 150 });
    expect(detailPaths(res)).toEqual(['/paymentValue', '/type']);
    expect(res.json().details[1].message).toBe('150 exceeds the open value of the trade bill (100.00)');
  });

  it('names a domain problem and a cross-field problem of a body the schema accepts', async () => {
    const { res } = await declare({ beneficiaryDocument: '12345678900', paymentValue: 100, remainingValue: 5 });
    expect(detailPaths(res)).toEqual(['/beneficiaryDocument', '/isPartial', '/remainingValue']);
  });

  it('names both a partial payment of the whole open value and a wrong remainingValue', async () => {
    const { res } = await declare({ paymentValue: 100, remainingValue: 5 });
    expect(detailPaths(res)).toEqual(['/isPartial', '/remainingValue']);
    expect(res.headers['sandbox-outcome']).toBe('declare-payment.partial-equals-open');
  });

  it('names an unknown uid with the problems of the declaration', async () => {
    const { res } = await declare({ paymentDate: '2099-01-01', isPartial: 'yes' }, 'NOPE');
    expect(detailPaths(res)).toEqual(['/isPartial', '/paymentDate', '/uid']);
  });

  it('does not judge a date the schema refused as being in the future', async () => {
    const { res } = await declare({ paymentDate: '2099-02-30' });
    expect(res.json().details).toEqual([{ path: '/paymentDate', message: 'must be a real calendar date written YYYY-MM-DD' }]);
  });

  it('changes nothing when it is refused', async () => {
    const app = await bookkeepingApp(BILLS);
    await app.inject({ method: 'PUT', url: paymentUrl(TENANT, 'IUD-1'), headers: AUTH, payload: pay({ informantId: 7 }) });
    const bill = await app.inject({ url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-1` });
    expect(bill.json()).toMatchObject({ openValue: 100, payments: [] });
  });
});

describe('a registry batch', () => {
  it('names a schema error and a documento that is not base64 in one answer', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Bearer rg-token-1' },
      payload: { registros: [{ ...validDocument(1), dataEmissao: 'yesterday' }, { ...validDocument(2), documento: 'not base64!' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/registros/0/dataEmissao', '/registros/1/documento']);
  });

  it('adds the domain checks in strict mode, on items the schema refused too', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Bearer rg-token-1', 'sandbox-strict': 'true' },
      payload: { registros: [{ ...validDocument(1), nomeTitular: 5, cpfCnpjTitular: '11.222.333/0001-00', chaveNFe: 42 }] },
    });
    expect(detailPaths(res)).toEqual(['/registros/0/chaveNFe', '/registros/0/cpfCnpjTitular', '/registros/0/nomeTitular']);
  });
});

describe('a receivables submission', () => {
  const body = {
    token: 'rc-token-1',
    fundCnpj: '11222333000181',
    operationFile: 'MDE=',
    fileName: 'x'.repeat(151),
    additiveNumber: 1,
  };

  it('names a schema error and the file in the message, the first as target', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'POST', url: '/v1/import-cnab', payload: { ...body, operationFile: '01REMESSA01COBRANCA-' } });
    expect(res.statusCode).toBe(400);
    const { error } = res.json() as { error: { code: string; message: string; target: string } };
    expect(error).toMatchObject({ code: 'ValidationError', target: 'fileName' });
    expect(error.message).toContain('(and 1 more problem): /operationFile: ');
  });

  it('names a fundCnpj that is not a CNPJ beside a schema error', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'POST', url: '/v1/import-cnab', payload: { ...body, fundCnpj: '11222333000100' } });
    expect(res.json().error.message).toContain('/fundCnpj: ');
  });

  it('reads no file for a caller whose token is wrong', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: { ...body, token: 'wrong', operationFile: 'not base64!' },
    });
    expect(res.json().error.message).not.toContain('operationFile');
  });
});

describe('a query string', () => {
  const EXTRACT = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract`;

  it('names a parameter given twice, a bad size, a bad boolean and an unknown parameter in one answer', async () => {
    const app = await bookkeepingApp(BILLS);
    const res = await app.inject({ url: `${EXTRACT}?page=1&page=2&pageSize=0&desc=maybe&q=1`, headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/desc', '/page', '/pageSize', '/q']);
    const byPath = Object.fromEntries((res.json().details as Array<{ path: string; message: string }>).map((d) => [d.path, d.message]));
    expect(byPath['/page']).toBe('query parameter page is given more than once: give it once');
    expect(byPath['/desc']).toMatch(/^query parameter desc must be true or false/);
    expect(byPath['/pageSize']).toBe('query parameter pageSize must be from 1 to 100');
  });

  it('states the range of a bounded parameter past either bound (bk-page-size)', async () => {
    const app = await bookkeepingApp(BILLS);
    for (const size of ['0', '101']) {
      const res = await app.inject({ url: `${EXTRACT}?pageSize=${size}`, headers: AUTH });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ path: '/pageSize', message: 'query parameter pageSize must be from 1 to 100' }]);
    }
  });

  it.each(['sortBy', 'page', 'desc'])('says %s is given more than once, whatever its type, and nothing else of it', async (name) => {
    const app = await bookkeepingApp(BILLS);
    const res = await app.inject({ url: `${EXTRACT}?${name}=registeredAt&${name}=registeredAt&pageSize=abc`, headers: AUTH });
    expect(res.statusCode).toBe(400);
    const details = res.json().details as Array<{ path: string; message: string }>;
    expect(details.filter((d) => d.path === `/${name}`)).toEqual([
      { path: `/${name}`, message: `query parameter ${name} is given more than once: give it once` },
    ]);
    expect(details.map((d) => d.path)).toContain('/pageSize');
  });
});
