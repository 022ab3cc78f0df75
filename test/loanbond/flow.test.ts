import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { advanceRegistrations } from '../../src/loanbond/runner.js';
import { SandboxClock } from '../../src/runtime/clock.js';
import { LogCapture } from '../helpers.js';
import {
  body,
  documentCount,
  FIXTURES,
  lbApp,
  pdf,
  post,
  record,
  registrationCount,
  SIGNATURE,
  SIGNER,
  TOKEN,
} from './helpers.js';

interface Created {
  codigo: string;
  registros: Array<{ codigo_identificador: string; chave_registro: string; token_acesso: string }>;
}

interface Signatures {
  imported: boolean;
  sent: number;
  note: string;
  assinaturas: Array<Record<string, unknown>>;
}

interface Detail {
  codigo_identificador: string;
  token_acesso: string;
  callerId: string;
  codigo: string;
  state: string;
  assinado: boolean;
  assinantes: Array<Record<string, unknown>>;
  assinaturas: Signatures;
  parcelas: Array<{ numero: number; data_vencimento: string; valor: number }>;
  documento: { nome: string; size: number; sha256: string };
  documentos_adicionais: Array<{ nome: string; size: number; sha256: string; assinaturas: Signatures }>;
  notificacao: { status: string; recipients: string[]; at: string | null };
}

async function registerOne(app: Awaited<ReturnType<typeof lbApp>>, overrides: Record<string, unknown> = {}) {
  const res = await post(app, body([record(overrides)]));
  expect(res.statusCode).toBe(201);
  return res.json() as Created;
}

async function detail(app: Awaited<ReturnType<typeof lbApp>>, id: string | undefined): Promise<Detail> {
  const res = await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` });
  expect(res.statusCode).toBe(200);
  return res.json() as Detail;
}

describe('loan-bond registration flow and inspection', () => {
  it('imports the signatures of the record and its additional documents when assinado is true (rule 7)', async () => {
    const app = await lbApp();
    const created = await registerOne(app, { assinado: true });
    const d = await detail(app, created.registros[0]?.codigo_identificador);
    // Every field of the evidence is kept except the PIN, a secret.
    const kept = { ...SIGNATURE, assinatura_eletronica: { ...SIGNATURE.assinatura_eletronica, pin: '[not stored]' } };
    expect(d.assinaturas.imported).toBe(true);
    expect(d.assinaturas.assinaturas).toEqual([kept]);
    expect(d.documentos_adicionais[0]?.assinaturas.imported).toBe(true);
    expect(d.documentos_adicionais[0]?.assinaturas.assinaturas).toEqual([kept]);
    const journal = (await app.inject({ url: '/_sandbox/requests' })).body;
    expect(journal).toContain('assinatura_eletronica');
    expect(journal).not.toContain('"pin":"1234"');
  });

  it('stores no signatures when assinado is false, and shows they were sent but not imported', async () => {
    const app = await lbApp();
    const created = await registerOne(app, { assinado: false, assinaturas: [SIGNATURE, SIGNATURE] });
    const d = await detail(app, created.registros[0]?.codigo_identificador);
    expect(d.assinado).toBe(false);
    expect(d.assinaturas).toMatchObject({ imported: false, sent: 2, assinaturas: [] });
    expect(d.assinaturas.note).toContain('rule 7');
    expect(d.documentos_adicionais[0]?.assinaturas).toMatchObject({
      imported: false,
      sent: 1,
      assinaturas: [],
    });
    // Not stored at all: nothing of the signature reaches the database.
    const raw = app.runtime.store.db
      .prepare(
        'SELECT signatures FROM lb_registrations UNION ALL SELECT signatures FROM lb_additional_documents',
      )
      .pluck()
      .all();
    expect(raw).toEqual([null, null]);
  });

  it('treats a record without assinado as not signed', async () => {
    const app = await lbApp();
    const rec = record();
    delete rec.assinado;
    const res = await post(app, body([rec]));
    const d = await detail(app, (res.json() as Created).registros[0]?.codigo_identificador);
    expect(d.assinaturas.imported).toBe(false);
  });

  it('shows signers, installments in money and files by name, size and hash', async () => {
    const app = await lbApp();
    const created = await registerOne(app);
    const d = await detail(app, created.registros[0]?.codigo_identificador);
    expect(d.callerId).toBe('CALLER-1');
    expect(d.codigo).toBe(created.codigo);
    expect(d.assinantes).toEqual([SIGNER]);
    expect(d.parcelas).toEqual([
      { numero: 1, data_vencimento: '2026-12-10', valor: 1500.5 },
      { numero: 2, data_vencimento: '2027-01-10', valor: 1500.5 },
    ]);
    expect(d.documento).toMatchObject({ nome: 'ccb-0001.pdf', size: 600 });
    expect(d.documento.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(d.documentos_adicionais).toEqual([
      expect.objectContaining({
        nome: 'anexo.pdf',
        size: 700,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(JSON.stringify(d)).not.toContain(pdf());
  });

  it('moves a signed registration from registered to signatures-complete and records "would notify"', async () => {
    const clock = new SandboxClock();
    clock.set(new Date('2026-11-20T12:00:00Z'), true);
    const app = await lbApp({ clock });
    const created = await registerOne(app, {
      assinado: true,
      emails_final_fluxo: ['a@example.com', 'b@example.com'],
    });
    const id = created.registros[0]?.codigo_identificador;
    await app.runtime.work.drain();
    const d = await detail(app, id);
    expect(d.state).toBe('signatures-complete');
    expect(d.notificacao).toMatchObject({
      status: 'would-notify',
      recipients: ['a@example.com', 'b@example.com'],
      at: '2026-11-20T12:00:00.000Z',
    });
  });

  it('keeps a registration at registered until the asynchronous runner has processed it', async () => {
    const app = await lbApp();
    // A closed runner never runs: the state stays what the request left.
    await app.runtime.work.close();
    const created = await registerOne(app);
    const id = created.registros[0]?.codigo_identificador;
    const before = await detail(app, id);
    expect(before.state).toBe('registered');
    expect(before.notificacao.status).toBe('not-yet-processed');
    expect(advanceRegistrations(app.runtime.store, new Date('2026-11-20T12:00:00Z'))).toBe(1);
    expect((await detail(app, id)).state).toBe('signatures-complete');
    expect(advanceRegistrations(app.runtime.store, new Date('2026-11-20T12:00:00Z'))).toBe(0);
  });

  it('leaves an unsigned registration at signatures-pending, notifying no one yet', async () => {
    const app = await lbApp();
    const created = await registerOne(app, { assinado: false });
    await app.runtime.work.drain();
    const d = await detail(app, created.registros[0]?.codigo_identificador);
    expect(d.state).toBe('signatures-pending');
    expect(d.notificacao).toMatchObject({ status: 'waiting-for-signatures', at: null });
  });

  it('lists registrations by caller', async () => {
    const fixtures = structuredClone(FIXTURES);
    fixtures.loanbond?.callers?.push({
      callerId: 'CALLER-2',
      token: 'lb-token-2',
      products: ['electronic-signature', 'digital-loan-bond'],
    });
    const app = await lbApp({ fixtures });
    await post(app, body([record(), record()]));
    await post(app, body([record()], 'lb-token-2'));
    const list = async (q: string) =>
      (
        (await app.inject({ url: `/_sandbox/loanbond/registrations${q}` })).json() as {
          registrations: Array<{ callerId: string }>;
        }
      ).registrations.map((r) => r.callerId);
    expect(await list('?callerId=CALLER-1')).toEqual(['CALLER-1', 'CALLER-1']);
    expect(await list('?callerId=CALLER-2')).toEqual(['CALLER-2']);
    expect(await list('?callerId=NOBODY')).toEqual([]);
    expect((await list('')).length).toBe(3);
  });

  it('answers 404 for an unknown codigo_identificador', async () => {
    const app = await lbApp();
    const res = await app.inject({ url: '/_sandbox/loanbond/registrations/LB-NOPE' });
    expect(res.statusCode).toBe(404);
  });

  it('never shows token_acesso in full, in inspection or in the logs', async () => {
    const capture = new LogCapture();
    const app = await lbApp({ logger: { level: 'debug', stream: capture } });
    const created = await registerOne(app);
    await post(app, body([record({ documento: 'bad!' })]));
    await app.runtime.work.drain();
    const tokens = created.registros.map((r) => r.token_acesso);
    const id = created.registros[0]?.codigo_identificador;
    const list = (await app.inject({ url: '/_sandbox/loanbond/registrations' })).body;
    const one = await detail(app, id);
    expect(one.token_acesso).toBe(`${tokens[0]?.slice(0, 4)}…`);
    for (const t of tokens) {
      expect(list).not.toContain(t);
      expect(JSON.stringify(one)).not.toContain(t);
      expect(capture.text).not.toContain(t);
    }
    // The caller's token and the file contents stay out of the logs too.
    expect(capture.text).not.toContain(TOKEN);
    expect(capture.text).not.toContain(pdf().slice(0, 40));
    expect(capture.text).toContain('loan-bonds registered');
  });

  it('keeps only a hash of token_acesso in the database', async () => {
    const app = await lbApp();
    const created = await registerOne(app);
    const token = created.registros[0]?.token_acesso ?? '';
    const dump = JSON.stringify(app.runtime.store.db.prepare('SELECT * FROM lb_registrations').all());
    expect(dump).not.toContain(token);
  });
  it('resumes registrations left unprocessed when the sandbox restarts on the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lb-'));
    try {
      const db = join(dir, 'sandbox.db');
      const first = await lbApp({ db });
      await first.runtime.work.close();
      const created = await registerOne(first);
      await first.close();
      const second = await lbApp({ db });
      await second.runtime.work.drain();
      const d = await detail(second, created.registros[0]?.codigo_identificador);
      expect(d.state).toBe('signatures-complete');
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('forgets registrations and files on reset', async () => {
    const app = await lbApp();
    await registerOne(app);
    const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect(reset.statusCode).toBe(200);
    expect(await registrationCount(app)).toBe(0);
    expect(await documentCount(app)).toBe(0);
  });

  it('documents the route in OpenAPI with its 201, 400 and 401 and its assumptions', async () => {
    const app = await lbApp();
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        { post?: { responses: Record<string, unknown>; 'x-sandbox-assumption'?: string } }
      >;
    };
    const op = doc.paths['/api/service/document/registrar']?.post;
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(['201', '400', '401']);
    expect(op?.['x-sandbox-assumption']).toContain('[lb-check-order]');
  });
});
