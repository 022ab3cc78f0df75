// Secret hygiene: every log line (at trace level), every journal entry and every response body of
// a session that touches all operations, the control plane and a fuzz pass is scanned for tokens,
// Authorization values, token_acesso and document content. token_acesso may appear in exactly one
// place: the 201 that hands it to its caller.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { LogCapture } from '../helpers.js';
import {
  BK_OTHER_TOKEN,
  BK_TENANT,
  BK_TOKEN,
  LB_NO_PRODUCTS_TOKEN,
  LB_OTHER_TOKEN,
  LB_TOKEN,
  OPERATIONS,
  PINNED_NOW,
  RC_FUND,
  RC_OTHER_TOKEN,
  RC_TOKEN,
  RELIABILITY_FIXTURES,
  RG_OTHER_TOKEN,
  RG_TOKEN,
  tinyPdf,
} from './engine/operations.js';
import { fuzzOperation } from './engine/run.js';

const ADMIN = 'rel-admin-token-secret';
const TOKENS = [BK_TOKEN, BK_OTHER_TOKEN, RG_TOKEN, RG_OTHER_TOKEN, RC_TOKEN, RC_OTHER_TOKEN, LB_TOKEN, LB_OTHER_TOKEN, LB_NO_PRODUCTS_TOKEN, ADMIN];
const PDF_MARKER = 'CONFIDENTIAL-PDF-BODY-7731';
const REGISTRY_MARKER = 'CONFIDENTIAL-INVOICE-BODY-5512';
const CNAB_MARKER = 'CONFIDENTIALFUNDNAME';
const pdf64 = tinyPdf(PDF_MARKER).toString('base64');
const registryDoc64 = Buffer.from(`%PDF-1.4 ${REGISTRY_MARKER}`).toString('base64');
const cnab64 = Buffer.from(
  [`01REMESSA01COBRANCA${' '.repeat(20)}${CNAB_MARKER}${' '.repeat(335)}000001`, `9${' '.repeat(393)}000002`].join('\r\n'),
  'latin1',
).toString('base64');
const DOCUMENTS = [PDF_MARKER, REGISTRY_MARKER, CNAB_MARKER, pdf64, registryDoc64, cnab64];

/** Every occurrence of a secret in the texts, with some context. */
function leaks(texts: readonly string[], secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const text of texts) {
    for (const secret of secrets) {
      const at = text.indexOf(secret);
      if (at >= 0) found.push(`${secret}: ...${text.slice(Math.max(0, at - 200), at + secret.length + 50)}`);
    }
  }
  return found;
}

class Session {
  readonly logs = new LogCapture();
  readonly bodies: string[] = [];
  readonly journal: string[] = [];
  readonly tokenAcesso: string[] = [];
  app!: FastifyInstance;

  async open(): Promise<FastifyInstance> {
    this.app = await buildApp({
      db: ':memory:',
      fixtures: RELIABILITY_FIXTURES,
      logger: { level: 'trace', stream: this.logs },
      adminToken: ADMIN,
      journalSize: 100_000,
    });
    this.app.runtime.clock.set(PINNED_NOW, true);
    return this.app;
  }

  record = (res: LightMyRequestResponse): void => {
    if (res.statusCode === 201 && res.body.includes('token_acesso')) {
      // The one legitimate place: kept aside, its secrets collected for the scan of everything else.
      for (const r of (res.json() as { registros: Array<{ token_acesso: string }> }).registros) this.tokenAcesso.push(r.token_acesso);
      return;
    }
    this.bodies.push(res.body);
  };

  async call(options: InjectOptions): Promise<LightMyRequestResponse> {
    const res = await this.app.inject(options);
    this.record(res);
    return res;
  }

  /** Every entry the journal holds: its pages, following nextCursor. */
  collectJournal = async (app: FastifyInstance): Promise<void> => {
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const res = await app.inject({ url: `/_sandbox/requests?limit=1000${query}`, headers: { 'sandbox-admin-token': ADMIN } });
      expect(res.statusCode).toBe(200);
      this.journal.push(res.body);
      cursor = (res.json() as { nextCursor: string | null }).nextCursor;
    } while (cursor !== null);
  };
}

const admin = { 'sandbox-admin-token': ADMIN };
const BK = `/api/bookkeeping/integration/v1/${BK_TENANT}/trade-receivable-certificates`;

describe('secret hygiene', () => {
  it('keeps tokens, Authorization values, token_acesso and documents out of logs, journal and answers', { timeout: 120_000 }, async () => {
    const s = new Session();
    await s.open();
    const bk = { authorization: `Bearer ${BK_TOKEN}` };
    const rg = { authorization: `Bearer ${RG_TOKEN}` };
    // Every operation: accepted, refused for credentials, refused for the body, and malformed JSON
    // carrying the secrets (the raw text must not leak either).
    await s.call({ url: `${BK}/extract`, headers: bk });
    await s.call({ url: `${BK}/extract?token=${BK_TOKEN}`, headers: bk });
    await s.call({ url: `${BK}/extract`, headers: { authorization: `Bearer ${BK_OTHER_TOKEN}` } });
    await s.call({ url: `${BK}/extract`, headers: { authorization: `Basic ${BK_TOKEN}` } });
    await s.call({ method: 'PUT', url: `${BK}/IUD-0001/payment`, headers: bk, payload: { type: 'bankSlip', informantId: 'x', isPartial: true, paymentValue: 1 } });
    await s.call({ method: 'PUT', url: `${BK}/IUD-0001/payment`, headers: bk, payload: { type: 'bankSlip', informantId: 'x', isPartial: 'yes', paymentValue: 1, token: BK_TOKEN } });
    for (const url of ['/api/v1.0/service/dup/registrar_documentos', '/api/v1.0/service/dup/conciliar_documentos']) {
      await s.call({ method: 'POST', url, headers: rg, payload: { registros: [{ numeroDuplicata: 'D-1', documento: registryDoc64 }] } });
      await s.call({ method: 'POST', url, headers: rg, payload: { registros: [{ numeroDuplicata: 1, documento: registryDoc64 }] } });
      await s.call({ method: 'POST', url, headers: rg, payload: { registros: [{ documento: `${registryDoc64}!` }] } });
      await s.call({ method: 'POST', url, headers: { authorization: `Bearer ${RG_TOKEN}x` }, payload: { registros: [{ documento: registryDoc64 }] } });
      await s.call({ method: 'POST', url, headers: { ...rg, 'content-type': 'application/json' }, payload: `{"registros":[{"documento":"${registryDoc64}"` });
    }
    const cnab = { token: RC_TOKEN, fundCnpj: RC_FUND, operationFile: cnab64, fileName: 'r.rem', additiveNumber: 1 };
    await s.call({ method: 'POST', url: '/v1/import-cnab', payload: cnab });
    await s.call({ method: 'POST', url: '/v1/import-cnab', payload: { ...cnab, token: RC_OTHER_TOKEN } });
    await s.call({ method: 'POST', url: '/v1/import-cnab', payload: { ...cnab, additiveNumber: '1' } });
    await s.call({ method: 'POST', url: '/v1/import-cnab', payload: { ...cnab, operationFile: `${cnab64}%` } });
    await s.call({ method: 'POST', url: '/v1/import-cnab', headers: { 'content-type': 'text/plain' }, payload: JSON.stringify(cnab) });
    await s.call({ method: 'POST', url: '/v1/import-cnab', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(cnab).slice(0, -3) });
    await s.call({ method: 'POST', url: '/v1/not-documented', payload: cnab });
    const lb = { versao: '2.0', token: LB_TOKEN, registros: [{ documento: pdf64, documentos_adicionais: [{ conteudo: pdf64 }] }] };
    await s.call({ method: 'POST', url: '/api/service/document/registrar', payload: lb });
    await s.call({ method: 'POST', url: '/api/service/document/registrar', payload: { ...lb, token: LB_NO_PRODUCTS_TOKEN } });
    await s.call({ method: 'POST', url: '/api/service/document/registrar', payload: { ...lb, versao: 2 } });
    await s.call({ method: 'POST', url: '/api/service/document/registrar', payload: { ...lb, registros: [{ documento: Buffer.from(PDF_MARKER).toString('base64') }] } });
    // A fault rule: the service "fails" with a 500 while the secrets are in flight.
    await s.call({ method: 'POST', url: '/_sandbox/faults', headers: admin, payload: { path: '/api/service/document/registrar', status: 500, times: 1 } });
    await s.call({ method: 'POST', url: '/api/service/document/registrar', payload: lb });
    await s.app.runtime.work.drain();
    // The control plane and every inspection route, with the admin token and without.
    for (const url of [
      '/_sandbox/bookkeeping/tenants',
      `/_sandbox/bookkeeping/tenants/${BK_TENANT}/trade-bills`,
      `/_sandbox/bookkeeping/tenants/${BK_TENANT}/trade-bills/IUD-0001`,
      '/_sandbox/registry/participants/REL-PART-1',
      '/_sandbox/receivables/funds',
      `/_sandbox/receivables/funds/${RC_FUND}/imports`,
      '/_sandbox/loanbond/registrations',
      '/_sandbox/loanbond/documents',
      '/_sandbox/faults',
      '/_sandbox/operations',
      '/openapi.json',
      '/openapi-3.0.json',
    ]) {
      await s.call({ url, headers: admin });
      await s.call({ url, headers: { 'sandbox-admin-token': `${ADMIN}x` } });
    }
    const participant = await s.call({ url: '/_sandbox/registry/participants/REL-PART-1', headers: admin });
    for (const b of participant.json().batches as Array<{ chaveRemessa: string }>) {
      await s.call({ url: `/_sandbox/registry/batches/${b.chaveRemessa}`, headers: admin });
    }
    const registrations = await s.call({ url: '/_sandbox/loanbond/registrations', headers: admin });
    for (const r of registrations.json().registrations as Array<{ codigoIdentificador?: string; codigo_identificador?: string }>) {
      await s.call({ url: `/_sandbox/loanbond/registrations/${r.codigoIdentificador ?? r.codigo_identificador}`, headers: admin });
    }
    const imports = await s.call({ url: `/_sandbox/receivables/funds/${RC_FUND}/imports`, headers: admin });
    for (const i of imports.json().imports as Array<{ importId: string }>) {
      await s.call({ url: `/_sandbox/receivables/imports/${i.importId}`, headers: admin });
    }
    await s.call({ method: 'POST', url: '/_sandbox/fixtures', headers: admin, payload: { bookkeeping: { users: [{ userId: 99, accessToken: 'rel-new-secret-token', tenants: ['11222333000181'] }] } } });
    await s.call({ method: 'POST', url: '/_sandbox/fixtures', headers: admin, payload: { bookkeeping: { users: [{ userId: 'x', accessToken: 'rel-new-secret-token' }] } } });
    await s.collectJournal(s.app);
    await s.app.close();

    // A fuzz pass over the six operations, logged at trace level.
    for (const op of OPERATIONS) {
      await fuzzOperation(op, () => s.open(), { runs: 150, onResponse: s.record, beforeClose: s.collectJournal });
    }

    expect(s.tokenAcesso.length).toBeGreaterThan(0);
    expect(s.logs.lines.length).toBeGreaterThan(100);
    const secrets = [...TOKENS, 'rel-new-secret-token', ...DOCUMENTS, ...s.tokenAcesso];
    // Each finding names the secret with the text around it.
    expect(leaks(s.logs.lines, secrets)).toEqual([]);
    expect(leaks(s.journal, secrets)).toEqual([]);
    expect(leaks(s.bodies, secrets)).toEqual([]);
  });
});
