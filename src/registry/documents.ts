// A registry document as the sandbox holds it, and the comparison a reconciliation makes with it.
// Held form: the fields as sent, amounts in integer cents, `documento` reduced to its size and
// SHA-256 (assumption registry-documento-digest).
import { createHash } from 'node:crypto';
import { decodeBase64 } from '../domain/base64.js';
import { centsToNumber, DecimalText } from '../domain/money.js';
import { normalizeTaxId } from '../domain/tax-id.js';
import { pointer } from '../http/errors.js';
import { exactCopy, moneyCents } from '../http/exact-numbers.js';
import type { Divergence, ReconciliationDocument, RegistryDocument } from './schemas.js';

export interface Digest {
  size: number;
  sha256: string;
}

/**
 * The held form of a document: as sent, except amounts in integer cents and `documento` as a digest.
 * A number a double writes otherwise than it was sent (1E+0, 3550308.0, -0) is held as a DecimalText
 * of its text, which stringifyExact stores digit for digit and JSON.parse reads back as its number.
 */
export type HeldFields = Omit<RegistryDocument, 'documento'> & { documento?: Digest };

/** The size and SHA-256 of base64 text, or why it is not standard base64. */
export function digestBase64(text: string): { ok: true; digest: Digest } | { ok: false; reason: string } {
  const decoded = decodeBase64(text);
  if (!decoded.ok) return decoded;
  const sha256 = createHash('sha256').update(decoded.bytes).digest('hex');
  return { ok: true, digest: { size: decoded.bytes.length, sha256 } };
}

const RECONCILIATION_ONLY = new Set([
  'chaveRegistro',
  'dataRegistro',
  'cancelado',
  'dataCancelamento',
  'motivoCancelamento',
  'statusPagamento',
]);

/** The held form of the registration fields of `doc` (reconciliation additions are left out). */
export function toHeld(
  doc: RegistryDocument | ReconciliationDocument,
  digest: Digest | undefined,
): HeldFields {
  const held: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(exactCopy(doc) as Record<string, unknown>)) {
    if (RECONCILIATION_ONLY.has(key) || key === 'documento') continue;
    held[key] = value;
  }
  const out = held as HeldFields;
  if (doc.valorDuplicata !== undefined) out.valorDuplicata = moneyCents(doc, 'valorDuplicata');
  if (doc.operacao?.valorOperacao !== undefined) {
    out.operacao = { ...(held.operacao as HeldFields['operacao']), valorOperacao: moneyCents(doc.operacao, 'valorOperacao') };
  }
  if (digest) out.documento = digest;
  return out;
}

type Amounts<T> = Omit<T, 'valorDuplicata' | 'operacao'> & {
  valorDuplicata?: number | DecimalText;
  operacao?: Omit<NonNullable<HeldFields['operacao']>, 'valorOperacao'> & { valorOperacao?: number | DecimalText };
};

/** The held form as inspection shows it: amounts back to JSON numbers (exact, see centsToNumber). */
export function heldToView(held: HeldFields): Amounts<HeldFields> {
  const view: Amounts<HeldFields> = { ...held };
  if (held.valorDuplicata !== undefined) view.valorDuplicata = centsToNumber(held.valorDuplicata);
  if (held.operacao?.valorOperacao !== undefined) {
    view.operacao = { ...held.operacao, valorOperacao: centsToNumber(held.operacao.valorOperacao) };
  }
  return view;
}

const AMOUNTS = new Set(['valorDuplicata', 'valorOperacao']);
const TAX_IDS = new Set(['cpfCnpjTitular', 'cpfCnpjSacador', 'cpfCnpjSacado', 'cpfCnpjAvalista']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof DecimalText);
}

/** A held value as it is shown in a divergence. */
function shown(key: string, v: unknown): unknown {
  return AMOUNTS.has(key) && typeof v === 'number' ? centsToNumber(v) : v;
}

function same(key: string, held: unknown, sent: unknown): boolean {
  if (key === 'documento') return isObject(held) && isObject(sent) && held.sha256 === sent.sha256;
  if (TAX_IDS.has(key) && typeof held === 'string' && typeof sent === 'string') {
    return normalizeTaxId(held) === normalizeTaxId(sent);
  }
  // A number sent as 1E+0 is the 1 held (DecimalText: toHeld).
  if (held instanceof DecimalText || sent instanceof DecimalText) return Number(held) === Number(sent);
  return held === sent;
}

/** Compares the fields `sent` carries with `held`; appends one divergence per differing leaf. */
function compareInto(
  held: Record<string, unknown> | undefined,
  sent: Record<string, unknown>,
  base: string,
  out: Divergence[],
): void {
  for (const [key, sentValue] of Object.entries(sent)) {
    const heldValue = held?.[key];
    const field = base + pointer(key);
    if (key === 'avalistas' && Array.isArray(sentValue)) {
      // Guarantors are compared in order: a different count is one divergence of the whole list.
      if (!Array.isArray(heldValue) || heldValue.length !== sentValue.length) {
        out.push(divergence(field, key, heldValue, sentValue));
        continue;
      }
      sentValue.forEach((s: unknown, j) => {
        const h: unknown = heldValue[j];
        if (isObject(s)) compareInto(isObject(h) ? h : undefined, s, field + pointer(j), out);
      });
    } else if (isObject(sentValue) && key !== 'documento') {
      compareInto(isObject(heldValue) ? heldValue : undefined, sentValue, field, out);
    } else if (!same(key, heldValue, sentValue)) {
      out.push(divergence(field, key, heldValue, sentValue));
    }
  }
}

function divergence(field: string, key: string, held: unknown, sent: unknown): Divergence {
  const d: Divergence = { field, sent: shown(key, sent) };
  if (held !== undefined) d.held = shown(key, held);
  return d;
}

/**
 * The divergences between a reconciliation item and the registration it names. Only the fields the
 * item sends are compared; `dataRegistro` against the registration's date (assumption
 * registry-reconcile-compare).
 */
export function compareWithRegistration(
  held: HeldFields,
  registrationDate: string,
  item: ReconciliationDocument,
  digest: Digest | undefined,
): Divergence[] {
  const out: Divergence[] = [];
  compareInto(held as Record<string, unknown>, toHeld(item, digest) as Record<string, unknown>, '', out);
  if (item.dataRegistro !== undefined && item.dataRegistro !== registrationDate) {
    out.push({ field: '/dataRegistro', held: registrationDate, sent: item.dataRegistro });
  }
  return out;
}
