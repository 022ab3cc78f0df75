// Resource bounds: a body over the limit, 10 000-item arrays in every operation and a journal far
// past its capacity are answered within the contract, without a crash. Memory figures of the long
// versions (a 1M-request journal) come from `npm run soak` and are in docs/reliability.md.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';
import { bigCnab444 } from '../receivables/helpers.js';
import {
  BK_TENANT,
  BK_TOKEN,
  LB_TOKEN,
  OPERATIONS,
  PINNED_NOW,
  RC_FUND,
  RC_TOKEN,
  RELIABILITY_FIXTURES,
  RG_TOKEN,
  tinyPdf,
} from './engine/operations.js';
import { errorShapeProblem, fingerprint } from './engine/run.js';

const BK = `/api/bookkeeping/integration/v1/${BK_TENANT}/trade-receivable-certificates`;
const N = 10_000;

async function app(options: { bodyLimit?: number; loanbondBodyLimit?: number; journalSize?: number } = {}): Promise<FastifyInstance> {
  const a = await testApp({ fixtures: RELIABILITY_FIXTURES, ...options });
  a.runtime.clock.set(PINNED_NOW, true);
  return a;
}

async function healthy(a: FastifyInstance): Promise<void> {
  expect((await a.inject({ url: '/_sandbox/health' })).statusCode).toBe(200);
}

/** A call of each body-carrying operation whose body is `filler` characters long. */
function bodies(filler: string) {
  return [
    { op: 'declare-payment', iface: 'bookkeeping' as const, url: `${BK}/IUD-0001/payment`, method: 'PUT' as const, headers: { authorization: `Bearer ${BK_TOKEN}` }, payload: { type: 'bankSlip', informantId: filler, isPartial: true, paymentValue: 1 } },
    { op: 'register-documents', iface: 'registry' as const, url: '/api/v1.0/service/dup/registrar_documentos', method: 'POST' as const, headers: { authorization: `Bearer ${RG_TOKEN}` }, payload: { registros: [{ nomeSacado: filler }] } },
    { op: 'reconcile-documents', iface: 'registry' as const, url: '/api/v1.0/service/dup/conciliar_documentos', method: 'POST' as const, headers: { authorization: `Bearer ${RG_TOKEN}` }, payload: { registros: [{ nomeSacado: filler }] } },
    { op: 'import-cnab', iface: 'receivables' as const, url: '/v1/import-cnab', method: 'POST' as const, headers: {}, payload: { token: RC_TOKEN, fundCnpj: RC_FUND, operationFile: filler, fileName: 'r.rem', additiveNumber: 1 } },
    { op: 'register-loan-bond', iface: 'loanbond' as const, url: '/api/service/document/registrar', method: 'POST' as const, headers: {}, payload: { versao: '2.0', token: LB_TOKEN, registros: [{ documento: filler }] } },
  ];
}

describe('resource bounds', () => {
  it('refuses a body over the limit in every operation with the interface 400, changing nothing', async () => {
    // The loan-bond registration has a limit of its own (lb-body-limit), set to the same here.
    const a = await app({ bodyLimit: 4096, loanbondBodyLimit: 4096 });
    const calls = bodies('x'.repeat(8192));
    expect(calls.map((c) => c.op).sort()).toEqual(OPERATIONS.filter((o) => o.id !== 'list-extract-requests').map((o) => o.id).sort());
    for (const c of calls) {
      const before = fingerprint(a);
      const res = await a.inject({ method: c.method, url: c.url, headers: c.headers, payload: c.payload });
      expect(res.statusCode, c.op).toBe(400);
      expect(errorShapeProblem(c.iface, 400, res.body)).toBeNull();
      expect(res.body).toContain('4096');
      expect(fingerprint(a)).toBe(before);
    }
    await healthy(a);
  });

  it('registers 10 000 registry documents in one batch and reconciles 10 000 items', { timeout: 60_000 }, async () => {
    const a = await app();
    const registros = Array.from({ length: N }, (_, i) => ({ numeroDuplicata: `D-${i}`, valorDuplicata: 1.5, cpfCnpjSacado: '52998224725' }));
    const reg = await a.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: { authorization: `Bearer ${RG_TOKEN}` }, payload: { registros } });
    expect(reg.statusCode, reg.body.slice(0, 300)).toBe(200);
    const participant = await a.inject({ url: '/_sandbox/registry/participants/REL-PART-1' });
    expect(participant.json().documentCount).toBe(N);
    const rec = await a.inject({ method: 'POST', url: '/api/v1.0/service/dup/conciliar_documentos', headers: { authorization: `Bearer ${RG_TOKEN}` }, payload: { registros } });
    expect(rec.statusCode, rec.body.slice(0, 300)).toBe(200);
    await healthy(a);
  });

  it('refuses 10 000 invalid registry documents at once with a bounded error body', async () => {
    const a = await app();
    const before = fingerprint(a);
    const registros = Array.from({ length: N }, () => ({ valorDuplicata: 'ten', dataVencimento: '2026-02-30' }));
    const res = await a.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: { authorization: `Bearer ${RG_TOKEN}` }, payload: { registros } });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('registry', 400, res.body)).toBeNull();
    // Twenty thousand problems are counted, not all listed: the answer stays small.
    expect(res.body.length).toBeLessThan(100_000);
    expect(fingerprint(a)).toBe(before);
  });

  it('refuses 10 000 loan-bond records (rule 6: at most 50) without reading them', async () => {
    const a = await app();
    const before = fingerprint(a);
    const documento = tinyPdf().toString('base64');
    const res = await a.inject({ method: 'POST', url: '/api/service/document/registrar', payload: { versao: '2.0', token: LB_TOKEN, registros: Array.from({ length: N }, () => ({ documento })) } });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('loanbond', 400, res.body)).toBeNull();
    expect(res.body.length).toBeLessThan(10_000);
    expect(fingerprint(a)).toBe(before);
  });

  it('answers 10 000-item arrays where the bookkeeping and receivables schemas expect scalars', async () => {
    const a = await app();
    const before = fingerprint(a);
    const big = Array.from({ length: N }, (_, i) => i);
    const pay = await a.inject({ method: 'PUT', url: `${BK}/IUD-0001/payment`, headers: { authorization: `Bearer ${BK_TOKEN}` }, payload: { type: big, informantId: big, isPartial: big, paymentValue: big } });
    expect(pay.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, pay.body)).toBeNull();
    const rc = await a.inject({ method: 'POST', url: '/v1/import-cnab', payload: { token: RC_TOKEN, fundCnpj: RC_FUND, operationFile: big, fileName: 'r.rem', additiveNumber: 1 } });
    expect(rc.statusCode).toBe(400);
    expect(errorShapeProblem('receivables', 400, rc.body)).toBeNull();
    const query = Array.from({ length: N }, (_, i) => `page=${i}`).join('&');
    const ext = await a.inject({ url: `${BK}/extract?${query}`, headers: { authorization: `Bearer ${BK_TOKEN}` } });
    expect(ext.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, ext.body)).toBeNull();
    expect(fingerprint(a)).toBe(before);
  });

  it('imports a CNAB file of 10 000 titles and processes it', { timeout: 60_000 }, async () => {
    const a = await app();
    const res = await a.inject({ method: 'POST', url: '/v1/import-cnab', payload: { token: RC_TOKEN, fundCnpj: RC_FUND, operationFile: bigCnab444(N).toString('base64'), fileName: 'big.rem', additiveNumber: 1 } });
    expect(res.statusCode).toBe(200);
    await a.runtime.work.drain();
    const imp = await a.inject({ url: `/_sandbox/receivables/imports/${res.headers['sandbox-import-id']}?titlesLimit=1` });
    expect(imp.json().titleCount).toBe(N);
  });

  it('keeps the journal at its capacity however many requests come', async () => {
    const a = await app({ journalSize: 100 });
    for (let i = 0; i < 1000; i++) await a.inject({ url: `${BK}/extract`, headers: { authorization: `Bearer ${BK_TOKEN}` } });
    const res = await a.inject({ url: '/_sandbox/requests' });
    expect(res.json()).toMatchObject({ capacity: 100, count: 100, dropped: 900 });
    expect(a.runtime.journal.count).toBe(100);
  });
});
