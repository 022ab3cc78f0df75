// A refused fixture document names each problem once, in one answer: the schema's, and the domain and
// state checks of every field the schema did not refuse (SANDBOX.md, assumption error-body).
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

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
