// A refused fixture document names each problem once, in one answer: the schema's, and the domain and
// state checks of every field the schema did not refuse (SANDBOX.md, assumption error-body).
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';

type Detail = { path: string; message: string };

async function post(doc: unknown) {
  const app = await testApp();
  const res = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: doc as object });
  return { app, res, details: res.json().details as Detail[] };
}

describe('a fixture document with a union-typed field', () => {
  it('names a too-long and an empty fund token once each, without the branches the value is not', async () => {
    const { res, details } = await post({
      receivables: {
        funds: [
          { fundCnpj: '06990590000123', token: 't'.repeat(65) },
          { fundCnpj: '11222333000181', token: '' },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(details).toEqual([
      { path: '/receivables/funds/0/token', message: 'must NOT have more than 64 characters' },
      { path: '/receivables/funds/1/token', message: 'must NOT have fewer than 1 characters' },
    ]);
    expect(res.json().message).toBe('/receivables/funds/0/token: must NOT have more than 64 characters (and 1 more problem)');
  });

  it('still says what a value of no branch\'s type may be', async () => {
    const { details } = await post({ receivables: { funds: [{ fundCnpj: '06990590000123', token: 5 }] } });
    expect(details).toEqual([{ path: '/receivables/funds/0/token', message: 'must be a string or a null' }]);
  });
});

describe('a fixture document with schema, domain and state problems', () => {
  const doc = (bill: Record<string, unknown>, products: unknown) => ({
    bookkeeping: {
      users: [{ userId: 70, accessToken: 'bk-a', tenants: ['11222333000182', '1122233300018'] }],
      tradeBills: [
        { tenantId: '11222333000100', uid: 'A1', amount: 10, openValue: 20, ...bill },
        { tenantId: '11222333000181', uid: 'A1', amount: 10 },
        { tenantId: '11222333000181', uid: 'A1', amount: 10 },
      ],
    },
    registry: { participants: [{ participantId: 'PART-1', accessToken: 'rg-token-1' }] },
    loanbond: { callers: [{ callerId: 'C', token: 'lb-token-1', products }] },
  });

  async function loaded() {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const send = async (body: unknown) => {
      const res = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: body as object });
      return { res, paths: (res.json().details as Detail[]).map((d) => d.path) };
    };
    return send;
  }

  const DOMAIN = [
    '/bookkeeping/users/0/tenants/0',
    '/bookkeeping/users/0/tenants/1',
    '/bookkeeping/tradeBills/0/tenantId',
    '/bookkeeping/tradeBills/0/openValue',
    '/bookkeeping/tradeBills/2/uid',
    '/registry/participants/0/participantId',
    '/registry/participants/0/accessToken',
    '/loanbond/callers/0/token',
  ];

  it('names every domain and state problem beside the schema problems of other fields, in one 400', async () => {
    const send = await loaded();
    const valid = await send(doc({}, []));
    expect(valid.res.statusCode).toBe(400);
    expect(valid.paths.sort()).toEqual([...DOMAIN].sort());
    const refused = await send(doc({ status: 'bogus' }, ['x']));
    expect(refused.res.statusCode).toBe(400);
    expect(refused.paths.sort()).toEqual([...DOMAIN, '/bookkeeping/tradeBills/0/status', '/loanbond/callers/0/products/0'].sort());
    expect(refused.res.json().message).toMatch(/\(and 9 more problems\)$/);
  });

  it('does not judge a field by its domain rule when its schema refused it', async () => {
    const send = await loaded();
    const { paths } = await send({
      bookkeeping: {
        users: [{ userId: 'x', accessToken: 5, tenants: [7, '11222333000182'] }],
        tradeBills: [{ tenantId: 5, uid: 'A1', amount: 1.001, openValue: 20 }],
      },
      receivables: { funds: [{ fundCnpj: 7, token: 'x' }, 'not an object'] },
    });
    expect(paths.sort()).toEqual(
      [
        '/bookkeeping/users/0/userId',
        '/bookkeeping/users/0/accessToken',
        '/bookkeeping/users/0/tenants/0',
        '/bookkeeping/users/0/tenants/1',
        '/bookkeeping/tradeBills/0/tenantId',
        '/bookkeeping/tradeBills/0/amount',
        '/receivables/funds/0/fundCnpj',
        '/receivables/funds/1',
      ].sort(),
    );
  });
});
