// The payment rules: what a declaration may say on its own, what it does to a bill, and the one
// transaction that reads the bill, decides and writes.
import { toIsoDate } from '../domain/dates.js';
import { formatCents } from '../domain/money.js';
import { checkTaxId } from '../domain/tax-id.js';
import { type ErrorDetail, pointer, SandboxError, validationError } from '../http/errors.js';
import { moneyCents } from '../http/exact-numbers.js';
import type { PaymentEffect, TradeBillRow, TradeBillStatus } from '../store/bookkeeping.js';
import type { Store } from '../store/index.js';
import type { PaymentDeclaration } from './schemas.js';

export const PAYABLE: readonly TradeBillStatus[] = ['open', 'partially-paid'];

/** A declaration after its amounts became cents. */
export interface Declaration {
  isPartial: boolean;
  paymentCents: number;
  remainingCents: number | null;
}

/** The outcome of a refusal by declarationProblems: its first problem decides. */
export function declarationOutcome(details: readonly ErrorDetail[]): string {
  return details[0]?.path === pointer('paymentDate') ? 'payment-date-future' : 'beneficiary-document-invalid';
}

/**
 * Checks that need no bill: the beneficiary's document and the payment date (`today` is the sandbox
 * clock's UTC date, YYYY-MM-DD). Every problem is reported, with the field's pointer.
 */
export function declarationProblems(
  body: { beneficiaryDocument?: string; paymentDate?: string },
  today: string,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (body.beneficiaryDocument !== undefined) {
    const check = checkTaxId(body.beneficiaryDocument, { punctuation: false });
    if (!check.ok) {
      details.push({
        path: pointer('beneficiaryDocument'),
        message: `${check.reason}; send a CPF (11 digits) or CNPJ (14 characters) without punctuation`,
      });
    } else if (check.value !== body.beneficiaryDocument) {
      details.push({
        path: pointer('beneficiaryDocument'),
        message: `must be written in upper case: ${check.value}`,
      });
    }
  }
  // Both are YYYY-MM-DD, so text order is date order.
  if (body.paymentDate !== undefined && body.paymentDate > today) {
    details.push({
      path: pointer('paymentDate'),
      message: `is in the future: the payment must already have happened (the sandbox's date is ${today} UTC)`,
    });
  }
  return details;
}

/**
 * What the declaration does to the bill as it stands now, or a 400 saying why it cannot apply.
 * Runs inside the payment transaction, so the open value it reads is the one it changes.
 */
export function decidePayment(bill: TradeBillRow, d: Declaration): PaymentEffect {
  if (!PAYABLE.includes(bill.status)) {
    throw new SandboxError(
      400,
      `trade bill ${bill.uid} is ${bill.status}: only open or partially-paid bills accept a payment`,
      { details: [{ path: pointer('uid'), message: `trade bill is ${bill.status}` }], outcome: `not-payable-${bill.status}` },
    );
  }
  const open = formatCents(bill.openCents);
  const paid = formatCents(d.paymentCents);
  if (d.paymentCents > bill.openCents) {
    throw validationError([
      {
        path: pointer('paymentValue'),
        message: `${paid} exceeds the open value of the trade bill (${open})`,
      },
    ]).tag('above-open-value');
  }
  if (d.isPartial && d.paymentCents === bill.openCents) {
    throw validationError([
      {
        path: pointer('isPartial'),
        message: `a partial payment must be below the open value (${open}); to settle it, send isPartial false`,
      },
    ]).tag('partial-equals-open');
  }
  if (!d.isPartial && d.paymentCents < bill.openCents) {
    throw validationError([
      {
        path: pointer('paymentValue'),
        message: `a total payment (isPartial false) must equal the open value (${open}), got ${paid}; for less, send isPartial true`,
      },
    ]).tag('total-below-open');
  }
  const openAfterCents = bill.openCents - d.paymentCents;
  if (d.remainingCents !== null && d.remainingCents !== openAfterCents) {
    throw validationError([
      {
        path: pointer('remainingValue'),
        message: `must equal the open value after this payment: ${formatCents(openAfterCents)} (open value ${open} - payment ${paid}), got ${formatCents(d.remainingCents)}`,
      },
    ]).tag('remaining-mismatch');
  }
  return { openAfterCents, statusAfter: openAfterCents === 0 ? 'paid' : 'partially-paid' };
}

export interface PaymentContext {
  store: Store;
  now: Date;
  tenantId: string;
  uid: string;
  /** The user the bearer token belongs to. */
  userId: number;
}

/**
 * Declares a payment: checks what needs no bill, then in one IMMEDIATE transaction (shared with the
 * concurrent payments of the same turn) reads the bill, decides the effect (a refusal throws, and
 * nothing of it changes) and records it. Settles once the payment is committed.
 */
export async function declarePayment(body: PaymentDeclaration, ctx: PaymentContext): Promise<PaymentEffect> {
  const { store, tenantId, uid } = ctx;
  const problems = declarationProblems(body, toIsoDate(ctx.now));
  if (problems.length > 0) throw validationError(problems).tag(declarationOutcome(problems));
  const declaration: Declaration = {
    isPartial: body.isPartial,
    paymentCents: moneyCents(body, 'paymentValue'),
    remainingCents: body.remainingValue === undefined ? null : moneyCents(body, 'remainingValue'),
  };
  // Concurrent payments share one commit (store.groupWrite): the hot path's write. The write lock is
  // taken before the bill is read, so the open value it reads is the one it changes.
  return store.groupWrite(() => {
    const bill = store.bookkeeping.tradeBill(tenantId, uid);
    if (!bill) {
      throw validationError([
        { path: pointer('uid'), message: `path parameter uid: tenant ${tenantId} has no trade bill "${uid}"` },
      ]).tag('unknown-uid');
    }
    const effect = decidePayment(bill, declaration);
    store.bookkeeping.applyPayment(bill, effect, {
      userId: ctx.userId,
      type: body.type,
      informantId: body.informantId,
      isPartial: body.isPartial,
      paymentCents: declaration.paymentCents,
      remainingCents: declaration.remainingCents,
      beneficiaryDocument: body.beneficiaryDocument ?? null,
      paymentDate: body.paymentDate ?? null,
      recordedAt: ctx.now.toISOString(),
    });
    return effect;
  });
}
