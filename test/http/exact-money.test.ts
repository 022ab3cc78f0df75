// Money read exactly from the number's text at every magnitude the schemas accept, and written back
// digit for digit: above about 2^51 cents a double no longer tells neighbouring cents apart, so an
// amount that went through one would be shifted by a cent. Bodies are sent as text here: a
// JavaScript object could not even hold the amounts under test.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { RECONCILE, REGISTER, validDocument } from '../registry/helpers.js';

const TENANT = '11222333000181';
const BK = { authorization: 'Bearer bk-token-1', 'content-type': 'application/json' };
const RG = { authorization: 'Bearer rg-token-1', 'content-type': 'application/json' };
const PAYMENT = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/BIG-1/payment`;

/** A bill of `amount` (JSON number text) for the fixture user's tenant. */
async function appWithBill(amount: string): Promise<FastifyInstance> {
  const app = await testApp({ fixtures: BASE_FIXTURES });
  const res = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    headers: { 'content-type': 'application/json' },
    payload: `{"bookkeeping":{"tradeBills":[{"tenantId":"${TENANT}","uid":"BIG-1","amount":${amount}}]}}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return app;
}

function payment(value: string, extra = ''): string {
  return `{"type":"bankSlip","informantId":"directByDrawerHolder","isPartial":true,"paymentValue":${value}${extra}}`;
}

describe('amounts a double cannot carry', () => {
  it('pays 80000000000000.01 of 80000000000000.03 and leaves exactly 0.02 open', async () => {
    const app = await appWithBill('80000000000000.03');
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('80000000000000.01') });
    expect(res.statusCode, res.body).toBe(204);
    const bill = await app.inject({ method: 'GET', url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/BIG-1` });
    expect(bill.statusCode).toBe(200);
    // The answer's own text: a JSON parser on this side would round the amounts again.
    expect(bill.body).toContain('"amount":80000000000000.03');
    expect(bill.body).toContain('"openValue":0.02');
    expect(bill.body).toContain('"paymentValue":80000000000000.01');
    expect(bill.body).toContain('"openValueBefore":80000000000000.03');
  });

  it('checks remainingValue against the open value to the cent at that magnitude', async () => {
    const app = await appWithBill('90071992547409.91');
    const wrong = await app.inject({
      method: 'PUT',
      url: PAYMENT,
      headers: BK,
      payload: payment('0.01', ',"remainingValue":90071992547409.91'),
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details).toEqual([
      { path: '/remainingValue', message: expect.stringContaining('must equal the open value after this payment: 90071992547409.90') },
    ]);
    const right = await app.inject({
      method: 'PUT',
      url: PAYMENT,
      headers: BK,
      payload: payment('0.01', ',"remainingValue":90071992547409.90'),
    });
    expect(right.statusCode, right.body).toBe(204);
  });

  it('registers a registry amount exactly and reconciles a one-cent difference as diverging', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const doc = JSON.stringify({ ...validDocument(), valorDuplicata: 0 }).replace('"valorDuplicata":0', '"valorDuplicata":80000000000000.01');
    const reg = await app.inject({ method: 'POST', url: REGISTER, headers: RG, payload: `{"registros":[${doc}]}` });
    expect(reg.statusCode, reg.body).toBe(200);
    const batch = await app.inject({ method: 'GET', url: `/_sandbox/registry/batches/${reg.json().chaveRemessa as string}` });
    expect(batch.body).toContain('"valorDuplicata":80000000000000.01');
    const key = (batch.json().documents[0] as { chaveRegistro: string }).chaveRegistro;
    const item = (value: string) => `{"registros":[{"chaveRegistro":"${key}","valorDuplicata":${value}}]}`;
    const same = await app.inject({ method: 'POST', url: RECONCILE, headers: RG, payload: item('80000000000000.01') });
    expect(same.json().mensagem).toContain('1 matched');
    const off = await app.inject({ method: 'POST', url: RECONCILE, headers: RG, payload: item('80000000000000.02') });
    expect(off.json().mensagem).toContain('1 diverging');
    const seen = await app.inject({ method: 'GET', url: `/_sandbox/registry/reconciliations/${off.json().chaveConciliacao as string}` });
    expect(seen.body).toContain('"held":80000000000000.01');
    expect(seen.body).toContain('"sent":80000000000000.02');
  });

  it('shows the amount in the journal as it was sent', async () => {
    const app = await appWithBill('80000000000000.03');
    await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('80000000000000.01') });
    const journal = await app.inject({ method: 'GET', url: '/_sandbox/requests?operation=declare-payment' });
    expect(journal.body).toContain('"paymentValue":80000000000000.01');
  });
});

describe('amounts refused, each with its own reason', () => {
  it('tells 1e21 its magnitude, not its decimals', async () => {
    const app = await appWithBill('100');
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('1e21') });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: '/paymentValue', message: expect.stringMatching(/^must be at most 90071992547409\.91 in absolute value/) },
    ]);
  });

  it('tells one cent above the largest amount its magnitude', async () => {
    const app = await appWithBill('100');
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('90071992547409.92') });
    expect(res.json().details[0].message).toMatch(/^must be at most 90071992547409\.91/);
  });

  it.each(['1.0000000000000001', '80000000000000.001', '0.295', '1e-7'])(
    'tells %s it has too many decimal places, even where a double rounds the third away',
    async (value) => {
      const app = await appWithBill('100');
      const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment(value) });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ path: '/paymentValue', message: 'must be an amount with at most two decimal places' }]);
    },
  );

  it.each(['1.50', '15e-1', '0.015e2', '1.5000000000000000000'])('reads %s as 1.50', async (value) => {
    const app = await appWithBill('100');
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment(value) });
    expect(res.statusCode, res.body).toBe(204);
    const bill = await app.inject({ method: 'GET', url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/BIG-1` });
    expect(bill.json().openValue).toBe(98.5);
  });

  it('refuses a number that is not money and that a double would change, naming it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      headers: { 'content-type': 'application/json' },
      payload: `{"token":"rc-token-1","fundCnpj":"11222333000181","operationFile":"MDE=","fileName":"a.rem","additiveNumber":12345678901234567890123}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'ValidationError', target: 'additiveNumber' });
    expect(res.json().error.message).toContain('12345678901234567890123');
  });

  it('accepts a long number text whose double reads back as the same decimal', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: REGISTER,
      headers: RG,
      payload: `{"registros":[{"codigoIBGEPracaPagamento":3550308.000000000000000}]}`,
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('numbers out of a double\'s range, refused from their text', () => {
  it.each(['1e-400', '-1e-400', '1.23e-1000', `0.${'0'.repeat(400)}1`])(
    'tells a payment of %s it has too many decimal places, not that it must be above 0',
    async (value) => {
      const app = await appWithBill('100');
      const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment(value) });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ path: '/paymentValue', message: 'must be an amount with at most two decimal places' }]);
    },
  );

  it.each(['1e400', '-1e400', `1${'0'.repeat(400)}`])('tells a payment of %s its magnitude, as 1e21 is told', async (value) => {
    const app = await appWithBill('100');
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment(value) });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: '/paymentValue', message: expect.stringMatching(/^must be at most 90071992547409\.91 in absolute value/) }]);
  });

  it.each(['1e-400', '1.23e-1000'])('refuses a registry valorDuplicata of %s instead of registering 0', async (value) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'POST', url: REGISTER, headers: RG, payload: `{"registros":[{"numeroDuplicata":"A","valorDuplicata":${value}}]}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toContainEqual({ path: '/registros/0/valorDuplicata', message: 'must be an amount with at most two decimal places' });
  });

  it.each([
    ['1e-400', 'must be an amount with at most two decimal places'],
    ['1e400', expect.stringMatching(/^must be at most 90071992547409\.91/)],
  ])('refuses a loan-bond installment valor of %s', async (value, message) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n').toString('base64');
    const res = await app.inject({
      method: 'POST',
      url: '/api/service/document/registrar',
      headers: { 'content-type': 'application/json' },
      payload: `{"versao":"2.0","token":"lb-token-1","registros":[{"documento":"${pdf}","parcelas":[{"numero":1,"valor":${value}}]}]}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toContainEqual({ path: '/registros/0/parcelas/0/valor', message });
  });

  it.each([
    ['1e-400', 'is 1e-400, nearer to 0 than the smallest number a double holds (about 5e-324): it would be read as 0'],
    ['1e400', 'is 1e400, beyond the largest number a double holds (about 1.8e308): it would be read as Infinity'],
  ])('refuses a receivables additiveNumber of %s, saying what a double makes of it', async (value, message) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      headers: { 'content-type': 'application/json' },
      payload: `{"token":"rc-token-1","fundCnpj":"11222333000181","operationFile":"MDE=","fileName":"a.rem","additiveNumber":${value}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'ValidationError', target: 'additiveNumber', message: expect.stringContaining(message) });
  });

  it.each(['0e5', '0.000', '-0', '0E-400'])('still reads %s as the zero it is, and quotes it as sent', async (value) => {
    const app = await appWithBill('100');
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('1', `,"remainingValue":${value}`) });
    expect(res.json().details).toEqual([
      { path: '/remainingValue', message: `must equal the open value after this payment: 99.00 (open value 100.00 - payment 1.00), got ${value}` },
    ]);
  });
});
