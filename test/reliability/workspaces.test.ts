// Workspaces under parallel workers: 16 workers over real HTTP, each in its own
// workspace /ws/w{i}, each running the demo flow (payments, registry, CNAB import, loan-bond,
// snapshot/restore, clock, faults) twice with resets in between, all at once. Every worker's
// transcript must equal, answer for answer, the transcript of the same flow run alone against a
// sandbox of its own; and at the end every workspace's journal, fault rules and clock are its own.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, type Sandbox, startSandbox } from '../../src/index.js';

const WORKERS = 16;
const TENANT = '11222333000181';
const BK = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates`;
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
const CNAB = readFileSync('fixtures/cnab444-demo.rem');
// Real-time readings differ between any two runs, lone or not: everything else must be equal.
// (lastReset: reset returns the clock to real time before it records the moment.)
const REAL_TIME_KEYS = new Set(['realTime', 'realNow', 'offsetMs', 'durationMs', 'lastReset']);

interface Step {
  step: string;
  status: number;
  body: unknown;
}

/**
 * The journal keeps each request as sent: its request line names the workspace's /ws/{name} prefix and
 * its Host header the server's port, the two things that differ from a lone sandbox by design.
 */
function asIfLone(key: string, value: unknown): unknown {
  if (key === 'requestLine' && typeof value === 'string') return value.replace(/^(\S+) \/ws\/[^/ ]+/, '$1 ');
  return value;
}

function normalize(value: unknown, dropCreatedAt: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, dropCreatedAt));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.some(([k, v]) => k === 'name' && typeof v === 'string' && v.toLowerCase() === 'host')) return { name: 'host', value: 'the server' };
  return Object.fromEntries(
    entries
      .filter(([k]) => !REAL_TIME_KEYS.has(k) && !(dropCreatedAt && k === 'createdAt'))
      .map(([k, v]) => [k, normalize(asIfLone(k, v), dropCreatedAt)]),
  );
}

const pause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5)));

/**
 * The demo flow against `base` (a sandbox URL, or one with /ws/{name}); returns every answer. Pauses
 * between steps shuffle the workers' requests into each other.
 */
async function demoFlow(base: string, round: number): Promise<Step[]> {
  const steps: Step[] = [];
  async function call(step: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    await pause();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    // Snapshot listings carry the real time they were saved at.
    steps.push({ step, status: res.status, body: normalize(parsed, path.includes('/_sandbox/snapshots')) });
    return { status: res.status, body: parsed as Record<string, unknown>, headers: res.headers };
  }
  const bk = { authorization: 'Bearer bk-demo-token-7' };
  const rg = { authorization: 'Bearer rg-demo-token-1' };

  await call('reset', 'POST', '/_sandbox/reset', { fixtures: 'default', seed: `flow-${round}`, seedSecrets: true });
  await call('pin the clock', 'POST', '/_sandbox/clock', { now: '2026-11-02T12:00:00Z', freeze: true });
  await call('extract', 'GET', `${BK}/extract?page=1&pageSize=10&sortBy=registeredAt&desc=true`, undefined, bk);
  await call('snapshot', 'POST', '/_sandbox/snapshots', { name: 'before-payments' });
  const payment = { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 100.25, remainingValue: 1399.75 };
  await call('partial payment', 'PUT', `${BK}/IUD-0001/payment`, payment, bk);
  await call('bill after payment', 'GET', `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-0001`);
  await call('restore', 'POST', '/_sandbox/snapshots/before-payments/restore');
  await call('bill after restore', 'GET', `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-0001`);
  await call('pay again after restore', 'PUT', `${BK}/IUD-0001/payment`, payment, bk);

  const docs = [
    { numeroDuplicata: 'DEMO-1', dataEmissao: '2026-11-01', dataVencimento: '2026-12-01', valorDuplicata: 1500.5, cpfCnpjSacado: '11.222.333/0001-81', codigoIBGEPracaPagamento: 3550308 },
    { numeroDuplicata: 'DEMO-2', dataEmissao: '2026-11-01', dataVencimento: '2026-12-15', valorDuplicata: 830.5, cpfCnpjSacado: '529.982.247-26', codigoIBGEPracaPagamento: 3304557 },
  ];
  const registered = await call('register', 'POST', '/api/v1.0/service/dup/registrar_documentos', { registros: docs }, rg);
  const batch = await call('batch', 'GET', `/_sandbox/registry/batches/${String(registered.body.chaveRemessa)}`);
  const keys = (batch.body.documents as Array<{ chaveRegistro: string }>).map((d) => d.chaveRegistro);
  const reconciled = await call(
    'reconcile',
    'POST',
    '/api/v1.0/service/dup/conciliar_documentos',
    { registros: [{ ...docs[0], chaveRegistro: keys[0] }, { ...docs[1], chaveRegistro: keys[1], valorDuplicata: 831.5 }] },
    rg,
  );
  await call('reconciliation', 'GET', `/_sandbox/registry/reconciliations/${String(reconciled.body.chaveConciliacao)}`);

  const imported = await call('import CNAB', 'POST', '/v1/import-cnab', {
    token: 'rc-demo-token-1',
    fundCnpj: '11.222.333/0001-81',
    operationFile: CNAB.toString('base64'),
    fileName: 'cnab444-demo.rem',
    additiveNumber: 1,
  });
  await call('run work (imports)', 'POST', '/_sandbox/work/run');
  await call('import', 'GET', `/_sandbox/receivables/imports/${imported.headers.get('sandbox-import-id') ?? 'none'}?titlesLimit=5`);

  const lb = await call('register loan bond', 'POST', '/api/service/document/registrar', {
    versao: '2.0',
    token: 'lb-demo-token-1',
    registros: [
      {
        nome_documento: 'ccb-demo.pdf',
        assinado: false,
        assinantes: [{ cpf_cnpj: '52998224725', nome: 'Maria Silva', papel: 'emitente', email: 'maria@example.com' }],
        parcelas: [{ numero: 1, data_vencimento: '2026-12-10', valor: 1500.5 }],
        documento: PDF.toString('base64'),
      },
    ],
  });
  await call('run work (loan bonds)', 'POST', '/_sandbox/work/run');
  const id = (lb.body.registros as Array<{ codigo_identificador: string }> | undefined)?.[0]?.codigo_identificador;
  await call('registration', 'GET', `/_sandbox/loanbond/registrations/${id ?? 'none'}`);

  await call('fault', 'POST', '/_sandbox/faults', { path: '/api/v1.0/service/dup/registrar_documentos', status: 500, times: 1 });
  const one = { registros: [{ ...docs[0], numeroDuplicata: 'DEMO-3' }] };
  await call('faulted register', 'POST', '/api/v1.0/service/dup/registrar_documentos', one, rg);
  await call('register after the fault', 'POST', '/api/v1.0/service/dup/registrar_documentos', one, rg);
  await call('faults', 'GET', '/_sandbox/faults');
  await call('advance the clock', 'POST', '/_sandbox/clock', { advance: 'P31D' });
  await call('overview a month later', 'GET', '/_sandbox/overview');
  await call('journal', 'GET', '/_sandbox/requests');
  await call('snapshots', 'GET', '/_sandbox/snapshots');
  return steps;
}

describe('16 parallel workers, each in its own workspace', () => {
  let shared: Sandbox;
  let lone: Sandbox;

  beforeAll(async () => {
    shared = await startSandbox({ fixtures: DEMO_FIXTURES, seed: 'flow' });
    lone = await startSandbox({ fixtures: DEMO_FIXTURES, seed: 'flow' });
  });
  afterAll(async () => {
    await shared.close();
    await lone.close();
  });

  it('get exactly what a lone sandbox answers, with resets interleaved and no cross-talk', { timeout: 120_000 }, async () => {
    const expected = [await demoFlow(lone.url, 1), await demoFlow(lone.url, 2)];
    // The flow itself is checked once: every step answered as a successful demo does.
    const failed = expected.flat().filter((s) => s.status >= 400 && s.step !== 'faulted register');
    expect(failed).toEqual([]);
    expect(expected[0]?.find((s) => s.step === 'faulted register')?.status).toBe(500);

    const overview = async () => (await (await fetch(`${shared.url}/_sandbox/overview`)).json()) as Record<string, unknown>;
    const defaultBefore = await overview();
    const results = await Promise.all(
      Array.from({ length: WORKERS }, async (_, i) => {
        const ws = shared.workspace(`w${i}`);
        // Two rounds, each starting with a reset: the workers' resets land in the middle of each other's flows.
        return [await demoFlow(ws.url, 1), await demoFlow(ws.url, 2)];
      }),
    );
    for (const [i, transcript] of results.entries()) {
      expect(transcript, `worker w${i}`).toEqual(expected);
    }

    // After the run: each journal holds exactly its own round's requests, each fault rule its own hit,
    // each clock its own month.
    const loneJournal = await lone.requests();
    for (let i = 0; i < WORKERS; i++) {
      const ws = shared.workspace(`w${i}`);
      const journal = await ws.requests();
      expect(journal.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(
        loneJournal.map((e) => `${e.method} ${e.path} ${e.status}`),
      );
      const faults = (await (await fetch(`${ws.url}/_sandbox/faults`)).json()) as { faults: Array<{ hits: number }> };
      expect(faults.faults.map((f: { hits: number }) => f.hits)).toEqual([1]);
      expect((await ws.clock()).now).toBe('2026-12-03T12:00:00.000Z');
    }
    // The default workspace saw none of it.
    expect(await shared.requests()).toEqual([]);
    expect(((await (await fetch(`${shared.url}/_sandbox/faults`)).json()) as { faults: unknown[] }).faults).toEqual([]);
    // All of it but the clock, which runs on real time there.
    const withoutClock = (o: Record<string, unknown>) => ({ ...o, clock: undefined });
    expect(withoutClock(await overview())).toEqual(withoutClock(defaultBefore));
    const defaultClock = await shared.clock();
    expect(defaultClock.frozen).toBe(false);
    expect(Math.abs(defaultClock.offsetMs)).toBeLessThan(1000);
    const listed = await shared.workspaces();
    expect(listed.map((w) => w.name)).toEqual(['default', ...Array.from({ length: WORKERS }, (_, i) => `w${i}`).sort()]);
  });
});
