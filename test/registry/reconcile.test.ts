import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/runtime/clock.js';
import { detailPaths, testApp } from '../helpers.js';
import { batch, FIXTURES, OTHER_TOKEN, post, RECONCILE, register, validDocument } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;

async function app(): Promise<FastifyInstance> {
  const clock = new SandboxClock();
  clock.set(new Date('2026-11-20T12:00:00.000Z'), true);
  return testApp({ fixtures: FIXTURES, clock });
}

interface ReconciliationBody {
  chaveConciliacao: string;
  participantId: string;
  reconciledAt: string;
  counts: { matched: number; diverging: number; unknown: number };
  warnings: Array<{ path: string; rule: string }>;
  items: Array<{
    index: number;
    chaveRegistro: string | null;
    result: string;
    message: string;
    divergences: Array<{ field: string; held?: unknown; sent: unknown }>;
    reported: Record<string, unknown>;
  }>;
}

interface ParticipantBody {
  documentCount: number;
  firstRegistrationAt: string | null;
  lastReconciliation: { chaveConciliacao: string; reconciledAt: string } | null;
  reconciliationDueBy: string | null;
  overdue: boolean;
  reconciliations: Array<{ chaveConciliacao: string; itemCount: number }>;
}

async function reconcile(a: FastifyInstance, registros: unknown[], token?: string) {
  const res = await post(a, RECONCILE, { registros }, token ? { token } : {});
  expect(res.statusCode).toBe(200);
  const key = (res.json() as { chaveConciliacao: string }).chaveConciliacao;
  const view = await a.inject({ url: `/_sandbox/registry/reconciliations/${key}` });
  expect(view.statusCode).toBe(200);
  return { res, key, view: view.json() as ReconciliationBody };
}

async function participant(a: FastifyInstance, id = 'PART-1'): Promise<ParticipantBody> {
  const res = await a.inject({ url: `/_sandbox/registry/participants/${id}` });
  expect(res.statusCode).toBe(200);
  return res.json() as ParticipantBody;
}

/** Registers documents 1 and 2 and returns their registration keys. */
async function registered(a: FastifyInstance): Promise<[string, string]> {
  const b = await batch(a, await register(a, [validDocument(1), validDocument(2)]));
  return [b.documents[0]?.chaveRegistro ?? '', b.documents[1]?.chaveRegistro ?? ''];
}

describe('registry: reconcile documents', () => {
  it('answers 401 without a participant token', async () => {
    const a = await app();
    const res = await post(a, RECONCILE, { registros: [{}] }, { token: null });
    expect(res.statusCode).toBe(401);
  });

  it('reports a matching item, a diverging item with the field named and an unknown key', async () => {
    const a = await app();
    const [k1, k2] = await registered(a);
    const { res, key, view } = await reconcile(a, [
      {
        ...validDocument(1),
        chaveRegistro: k1,
        dataRegistro: '2026-11-20',
        cancelado: 'NAO',
        statusPagamento: 0,
      },
      { ...validDocument(2), chaveRegistro: k2, valorDuplicata: 1400 },
      { chaveRegistro: 'RGDOESNOTEXIST' },
    ]);
    const body = res.json() as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['chaveConciliacao', 'mensagem']);
    expect(key).toMatch(/^CC[A-Z2-7]{24}$/);
    expect(body.mensagem).toBe('3 documents reconciled: 1 matched, 1 diverging, 1 unknown');
    expect(view.participantId).toBe('PART-1');
    expect(view.counts).toEqual({ matched: 1, diverging: 1, unknown: 1 });
    expect(view.items.map((i) => [i.index, i.chaveRegistro, i.result])).toEqual([
      [0, k1, 'matched'],
      [1, k2, 'diverging'],
      [2, 'RGDOESNOTEXIST', 'unknown'],
    ]);
    expect(view.items[0]?.reported).toEqual({ cancelado: 'NAO', statusPagamento: 0 });
    expect(view.items[1]?.divergences).toEqual([{ field: '/valorDuplicata', held: 1500.5, sent: 1400 }]);
    expect(view.items[1]?.message).toBe('1 field differs from the registration: /valorDuplicata');
  });

  it('names nested diverging fields, a different documento and a different dataRegistro', async () => {
    const a = await app();
    const [k1] = await registered(a);
    const doc = validDocument(1) as { operacao: Record<string, unknown>; garantia: Record<string, unknown> };
    const { view } = await reconcile(a, [
      {
        chaveRegistro: k1,
        dataRegistro: '2026-11-19',
        operacao: { ...doc.operacao, valorOperacao: 1500.51 },
        garantia: { tipoGarantia: 1, avalistas: [{ nomeAvalista: 'Maria Souza' }] },
        documento: Buffer.from('another file').toString('base64'),
      },
    ]);
    const item = view.items[0];
    expect(item?.result).toBe('diverging');
    expect(item?.divergences.map((d) => d.field)).toEqual([
      '/operacao/valorOperacao',
      '/garantia/avalistas/0/nomeAvalista',
      '/documento',
      '/dataRegistro',
    ]);
    expect(item?.divergences[0]).toEqual({ field: '/operacao/valorOperacao', held: 1500.5, sent: 1500.51 });
    expect(item?.divergences[3]).toEqual({ field: '/dataRegistro', held: '2026-11-20', sent: '2026-11-19' });
    expect(item?.message).toMatch(/^4 fields differ from the registration: /);
  });

  it('treats a field the registration does not hold as diverging, and a different guarantor count as one divergence', async () => {
    const a = await app();
    const key = await register(a, [{ numeroDuplicata: 'D-9', garantia: { avalistas: [] } }]);
    const k = (await batch(a, key)).documents[0]?.chaveRegistro;
    const { view } = await reconcile(a, [
      { chaveRegistro: k, nomeSacado: 'Novo', garantia: { avalistas: [{ nomeAvalista: 'X' }] } },
    ]);
    expect(view.items[0]?.divergences).toEqual([
      { field: '/nomeSacado', sent: 'Novo' },
      { field: '/garantia/avalistas', held: [], sent: [{ nomeAvalista: 'X' }] },
    ]);
  });

  it('compares tax ids without their punctuation', async () => {
    const a = await app();
    const [k1] = await registered(a);
    const { view } = await reconcile(a, [
      { chaveRegistro: k1, cpfCnpjTitular: '11222333000181', cpfCnpjSacado: '12.abc.345/01de-35' },
    ]);
    expect(view.items[0]?.result).toBe('matched');
  });

  it("treats another participant's chaveRegistro and a missing chaveRegistro as unknown", async () => {
    const a = await app();
    const [k1] = await registered(a);
    const { view } = await reconcile(
      a,
      [{ ...validDocument(1), chaveRegistro: k1 }, { numeroDuplicata: 'DUP-1' }],
      OTHER_TOKEN,
    );
    expect(view.participantId).toBe('PART-2');
    expect(view.items.map((i) => i.result)).toEqual(['unknown', 'unknown']);
    expect(view.items[1]?.chaveRegistro).toBeNull();
    expect(view.items[1]?.message).toContain('no chaveRegistro');
  });

  it('refuses registration-type errors in reconciliation items with exact pointers, storing nothing', async () => {
    const a = await app();
    const res = await post(a, RECONCILE, {
      registros: [{ chaveRegistro: 'RG1', statusPagamento: '1', dataCancelamento: '2026-02-29' }],
    });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual([
      '/registros/0/dataCancelamento',
      '/registros/0/statusPagamento',
    ]);
    expect((await participant(a)).reconciliations).toEqual([]);
  });

  it('applies the domain checks to reconciliation items: warning by default, 400 in strict mode', async () => {
    const a = await app();
    const item = { chaveRegistro: 'RG1', cpfCnpjSacado: '11222333000182' };
    const { res, view } = await reconcile(a, [item]);
    expect(res.headers['sandbox-warnings']).toBe('1');
    expect(view.warnings.map((w) => [w.path, w.rule])).toEqual([['/registros/0/cpfCnpjSacado', 'tax-id']]);
    const strict = await post(a, RECONCILE, { registros: [item] }, { headers: { 'sandbox-strict': 'true' } });
    expect(strict.statusCode).toBe(400);
  });

  it('answers 404 in inspection for unknown keys and participants', async () => {
    const a = await app();
    for (const url of [
      '/_sandbox/registry/batches/RMNOPE',
      '/_sandbox/registry/reconciliations/CCNOPE',
      '/_sandbox/registry/participants/NOPE',
    ]) {
      expect((await a.inject({ url })).statusCode).toBe(404);
    }
  });
});

describe('registry: the monthly reconciliation', () => {
  it('is not overdue without registrations, however much time passes', async () => {
    const a = await app();
    a.runtime.clock.advance(400 * DAY);
    const p = await participant(a);
    expect(p.overdue).toBe(false);
    expect(p.reconciliationDueBy).toBeNull();
  });

  it('becomes overdue once the clock passes a month after the first registration, and not after reconciling', async () => {
    const a = await app();
    const [k1] = await registered(a);
    let p = await participant(a);
    expect(p.firstRegistrationAt).toBe('2026-11-20T12:00:00.000Z');
    expect(p.reconciliationDueBy).toBe('2026-12-20T12:00:00.000Z');
    expect(p.overdue).toBe(false);

    a.runtime.clock.set(new Date('2026-12-20T12:00:00.000Z'), true);
    expect((await participant(a)).overdue).toBe(false);
    a.runtime.clock.advance(1);
    expect((await participant(a)).overdue).toBe(true);

    const { key } = await reconcile(a, [{ chaveRegistro: k1 }]);
    p = await participant(a);
    expect(p.overdue).toBe(false);
    expect(p.lastReconciliation).toEqual({ chaveConciliacao: key, reconciledAt: '2026-12-20T12:00:00.001Z' });
    expect(p.reconciliationDueBy).toBe('2027-01-20T12:00:00.001Z');

    a.runtime.clock.advance(32 * DAY);
    expect((await participant(a)).overdue).toBe(true);
  });

  it('does not count a refused reconciliation', async () => {
    const a = await app();
    await registered(a);
    a.runtime.clock.advance(40 * DAY);
    const res = await post(a, RECONCILE, { registros: [{ statusPagamento: 'x' }] });
    expect(res.statusCode).toBe(400);
    expect((await participant(a)).overdue).toBe(true);
  });

  it("measures each participant on its own: one participant's reconciliation does not help another", async () => {
    const a = await app();
    await registered(a);
    await register(a, [validDocument(3)], { token: OTHER_TOKEN });
    a.runtime.clock.advance(40 * DAY);
    await reconcile(a, [{ chaveRegistro: 'RGX' }], OTHER_TOKEN);
    expect((await participant(a, 'PART-1')).overdue).toBe(true);
    expect((await participant(a, 'PART-2')).overdue).toBe(false);
  });
});

describe('registry: large reconciliations', () => {
  it('reconciles 10 000 items against 10 000 registrations', async () => {
    const a = await app();
    const key = await register(
      a,
      Array.from({ length: 10_000 }, (_, i) => ({ numeroDuplicata: `D-${i}`, valorDuplicata: i / 100 })),
    );
    const docs = (await batch(a, key)).documents;
    const registros = docs.map((d) => ({
      chaveRegistro: d.chaveRegistro,
      numeroDuplicata: `D-${d.index}`,
      valorDuplicata: d.index === 9_999 ? 1 : d.index / 100,
    }));
    const { key: reconciliation, view } = await reconcile(a, registros);
    expect(view.counts).toEqual({ matched: 9_999, diverging: 1, unknown: 0 });
    // The items come in pages: the last of ten pages of 1000 holds the diverging one.
    let cursor: string | null = null;
    const items: ReconciliationBody['items'] = [];
    do {
      const page: ReconciliationBody & { nextCursor: string | null } = (
        await a.inject({ url: `/_sandbox/registry/reconciliations/${reconciliation}?limit=1000${cursor ? `&cursor=${cursor}` : ''}` })
      ).json();
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(items.map((i) => i.index)).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(items[9_999]?.divergences).toEqual([{ field: '/valorDuplicata', held: 99.99, sent: 1 }]);
  });
});
