// A number the client wrote in a form a double does not keep (1E+1, 0.10000, -0, 1.0) is read by its
// value, and echoed as written: in the journal, in the copies kept "as sent", and in messages that
// quote it. Bodies are sent as text: a JavaScript object cannot hold these spellings.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { body as lbBody, lbApp, record as lbRecord, URL as LB_URL } from '../loanbond/helpers.js';
import { RECONCILE, REGISTER, validDocument } from '../registry/helpers.js';

const TENANT = '11222333000181';
const BK = { authorization: 'Bearer bk-token-1', 'content-type': 'application/json' };
const RG = { authorization: 'Bearer rg-token-1', 'content-type': 'application/json' };
const PAYMENT = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/B-1/payment`;
const BILL = `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/B-1`;

async function appWithBill(amount = '30.50'): Promise<FastifyInstance> {
  const app = await testApp({ fixtures: BASE_FIXTURES });
  const res = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    headers: { 'content-type': 'application/json' },
    payload: `{"bookkeeping":{"tradeBills":[{"tenantId":"${TENANT}","uid":"B-1","amount":${amount}}]}}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return app;
}

const payment = (fields: string) => `{"type":"bankSlip","informantId":"x",${fields}}`;

describe('numbers echoed as the client wrote them', () => {
  it('journals 1E+1, 0.10000 and -0 digit for digit', async () => {
    const app = await appWithBill();
    await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"isPartial":true,"paymentValue":0.10000,"remainingValue":1e1') });
    await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"isPartial":true,"paymentValue":1E+1,"remainingValue":-0') });
    const journal = await app.inject({ method: 'GET', url: '/_sandbox/requests?operation=declare-payment' });
    expect(journal.body).toContain('"paymentValue":0.10000,"remainingValue":1e1');
    expect(journal.body).toContain('"paymentValue":1E+1,"remainingValue":-0');
  });

  it('keeps a declared payment as sent, while the bill reads its exact cents', async () => {
    const app = await appWithBill();
    const first = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"isPartial":true,"paymentValue":0.10000,"remainingValue":3040e-2') });
    expect(first.statusCode, first.body).toBe(204);
    const second = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"isPartial":false,"paymentValue":30.40,"remainingValue":-0') });
    expect(second.statusCode, second.body).toBe(204);
    const bill = await app.inject({ method: 'GET', url: BILL });
    expect(bill.body).toContain('"paymentValue":0.10000,"remainingValue":3040e-2');
    expect(bill.body).toContain('"paymentValue":30.40,"remainingValue":-0');
    // What the bill holds is a value, shown as the number it is.
    expect(bill.json()).toMatchObject({ amount: 30.5, openValue: 0, status: 'paid' });
    expect(bill.body).toContain('"openValueAfter":30.4,');
  });

  it('quotes a refused amount as it was sent', async () => {
    const app = await appWithBill();
    const res = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"isPartial":true,"paymentValue":0.10000,"remainingValue":1e1') });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: '/remainingValue', message: 'must equal the open value after this payment: 30.40 (open value 30.50 - payment 0.10), got 1e1' },
    ]);
    const total = await app.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"isPartial":false,"paymentValue":1.0E1') });
    expect(total.json().details[0].message).toMatch(/, got 1\.0E1; /);
  });

  it('takes integers written 1E+0 and 3550308.0 by their values and keeps them as sent in the registry', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const doc = JSON.stringify(validDocument()).replace('"tipoGarantia":1', '"tipoGarantia":1E+0').replace('"codigoIBGEPracaPagamento":3550308', '"codigoIBGEPracaPagamento":3550308.0');
    const reg = await app.inject({ method: 'POST', url: REGISTER, headers: RG, payload: `{"registros":[${doc}]}` });
    expect(reg.statusCode, reg.body).toBe(200);
    const batch = await app.inject({ method: 'GET', url: `/_sandbox/registry/batches/${reg.json().chaveRemessa as string}` });
    expect(batch.body).toContain('"tipoGarantia":1E+0');
    expect(batch.body).toContain('"codigoIBGEPracaPagamento":3550308.0');
    const key = (batch.json().documents[0] as { chaveRegistro: string }).chaveRegistro;
    const item = `{"chaveRegistro":"${key}","garantia":{"tipoGarantia":1.0},"codigoIBGEPracaPagamento":3550308,"statusPagamento":-0}`;
    const rec = await app.inject({ method: 'POST', url: RECONCILE, headers: RG, payload: `{"registros":[${item}]}` });
    expect(rec.json().mensagem, rec.body).toContain('1 matched');
    const seen = await app.inject({ method: 'GET', url: `/_sandbox/registry/reconciliations/${rec.json().chaveConciliacao as string}` });
    expect(seen.body).toContain('"statusPagamento":-0');
  });
});

describe('numbers of a loan-bond registration, as sent', () => {
  it('shows installments, signers and signatures with their numbers written as the client wrote them', async () => {
    const app = await lbApp();
    const text = JSON.stringify(lbBody([lbRecord()]))
      .replace('"numero":1,', '"numero":1E+0,')
      .replace('"valor":1500.5}', '"valor":1500.50}')
      .replace('"numero":100,', '"numero":1.0E2,')
      .replaceAll('"tipo_assinatura":1,', '"tipo_assinatura":-0,');
    expect(text).toContain('"numero":1E+0,');
    const res = await app.inject({ method: 'POST', url: LB_URL, headers: { 'content-type': 'application/json' }, payload: text });
    expect(res.statusCode, res.body).toBe(201);
    const id = (res.json().registros[0] as { codigo_identificador: string }).codigo_identificador;
    const detail = await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` });
    expect(detail.body).toContain('"numero":1E+0,"data_vencimento":"2026-12-10","valor":1500.50}');
    expect(detail.body).toContain('"numero":2,"data_vencimento":"2027-01-10","valor":1500.5}');
    expect(detail.body).toContain('"numero":1.0E2,');
    expect(detail.body.match(/"tipo_assinatura":-0,/g)).toHaveLength(2);
    // Read by their values all the same.
    expect(detail.json()).toMatchObject({ parcelas: [{ numero: 1, valor: 1500.5 }, { numero: 2, valor: 1500.5 }] });
    // After processing (the state moves on), as before.
    await app.runtime.work.drain();
    expect((await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` })).body).toContain('"numero":1E+0,');
  });
});
