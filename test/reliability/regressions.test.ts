// Defects the reliability suite found, each kept as the failing case that showed it.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';
import { BK_TOKEN, LB_TOKEN, RELIABILITY_FIXTURES, tinyPdf } from './engine/operations.js';
import { errorShapeProblem } from './engine/run.js';

const BK = '/api/bookkeeping/integration/v1';
const auth = { authorization: `Bearer ${BK_TOKEN}` };

describe('paths the router cannot read', () => {
  it('refuses a path parameter over 500 characters with the interface 400, not Fastify 414', async () => {
    const app = await testApp({ fixtures: RELIABILITY_FIXTURES });
    const res = await app.inject({
      url: `${BK}/${'x'.repeat(600)}/trade-receivable-certificates/extract?page=1`,
      headers: auth,
    });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, res.body)).toBeNull();
    expect(res.json()).toMatchObject({ message: 'a path parameter is longer than 500 characters' });
  });

  it('refuses a malformed percent-escape in the path in the interface error shape', async () => {
    const app = await testApp({ fixtures: RELIABILITY_FIXTURES });
    const res = await app.inject({
      method: 'PUT',
      url: `${BK}/%zz/trade-receivable-certificates/IUD-0001/payment`,
      headers: auth,
      payload: { type: 'bankSlip', informantId: 'x', isPartial: false, paymentValue: 0.01 },
    });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, res.body)).toBeNull();
    expect(res.json().message).toContain('percent-escape');
  });

  it('answers a malformed path in the receivables envelope under /v1', async () => {
    const app = await testApp({ fixtures: RELIABILITY_FIXTURES });
    const res = await app.inject({ method: 'GET', url: '/v1/%zz' });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('receivables', 400, res.body)).toBeNull();
  });

  it('answers a malformed path outside the interfaces in the standard body', async () => {
    const app = await testApp({ fixtures: RELIABILITY_FIXTURES });
    const res = await app.inject({ url: '/_sandbox/%zz' });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, res.body)).toBeNull();
  });
});


describe('the journal of unreadable paths', () => {
  it('journals a request under an interface prefix whose path the router cannot read', async () => {
    const app = await testApp({ fixtures: RELIABILITY_FIXTURES });
    await app.inject({ url: `${BK}/%zz/trade-receivable-certificates/extract`, headers: auth });
    const entries = (await app.inject({ url: '/_sandbox/requests' })).json().entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      interface: 'bookkeeping',
      operation: null,
      method: 'GET',
      path: `${BK}/%zz/trade-receivable-certificates/extract`,
      status: 400,
      responseBody: { statusCode: 400 },
    });
  });
});

describe('seeded keys and refused requests', () => {
  it('hands out the same loan-bond keys after a refused registration as without it', async () => {
    const url = '/api/service/document/registrar';
    const valid = { versao: '2.0', token: LB_TOKEN, registros: [{ documento: tinyPdf().toString('base64') }] };
    // The fuzzer's case: a record without a usable file, refused after the batch key was drawn.
    const refused = { versao: '2.0', token: LB_TOKEN, registros: [{ documento: tinyPdf().toString('base64') }, { documento: '' }] };
    const clean = await testApp({ fixtures: RELIABILITY_FIXTURES, seed: 'regression' });
    const expected = (await clean.inject({ method: 'POST', url, payload: valid })).json();

    const app = await testApp({ fixtures: RELIABILITY_FIXTURES, seed: 'regression' });
    const res = await app.inject({ method: 'POST', url, payload: refused });
    expect(res.statusCode).toBe(400);
    const after = (await app.inject({ method: 'POST', url, payload: valid })).json();
    expect(after.codigo).toBe(expected.codigo);
    expect(after.registros[0].codigo_identificador).toBe(expected.registros[0].codigo_identificador);
    expect(after.registros[0].chave_registro).toBe(expected.registros[0].chave_registro);
  });
});
