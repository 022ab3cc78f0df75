// The events of the bookkeeping interface (docs/events.md): what a committed payment reports.
import { centsToNumber } from '../domain/money.js';
import type { EventSink, EventType } from '../runtime/events.js';
import type { TradeBillStatus } from '../store/bookkeeping.js';

export const PAYMENT_DECLARED: EventType = {
  type: 'sandbox.bookkeeping.payment.declared',
  subject: 'bookkeeping/tenants/{tenantId}/trade-bills/{uid}',
  when: 'a payment of a trade bill was recorded (PUT .../{uid}/payment answered 204)',
  data: ['tenantId', 'uid', 'paymentValue', 'isPartial', 'openValueBefore', 'openValueAfter', 'statusBefore', 'status'],
};

export const EVENT_TYPES: readonly EventType[] = [PAYMENT_DECLARED];

export interface RecordedPayment {
  tenantId: string;
  uid: string;
  paymentCents: number;
  isPartial: boolean;
  openBeforeCents: number;
  openAfterCents: number;
  statusBefore: TradeBillStatus;
  statusAfter: TradeBillStatus;
}

/**
 * Amounts as the interface writes them: JSON numbers with at most two decimal places, exact at every
 * magnitude (a DecimalText above what a double carries, written digit for digit by the feed).
 */
const amount = centsToNumber;

export function paymentDeclared(events: EventSink, p: RecordedPayment): void {
  events.emit(PAYMENT_DECLARED.type, `bookkeeping/tenants/${p.tenantId}/trade-bills/${p.uid}`, {
    tenantId: p.tenantId,
    uid: p.uid,
    paymentValue: amount(p.paymentCents),
    isPartial: p.isPartial,
    openValueBefore: amount(p.openBeforeCents),
    openValueAfter: amount(p.openAfterCents),
    statusBefore: p.statusBefore,
    status: p.statusAfter,
  });
}
