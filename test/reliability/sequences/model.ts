// The reference model of one sandbox (one workspace): what the state should be after any sequence of
// control calls and documented operations. Plain data, so a snapshot is a structured clone. The model
// is written from the documentation (README.md, docs/) and the specification, not from src/: where they and the sandbox
// disagree, the suite fails and someone reads both.
import type { FixtureDocument } from '../../../src/interfaces.js';

export type BillStatus = 'open' | 'partially-paid' | 'paid' | 'cancelled' | 'blocked';
export type InterfaceId = 'bookkeeping' | 'registry' | 'receivables' | 'loanbond';

export interface Bill {
  amount: number; // cents
  open: number; // cents
  status: BillStatus;
  payments: number;
}

export interface Extract {
  id: number;
  registeredAt: string;
  registeredByUserId: number;
  protocolNumber: string;
  currentStepType: string;
  generatedAt: string;
}

export interface Data {
  users: Array<{ userId: number; token: string; tenants: string[] }>;
  /** Keyed `${tenantId}|${uid}`. */
  bills: Record<string, Bill>;
  extracts: Record<string, Extract[]>;
  participants: Array<{
    id: string;
    token: string;
    /** With the sandbox-clock time each was made: inspection lists them in that order (ties: as made). */
    batches: Array<{ key: string; at: string; chaves: string[] }>;
    reconciliations: Array<{ key: string; at: string }>;
  }>;
  funds: Array<{
    cnpj: string;
    token: string | null;
    imports: Array<{ id: string; outcome: 'processed' | 'rejected'; done: boolean }>;
  }>;
  callers: Array<{ id: string; token: string; products: string[] }>;
  registrations: Array<{ codigo: string; callerId: string; assinado: boolean; done: boolean }>;
}

export interface ClockSetting {
  offsetMs: number;
  frozenAt: number | undefined;
}

export interface FaultModel {
  id: string;
  method: string | null;
  /** The rule's path pattern, or null when it names only an interface. */
  path: string | null;
  iface: InterfaceId;
  status: number | null;
  remaining: number | null;
  hits: number;
}

export interface Model {
  data: Data;
  clock: ClockSetting;
  faults: FaultModel[];
  snapshots: Record<string, { data: Data; clock: ClockSetting }>;
  /** Entries the journal should hold (interface requests since the last clear), before the cap. */
  journal: number;
}

export const emptyData = (): Data => ({
  users: [],
  bills: {},
  extracts: {},
  participants: [],
  funds: [],
  callers: [],
  registrations: [],
});

export const realClock = (): ClockSetting => ({ offsetMs: 0, frozenAt: undefined });

export function newModel(data: Data): Model {
  return { data, clock: realClock(), faults: [], snapshots: {}, journal: 0 };
}

export const clockNow = (c: ClockSetting): number => c.frozenAt ?? Date.now() + c.offsetMs;
export const today = (c: ClockSetting): string => new Date(clockNow(c)).toISOString().slice(0, 10);

export const cents = (reais: number): number => Math.round(reais * 100);
/** A tax id as the sandbox keys it: punctuation dropped, letters upper case. */
export const taxKey = (id: string): string => id.replace(/[./-]/g, '').toUpperCase();

// ---- tax ids (the real algorithms, written here for the model) ----

function cnpjDigit(chars: string): number {
  const weights = chars.length === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const sum = [...chars].reduce((s, ch, i) => s + (ch.charCodeAt(0) - 48) * (weights[i] ?? 0), 0);
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

export function validCnpj(id: string): boolean {
  const v = taxKey(id);
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(v) || /^(\d)\1{13}$/.test(v)) return false;
  const d1 = cnpjDigit(v.slice(0, 12));
  const d2 = cnpjDigit(v.slice(0, 12) + String(d1));
  return v.endsWith(`${d1}${d2}`);
}

export function validCpf(id: string): boolean {
  if (!/^\d{11}$/.test(id) || /^(\d)\1{10}$/.test(id)) return false;
  const digit = (n: number) => {
    const sum = [...id.slice(0, n)].reduce((s, ch, i) => s + Number(ch) * (n + 1 - i), 0);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return digit(9) === Number(id[9]) && digit(10) === Number(id[10]);
}

/** A bookkeeping tenant id: CPF or CNPJ, digits only, with valid check digits. */
export const validTenant = (id: string): boolean => /^\d+$/.test(id) && (id.length === 11 ? validCpf(id) : validCnpj(id));

// ---- fixtures ----

/** Why the document cannot load into `data` (clashes, duplicates); empty when it can. */
export function fixtureClashes(data: Data, doc: FixtureDocument): string[] {
  const out: string[] = [];
  const bk = doc.bookkeeping;
  const userIds = new Set(data.users.map((u) => u.userId));
  const tokens = new Set(data.users.map((u) => u.token));
  for (const u of bk?.users ?? []) {
    if (userIds.has(u.userId)) out.push(`user ${u.userId}`);
    if (tokens.has(u.accessToken)) out.push(`bookkeeping token ${u.accessToken}`);
    userIds.add(u.userId);
    tokens.add(u.accessToken);
  }
  const bills = new Set(Object.keys(data.bills));
  for (const b of bk?.tradeBills ?? []) {
    const key = `${b.tenantId}|${b.uid}`;
    if (bills.has(key)) out.push(`bill ${key}`);
    bills.add(key);
  }
  const extractIds = new Set(Object.values(data.extracts).flatMap((list) => list.map((e) => e.id)));
  for (const e of bk?.extractRequests ?? []) {
    if (extractIds.has(e.extractTradeReceivableRequestId)) out.push(`extract ${e.extractTradeReceivableRequestId}`);
    extractIds.add(e.extractTradeReceivableRequestId);
  }
  const pIds = new Set(data.participants.map((p) => p.id));
  const pTokens = new Set(data.participants.map((p) => p.token));
  for (const p of doc.registry?.participants ?? []) {
    if (pIds.has(p.participantId) || pTokens.has(p.accessToken)) out.push(`participant ${p.participantId}`);
    pIds.add(p.participantId);
    pTokens.add(p.accessToken);
  }
  const funds = new Set(data.funds.map((f) => f.cnpj));
  for (const f of doc.receivables?.funds ?? []) {
    if (funds.has(taxKey(f.fundCnpj))) out.push(`fund ${f.fundCnpj}`);
    funds.add(taxKey(f.fundCnpj));
  }
  const cIds = new Set(data.callers.map((c) => c.id));
  const cTokens = new Set(data.callers.map((c) => c.token));
  for (const c of doc.loanbond?.callers ?? []) {
    if (cIds.has(c.callerId) || cTokens.has(c.token)) out.push(`caller ${c.callerId}`);
    cIds.add(c.callerId);
    cTokens.add(c.token);
  }
  return out;
}

/** Adds a (valid, clash-free) fixture document to `data`. */
export function loadDoc(data: Data, doc: FixtureDocument): void {
  const bk = doc.bookkeeping;
  for (const u of bk?.users ?? []) data.users.push({ userId: u.userId, token: u.accessToken, tenants: [...u.tenants] });
  for (const b of bk?.tradeBills ?? []) {
    const status = (b.status ?? 'open') as BillStatus;
    const amount = cents(b.amount);
    const open = b.openValue === undefined ? (status === 'paid' ? 0 : amount) : cents(b.openValue);
    data.bills[`${b.tenantId}|${b.uid}`] = { amount, open, status, payments: 0 };
  }
  for (const e of bk?.extractRequests ?? []) {
    (data.extracts[e.tenantId] ??= []).push({
      id: e.extractTradeReceivableRequestId,
      // The facts always give registeredAt; the other two take the documented defaults.
      registeredAt: e.registeredAt ?? '',
      registeredByUserId: e.registeredByUserId,
      protocolNumber: e.protocolNumber,
      currentStepType: e.currentStepType ?? 'executed',
      generatedAt: e.generatedAt ?? e.registeredAt ?? '',
    });
  }
  for (const p of doc.registry?.participants ?? [])
    data.participants.push({ id: p.participantId, token: p.accessToken, batches: [], reconciliations: [] });
  for (const f of doc.receivables?.funds ?? []) data.funds.push({ cnpj: taxKey(f.fundCnpj), token: f.token, imports: [] });
  for (const c of doc.loanbond?.callers ?? []) data.callers.push({ id: c.callerId, token: c.token, products: [...c.products] });
}

// ---- the extract list ----

export const SORT_FIELDS = [
  'extractTradeReceivableRequestId',
  'registeredAt',
  'registeredByUserId',
  'protocolNumber',
  'currentStepType',
  'generatedAt',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** The ids of one page: sorted by the field, ties by id, both in the direction. */
export function extractPage(list: Extract[], sortBy: SortField, desc: boolean, page: number, size: number): number[] {
  const value = (e: Extract): string | number => (sortBy === 'extractTradeReceivableRequestId' ? e.id : e[sortBy]);
  const sorted = [...list].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    let c = va < vb ? -1 : va > vb ? 1 : 0;
    if (c === 0) c = a.id - b.id;
    return desc ? -c : c;
  });
  return sorted.slice((page - 1) * size, page * size).map((e) => e.id);
}

// ---- tenants as the inspection lists them ----

export function tenantSummaries(data: Data) {
  const ids = new Set<string>();
  for (const u of data.users) u.tenants.forEach((t) => ids.add(t));
  for (const [t, list] of Object.entries(data.extracts)) if (list.length > 0) ids.add(t);
  for (const key of Object.keys(data.bills)) ids.add(key.split('|')[0] ?? '');
  return [...ids].sort().map((tenantId) => ({
    tenantId,
    userIds: data.users.filter((u) => u.tenants.includes(tenantId)).map((u) => u.userId).sort((a, b) => a - b),
    extractRequests: data.extracts[tenantId]?.length ?? 0,
    tradeBills: Object.keys(data.bills).filter((k) => k.startsWith(`${tenantId}|`)).length,
  }));
}

// ---- the clock ----

/** `instant` plus an ISO 8601 duration as docs/clock.md describes it (years and months on the UTC calendar). */
export function addIso(instant: number, duration: string): number | undefined {
  const m = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(duration);
  if (!m || duration.endsWith('T') || /^-?P$/.test(duration)) return undefined;
  const sign = m[1] ? -1 : 1;
  const n = (i: number) => Number(m[i] ?? 0) * sign;
  const d = new Date(instant);
  const months = n(2) * 12 + n(3);
  if (months !== 0) {
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + months);
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    d.setUTCDate(Math.min(day, last));
  }
  return d.getTime() + ((n(4) * 7 + n(5)) * 86_400 + n(6) * 3600 + n(7) * 60) * 1000 + Math.round(n(8) * 1000);
}

export function setClock(c: ClockSetting, instant: number, freeze: boolean): void {
  if (freeze) {
    c.frozenAt = instant;
  } else {
    c.frozenAt = undefined;
    c.offsetMs = instant - Date.now();
  }
}

// ---- faults ----

const globMatch = (pattern: string, path: string) =>
  new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(path);

/** The rule that applies to a request (and counts it), or undefined. */
export function applyFault(model: Model, iface: InterfaceId, method: string, path: string): FaultModel | undefined {
  const rule = model.faults.find(
    (r) =>
      r.remaining !== 0 &&
      r.iface === iface &&
      (r.method === null || r.method === method) &&
      (r.path === null || globMatch(r.path, path)),
  );
  if (rule) {
    rule.hits++;
    if (rule.remaining !== null) rule.remaining--;
  }
  return rule;
}

/** Oldest first by sandbox-clock time, ties in the order made (a stable sort keeps that order). */
export const byTime = <T extends { at: string }>(list: T[]): T[] => [...list].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));

export const DOCUMENTED_STATUSES: Record<InterfaceId, number[]> = {
  bookkeeping: [400, 401, 403, 500],
  registry: [400, 401, 500],
  receivables: [400],
  loanbond: [400, 401],
};
