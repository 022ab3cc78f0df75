// Near misses: a 501 under an interface prefix, or a 404 close to a documented
// path, names the nearest documented operation and what differs; a 401/403 (and receivables'
// InvalidToken) says which credential was looked for and where, never echoing the value sent.
import type { FastifyInstance } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { OUTCOMES } from '../../src/interfaces.js';
import { testApp } from '../helpers.js';
import { errorShapeProblem } from '../reliability/engine/run.js';
import { COVERAGE_FIXTURES, T1 } from './drivers.js';

const TRB = `/api/bookkeeping/integration/v1/${T1}/trade-receivable-certificates`;
const PAYMENT_TEMPLATE = '/api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/{uid}/payment';

interface Nearest {
  operation: string;
  method: string;
  path: string;
  differences: string[];
}

describe('near misses', () => {
  let app: FastifyInstance;
  beforeEach(async () => {
    app = await testApp({ fixtures: COVERAGE_FIXTURES });
  });

  const send = (method: string, url: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({ method: method as 'GET', url, headers, ...(payload ? { payload } : {}) });

  it('tells a 501 the nearest operation when a path segment is misspelt, in the body and the journal', async () => {
    const res = await send('PUT', `${TRB}/IUD-OPEN/payments`, {});
    expect(res.statusCode).toBe(501);
    const body = res.json() as { message: string; nearest: Nearest };
    expect(body.nearest).toEqual({
      operation: 'declare-payment',
      method: 'PUT',
      path: PAYMENT_TEMPLATE,
      differences: ['your path has "payments" where the operation has "payment"'],
    });
    expect(body.message).toContain(`did you mean PUT ${PAYMENT_TEMPLATE} (declare-payment)?`);
    const [entry] = (await send('GET', '/_sandbox/requests?limit=1')).json().entries as Array<{ responseBody: { nearest: Nearest }; outcome: null }>;
    expect(entry?.responseBody.nearest.operation).toBe('declare-payment');
    expect(entry?.outcome).toBeNull();
  });

  it('names a wrong method, a trailing slash and an extra segment', async () => {
    const method = (await send('POST', `${TRB}/IUD-OPEN/payment`, {})).json() as { nearest: Nearest };
    expect(method.nearest.differences).toEqual(["the method is POST; the operation's is PUT"]);
    const slash = (await send('POST', '/v1/import-cnab/', {})).json() as { nearest: Nearest };
    expect(slash.nearest).toMatchObject({ operation: 'import-cnab', differences: ['your path ends with a slash the operation does not have'] });
    const extra = (await send('POST', '/api/service/document/registrar/now', {})).json() as { nearest: Nearest };
    expect(extra.nearest).toMatchObject({ operation: 'register-loan-bond', differences: ['your path has an extra segment "now"'] });
    const missing = (await send('GET', `/api/bookkeeping/integration/v1/${T1}/extract`)).json() as { nearest: Nearest };
    expect(missing.nearest).toMatchObject({
      operation: 'list-extract-requests',
      differences: ['your path lacks the segment "trade-receivable-certificates"'],
    });
  });

  it('keeps the receivables envelope valid in a 501 with a near miss (the named-only fields beside it)', async () => {
    const res = await send('GET', '/v1/import-cnab');
    const body = res.json() as { error: { code: string; message: string; target: null }; nearest: Nearest };
    expect(body.error.code).toBe('NotImplemented');
    expect(body.error.message).toContain('did you mean POST /v1/import-cnab (import-cnab)? the method is GET');
    expect(body.nearest.operation).toBe('import-cnab');
  });

  it('suggests an operation for a 404 a version away from it, and none for a path far from all', async () => {
    const close = (await send('POST', '/api/v1/service/dup/registrar_documentos', {})).json() as { nearest?: Nearest; message: string };
    expect(close.nearest).toMatchObject({
      operation: 'register-documents',
      differences: ['your path has "v1" where the operation has "v1.0"'],
    });
    const far = await send('GET', '/metrics');
    expect(far.statusCode).toBe(404);
    expect(far.json()).not.toHaveProperty('nearest');
  });
});

describe('credential refusals', () => {
  const SECRET = 'Zq9-not-a-real-token-7Xk';
  // Each 401/403/InvalidToken outcome, sent with SECRET where a credential goes, and where the message must point.
  const CASES: Array<{ outcome: string; method: string; url: string; headers?: Record<string, string>; body?: object; where: RegExp }> = [
    { outcome: 'list-extract-requests.token-missing', method: 'GET', url: `${TRB}/extract`, where: /Authorization header/ },
    { outcome: 'list-extract-requests.token-malformed', method: 'GET', url: `${TRB}/extract`, headers: { authorization: `Token ${SECRET}` }, where: /Authorization header/ },
    { outcome: 'list-extract-requests.token-unknown', method: 'GET', url: `${TRB}/extract`, headers: { authorization: `Bearer ${SECRET}` }, where: /Authorization header.*bookkeeping\.users/ },
    { outcome: 'list-extract-requests.tenant-forbidden', method: 'GET', url: `/api/bookkeeping/integration/v1/11444777000161/trade-receivable-certificates/extract`, headers: { authorization: 'Bearer bk-token-1' }, where: /Authorization header.*tenantId in the path/ },
    { outcome: 'register-documents.token-unknown', method: 'POST', url: '/api/v1.0/service/dup/registrar_documentos', headers: { authorization: `Bearer ${SECRET}` }, body: { registros: [{}] }, where: /Authorization header.*registry\.participants/ },
    { outcome: 'register-loan-bond.token-unknown', method: 'POST', url: '/api/service/document/registrar', body: { versao: '2.0', token: SECRET, registros: [{ documento: 'AAAA' }] }, where: /body field token/ },
    { outcome: 'register-loan-bond.token-missing', method: 'POST', url: '/api/service/document/registrar', body: { versao: '2.0', registros: [{ documento: 'AAAA' }] }, where: /body field token/ },
    { outcome: 'register-loan-bond.rule-1-electronic-signature', method: 'POST', url: '/api/service/document/registrar', body: { versao: '2.0', token: 'lb-token-2', registros: [{ documento: 'AAAA' }] }, where: /body field token.*rule 1|rule 1.*body field token/ },
    { outcome: 'register-loan-bond.rule-2-digital-loan-bond', method: 'POST', url: '/api/service/document/registrar', body: { versao: '2.0', token: 'lb-token-3', registros: [{ documento: 'AAAA' }] }, where: /rule 2.*body field token/ },
    { outcome: 'import-cnab.token-mismatch', method: 'POST', url: '/v1/import-cnab', body: { token: SECRET, fundCnpj: T1, operationFile: 'AAAA', fileName: 'f', additiveNumber: 1 }, where: /body field token/ },
    { outcome: 'import-cnab.token-unknown-fund', method: 'POST', url: '/v1/import-cnab', body: { token: SECRET, fundCnpj: '00000000000191', operationFile: 'AAAA', fileName: 'f', additiveNumber: 1 }, where: /body field fundCnpj.*body field token/ },
    { outcome: 'import-cnab.token-not-issued', method: 'POST', url: '/v1/import-cnab', body: { token: SECRET, fundCnpj: '11444777000161', operationFile: 'AAAA', fileName: 'f', additiveNumber: 1 }, where: /body field fundCnpj/ },
  ];

  it('covers every credential outcome of the catalog', () => {
    const credential = OUTCOMES.filter((o) => (o.status === 401 || o.status === 403) && !o.slug.startsWith('fault-')).map((o) => o.id);
    const cased = new Set(CASES.map((c) => c.outcome.split('.')[1]));
    expect(credential.filter((id) => !cased.has(id.split('.')[1]))).toEqual([]);
  });

  for (const c of CASES) {
    it(`says where it looked for the credential, never echoing it: ${c.outcome}`, async () => {
      const app = await testApp({ fixtures: COVERAGE_FIXTURES });
      const res = await app.inject({ method: c.method as 'GET', url: c.url, headers: c.headers ?? {}, ...(c.body ? { payload: c.body } : {}) });
      expect(res.headers['sandbox-outcome']).toBe(c.outcome);
      const iface = c.url.startsWith('/v1') ? 'receivables' : c.url.startsWith('/api/book') ? 'bookkeeping' : c.url.startsWith('/api/v1.0') ? 'registry' : 'loanbond';
      expect(errorShapeProblem(iface, res.statusCode, res.body)).toBeNull();
      const message = (res.json() as { message?: string; error?: { message: string } }).message ?? (res.json() as { error: { message: string } }).error.message;
      expect(message).toMatch(c.where);
      expect(res.body).not.toContain(SECRET);
      const journal = await app.inject({ url: '/_sandbox/requests' });
      expect(journal.body).not.toContain(SECRET);
      expect(journal.body).toContain(`"outcome":"${c.outcome}"`);
    });
  }
});
