// The row counts the store maintains (the overview, the workspaces list and the lists' totals read
// them): equal to a fresh count after every kind of write, taken back with a refused transaction,
// counted again only after a bulk change (restore, reset), never on a read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countsProblem } from '../reliability/engine/run.js';
import { DEMO_FIXTURES, testApp } from '../helpers.js';

const BK = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';
const bk = { authorization: 'Bearer bk-demo-token-7' };
const rg = { authorization: 'Bearer rg-demo-token-1' };
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
const doc = { numeroDuplicata: 'C-1', dataEmissao: '2026-11-01', dataVencimento: '2026-12-01', valorDuplicata: 10, cpfCnpjSacado: '52998224725', codigoIBGEPracaPagamento: 3550308 };

describe('the row counts the store maintains', () => {
  it('follow every kind of write, count nothing a refused one took back, and are counted again only after a bulk change', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const counts = app.runtime.store.counts;
    const settled = async () => {
      await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
      expect(countsProblem(app.runtime)).toBeNull();
    };
    const overview = async () => (await app.inject({ url: '/_sandbox/overview' })).json().counts;
    expect((await overview()).registry.participants).toBe(1);
    const recounts = counts.recounts;

    const payment = { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 10, remainingValue: 1490 };
    expect((await app.inject({ method: 'PUT', url: `${BK}/IUD-0001/payment`, headers: bk, payload: payment })).statusCode).toBe(204);
    // Refused inside the group commit: nothing counted.
    expect((await app.inject({ method: 'PUT', url: `${BK}/IUD-0001/payment`, headers: bk, payload: payment })).statusCode).toBe(400);
    await settled();
    const registered = await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: rg, payload: { registros: [doc, { ...doc, numeroDuplicata: 'C-2' }] } });
    expect(registered.statusCode).toBe(200);
    await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/conciliar_documentos', headers: rg, payload: { registros: [{ ...doc, chaveRegistro: 'unknown' }] } });
    await settled();
    const cnab = (file: Buffer) => ({ token: 'rc-demo-token-1', fundCnpj: '11222333000181', operationFile: file.toString('base64'), fileName: 'f.rem', additiveNumber: 1 });
    expect((await app.inject({ method: 'POST', url: '/v1/import-cnab', payload: cnab(readFileSync('fixtures/cnab444-demo.rem')) })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/v1/import-cnab', payload: cnab(Buffer.from('0'.repeat(444), 'latin1')) })).statusCode).toBe(200);
    await settled();
    expect(counts.get('rc_imports:status=processed') + counts.get('rc_imports:status=rejected')).toBe(2);
    const record = { nome_documento: 'a.pdf', assinado: false, assinantes: [], parcelas: [], documento: PDF.toString('base64') };
    expect((await app.inject({ method: 'POST', url: '/api/service/document/registrar', payload: { versao: '2.0', token: 'lb-demo-token-1', registros: [record] } })).statusCode).toBe(201);
    // A file stored, then a bad one after it: the whole transaction, and its count, taken back.
    const bad = { ...record, documentos_adicionais: [{ conteudo: 'not base64!' }], documento: Buffer.concat([PDF, Buffer.from(' ')]).toString('base64') };
    expect((await app.inject({ method: 'POST', url: '/api/service/document/registrar', payload: { versao: '2.0', token: 'lb-demo-token-1', registros: [bad] } })).statusCode).toBe(400);
    await settled();
    expect(counts.get('lb_registrations:state=registered')).toBe(0);
    // A refused fixture document changes nothing.
    expect((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { registry: { participants: [{ participantId: 'P2', accessToken: 'x' }, { participantId: 'P3' }] } } })).statusCode).toBe(400);
    await settled();
    // None of it was counted again: every read above came from the maintained counts.
    await overview();
    await app.inject({ url: '/_sandbox/workspaces' });
    expect(counts.recounts).toBe(recounts);

    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 's' } });
    await app.inject({ method: 'PUT', url: `${BK}/IUD-0001/payment`, headers: bk, payload: { ...payment, remainingValue: 1480 } });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots/s/restore' });
    expect((await overview()).bookkeeping.payments).toBe(1);
    await settled();
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect((await overview()).bookkeeping.payments).toBe(0);
    await settled();
    expect(counts.recounts).toBe(recounts + 2);
  });
});
