// "Reconciliation must be run at least once a month" (assumption registry-overdue): a participant
// with registrations must reconcile within one calendar month of the later of its first registration
// and its last reconciliation.
import { addMonthsUtc } from '../domain/dates.js';

export interface ReconciliationDue {
  /** null while the participant has registered nothing. */
  dueBy: Date | null;
  overdue: boolean;
}

/** Timestamps are ISO 8601 UTC strings as stored (so text order is time order). */
export function reconciliationDue(
  firstRegistrationAt: string | null,
  lastReconciliationAt: string | null,
  now: Date,
): ReconciliationDue {
  if (firstRegistrationAt === null) return { dueBy: null, overdue: false };
  const anchor =
    lastReconciliationAt !== null && lastReconciliationAt > firstRegistrationAt
      ? lastReconciliationAt
      : firstRegistrationAt;
  const dueBy = addMonthsUtc(new Date(anchor), 1);
  return { dueBy, overdue: now.getTime() > dueBy.getTime() };
}
