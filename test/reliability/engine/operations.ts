// The six documented operations as the fuzzer sees them: how to build a valid request from the
// schemas (with domain-valid hints), which statuses count as success, and the fixtures behind them.
// No vitest import: `npm run soak` runs this outside the test runner.
import fc from 'fast-check';
import { ExtractQuery, PaymentDeclaration } from '../../../src/bookkeeping/schemas.js';
import type { InterfaceId } from '../../../src/http/errors.js';
import { RegistrationRequest } from '../../../src/loanbond/schemas.js';
import { ImportCnabBody } from '../../../src/receivables/schemas.js';
import { ReconcileBody, RegisterBody } from '../../../src/registry/schemas.js';
import type { FixtureDocument } from '../../../src/interfaces.js';
import { cnabText, VALID_NFE_KEY } from '../../receivables/helpers.js';
import { calendarDate, type Hints, schemaArbitrary } from './schema-arbitrary.js';

export const BK_TENANT = '11222333000181';
export const BK_OTHER_TENANT = '52998224725';
export const BK_TOKEN = 'rel-bk-token-1';
export const BK_OTHER_TOKEN = 'rel-bk-token-2';
export const RG_TOKEN = 'rel-rg-token-1';
export const RG_OTHER_TOKEN = 'rel-rg-token-2';
export const RC_FUND = '11222333000181';
export const RC_OTHER_FUND = '11444777000161';
export const RC_TOKEN = 'rel-rc-token-1';
export const RC_OTHER_TOKEN = 'rel-rc-token-2';
export const LB_TOKEN = 'rel-lb-token-1';
export const LB_OTHER_TOKEN = 'rel-lb-token-2';
/** A caller holding neither product: its token is real but refused (rules 1-2). */
export const LB_NO_PRODUCTS_TOKEN = 'rel-lb-token-3';
export const BILLS = Array.from({ length: 20 }, (_, i) => `IUD-${String(i + 1).padStart(4, '0')}`);
/** Large enough that thousands of small payments never settle a bill. */
export const BILL_AMOUNT = 10_000_000;

/** Two of everything: the second tenant, participant, fund and caller exist to be refused. */
export const RELIABILITY_FIXTURES: FixtureDocument = {
  bookkeeping: {
    users: [
      { userId: 1, accessToken: BK_TOKEN, tenants: [BK_TENANT] },
      { userId: 2, accessToken: BK_OTHER_TOKEN, tenants: [BK_OTHER_TENANT] },
    ],
    tradeBills: [
      ...BILLS.map((uid) => ({ tenantId: BK_TENANT, uid, amount: BILL_AMOUNT })),
      ...BILLS.map((uid) => ({ tenantId: BK_OTHER_TENANT, uid, amount: BILL_AMOUNT })),
    ],
  },
  registry: {
    participants: [
      { participantId: 'REL-PART-1', accessToken: RG_TOKEN },
      { participantId: 'REL-PART-2', accessToken: RG_OTHER_TOKEN },
    ],
  },
  receivables: {
    funds: [
      { fundCnpj: RC_FUND, token: RC_TOKEN },
      { fundCnpj: RC_OTHER_FUND, token: RC_OTHER_TOKEN },
    ],
  },
  loanbond: {
    callers: [
      { callerId: 'REL-CALLER-1', token: LB_TOKEN, products: ['electronic-signature', 'digital-loan-bond'] },
      { callerId: 'REL-CALLER-2', token: LB_OTHER_TOKEN, products: ['electronic-signature', 'digital-loan-bond'] },
      { callerId: 'REL-CALLER-3', token: LB_NO_PRODUCTS_TOKEN, products: [] },
    ],
  },
};

/** The sandbox's date during the fuzz runs (payments compare paymentDate with it). */
export const PINNED_NOW = new Date('2026-11-20T12:00:00Z');

/** A small, valid, unencrypted PDF; `tag` makes its bytes (and digest) distinct. */
export function tinyPdf(tag = ''): Buffer {
  return Buffer.from(
    `%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Tag (${tag}) >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`,
    'latin1',
  );
}

const TAX_IDS = ['11.222.333/0001-81', '11222333000181', '529.982.247-25', '52998224725', '12ABC34501DE35'];
const taxId = fc.constantFrom(...TAX_IDS);
const base64Bytes = fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64'));
const pdfBase64 = fc.string({ maxLength: 8 }).map((t) => tinyPdf(t).toString('base64'));
const CNAB_FILES = [
  cnabText('cnab400', [{}]),
  cnabText('cnab444-fidc', [{}, { titleId: 'TIT-2', documentNumber: 'DOC-2' }]),
  cnabText('cnab400', [{ valueCents: 0 }]),
].map((t) => Buffer.from(t, 'latin1').toString('base64'));

export interface BuiltRequest {
  method: 'GET' | 'PUT' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** undefined for a GET. */
  body?: unknown;
}

export interface FuzzOperation {
  id: string;
  interface: InterfaceId;
  /** Statuses of an accepted request. */
  success: readonly number[];
  /** A valid request (as far as the schema and the likely domain rules go). */
  valid: fc.Arbitrary<BuiltRequest>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const BK_BASE = '/api/bookkeeping/integration/v1';

const extractQuery = schemaArbitrary(ExtractQuery) as fc.Arbitrary<Record<string, unknown>>;
const payment = schemaArbitrary(PaymentDeclaration, {
  type: fc.constant('bankSlip'),
  informantId: fc.constant('directByDrawerHolder'),
  isPartial: fc.constant(true),
  paymentValue: fc.integer({ min: 1, max: 5_000 }).map((c) => c / 100),
  beneficiaryDocument: fc.constantFrom('11222333000181', '52998224725', '12ABC34501DE35'),
  paymentDate: fc.constantFrom('2026-11-20', '2026-11-19', '2026-01-31'),
});
const registryHints: Hints = {
  cpfCnpjTitular: taxId,
  cpfCnpjSacador: taxId,
  cpfCnpjSacado: taxId,
  cpfCnpjAvalista: taxId,
  chaveNFe: fc.constant(VALID_NFE_KEY),
  codigoIBGEPracaPagamento: fc.constant(3550308),
  documento: base64Bytes,
  dataVencimento: calendarDate(),
};

export const OPERATIONS: readonly FuzzOperation[] = [
  {
    id: 'list-extract-requests',
    interface: 'bookkeeping',
    success: [200],
    valid: fc.record({ tenant: fc.constantFrom(BK_TENANT, BK_TENANT, BK_OTHER_TENANT), query: extractQuery }).map(
      ({ tenant, query }) => ({
        method: 'GET' as const,
        url: `${BK_BASE}/${tenant}/trade-receivable-certificates/extract?${new URLSearchParams(
          Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
        ).toString()}`,
        headers: bearer(BK_TOKEN),
      }),
    ),
  },
  {
    id: 'declare-payment',
    interface: 'bookkeeping',
    success: [204],
    valid: fc
      .record({ uid: fc.constantFrom(...BILLS, 'IUD-9999'), body: payment })
      .map(({ uid, body }) => ({
        method: 'PUT' as const,
        url: `${BK_BASE}/${BK_TENANT}/trade-receivable-certificates/${encodeURIComponent(uid)}/payment`,
        headers: bearer(BK_TOKEN),
        body,
      })),
  },
  {
    id: 'register-documents',
    interface: 'registry',
    success: [200],
    valid: schemaArbitrary(RegisterBody, registryHints).map((body) => ({
      method: 'POST' as const,
      url: '/api/v1.0/service/dup/registrar_documentos',
      headers: bearer(RG_TOKEN),
      body,
    })),
  },
  {
    id: 'reconcile-documents',
    interface: 'registry',
    success: [200],
    valid: schemaArbitrary(ReconcileBody, registryHints).map((body) => ({
      method: 'POST' as const,
      url: '/api/v1.0/service/dup/conciliar_documentos',
      headers: bearer(RG_TOKEN),
      body,
    })),
  },
  {
    id: 'import-cnab',
    interface: 'receivables',
    success: [200],
    valid: schemaArbitrary(ImportCnabBody, {
      token: fc.constant(RC_TOKEN),
      fundCnpj: fc.constantFrom('11.222.333/0001-81', RC_FUND),
      operationFile: fc.constantFrom(...CNAB_FILES),
      fileName: fc.constantFrom('remessa.rem', 'CB201101.REM'),
      additiveNumber: fc.integer({ min: 0, max: 1_000_000 }),
    }).map((body) => ({ method: 'POST' as const, url: '/v1/import-cnab', headers: {}, body })),
  },
  {
    id: 'register-loan-bond',
    interface: 'loanbond',
    success: [201],
    valid: schemaArbitrary(RegistrationRequest, {
      token: fc.constant(LB_TOKEN),
      versao: fc.constant('2.0'),
      documento: pdfBase64,
      conteudo: pdfBase64,
      cpf_cnpj: taxId,
    }).map((body) => ({ method: 'POST' as const, url: '/api/service/document/registrar', headers: {}, body })),
  },
];
