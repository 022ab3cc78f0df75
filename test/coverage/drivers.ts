// One driver per outcome of the catalog: the HTTP calls a client makes to meet that outcome exactly
// once, against a sandbox started with COVERAGE_FIXTURES. Used by the reachability test and the demo
// of the JUnit report. Keyed by outcome id; a missing driver fails the test that walks the catalog.
import type { FixtureDocument } from '../../src/interfaces.js';
import { cnabText, detailLine, headerLine, trailerLine, VALID_NFE_KEY } from '../receivables/helpers.js';
import { pdf } from '../loanbond/helpers.js';

export const T1 = '11222333000181';
export const T2 = '11444777000161';
const BK = '/api/bookkeeping/integration/v1';
const EXTRACT = `${BK}/${T1}/trade-receivable-certificates/extract`;
const pay = (uid: string, tenant = T1) => `${BK}/${tenant}/trade-receivable-certificates/${uid}/payment`;
const REGISTER = '/api/v1.0/service/dup/registrar_documentos';
const RECONCILE = '/api/v1.0/service/dup/conciliar_documentos';
const IMPORT = '/v1/import-cnab';
const LOANBOND = '/api/service/document/registrar';

export const COVERAGE_FIXTURES: FixtureDocument = {
  bookkeeping: {
    users: [
      { userId: 1, accessToken: 'bk-token-1', tenants: [T1] },
      { userId: 2, accessToken: 'bk-token-2', tenants: [T2] },
    ],
    tradeBills: [
      { tenantId: T1, uid: 'IUD-OPEN', amount: 100 },
      { tenantId: T1, uid: 'IUD-PAID', amount: 100, status: 'paid' },
      { tenantId: T1, uid: 'IUD-CANCELLED', amount: 100, status: 'cancelled' },
      { tenantId: T1, uid: 'IUD-BLOCKED', amount: 100, status: 'blocked' },
    ],
    extractRequests: [
      {
        tenantId: T1,
        extractTradeReceivableRequestId: 1,
        registeredAt: '2026-11-01T10:00:00Z',
        registeredByUserId: 1,
        protocolNumber: 'PRT-0001',
        currentStepType: 'executed',
        generatedAt: '2026-11-01T10:05:00Z',
      },
    ],
  },
  registry: { participants: [{ participantId: 'PART-1', accessToken: 'rg-token-1' }] },
  receivables: {
    funds: [
      { fundCnpj: T1, token: 'rc-token-1' },
      { fundCnpj: T2, token: null },
    ],
  },
  loanbond: {
    callers: [
      { callerId: 'CALLER-1', token: 'lb-token-1', products: ['electronic-signature', 'digital-loan-bond'] },
      { callerId: 'CALLER-2', token: 'lb-token-2', products: ['digital-loan-bond'] },
      { callerId: 'CALLER-3', token: 'lb-token-3', products: ['electronic-signature'] },
    ],
  },
};

export interface Answer {
  status: number;
  outcome: string | null;
  body: string;
}

/** What a driver may do: call the sandbox over HTTP (interfaces and control plane alike). */
export interface Client {
  send(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: unknown; raw?: string },
  ): Promise<Answer>;
}

export type Driver = (c: Client) => Promise<unknown>;

const BK1 = { authorization: 'Bearer bk-token-1' };
const RG1 = { authorization: 'Bearer rg-token-1' };
const STRICT = { 'sandbox-strict': 'true' };
const declaration = (paymentValue: number, isPartial: boolean, extra: Record<string, unknown> = {}) => ({
  type: 'bankSlip',
  informantId: 'directByDrawerHolder',
  isPartial,
  paymentValue,
  ...extra,
});

/** Makes the next matching call answer `status` through a fault rule, then runs `call`. */
const viaFault =
  (path: string, status: number, call: Driver): Driver =>
  async (c) => {
    await c.send('POST', '/_sandbox/faults', { body: { path, status, times: 1 } });
    return call(c);
  };

/** The credential and tenant outcomes, the same on both bookkeeping operations. */
function bookkeepingAccess(op: string, call: (c: Client, headers: Record<string, string>, tenant: string) => Promise<Answer>) {
  return {
    [`${op}.token-missing`]: (c: Client) => call(c, {}, T1),
    [`${op}.token-malformed`]: (c: Client) => call(c, { authorization: 'Basic dXNlcjpwYXNz' }, T1),
    [`${op}.token-unknown`]: (c: Client) => call(c, { authorization: 'Bearer nobody' }, T1),
    [`${op}.tenant-id-invalid`]: (c: Client) => call(c, BK1, '123'),
    [`${op}.tenant-forbidden`]: (c: Client) => call(c, BK1, T2),
  };
}

const payOpen = (c: Client, body: unknown, headers: Record<string, string> = BK1, tenant = T1) =>
  c.send('PUT', pay('IUD-OPEN', tenant), { headers, body });

/** Registry outcomes both operations share: credentials, base64, strict mode, faults. */
function registryCommon(op: string, path: string): Record<string, Driver> {
  const post = (c: Client, headers: Record<string, string>, body: unknown) => c.send('POST', path, { headers, body });
  const badCpf = { registros: [{ cpfCnpjSacado: '12345678900' }] };
  return {
    [`${op}.token-missing`]: (c) => post(c, {}, { registros: [{}] }),
    [`${op}.token-malformed`]: (c) => post(c, { authorization: 'Token rg-token-1' }, { registros: [{}] }),
    [`${op}.token-unknown`]: (c) => post(c, { authorization: 'Bearer nobody' }, { registros: [{}] }),
    [`${op}.documento-not-base64`]: (c) => post(c, RG1, { registros: [{ documento: 'not base64!' }] }),
    [`${op}.strict-refused`]: (c) => post(c, { ...RG1, ...STRICT }, badCpf),
    [`${op}.headers-invalid`]: (c) => post(c, { ...RG1, 'sandbox-strict': 'maybe' }, { registros: [{}] }),
    [`${op}.body-malformed`]: (c) =>
      c.send('POST', path, { headers: { ...RG1, 'content-type': 'application/json' }, raw: '{"registros":' }),
    [`${op}.body-invalid`]: (c) => post(c, RG1, { registros: 'none' }),
    [`${op}.query-invalid`]: (c) => c.send('POST', `${path}?foo=1`, { headers: RG1, body: { registros: [{}] } }),
    [`${op}.fault-400`]: viaFault(path, 400, (c) => post(c, RG1, { registros: [{}] })),
    [`${op}.fault-401`]: viaFault(path, 401, (c) => post(c, RG1, { registros: [{}] })),
    [`${op}.fault-500`]: viaFault(path, 500, (c) => post(c, RG1, { registros: [{}] })),
  };
}

/** The chaveRegistro of a document registered now (numeroDuplicata 1). */
async function registeredKey(c: Client): Promise<string> {
  const res = await c.send('POST', REGISTER, { headers: RG1, body: { registros: [{ numeroDuplicata: '1' }] } });
  const { chaveRemessa } = JSON.parse(res.body) as { chaveRemessa: string };
  const batch = await c.send('GET', `/_sandbox/registry/batches/${chaveRemessa}`);
  const doc = (JSON.parse(batch.body) as { documents: Array<{ chaveRegistro: string }> }).documents[0];
  if (!doc) throw new Error('the registered batch has no document');
  return doc.chaveRegistro;
}

// ---- receivables files ----

const b64 = (text: string) => Buffer.from(text, 'latin1').toString('base64');
const CRLF = '\r\n';

/** Lines numbered 1..n at `seqAt` (0-based); a line too short for it is left as it is. */
function numbered(lines: string[], seqAt = 394): string {
  const seq = (l: string, i: number) =>
    l.length < seqAt + 6 ? l : l.slice(0, seqAt) + String(i + 1).padStart(6, '0') + l.slice(seqAt + 6);
  return lines.map(seq).join(CRLF) + CRLF;
}

/** A CNAB 400 file whose lines are given (numbered 1..n at 395-400). */
const cnab400 = (...lines: string[]) => numbered(lines);

const FILES: Record<string, string> = {
  processed: cnabText('cnab400', [{}]),
  header: cnab400(detailLine('cnab400'), detailLine('cnab400'), trailerLine('cnab400')),
  'header-operation': cnab400(`03${headerLine('cnab400').slice(2)}`, detailLine('cnab400'), trailerLine('cnab400')),
  'return-file': cnab400(`02${headerLine('cnab400').slice(2)}`, detailLine('cnab400'), trailerLine('cnab400')),
  occurrence: cnabText('cnab400', [{ occurrence: '  ' }]),
  kind: cnabText('cnab400', [{ kind: '  ' }]),
  trailer: cnab400(headerLine('cnab400'), detailLine('cnab400'), detailLine('cnab400')),
  'trailer-count': cnabText('cnab400', [{}], { sequence: { 3: 7 } }),
  sequence: cnabText('cnab400', [{}, {}], { sequence: { 2: 5 } }),
  'record-type': cnabText('cnab400', [{}], { others: ['9'] }),
  'line-length': numbered(
    [headerLine('cnab444-fidc'), detailLine('cnab444-fidc').slice(0, 400), detailLine('cnab444-fidc'), trailerLine('cnab444-fidc')],
    438,
  ),
  'no-titles': cnab400(headerLine('cnab400'), trailerLine('cnab400')),
  'document-number': cnabText('cnab400', [{ documentNumber: '' }]),
  'due-date': cnabText('cnab400', [{ due: '310226' }]),
  'face-value': cnabText('cnab400', [{ valueCents: 0 }]),
};

const submission = (file: string, extra: Record<string, unknown> = {}) => ({
  token: 'rc-token-1',
  fundCnpj: '11.222.333/0001-81',
  operationFile: b64(file),
  fileName: 'remessa.rem',
  additiveNumber: 1,
  ...extra,
});

const submit = (c: Client, body: unknown, headers: Record<string, string> = {}) =>
  c.send('POST', IMPORT, { headers, body });

const submitAndProcess = (file: string, headers: Record<string, string> = {}): Driver => async (c) => {
  await submit(c, submission(file), headers);
  return c.send('POST', '/_sandbox/work/run');
};

// ---- loan-bond ----

const record = (extra: Record<string, unknown> = {}) => ({ nome_documento: 'ccb.pdf', assinado: false, documento: pdf(), ...extra });
const lbBody = (extra: Record<string, unknown> = {}, records = [record()]) => ({
  versao: '2.0',
  token: 'lb-token-1',
  registros: records,
  ...extra,
});
const registerLb = (c: Client, body: unknown, headers: Record<string, string> = {}) =>
  c.send('POST', LOANBOND, { headers, body });

export const DRIVERS: Record<string, Driver> = {
  // ---- bookkeeping: list extract requests ----
  'list-extract-requests.listed': (c) => c.send('GET', EXTRACT, { headers: BK1 }),
  'list-extract-requests.listed-empty': (c) => c.send('GET', `${EXTRACT}?page=9`, { headers: BK1 }),
  'list-extract-requests.query-invalid': (c) => c.send('GET', `${EXTRACT}?page=0`, { headers: BK1 }),
  ...bookkeepingAccess('list-extract-requests', (c, headers, tenant) =>
    c.send('GET', `${BK}/${tenant}/trade-receivable-certificates/extract`, { headers }),
  ),
  'list-extract-requests.fault-400': viaFault(EXTRACT, 400, (c) => c.send('GET', EXTRACT, { headers: BK1 })),
  'list-extract-requests.fault-401': viaFault(EXTRACT, 401, (c) => c.send('GET', EXTRACT, { headers: BK1 })),
  'list-extract-requests.fault-403': viaFault(EXTRACT, 403, (c) => c.send('GET', EXTRACT, { headers: BK1 })),
  'list-extract-requests.fault-500': viaFault(EXTRACT, 500, (c) => c.send('GET', EXTRACT, { headers: BK1 })),

  // ---- bookkeeping: declare payment ----
  'declare-payment.partial-accepted': (c) => payOpen(c, declaration(10, true)),
  'declare-payment.total-accepted': (c) => payOpen(c, declaration(100, false)),
  'declare-payment.above-open-value': (c) => payOpen(c, declaration(100.01, true)),
  'declare-payment.partial-equals-open': (c) => payOpen(c, declaration(100, true)),
  'declare-payment.total-below-open': (c) => payOpen(c, declaration(50, false)),
  'declare-payment.remaining-mismatch': (c) => payOpen(c, declaration(10, true, { remainingValue: 80 })),
  'declare-payment.not-payable-paid': (c) => c.send('PUT', pay('IUD-PAID'), { headers: BK1, body: declaration(10, true) }),
  'declare-payment.not-payable-cancelled': (c) =>
    c.send('PUT', pay('IUD-CANCELLED'), { headers: BK1, body: declaration(10, true) }),
  'declare-payment.not-payable-blocked': (c) =>
    c.send('PUT', pay('IUD-BLOCKED'), { headers: BK1, body: declaration(10, true) }),
  'declare-payment.unknown-uid': (c) => c.send('PUT', pay('IUD-NONE'), { headers: BK1, body: declaration(10, true) }),
  'declare-payment.beneficiary-document-invalid': (c) =>
    payOpen(c, declaration(10, true, { beneficiaryDocument: '12345678900' })),
  'declare-payment.payment-date-future': (c) => payOpen(c, declaration(10, true, { paymentDate: '2999-01-01' })),
  'declare-payment.body-malformed': (c) =>
    c.send('PUT', pay('IUD-OPEN'), { headers: { ...BK1, 'content-type': 'application/json' }, raw: '{"type":' }),
  'declare-payment.body-invalid': (c) => payOpen(c, { isPartial: true, paymentValue: 10 }),
  'declare-payment.path-invalid': (c) => c.send('PUT', pay(''), { headers: BK1, body: declaration(10, true) }),
  ...bookkeepingAccess('declare-payment', (c, headers, tenant) => payOpen(c, declaration(10, true), headers, tenant)),
  'declare-payment.fault-400': viaFault(pay('IUD-OPEN'), 400, (c) => payOpen(c, declaration(10, true))),
  'declare-payment.fault-401': viaFault(pay('IUD-OPEN'), 401, (c) => payOpen(c, declaration(10, true))),
  'declare-payment.fault-403': viaFault(pay('IUD-OPEN'), 403, (c) => payOpen(c, declaration(10, true))),
  'declare-payment.fault-500': viaFault(pay('IUD-OPEN'), 500, (c) => payOpen(c, declaration(10, true))),

  // ---- registry ----
  'register-documents.registered': (c) =>
    c.send('POST', REGISTER, { headers: RG1, body: { registros: [{ numeroDuplicata: '1' }] } }),
  'register-documents.registered-with-warnings': (c) =>
    c.send('POST', REGISTER, { headers: RG1, body: { registros: [{ cpfCnpjSacado: '12345678900' }] } }),
  ...registryCommon('register-documents', REGISTER),
  'reconcile-documents.reconciled-matched': async (c) => {
    const key = await registeredKey(c);
    return c.send('POST', RECONCILE, { headers: RG1, body: { registros: [{ chaveRegistro: key, numeroDuplicata: '1' }] } });
  },
  'reconcile-documents.reconciled-with-divergences': async (c) => {
    const key = await registeredKey(c);
    return c.send('POST', RECONCILE, { headers: RG1, body: { registros: [{ chaveRegistro: key, numeroDuplicata: '2' }] } });
  },
  'reconcile-documents.reconciled-with-unknown': (c) =>
    c.send('POST', RECONCILE, { headers: RG1, body: { registros: [{ chaveRegistro: 'RG-NONE' }] } }),
  ...registryCommon('reconcile-documents', RECONCILE),

  // ---- receivables ----
  'import-cnab.accepted': (c) => submit(c, submission(FILES.processed ?? '')),
  ...Object.fromEntries(
    Object.entries(FILES).map(([rule, file]) => [
      rule === 'processed' ? 'import-cnab.processed' : `import-cnab.rejected-${rule}`,
      submitAndProcess(file),
    ]),
  ),
  'import-cnab.rejected-drawee-tax-id': submitAndProcess(cnabText('cnab400', [{ draweeId: '12345678900' }]), STRICT),
  'import-cnab.rejected-drawee-type': submitAndProcess(cnabText('cnab400', [{ draweeCode: '03' }]), STRICT),
  'import-cnab.rejected-nfe-key': submitAndProcess(
    cnabText('cnab444-fidc', [{ nfeKey: `${VALID_NFE_KEY.slice(0, 43)}${(Number(VALID_NFE_KEY.at(-1)) + 1) % 10}` }]),
    STRICT,
  ),
  'import-cnab.rejected-issue-date': submitAndProcess(cnabText('cnab400', [{ issue: '310226' }]), STRICT),
  'import-cnab.rejected-bank-layout': submitAndProcess(
    cnab400(headerLine('cnab400', '201126', { code: '999', name: 'NO SUCH BANK' }), detailLine('cnab400'), trailerLine('cnab400')),
    STRICT,
  ),
  'import-cnab.rejected-file-date': submitAndProcess(
    cnab400(headerLine('cnab400', '999999'), detailLine('cnab400'), trailerLine('cnab400')),
    STRICT,
  ),
  'import-cnab.rejected-layout-mix': submitAndProcess(
    // A FIDC 444 header (sequence 439-444) over a "400 + 44" title (sequence 395-400).
    [
      numbered([headerLine('cnab444-fidc')], 438).trimEnd(),
      `${numbered(['', detailLine('cnab444-400+44')]).split(CRLF)[1] ?? ''}`,
      `${trailerLine('cnab444-fidc').slice(0, 438)}000003`,
    ].join(CRLF),
  ),
  'import-cnab.rejected-file-encoding': submitAndProcess(
    cnab400(headerLine('cnab400'), detailLine('cnab400', { draweeName: Buffer.from('JOSÉ', 'utf8').toString('latin1') }), trailerLine('cnab400')),
    STRICT,
  ),
  'import-cnab.rejected-control-character': submitAndProcess(
    cnab400(headerLine('cnab400'), detailLine('cnab400', { draweeName: 'JOSE\tSILVA' }), trailerLine('cnab400')),
    STRICT,
  ),
  'import-cnab.rejected-header-label': submitAndProcess(
    cnab400(`01remessa${headerLine('cnab400').slice(9)}`, detailLine('cnab400'), trailerLine('cnab400')),
    STRICT,
  ),
  'import-cnab.rejected-after-trailer': submitAndProcess(`${cnabText('cnab400', [{}])}${' '.repeat(400)}${CRLF}`, STRICT),
  'import-cnab.fund-cnpj-invalid': (c) => submit(c, submission(FILES.processed ?? '', { fundCnpj: '11222333000180' })),
  'import-cnab.token-unknown-fund': (c) => submit(c, submission(FILES.processed ?? '', { fundCnpj: '00000000000191' })),
  'import-cnab.token-not-issued': (c) => submit(c, submission(FILES.processed ?? '', { fundCnpj: T2 })),
  'import-cnab.token-mismatch': (c) => submit(c, submission(FILES.processed ?? '', { token: 'rc-token-2' })),
  'import-cnab.file-not-base64': (c) => submit(c, { ...submission(''), operationFile: 'not base64!' }),
  'import-cnab.file-empty': (c) => submit(c, submission('')),
  'import-cnab.file-not-cnab': (c) => submit(c, submission('a short line\r\n')),
  'import-cnab.invalid-token': (c) => submit(c, submission(FILES.processed ?? '', { token: 'x'.repeat(65) })),
  'import-cnab.invalid-fundCnpj': (c) => submit(c, submission(FILES.processed ?? '', { fundCnpj: 1 })),
  'import-cnab.invalid-operationFile': (c) => submit(c, { ...submission(''), operationFile: 7 }),
  'import-cnab.invalid-fileName': (c) => submit(c, submission(FILES.processed ?? '', { fileName: '' })),
  'import-cnab.invalid-additiveNumber': (c) => submit(c, submission(FILES.processed ?? '', { additiveNumber: 'one' })),
  'import-cnab.unknown-field': (c) => submit(c, submission(FILES.processed ?? '', { fundName: 'x' })),
  'import-cnab.body-malformed': (c) =>
    c.send('POST', IMPORT, { headers: { 'content-type': 'text/plain' }, raw: 'token=rc-token-1' }),
  'import-cnab.query-invalid': (c) =>
    c.send('POST', `${IMPORT}?foo=1`, { body: submission(FILES.processed ?? '') }),
  'import-cnab.fault-400': viaFault(IMPORT, 400, (c) => submit(c, submission(FILES.processed ?? ''))),
  'import-cnab.backlog-full': async (c) => {
    await c.send('POST', '/_sandbox/work', { body: { held: true, maxBacklog: 1 } });
    await submit(c, submission(FILES.processed ?? ''));
    return submit(c, submission(FILES.processed ?? ''));
  },

  // ---- loan-bond ----
  'register-loan-bond.registered-signed': (c) => registerLb(c, lbBody({}, [record({ assinado: true })])),
  'register-loan-bond.registered-unsigned': (c) => registerLb(c, lbBody()),
  'register-loan-bond.token-missing': (c) => registerLb(c, { versao: '2.0', registros: [record()] }),
  'register-loan-bond.token-unknown': (c) => registerLb(c, lbBody({ token: 'nobody' })),
  'register-loan-bond.rule-1-electronic-signature': (c) => registerLb(c, lbBody({ token: 'lb-token-2' })),
  'register-loan-bond.rule-2-digital-loan-bond': (c) => registerLb(c, lbBody({ token: 'lb-token-3' })),
  'register-loan-bond.rule-3-encrypted': (c) =>
    registerLb(c, lbBody({}, [record({ documento: pdf(600, { trailer: '/Encrypt 5 0 R' }) })])),
  'register-loan-bond.rule-4-not-pdf': (c) => registerLb(c, lbBody({}, [record({ documento: b64('plain text') })])),
  'register-loan-bond.rule-5-file-too-large': (c) =>
    registerLb(c, lbBody({}, [record({ documento: 'A'.repeat(20_000_004) })])),
  'register-loan-bond.rule-6-too-many-records': (c) =>
    registerLb(c, lbBody({}, Array.from({ length: 51 }, () => record()))),
  'register-loan-bond.file-not-base64': (c) => registerLb(c, lbBody({}, [record({ documento: 'not base64!' })])),
  'register-loan-bond.tax-id-invalid': (c) =>
    registerLb(c, lbBody({}, [record({ assinantes: [{ cpf_cnpj: '12345678900' }] })]), STRICT),
  'register-loan-bond.body-malformed': (c) =>
    c.send('POST', LOANBOND, { headers: { 'content-type': 'application/json' }, raw: '' }),
  'register-loan-bond.body-invalid': (c) => registerLb(c, lbBody({ registros: [] })),
  'register-loan-bond.query-invalid': (c) => c.send('POST', `${LOANBOND}?foo=1`, { body: lbBody() }),
  'register-loan-bond.fault-400': viaFault(LOANBOND, 400, (c) => registerLb(c, lbBody())),
  'register-loan-bond.backlog-full': async (c) => {
    await c.send('POST', '/_sandbox/work', { body: { held: true, maxBacklog: 1 } });
    await registerLb(c, lbBody());
    return registerLb(c, lbBody());
  },
  'register-loan-bond.fault-401': viaFault(LOANBOND, 401, (c) => registerLb(c, lbBody())),
};
