// Many clients at once over real HTTP (loopback, bounded): payments on the same bills, registry
// batches, CNAB imports and loan-bond registrations. Totals add up exactly; no key is handed out twice.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { listenOnFreePort, testApp } from '../helpers.js';
import {
  BK_TENANT,
  BK_TOKEN,
  LB_OTHER_TOKEN,
  LB_TOKEN,
  PINNED_NOW,
  RC_FUND,
  RC_TOKEN,
  RELIABILITY_FIXTURES,
  RG_OTHER_TOKEN,
  RG_TOKEN,
  tinyPdf,
} from './engine/operations.js';
import { cnabText } from '../receivables/helpers.js';

const CLIENTS = 16;

/** Runs the tasks with at most `limit` in flight. */
async function pool<T>(limit: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

async function listening(): Promise<{ app: FastifyInstance; base: string }> {
  const app = await testApp({ fixtures: RELIABILITY_FIXTURES });
  app.runtime.clock.set(PINNED_NOW, true);
  return { app, base: `http://127.0.0.1:${await listenOnFreePort(app)}` };
}

const json = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

describe('concurrent clients', () => {
  it('never loses or double-counts a payment when many clients pay the same bills', async () => {
    const { base } = await listening();
    const uids = ['IUD-0001', 'IUD-0002', 'IUD-0003'];
    // 3 bills of 100 000.00; 3 x 120 partial payments of 0.01..12.00: all fit, every cent counts.
    const payments = uids.flatMap((uid) =>
      Array.from({ length: 120 }, (_, i) => ({ uid, cents: ((i * 37) % 1200) + 1 })),
    );
    const statuses = await pool(
      CLIENTS,
      payments.map((p) => async () => {
        const res = await fetch(
          `${base}/api/bookkeeping/integration/v1/${BK_TENANT}/trade-receivable-certificates/${p.uid}/payment`,
          {
            method: 'PUT',
            headers: json(BK_TOKEN),
            body: JSON.stringify({
              type: 'bankSlip',
              informantId: 'directByDrawerHolder',
              isPartial: true,
              paymentValue: p.cents / 100,
            }),
          },
        );
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.every((s) => s === 204)).toBe(true);
    for (const uid of uids) {
      const res = await fetch(`${base}/_sandbox/bookkeeping/tenants/${BK_TENANT}/trade-bills/${uid}?limit=1000`);
      const bill = (await res.json()) as {
        amount: number;
        openValue: number;
        payments: Array<{ declaration: { paymentValue: number }; openValueBefore: number; openValueAfter: number }>;
      };
      const sent = payments.filter((p) => p.uid === uid).reduce((s, p) => s + p.cents, 0);
      const recorded = bill.payments.reduce((s, p) => s + Math.round(p.declaration.paymentValue * 100), 0);
      expect(bill.payments).toHaveLength(120);
      expect(recorded).toBe(sent);
      expect(Math.round((bill.amount - bill.openValue) * 100)).toBe(sent);
      // Each payment saw the open value the previous one left: a chain, no lost update.
      for (let i = 1; i < bill.payments.length; i++) {
        expect(bill.payments[i]?.openValueBefore).toBe(bill.payments[i - 1]?.openValueAfter);
      }
    }
  });

  it('accepts exactly as many payments as a bill can take when clients race to settle it', async () => {
    const { base } = await listening();
    // IUD-0004 holds 10 000 000.00: 60 racing partial payments of 200 000.00 each.
    const statuses = await pool(
      CLIENTS,
      Array.from({ length: 60 }, () => async () => {
        const res = await fetch(
          `${base}/api/bookkeeping/integration/v1/${BK_TENANT}/trade-receivable-certificates/IUD-0004/payment`,
          {
            method: 'PUT',
            headers: json(BK_TOKEN),
            body: JSON.stringify({
              type: 'bankSlip',
              informantId: 'directByDrawerHolder',
              isPartial: true,
              paymentValue: 200_000,
            }),
          },
        );
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const accepted = statuses.filter((s) => s === 204).length;
    expect(statuses.every((s) => s === 204 || s === 400)).toBe(true);
    const res = await fetch(`${base}/_sandbox/bookkeeping/tenants/${BK_TENANT}/trade-bills/IUD-0004?limit=1000`);
    const bill = (await res.json()) as { amount: number; openValue: number; payments: unknown[] };
    expect(bill.payments).toHaveLength(accepted);
    expect(bill.openValue).toBeGreaterThanOrEqual(0);
    expect(Math.round((bill.amount - bill.openValue) * 100)).toBe(accepted * 20_000_000);
    // A partial payment must stay below the open value (bk-partial-equal-open): 49 fit, 200 000.00 stays open.
    expect(accepted).toBe(49);
    expect(bill.openValue).toBe(200_000);
  });

  it('registers concurrent batches of two participants with unique keys and exact counts', async () => {
    const { base } = await listening();
    const doc = (n: number) => ({
      numeroDuplicata: `DUP-${n}`,
      valorDuplicata: 10.5,
      cpfCnpjSacado: '52998224725',
      documento: Buffer.from(`doc ${n}`).toString('base64'),
    });
    const tasks = Array.from({ length: 60 }, (_, b) => async () => {
      const token = b % 2 === 0 ? RG_TOKEN : RG_OTHER_TOKEN;
      const res = await fetch(`${base}/api/v1.0/service/dup/registrar_documentos`, {
        method: 'POST',
        headers: json(token),
        body: JSON.stringify({ registros: Array.from({ length: 5 }, (_, i) => doc(b * 5 + i)) }),
      });
      return { status: res.status, body: (await res.json()) as { chaveRemessa: string } };
    });
    const results = await pool(CLIENTS, tasks);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const batches = new Set(results.map((r) => r.body.chaveRemessa));
    expect(batches.size).toBe(60);
    const documentKeys = new Set<string>();
    for (const key of batches) {
      const res = await fetch(`${base}/_sandbox/registry/batches/${key}`);
      const batch = (await res.json()) as { documents: Array<{ chaveRegistro: string }> };
      for (const d of batch.documents) documentKeys.add(d.chaveRegistro);
    }
    expect(documentKeys.size).toBe(300);
    for (const id of ['REL-PART-1', 'REL-PART-2']) {
      const res = await fetch(`${base}/_sandbox/registry/participants/${id}`);
      const p = (await res.json()) as { documentCount: number; batches: unknown[] };
      expect(p.documentCount).toBe(150);
      expect(p.batches).toHaveLength(30);
    }
  });

  it('stores every concurrently imported CNAB file once, and processes each to the same totals', async () => {
    const { base } = await listening();
    const file = Buffer.from(
      cnabText('cnab400', [{ valueCents: 100 }, { titleId: 'TIT-2', documentNumber: 'DOC-2', valueCents: 250 }]),
      'latin1',
    ).toString('base64');
    const results = await pool(
      CLIENTS,
      Array.from({ length: 40 }, (_, i) => async () => {
        const res = await fetch(`${base}/v1/import-cnab`, {
          method: 'POST',
          headers: json(),
          body: JSON.stringify({
            token: RC_TOKEN,
            fundCnpj: RC_FUND,
            operationFile: file,
            fileName: `remessa-${i}.rem`,
            additiveNumber: i,
          }),
        });
        await res.arrayBuffer();
        return { status: res.status, id: res.headers.get('sandbox-import-id') };
      }),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.id)).size).toBe(40);
    const run = await fetch(`${base}/_sandbox/work/run`, { method: 'POST' });
    expect(run.status).toBe(200);
    const res = await fetch(`${base}/_sandbox/receivables/funds/${RC_FUND}/imports`);
    const list = (await res.json()) as { imports: Array<{ status: string; titleCount: number; totalFaceValueCents: number }> };
    expect(list.imports).toHaveLength(40);
    for (const imp of list.imports) {
      expect(imp.titleCount).toBe(2);
      expect(imp.totalFaceValueCents).toBe(350);
    }
  });

  it('hands out unique loan-bond keys and access tokens to concurrent callers', async () => {
    const { base } = await listening();
    const results = await pool(
      CLIENTS,
      Array.from({ length: 40 }, (_, i) => async () => {
        const res = await fetch(`${base}/api/service/document/registrar`, {
          method: 'POST',
          headers: json(),
          body: JSON.stringify({
            versao: '2.0',
            token: i % 2 === 0 ? LB_TOKEN : LB_OTHER_TOKEN,
            registros: [
              { documento: tinyPdf(`a${i}`).toString('base64') },
              { documento: tinyPdf(`b${i}`).toString('base64') },
            ],
          }),
        });
        return {
          status: res.status,
          body: (await res.json()) as {
            codigo: string;
            registros: Array<{ codigo_identificador: string; chave_registro: string; token_acesso: string }>;
          },
        };
      }),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const items = results.flatMap((r) => r.body.registros);
    expect(items).toHaveLength(80);
    expect(new Set(results.map((r) => r.body.codigo)).size).toBe(40);
    expect(new Set(items.map((r) => r.codigo_identificador)).size).toBe(80);
    expect(new Set(items.map((r) => r.chave_registro)).size).toBe(80);
    expect(new Set(items.map((r) => r.token_acesso)).size).toBe(80);
    const res = await fetch(`${base}/_sandbox/loanbond/registrations`);
    expect(((await res.json()) as { registrations: unknown[] }).registrations).toHaveLength(80);
  });
});
