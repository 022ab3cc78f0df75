// The payment rules: what a declaration may say on its own, what it does to a bill, and the one
// transaction that reads the bill, decides and writes.
import { isCalendarDate, toIsoDate } from '../domain/dates.js';
import { centsToNumber, DecimalText, formatCents, isMoney } from '../domain/money.js';
import { checkTaxId } from '../domain/tax-id.js';
import { type ErrorDetail, pointer, type SandboxError, validationError } from '../http/errors.js';
import { moneyCents, numberText } from '../http/exact-numbers.js';
import { type NotPayable, PAYABLE, type PaymentEffect, type TradeBillRow, type TradeBillStatus } from '../store/bookkeeping.js';
import type { Store } from '../store/index.js';
import type { EventSink } from '../runtime/events.js';
import { paymentDeclared } from './events.js';
import { type BookkeepingOutcome, notPayable, outcome } from './outcomes.js';
import type { PaymentDeclaration } from './schemas.js';

/** A declaration after its amounts became cents. */
export interface Declaration {
  isPartial: boolean;
  paymentCents: number;
  remainingCents: number | null;
  /** The amounts' texts where a double writes them otherwise (1E+1, 0.10000, -0), else null. */
  paymentText: string | null;
  remainingText: string | null;
}

/** An amount as the client wrote it: its recorded text, else the double's own text (which is what was sent). */
function sentAmount(text: string | null, cents: number): string {
  if (text !== null) return text;
  const value = centsToNumber(cents);
  return value instanceof DecimalText ? value.text : String(value);
}

/** A declaration's amounts read from a validated body: cents for the rules, texts for the echoes. */
function amountsOf(body: Record<string, unknown>): Omit<Declaration, 'isPartial'> {
  const remaining = body.remainingValue !== undefined;
  return {
    paymentCents: moneyCents(body, 'paymentValue'),
    remainingCents: remaining ? moneyCents(body, 'remainingValue') : null,
    paymentText: numberText(body, 'paymentValue') ?? null,
    remainingText: remaining ? (numberText(body, 'remainingValue') ?? null) : null,
  };
}

/** A problem of a payment: its detail, the outcome it names, and the message it leads with when first. */
export interface PaymentProblem {
  detail: ErrorDetail;
  outcome: BookkeepingOutcome;
  summary?: string;
}

/** One 400 for every problem found; the first names the outcome and leads the message. */
export function refusal(problems: readonly PaymentProblem[]): SandboxError {
  const first = problems[0];
  return validationError(problems.map((p) => p.detail), first?.summary).tag(first?.outcome ?? outcome('beneficiary-document-invalid'));
}

/**
 * Checks that need no bill: the beneficiary's document and the payment date (`today` is the sandbox
 * clock's UTC date, YYYY-MM-DD). Every problem is reported, with the field's pointer. A field of the
 * wrong type is left to the schema's report.
 */
export function declarationProblems(body: Record<string, unknown>, today: string): PaymentProblem[] {
  const problems: PaymentProblem[] = [];
  const document = body.beneficiaryDocument;
  if (typeof document === 'string') {
    const check = checkTaxId(document, { punctuation: false });
    const path = pointer('beneficiaryDocument');
    if (!check.ok) {
      problems.push({
        detail: { path, message: `${check.reason}; send a CPF (11 digits) or CNPJ (14 characters) without punctuation` },
        outcome: outcome('beneficiary-document-invalid'),
      });
    } else if (check.value !== document) {
      problems.push({ detail: { path, message: `must be written in upper case: ${check.value}` }, outcome: outcome('beneficiary-document-invalid') });
    }
  }
  // Both are YYYY-MM-DD (a date the schema refused is not compared), so text order is date order.
  const date = body.paymentDate;
  if (typeof date === 'string' && isCalendarDate(date) && date > today) {
    problems.push({
      detail: {
        path: pointer('paymentDate'),
        message: `is in the future: the payment must already have happened (the sandbox's date is ${today} UTC)`,
      },
      outcome: outcome('payment-date-future'),
    });
  }
  return problems;
}

/**
 * What the declaration does to the bill as it stands now, or every reason it cannot apply. Runs
 * inside the payment transaction, so the open value it reads is the one it changes. Only a bill that
 * takes no payment, or an amount above the open value, makes the other checks meaningless.
 */
export function decidePayment(bill: TradeBillRow, declaration: Declaration): { effect: PaymentEffect } | { problems: PaymentProblem[] } {
  const status = statusProblem(bill);
  if (status) return { problems: [status] };
  const open = formatCents(bill.openCents);
  const paid = formatCents(declaration.paymentCents);
  // Messages quote the amounts as sent; the arithmetic they explain is written in reais and cents.
  const paidAsSent = sentAmount(declaration.paymentText, declaration.paymentCents);
  if (declaration.paymentCents > bill.openCents) {
    return {
      problems: [
        {
          detail: { path: pointer('paymentValue'), message: `${paidAsSent} exceeds the open value of the trade bill (${open})` },
          outcome: outcome('above-open-value'),
        },
      ],
    };
  }
  const problems: PaymentProblem[] = [];
  if (declaration.isPartial && declaration.paymentCents === bill.openCents) {
    problems.push({
      detail: {
        path: pointer('isPartial'),
        message: `a partial payment must be below the open value (${open}); to settle it, send isPartial false`,
      },
      outcome: outcome('partial-equals-open'),
    });
  }
  if (!declaration.isPartial && declaration.paymentCents < bill.openCents) {
    problems.push({
      detail: {
        path: pointer('paymentValue'),
        message: `a total payment (isPartial false) must equal the open value (${open}), got ${paidAsSent}; for less, send isPartial true`,
      },
      outcome: outcome('total-below-open'),
    });
  }
  const openAfterCents = bill.openCents - declaration.paymentCents;
  if (declaration.remainingCents !== null && declaration.remainingCents !== openAfterCents) {
    problems.push({
      detail: {
        path: pointer('remainingValue'),
        message: `must equal the open value after this payment: ${formatCents(openAfterCents)} (open value ${open} - payment ${paid}), got ${sentAmount(declaration.remainingText, declaration.remainingCents)}`,
      },
      outcome: outcome('remaining-mismatch'),
    });
  }
  if (problems.length > 0) return { problems };
  return { effect: { openAfterCents, statusAfter: openAfterCents === 0 ? 'paid' : 'partially-paid' } };
}

/** A bill that takes no payment, whatever the declaration says. */
function statusProblem(bill: TradeBillRow): PaymentProblem | undefined {
  if ((PAYABLE as readonly TradeBillStatus[]).includes(bill.status)) return undefined;
  return {
    detail: { path: pointer('uid'), message: `path parameter uid: trade bill ${bill.uid} is ${bill.status}` },
    outcome: notPayable(bill.status as NotPayable),
    summary: `trade bill ${bill.uid} is ${bill.status}: only open or partially-paid bills accept a payment`,
  };
}

/** The bill's problems with a declaration, or that there is no such bill. */
function billProblems(bill: TradeBillRow | undefined, declaration: Declaration | undefined, tenantId: string, uid: string): PaymentProblem[] {
  if (!bill) {
    return [
      {
        detail: { path: pointer('uid'), message: `path parameter uid: tenant ${tenantId} has no trade bill ${JSON.stringify(uid)}` },
        outcome: outcome('unknown-uid'),
      },
    ];
  }
  // A bill that takes no payment is named even when the amounts cannot be read.
  if (declaration === undefined) return [statusProblem(bill)].filter((p) => p !== undefined);
  const decided = decidePayment(bill, declaration);
  return 'problems' in decided ? decided.problems : [];
}

/**
 * The amounts of a body the schema may have refused, as far as they are valid: undefined when
 * isPartial or paymentValue cannot be read (the checks against the bill would mean nothing).
 */
function readableDeclaration(body: Record<string, unknown>): Declaration | undefined {
  const { isPartial, paymentValue, remainingValue } = body;
  if (typeof isPartial !== 'boolean' || !isMoney(paymentValue) || paymentValue <= 0) return undefined;
  if (remainingValue !== undefined && (!isMoney(remainingValue) || remainingValue < 0)) return undefined;
  return { isPartial, ...amountsOf(body) };
}

/**
 * Every check a payment the schema refused can still have: the declaration's own, and those against
 * the bill where the amounts are readable. Reads, never writes.
 */
export function refusedPaymentProblems(body: unknown, ctx: Omit<PaymentContext, 'userId' | 'events'>): PaymentProblem[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const fields = body as Record<string, unknown>;
  const bill = ctx.store.bookkeeping.tradeBill(ctx.tenantId, ctx.uid);
  return [
    ...declarationProblems(fields, toIsoDate(ctx.now)),
    ...billProblems(bill, readableDeclaration(fields), ctx.tenantId, ctx.uid),
  ];
}

/** The checks of a declaration that need no bill: all that mean something when the path names none (a malformed tenantId). */
export function declarationOnlyProblems(body: unknown, now: Date): PaymentProblem[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  return declarationProblems(body as Record<string, unknown>, toIsoDate(now));
}

export interface PaymentContext {
  store: Store;
  now: Date;
  tenantId: string;
  uid: string;
  /** The user the bearer token belongs to. */
  userId: number;
  /** Where the committed payment is reported. */
  events: EventSink;
}

/**
 * Declares a payment: checks what needs no bill, then in one IMMEDIATE transaction (shared with the
 * concurrent payments of the same turn) reads the bill, decides the effect (a refusal throws, and
 * nothing of it changes) and records it. Settles once the payment is committed, and reports it then:
 * the group commit settles its writes in the order they ran, so the events keep that order.
 */
export async function declarePayment(body: PaymentDeclaration, ctx: PaymentContext): Promise<PaymentEffect> {
  const { store, tenantId, uid } = ctx;
  const declaration: Declaration = { isPartial: body.isPartial, ...amountsOf(body) };
  const problems = declarationProblems(body, toIsoDate(ctx.now));
  if (problems.length > 0) {
    // Refused whatever the bill says: what it says is reported with the rest (a read, no write).
    const bill = store.bookkeeping.tradeBill(tenantId, uid);
    throw refusal([...problems, ...billProblems(bill, declaration, tenantId, uid)]);
  }
  // Concurrent payments share one commit (store.groupWrite): the hot path's write. The write lock is
  // taken before the bill is read, so the open value it reads is the one it changes.
  const { effect, before } = await store.groupWrite(() => {
    const bill = store.bookkeeping.tradeBill(tenantId, uid);
    if (!bill) throw refusal(billProblems(bill, declaration, tenantId, uid));
    const decided = decidePayment(bill, declaration);
    if ('problems' in decided) throw refusal(decided.problems);
    const { effect } = decided;
    store.bookkeeping.applyPayment(bill, effect, {
      userId: ctx.userId,
      type: body.type,
      informantId: body.informantId,
      isPartial: body.isPartial,
      paymentCents: declaration.paymentCents,
      remainingCents: declaration.remainingCents,
      paymentText: declaration.paymentText,
      remainingText: declaration.remainingText,
      beneficiaryDocument: body.beneficiaryDocument ?? null,
      paymentDate: body.paymentDate ?? null,
      recordedAt: ctx.now.toISOString(),
    });
    return { effect, before: bill };
  });
  paymentDeclared(ctx.events, {
    tenantId,
    uid,
    paymentCents: declaration.paymentCents,
    isPartial: body.isPartial,
    openBeforeCents: before.openCents,
    openAfterCents: effect.openAfterCents,
    statusBefore: before.status,
    statusAfter: effect.statusAfter,
  });
  return effect;
}
