// The auth matrix, generated from the catalog: every documented operation without credentials,
// with wrong ones, and with another tenant's or caller's -> the documented refusal, in the
// interface's error shape, changing nothing. With the admin token set, no interface credential opens
// the inspection routes (which see every tenant). Everything runs twice: on the default workspace and
// under a workspace's base URL (/ws/auth), where the same refusals hold and the default one is untouched.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/http/catalog.js';
import { INTERFACES } from '../../src/interfaces.js';
import { testApp } from '../helpers.js';
import {
  BK_OTHER_TENANT,
  BK_OTHER_TOKEN,
  BK_TENANT,
  BK_TOKEN,
  LB_NO_PRODUCTS_TOKEN,
  LB_TOKEN,
  PINNED_NOW,
  RC_FUND,
  RC_OTHER_FUND,
  RC_OTHER_TOKEN,
  RC_TOKEN,
  RELIABILITY_FIXTURES,
  RG_OTHER_TOKEN,
  RG_TOKEN,
  tinyPdf,
} from './engine/operations.js';
import { basePath, errorShapeProblem, fingerprint, runtimeIn } from './engine/run.js';

type Credential = 'valid' | 'none' | 'wrong' | 'other';

interface Call {
  method: 'GET' | 'PUT' | 'POST';
  url: string;
  headers: Record<string, string>;
  payload?: Record<string, unknown>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const BK = '/api/bookkeeping/integration/v1';
const CNAB = Buffer.from(
  [
    `01REMESSA01COBRANCA${' '.repeat(375)}000001`,
    `1${' '.repeat(393)}000002`,
    `9${' '.repeat(393)}000003`,
  ].join('\r\n'),
  'latin1',
).toString('base64');

/** A valid call of each documented operation with the chosen credential, and the refusal expected. */
const MATRIX: Record<string, (c: Credential) => { call: Call; refusal: { status: number; code?: string } }> = {
  'list-extract-requests': (c) => ({
    call: {
      method: 'GET',
      // "other": user 2's token on user 1's tenant.
      url: `${BK}/${BK_TENANT}/trade-receivable-certificates/extract`,
      headers: c === 'none' ? {} : bearer(c === 'wrong' ? 'nope' : c === 'other' ? BK_OTHER_TOKEN : BK_TOKEN),
    },
    refusal: { status: c === 'other' ? 403 : 401 },
  }),
  'declare-payment': (c) => ({
    call: {
      method: 'PUT',
      url: `${BK}/${BK_TENANT}/trade-receivable-certificates/IUD-0001/payment`,
      headers: c === 'none' ? {} : bearer(c === 'wrong' ? 'nope' : c === 'other' ? BK_OTHER_TOKEN : BK_TOKEN),
      payload: { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 1 },
    },
    refusal: { status: c === 'other' ? 403 : 401 },
  }),
  'register-documents': (c) => ({
    call: {
      method: 'POST',
      url: '/api/v1.0/service/dup/registrar_documentos',
      // The registry has no tenant in the path: "other" is a token that is not a participant's at all
      // (another interface's); isolation between participants is checked below.
      headers: c === 'none' ? {} : bearer(c === 'wrong' ? 'nope' : c === 'other' ? BK_TOKEN : RG_TOKEN),
      payload: { registros: [{ numeroDuplicata: 'D-1' }] },
    },
    refusal: { status: 401 },
  }),
  'reconcile-documents': (c) => ({
    call: {
      method: 'POST',
      url: '/api/v1.0/service/dup/conciliar_documentos',
      headers: c === 'none' ? {} : bearer(c === 'wrong' ? 'nope' : c === 'other' ? LB_TOKEN : RG_TOKEN),
      payload: { registros: [{ numeroDuplicata: 'D-1' }] },
    },
    refusal: { status: 401 },
  }),
  'import-cnab': (c) => ({
    call: {
      method: 'POST',
      url: '/v1/import-cnab',
      headers: {},
      payload: {
        // "other": fund 2's token for fund 1.
        token: c === 'none' ? '' : c === 'wrong' ? 'nope' : c === 'other' ? RC_OTHER_TOKEN : RC_TOKEN,
        fundCnpj: RC_FUND,
        operationFile: CNAB,
        fileName: 'r.rem',
        additiveNumber: 1,
      },
    },
    refusal: { status: 400, code: 'InvalidToken' },
  }),
  'register-loan-bond': (c) => ({
    call: {
      method: 'POST',
      url: '/api/service/document/registrar',
      headers: {},
      payload: {
        versao: '2.0',
        // "other": a real caller that holds neither product.
        token: c === 'none' ? '' : c === 'wrong' ? 'nope' : c === 'other' ? LB_NO_PRODUCTS_TOKEN : LB_TOKEN,
        registros: [{ documento: tinyPdf('auth').toString('base64') }],
      },
    },
    refusal: { status: 401 },
  }),
};

const DOCUMENTED = INTERFACES.operations.filter((o) => o.status === 'implemented');

for (const workspace of ['', 'auth']) {
  const base = basePath(workspace);
  const where = workspace === '' ? '' : ` under ${base}`;

  async function app(options: { adminToken?: string } = {}): Promise<FastifyInstance> {
    const a = await testApp({ fixtures: RELIABILITY_FIXTURES, ...options });
    runtimeIn(a, workspace).clock.set(PINNED_NOW, true);
    return a;
  }

  /** The state of the workspace under test, and (under a prefix) of the default one too. */
  const state = (a: FastifyInstance): string => `${fingerprint(a, workspace)} ${workspace === '' ? '' : fingerprint(a)}`;

  function send(a: FastifyInstance, call: Call) {
    return a.inject({
      method: call.method,
      url: base + call.url,
      headers: call.headers,
      ...(call.payload ? { payload: call.payload } : {}),
    });
  }

  describe(`the auth matrix of the catalog${where}`, () => {
    it('covers every documented operation of the catalog', () => {
      expect(DOCUMENTED.map((o: Operation) => o.id).sort()).toEqual(Object.keys(MATRIX).sort());
    });

    for (const op of DOCUMENTED) {
      for (const credential of ['none', 'wrong', 'other'] as const) {
        it(`refuses ${op.interface} ${op.id} with ${credential} credentials, changing nothing`, async () => {
          const a = await app();
          const build = MATRIX[op.id];
          if (!build) throw new Error(`no auth-matrix entry for ${op.id}`);
          const { call, refusal } = build(credential);
          const before = state(a);
          const res = await send(a, call);
          expect(res.statusCode, res.body).toBe(refusal.status);
          expect(errorShapeProblem(op.interface, res.statusCode, res.body)).toBeNull();
          if (refusal.code) expect(res.json().error.code).toBe(refusal.code);
          expect(state(a)).toBe(before);
        });
      }

      it(`accepts ${op.interface} ${op.id} with valid credentials (the matrix's control case)`, async () => {
        const a = await app();
        const { call } = (MATRIX[op.id] as (c: Credential) => { call: Call })('valid');
        const res = await send(a, call);
        expect(res.statusCode, res.body).toBeLessThan(300);
      });
    }

    it("never lets a bookkeeping user read or pay another tenant's bills", async () => {
      const a = await app();
      for (const [token, tenant] of [
        [BK_TOKEN, BK_OTHER_TENANT],
        [BK_OTHER_TOKEN, BK_TENANT],
      ] as const) {
        const before = state(a);
        const read = await a.inject({ url: `${base}${BK}/${tenant}/trade-receivable-certificates/extract`, headers: bearer(token) });
        expect(read.statusCode).toBe(403);
        const pay = await a.inject({
          method: 'PUT',
          url: `${base}${BK}/${tenant}/trade-receivable-certificates/IUD-0001/payment`,
          headers: bearer(token),
          payload: { type: 'bankSlip', informantId: 'x', isPartial: true, paymentValue: 1 },
        });
        expect(pay.statusCode).toBe(403);
        expect(state(a)).toBe(before);
      }
    });

    it("never shows a registry participant another participant's registrations when reconciling", async () => {
      const a = await app();
      const reg = await a.inject({
        method: 'POST',
        url: `${base}/api/v1.0/service/dup/registrar_documentos`,
        headers: bearer(RG_TOKEN),
        payload: { registros: [{ numeroDuplicata: 'SECRET-DUP', valorDuplicata: 10 }] },
      });
      expect(reg.statusCode).toBe(200);
      const batch = await a.inject({ url: `${base}/_sandbox/registry/batches/${reg.json().chaveRemessa}` });
      const chaveRegistro = batch.json().documents[0].chaveRegistro as string;
      const rec = await a.inject({
        method: 'POST',
        url: `${base}/api/v1.0/service/dup/conciliar_documentos`,
        headers: bearer(RG_OTHER_TOKEN),
        payload: { registros: [{ chaveRegistro, numeroDuplicata: 'GUESS', valorDuplicata: 11 }] },
      });
      expect(rec.statusCode).toBe(200);
      expect(rec.body).not.toContain('SECRET-DUP');
      const view = await a.inject({ url: `${base}/_sandbox/registry/reconciliations/${rec.json().chaveConciliacao}` });
      const item = view.json().items[0];
      // To participant 2 the key is unknown: nothing of participant 1's document is compared or shown.
      expect(item.result).toBe('unknown');
      expect(JSON.stringify(item)).not.toContain('SECRET-DUP');
    });

    it("refuses one fund's file sent with another fund's token", async () => {
      const a = await app();
      const res = await send(a, {
        method: 'POST',
        url: '/v1/import-cnab',
        headers: {},
        payload: { token: RC_TOKEN, fundCnpj: RC_OTHER_FUND, operationFile: CNAB, fileName: 'r.rem', additiveNumber: 1 },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('InvalidToken');
    });
  });

  describe(`inspection under the admin token${where}`, () => {
    const ADMIN = 'rel-admin-secret';

    it('opens no /_sandbox route to a missing, wrong or interface credential', async () => {
      const a = await app({ adminToken: ADMIN });
      const doc = (await a.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
      const routes = Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/_sandbox'))
        .flatMap(([path, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path })));
      expect(routes.length).toBeGreaterThan(15);
      const before = state(a);
      for (const { method, path } of routes) {
        const url = path.replace(/\{[^}]+\}/g, (p) => (p === '{tenantId}' || p === '{fundCnpj}' ? BK_TENANT : 'X'));
        for (const headers of [
          {},
          { 'sandbox-admin-token': 'wrong' },
          { 'sandbox-admin-token': BK_TOKEN },
          bearer(ADMIN),
          bearer(RG_TOKEN),
        ]) {
          const res = await a.inject({
            method: method as 'GET',
            url: base + url,
            headers: { ...headers, ...(method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
            ...(method === 'GET' || method === 'DELETE' ? {} : { payload: '{}' }),
          });
          expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
          expect(errorShapeProblem('bookkeeping', 401, res.body)).toBeNull();
        }
      }
      expect(state(a)).toBe(before);
      const ok = await a.inject({
        url: `${base}/_sandbox/bookkeeping/tenants/${BK_TENANT}/trade-bills`,
        headers: { 'sandbox-admin-token': ADMIN },
      });
      expect(ok.statusCode).toBe(200);
    });
  });
}
