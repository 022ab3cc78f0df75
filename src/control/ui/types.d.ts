// The /_sandbox answers the inspector page reads (the schemas in */inspect.ts and control/ are the
// source; these name the fields the page shows). Type-only: checked with tsconfig.ui.json.
import type { JournalEntry } from '../../runtime/journal.js';

export interface Overview {
  clock: { now: string; realNow: string; offsetMs: number; frozen: boolean };
  lastReset: string | null;
  counts: Record<string, Record<string, number>>;
  journal: { capacity: number; count: number; dropped: number };
  events: { lastId: number; count: number; capacity: number; waiting: number };
  subscriptions: { count: number; pending: number; delivered: number; failed: number };
  warnings: string[];
  /** The emulated interfaces in order: one section each, drawn by `panel` (a script beside app.js) or by its counts. */
  interfaces: Array<{ id: string; title: string; panel: string | null }>;
}

export interface Warning {
  path: string;
  rule?: string;
  message: string;
}

// --- bookkeeping

export interface Tenant {
  tenantId: string;
  userIds: number[];
  extractRequests: number;
  tradeBills: number;
}
export interface TradeBillPage {
  tradeBills: Array<{ uid: string; status: string; amount: number; openValue: number; payments: number }>;
  total?: number;
}
export interface TradeBillDetail {
  payments: Array<{
    recordedAt: string;
    declaration: { type: number; isPartial: boolean; paymentValue: number };
    openValueBefore: number;
    openValueAfter: number;
    statusAfter: string;
  }>;
}

// --- registry

export interface ParticipantSummary {
  participantId: string;
  documentCount: number;
  reconciliationDueBy: string | null;
  overdue: boolean;
}
export interface ParticipantView {
  participantId: string;
  batches: Array<{ chaveRemessa: string; documentCount: number; registeredAt: string }>;
  reconciliations: Array<{ chaveConciliacao: string; itemCount: number; reconciledAt: string }>;
}
export interface BatchView {
  documents: Array<{
    index: number;
    chaveRegistro: string;
    document: { numeroDuplicata?: string; valorDuplicata?: number; dataVencimento?: string; cpfCnpjSacado?: string };
  }>;
  warnings: Warning[];
}
export interface ReconciliationView {
  counts: { matched: number; diverging: number; unknown: number };
  items: Array<{
    index: number;
    chaveRegistro: string | null;
    result: string;
    message: string;
    divergences: Array<{ field: string; held: unknown; sent: unknown }>;
  }>;
  warnings: Warning[];
}

// --- receivables

export interface Fund {
  fundCnpj: string;
  hasToken: boolean;
  imports: number;
}
export interface ImportSummary {
  importId: string;
  fileName: string;
  receivedAt: string;
  status: string;
  layout: string | null;
  titleCount: number | null;
  errorCount: number | null;
  warningCount: number | null;
}
export interface Diagnostic {
  line: number | null;
  columns: string | null;
  rule: string;
  severity: 'error' | 'warning';
  message: string;
}
export interface ImportDetail extends ImportSummary {
  lineCount: number;
  diagnostics: Diagnostic[];
}
export interface FileLines {
  lineCount: number;
  lines: Array<{ line: number; text: string }>;
}

// --- loan-bond

export interface RegistrationSummary {
  codigo_identificador: string;
  nome_documento: string | null;
  callerId: string;
  assinado: boolean;
  state: string;
}
export interface Signatures {
  imported: boolean;
  note: string;
  assinaturas: Array<{ nome_assinante?: string; cpf_cnpj?: string; data_assinatura?: string; papel?: string }>;
}
export interface RegistrationDetail {
  chave_registro: string;
  codigo: string;
  registeredAt: string;
  notificacao: { status: string; note: string };
  assinantes: Array<{ nome?: string; cpf_cnpj?: string; papel?: string; email?: string }>;
  assinaturas: Signatures;
  documento: { nome: string | null; size: number; sha256: string };
  documentos_adicionais: Array<{ nome: string | null; size: number; sha256: string }>;
  parcelas: Array<{ numero?: number; data_vencimento?: string; valor?: number }>;
  warnings: Warning[];
}

// --- journal

// The journal's entries are the server's own type (runtime/journal.ts), as JSON carries them.
export type { JournalEntry };
export interface JournalList {
  capacity: number;
  count: number;
  entries: JournalEntry[];
  /** The next page's cursor; null on the last page. */
  nextCursor: string | null;
}

// --- coverage (GET /_sandbox/coverage): the server's own types, as JSON carries them.
export type { CoverageReport, OperationCoverage, OutcomeCoverage, Totals as CoverageTotals } from '../../runtime/coverage.js';

export type { SandboxEvent } from '../../runtime/events.js';
export type { Delivery, SubscriptionView } from '../../runtime/subscriptions.js';
