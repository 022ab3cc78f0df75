// The control plane's lists come in pages: `limit` items (a default that keeps an answer well under
// 1 MB), `nextCursor` to pass as `cursor` for the next page, null on the last. Walking every list page
// by page gives each item once, in the list's order, whatever is written meanwhile; a cursor the list
// did not give is a 400 naming it.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits, cpfCheckDigits } from '../../src/domain/tax-id.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
const TENANT = '11222333000181';
const cpf = (i: number) => `${100000000 + i}${cpfCheckDigits(String(100000000 + i))}`;
const cnpj = (i: number) => `${200000000001 + i}${cnpjCheckDigits(String(200000000001 + i))}`;
const rg = { authorization: 'Bearer rg-token-1' };
const bk = { authorization: 'Bearer bk-token-1' };

type Page = Record<string, unknown> & { nextCursor: string | null };

/** Every page of `url` at `limit` items, following nextCursor, and each page's items under `field`. */
async function walk(app: FastifyInstance, url: string, field: string, limit: number, cursorName = 'cursor', nextName = 'nextCursor') {
  const pages: unknown[][] = [];
  let cursor: string | null = null;
  const sep = url.includes('?') ? '&' : '?';
  for (let guard = 0; guard < 1000; guard++) {
    const res = await app.inject({ url: `${url}${sep}limit=${limit}${cursor === null ? '' : `&${cursorName}=${cursor}`}` });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Page;
    pages.push(body[field] as unknown[]);
    cursor = body[nextName] as string | null;
    if (cursor === null) return pages;
  }
  throw new Error('the pages never end');
}

async function populated(): Promise<FastifyInstance> {
  const app = await testApp({
    fixtures: {
      ...BASE_FIXTURES,
      bookkeeping: {
        users: [{ userId: 1, accessToken: 'bk-token-1', tenants: [TENANT, ...Array.from({ length: 6 }, (_, i) => cpf(i))] }],
        tradeBills: Array.from({ length: 8 }, (_, i) => ({ tenantId: TENANT, uid: `B-${i}`, amount: 1000 })),
      },
      receivables: { funds: [...(BASE_FIXTURES.receivables?.funds ?? []), ...Array.from({ length: 5 }, (_, i) => ({ fundCnpj: cnpj(i), token: null }))] },
    },
  });
  for (let i = 0; i < 7; i++) {
    // Registry batches of 7 documents, reconciled; CNAB imports; loan-bond registrations; payments.
    const docs = Array.from({ length: 7 }, (_, j) => ({ numeroDuplicata: `D-${i}-${j}`, valorDuplicata: 10 }));
    const reg = await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: rg, payload: { registros: docs } });
    expect(reg.statusCode).toBe(200);
    await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/conciliar_documentos', headers: rg, payload: { registros: docs.map((d) => ({ ...d, chaveRegistro: 'x' })) } });
    await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: { token: 'rc-token-1', fundCnpj: TENANT, operationFile: Buffer.from('0'.repeat(400)).toString('base64'), fileName: `f${i}.rem`, additiveNumber: i },
    });
    await app.inject({
      method: 'POST',
      url: '/api/service/document/registrar',
      payload: { versao: '2.0', token: 'lb-token-1', registros: [{ nome_documento: `d${i}.pdf`, assinado: false, assinantes: [], parcelas: [], documento: PDF.toString('base64') }] },
    });
    await app.inject({
      method: 'PUT',
      url: `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/B-0/payment`,
      headers: bk,
      payload: { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 1, remainingValue: 999 - i },
    });
    await app.inject({ url: `/ws/w${i}/_sandbox/health` });
  }
  await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
  return app;
}

describe('the pages of the control views', () => {
  it('give every item once, in order, whatever the page size, with the total and a null cursor at the end', async () => {
    const app = await populated();
    const batchKey = ((await app.inject({ url: '/_sandbox/registry/participants/PART-1' })).json().batches[0] as { chaveRemessa: string }).chaveRemessa;
    const reconciliationKey = ((await app.inject({ url: '/_sandbox/registry/participants/PART-1' })).json().reconciliations[0] as { chaveConciliacao: string }).chaveConciliacao;
    const lists: Array<{ url: string; field: string; id: (item: Record<string, unknown>) => unknown; total?: string; count: number; cursor?: string; next?: string }> = [
      { url: '/_sandbox/requests', field: 'entries', id: (e) => e.id, count: 35 },
      { url: '/_sandbox/workspaces', field: 'workspaces', id: (w) => w.name, total: 'total', count: 8 },
      { url: '/_sandbox/receivables/funds', field: 'funds', id: (f) => f.fundCnpj, total: 'total', count: 7 },
      { url: `/_sandbox/receivables/funds/${TENANT}/imports`, field: 'imports', id: (i) => i.importId, total: 'total', count: 7 },
      { url: '/_sandbox/loanbond/registrations', field: 'registrations', id: (r) => r.codigo_identificador, total: 'total', count: 7 },
      { url: '/_sandbox/loanbond/registrations?callerId=CALLER-1', field: 'registrations', id: (r) => r.codigo_identificador, total: 'total', count: 7 },
      { url: '/_sandbox/registry/participants', field: 'participants', id: (p) => p.participantId, total: 'total', count: 1 },
      { url: '/_sandbox/registry/participants/PART-1', field: 'batches', id: (b) => b.chaveRemessa, total: 'batchCount', count: 7, cursor: 'batchesCursor', next: 'batchesNextCursor' },
      { url: '/_sandbox/registry/participants/PART-1', field: 'reconciliations', id: (r) => r.chaveConciliacao, total: 'reconciliationCount', count: 7, cursor: 'reconciliationsCursor', next: 'reconciliationsNextCursor' },
      { url: `/_sandbox/registry/batches/${batchKey}`, field: 'documents', id: (d) => d.index, total: 'documentCount', count: 7 },
      { url: `/_sandbox/registry/reconciliations/${reconciliationKey}`, field: 'items', id: (i) => i.index, total: 'itemCount', count: 7 },
      { url: '/_sandbox/bookkeeping/tenants', field: 'tenants', id: (t) => t.tenantId, total: 'total', count: 7 },
      { url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills`, field: 'tradeBills', id: (b) => b.uid, total: 'total', count: 8 },
      { url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/B-0`, field: 'payments', id: (p) => p.recordedAt + String((p.declaration as { remainingValue: number }).remainingValue), total: 'paymentCount', count: 7 },
    ];
    for (const list of lists) {
      const whole = (await app.inject({ url: `${list.url}${list.url.includes('?') ? '&' : '?'}limit=1000` })).json() as Page;
      const all = (whole[list.field] as Array<Record<string, unknown>>).map(list.id);
      expect(all, list.url).toHaveLength(list.count);
      if (list.total) expect(whole[list.total], list.url).toBe(list.count);
      expect(whole[list.next ?? 'nextCursor'], list.url).toBeNull();
      for (const limit of [1, 2, 3, 5]) {
        const pages = await walk(app, list.url, list.field, limit, list.cursor, list.next);
        expect(pages.every((p) => p.length <= limit), `${list.url} limit ${limit}`).toBe(true);
        expect(pages.flat().map((i) => list.id(i as Record<string, unknown>)), `${list.url} limit ${limit}`).toEqual(all);
        expect(pages.length, `${list.url} limit ${limit}`).toBe(Math.max(1, Math.ceil(all.length / limit)));
      }
    }
  });

  it('give 100 items by default, and keep a page found before a write the same after it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const registros = Array.from({ length: 150 }, (_, j) => ({ numeroDuplicata: `D-${j}`, valorDuplicata: 10 }));
    const key = (await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: rg, payload: { registros } })).json().chaveRemessa;
    for (let i = 0; i < 150; i++) await app.inject({ url: `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract`, headers: bk });
    const journal = (await app.inject({ url: '/_sandbox/requests' })).json() as Page & { entries: Array<{ id: number }> };
    expect(journal.entries).toHaveLength(100);
    const batch = (await app.inject({ url: `/_sandbox/registry/batches/${key}` })).json() as Page & { documents: unknown[] };
    expect(batch.documents).toHaveLength(100);
    // Newer requests arrive between two pages of the journal: the second page goes on from the first.
    for (let i = 0; i < 5; i++) await app.inject({ url: '/_sandbox/health' });
    await app.inject({ url: `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract`, headers: bk });
    const next = (await app.inject({ url: `/_sandbox/requests?cursor=${journal.nextCursor}` })).json() as Page & { entries: Array<{ id: number }> };
    expect(next.entries.map((e) => e.id)).toEqual(Array.from({ length: 51 }, (_, i) => (journal.entries.at(-1)?.id ?? 0) - 1 - i));
    expect(next.nextCursor).toBeNull();
    const rest = (await app.inject({ url: `/_sandbox/registry/batches/${key}?cursor=${batch.nextCursor}` })).json() as { documents: Array<{ index: number }> };
    expect(rest.documents.map((d) => d.index)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
  });

  it('stop a page at about 1 MB of items, and go on from there to the end with every item once', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    // Documents of about 9 KB as held; request bodies the journal keeps at some 17 KB an entry.
    const long = 'R'.repeat(3000);
    const registros = Array.from({ length: 300 }, (_, j) => ({ numeroDuplicata: `E-${j}`, valorDuplicata: 10.5, enderecoSacado: long, enderecoSacador: long, nomeSacado: long }));
    const key = (await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: rg, payload: { registros } })).json().chaveRemessa as string;
    const small = Array.from({ length: 1100 }, (_, j) => ({ numeroDuplicata: `S-${j}`, valorDuplicata: 10.5, nomeSacado: 'ACME LTDA' }));
    for (let i = 0; i < 80; i++) await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: rg, payload: { registros: small } });
    for (const [url, field, count] of [
      [`/_sandbox/registry/batches/${key}`, 'documents', 300],
      ['/_sandbox/requests', 'entries', 81],
    ] as const) {
      for (const limit of ['', 'limit=1000&']) {
        const seen: unknown[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const res = await app.inject({ url: `${url}?${limit}${cursor === null ? '' : `cursor=${cursor}`}` });
          expect(res.statusCode).toBe(200);
          expect(res.rawPayload.length, `${url} page ${pages}`).toBeLessThan(1_048_576);
          const body = res.json() as Page;
          const items = body[field] as Array<{ index?: number; id?: number }>;
          expect(items.length).toBeGreaterThan(0);
          seen.push(...items.map((i) => i.index ?? i.id));
          cursor = body.nextCursor;
          pages += 1;
        } while (cursor !== null);
        expect(new Set(seen).size, url).toBe(count);
        expect(seen, url).toHaveLength(count);
        expect(pages, url).toBeGreaterThan(1);
      }
    }
  });

  it('page the unmatched requests as the journal: limit, nextCursor, about 1 MB a page, each once, newest first', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    // Bodies the journal keeps at some 17 KB an entry: 70 of them are more than one page holds.
    const big = JSON.stringify(Object.fromEntries(Array.from({ length: 32 }, (_, j) => [`campo${j}`, 'N'.repeat(500)])));
    for (let i = 0; i < 70; i++) {
      await app.inject({ method: 'POST', url: `/api/v1.0/service/dup/nada-${i}`, headers: { 'content-type': 'application/json' }, payload: big });
      // A documented operation between them: in the journal, not among the unmatched.
      if (i % 10 === 0) await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: rg, payload: { registros: [] } });
    }
    for (const limit of ['', 'limit=7&']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await app.inject({ url: `/_sandbox/requests/unmatched?${limit}${cursor === null ? '' : `cursor=${cursor}`}` });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.rawPayload.length).toBeLessThan(1_048_576);
        const body = res.json() as { unmatched: Array<{ entry: { path: string; operation: string | null } }>; nextCursor: string | null };
        expect(body.unmatched.length).toBeGreaterThan(0);
        if (limit !== '') expect(body.unmatched.length).toBeLessThanOrEqual(7);
        expect(body).toHaveProperty('nextCursor');
        for (const u of body.unmatched) expect(u.entry.operation).toBeNull();
        seen.push(...body.unmatched.map((u) => u.entry.path));
        cursor = body.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(seen).toEqual(Array.from({ length: 70 }, (_, i) => `/api/v1.0/service/dup/nada-${69 - i}`));
      expect(pages).toBeGreaterThan(1);
    }
    const wrong = await app.inject({ url: '/_sandbox/requests/unmatched?cursor=not-a-cursor' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details[0]).toMatchObject({ path: '/cursor' });
    expect((await app.inject({ url: '/_sandbox/requests/unmatched?limit=1001' })).statusCode).toBe(400);
  });

  it('refuse a cursor the list did not give, naming it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const journalCursor = Buffer.from(JSON.stringify([5])).toString('base64url');
    for (const [url, cursor] of [
      ['/_sandbox/requests', 'not-a-cursor'],
      ['/_sandbox/workspaces', journalCursor],
      ['/_sandbox/registry/participants', journalCursor],
      ['/_sandbox/loanbond/registrations', Buffer.from(JSON.stringify(['a', 'b'])).toString('base64url')],
    ] as const) {
      const res = await app.inject({ url: `${url}?cursor=${cursor}` });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details[0], url).toMatchObject({ path: '/cursor' });
    }
    const participant = await app.inject({ url: '/_sandbox/registry/participants/PART-1?batchesCursor=zz' });
    expect(participant.statusCode).toBe(400);
    expect(participant.json().details[0]).toMatchObject({ path: '/batchesCursor' });
    expect((await app.inject({ url: '/_sandbox/requests?limit=1001' })).statusCode).toBe(400);
  });
});
