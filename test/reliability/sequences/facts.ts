// The vocabulary of the sequence suite: tenants, credentials, fixture documents, files and registry
// documents, all built here from the specification's facts (valid tax ids, PDF and CNAB layouts).
// Commands pick among these; the model knows what each one is.
import type { FixtureDocument } from '../../../src/interfaces.js';
import { cnabText } from '../../receivables/helpers.js';

export const T1 = '11222333000181'; // CNPJ
export const T2 = '52998224725'; // CPF
export const T3 = '11444777000161'; // CNPJ
/** Well formed, wrong check digits. */
export const T_BAD_DIGITS = '11222333000182';
export const TENANTS = [T1, T2, T3, T_BAD_DIGITS, 'not-a-tenant'] as const;

/** Every bookkeeping token a command may send: fixture tokens (present or not) and strangers. */
export const BK_TOKENS = ['seq-bk-1', 'seq-bk-2', 'seq-bk-3', 'seq-bk-9', 'seq-bk-unknown'] as const;
export const RG_TOKENS = ['seq-rg-1', 'seq-rg-2', 'seq-rg-3', 'seq-rg-unknown'] as const;
export const LB_TOKENS = ['seq-lb-1', 'seq-lb-2', 'seq-lb-3', 'seq-lb-4', 'seq-lb-unknown'] as const;
export const RC_TOKENS = ['seq-rc-1', 'seq-rc-3', 'seq-rc-wrong'] as const;

export const F1 = '11222333000181';
export const F1_PUNCTUATED = '11.222.333/0001-81';
export const F2 = '11444777000161';
export const F3 = '12ABC34501DE35'; // alphanumeric CNPJ
export const F_UNKNOWN = '06990590000123';
export const F_INVALID = '11.222.333/0001-82';
export const FUND_INPUTS = [F1, F1_PUNCTUATED, F2, F3, F_UNKNOWN, F_INVALID] as const;

export const UIDS = ['IUD-1', 'IUD-2', 'IUD-3', 'IUD-4', 'IUD-5', 'IUD-9', 'IUD-NONE'] as const;

const STEPS = ['executed', 'processing', 'requested'];

/** Extract requests with ties in every sortable field, so the tie-break order is exercised. */
function extracts(tenantId: string, firstId: number, count: number, userId: number) {
  return Array.from({ length: count }, (_, i) => ({
    tenantId,
    // Not in id order, with repeats.
    extractTradeReceivableRequestId: firstId + ((i * 7) % count),
    registeredAt: `2026-0${1 + (i % 3)}-1${i % 4}T10:00:00Z`,
    registeredByUserId: userId + (i % 2),
    protocolNumber: `PRT-${String(i % 5).padStart(3, '0')}`,
    ...(i % 4 === 3 ? {} : { currentStepType: STEPS[i % 3] as string }),
    ...(i % 3 === 0 ? {} : { generatedAt: `2026-0${1 + (i % 3)}-2${i % 5}T11:30:00.5Z` }),
  }));
}

/** What the sandbox is started with: reset {"fixtures":"default"} loads it again. */
export const DEFAULT_DOC: FixtureDocument = {
  bookkeeping: {
    users: [
      { userId: 1, accessToken: 'seq-bk-1', tenants: [T1] },
      { userId: 2, accessToken: 'seq-bk-2', tenants: [T2] },
    ],
    tradeBills: [
      { tenantId: T1, uid: 'IUD-1', amount: 1000.0 },
      { tenantId: T1, uid: 'IUD-2', amount: 830.5, openValue: 400.25, status: 'partially-paid' },
      { tenantId: T1, uid: 'IUD-3', amount: 120.0, status: 'paid' },
      { tenantId: T1, uid: 'IUD-4', amount: 50.0, status: 'cancelled' },
      { tenantId: T1, uid: 'IUD-5', amount: 75.0, status: 'blocked' },
      // Two cents: a partial payment can only be one cent.
      { tenantId: T2, uid: 'IUD-1', amount: 0.02, openValue: 0.02, status: 'open' },
    ],
    extractRequests: [...extracts(T1, 1, 12, 1), ...extracts(T2, 50, 3, 2)],
  },
  registry: {
    participants: [
      { participantId: 'SEQ-PART-1', accessToken: 'seq-rg-1' },
      { participantId: 'SEQ-PART-2', accessToken: 'seq-rg-2' },
    ],
  },
  receivables: {
    funds: [
      { fundCnpj: F1_PUNCTUATED, token: 'seq-rc-1' },
      { fundCnpj: F2, token: null },
    ],
  },
  loanbond: {
    callers: [
      { callerId: 'SEQ-CALLER-1', token: 'seq-lb-1', products: ['electronic-signature', 'digital-loan-bond'] },
      { callerId: 'SEQ-CALLER-2', token: 'seq-lb-2', products: ['digital-loan-bond'] },
      { callerId: 'SEQ-CALLER-3', token: 'seq-lb-3', products: ['electronic-signature'] },
    ],
  },
};

/** A third bookkeeping user with a tenant of its own (loads once; twice is a clash). */
export const EXTRA_BK_DOC: FixtureDocument = {
  bookkeeping: {
    users: [{ userId: 3, accessToken: 'seq-bk-3', tenants: [T1, T3] }],
    tradeBills: [{ tenantId: T3, uid: 'IUD-9', amount: 20.0 }],
    extractRequests: extracts(T3, 101, 5, 3),
  },
};

/** One more of the other interfaces' credentials. */
export const EXTRA_OTHER_DOC: FixtureDocument = {
  registry: { participants: [{ participantId: 'SEQ-PART-3', accessToken: 'seq-rg-3' }] },
  receivables: { funds: [{ fundCnpj: F3, token: 'seq-rc-3' }] },
  loanbond: {
    callers: [{ callerId: 'SEQ-CALLER-4', token: 'seq-lb-4', products: ['digital-loan-bond', 'electronic-signature'] }],
  },
};

/** User 1 again under another token: a clash while the defaults are loaded, fine otherwise. */
export const USER_ONE_AGAIN_DOC: FixtureDocument = {
  bookkeeping: { users: [{ userId: 1, accessToken: 'seq-bk-9', tenants: [T1, T2] }] },
};

/** Refused whatever the state: a schema error (userId 0) and a bad check digit. */
export const INVALID_DOC = {
  bookkeeping: {
    users: [{ userId: 0, accessToken: 'seq-bk-x', tenants: [T1] }],
    tradeBills: [{ tenantId: T_BAD_DIGITS, uid: 'IUD-1', amount: 1 }],
  },
} as unknown as FixtureDocument;

export const DOCS = {
  default: DEFAULT_DOC,
  extraBk: EXTRA_BK_DOC,
  extraOther: EXTRA_OTHER_DOC,
  userOneAgain: USER_ONE_AGAIN_DOC,
  invalid: INVALID_DOC,
} as const;
export type DocName = keyof typeof DOCS;

// ---- files ----

/** A small PDF; `encrypted`: its trailer names an encryption dictionary, as rule 3 reads it. */
const pdf = (tag: string, encrypted = false) =>
  Buffer.from(
    `%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Tag (${tag}) >>\nendobj\n` +
      (encrypted ? '2 0 obj\n<< /Filter /Standard /V 1 /R 2 /P -4 >>\nendobj\n' : '') +
      `trailer\n<< /Root 1 0 R${encrypted ? ' /Encrypt 2 0 R' : ''} >>\n%%EOF\n`,
    'latin1',
  );

/** Loan-bond files by name; `ok` says whether rules 3-5 accept it. */
export const LB_FILES = {
  pdfA: { base64: pdf('A').toString('base64'), ok: true },
  pdfB: { base64: pdf('B').toString('base64'), ok: true },
  pdfC: { base64: pdf('C').toString('base64'), ok: true },
  encrypted: { base64: pdf('E', true).toString('base64'), ok: false },
  notPdf: { base64: Buffer.from('PK\u0003\u0004 a zip, not a PDF').toString('base64'), ok: false },
  badBase64: { base64: 'not base64!', ok: false },
} as const;
export type LbFile = keyof typeof LB_FILES;

/** CNAB files by name: the 400 at once, or the outcome and title count once processed. */
export const CNAB_FILES = {
  cnab400: { base64: Buffer.from(cnabText('cnab400', [{}]), 'latin1').toString('base64'), outcome: 'processed', titles: 1 },
  cnab444: {
    base64: Buffer.from(cnabText('cnab444-fidc', [{}, { titleId: 'TIT-2', documentNumber: 'DOC-2' }]), 'latin1').toString('base64'),
    outcome: 'processed',
    titles: 2,
  },
  zeroValue: { base64: Buffer.from(cnabText('cnab400', [{ valueCents: 0 }]), 'latin1').toString('base64'), outcome: 'rejected', titles: 1 },
  notBase64: { base64: 'this is not base64', outcome: 'refused', titles: 0 },
  notCnab: { base64: Buffer.from('one short line\n').toString('base64'), outcome: 'refused', titles: 0 },
  empty: { base64: '', outcome: 'refused', titles: 0 },
} as const;
export type CnabFileName = keyof typeof CNAB_FILES;

// ---- registry documents ----

/** Registry document templates and how many domain warnings each raises. */
export const RG_DOCS = {
  good: { warnings: 0, fields: { dataEmissao: '2026-11-01', dataVencimento: '2026-12-01', cpfCnpjSacado: '11.222.333/0001-81', codigoIBGEPracaPagamento: 3550308 } },
  badTaxId: { warnings: 1, fields: { dataEmissao: '2026-11-01', dataVencimento: '2026-12-01', cpfCnpjSacado: '11.222.333/0001-82' } },
  dueBeforeIssue: { warnings: 1, fields: { dataEmissao: '2026-11-01', dataVencimento: '2026-10-01', cpfCnpjTitular: '52998224725' } },
  withDocument: { warnings: 0, fields: { documento: Buffer.from('registry document bytes').toString('base64'), nomeDocumento: 'dup.pdf' } },
} as const;
export type RgDoc = keyof typeof RG_DOCS;
