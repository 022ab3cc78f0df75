// The asynchronous part of a registration (the specification: registration is processed
// asynchronously). registered -> signatures-complete (assinado true: the signatures came with the
// record) or signatures-pending (signing is not emulated, so it stays there). At the end of the
// flow the emails_final_fluxo addresses would be notified; the notification's shape is not shown,
// so the sandbox records "would notify" and sends nothing.
//
// A slice advances up to SLICE registrations in one transaction: when it fails (disk full, the
// database locked) none of them moved, each registration's processing record notes the failure,
// and the work scheduler tries again after a backoff.
import type { EventSink } from '../runtime/events.js';
import type { WorkKind } from '../runtime/index.js';
import { JobError, JobHistory, type JobRecord, type Runner } from '../runtime/work.js';
import type { Store } from '../store/index.js';
import { recordProcessed } from './events.js';

const SLICE = 100;

/**
 * Advances one slice of registrations, reporting each to `events` once committed; returns how many it
 * advanced (0: nothing left).
 */
export function advanceRegistrations(store: Store, now: Date, history?: JobHistory, events?: EventSink): number {
  const at = now.toISOString();
  let slice: string[] = [];
  let moved;
  try {
    moved = store.transaction(() => {
      const rows = store.loanbond.registeredBatch(SLICE);
      slice = rows.map((r) => r.codigoIdentificador);
      for (const id of slice) history?.attempting(id);
      return rows.map((r) => {
        const complete = r.assinado === 1;
        const recipients = JSON.parse(r.emails) as string[];
        const state = complete ? 'signatures-complete' : 'signatures-pending';
        store.loanbond.advance(r.codigoIdentificador, state, at, complete && recipients.length > 0 ? at : null);
        const notification = !complete ? 'waiting-for-signatures' : recipients.length > 0 ? 'would-notify' : 'no-recipients';
        return { codigoIdentificador: r.codigoIdentificador, state, notification, at } as const;
      });
    });
  } catch (err) {
    if (!history) throw err;
    const first = slice[0];
    const job =
      first === undefined ? 'the next registrations' : slice.length === 1 ? first : `${first} and ${slice.length - 1} more`;
    const step = slice.length === 1 ? 'its step' : `its step, in one transaction with ${slice.length - 1} other registrations`;
    for (const id of slice) history.note(id, step, err);
    throw new JobError(job, err);
  }
  if (events) for (const m of moved) recordProcessed(events, m);
  return moved.length;
}

export interface RegistrationWork {
  run: Runner;
  /** Registrations waiting for their asynchronous step (back-pressure): a maintained count. */
  backlog: () => number;
  /** The failures and retries of a registration's asynchronous step, null when it had none. */
  processingOf(codigoIdentificador: string): JobRecord | null;
}

export const registrationWork: WorkKind<RegistrationWork> = {
  name: 'loanbond',
  create: (ctx) => {
    const history = new JobHistory(() => ctx.store.generation);
    return {
      run: () => advanceRegistrations(ctx.store, ctx.clock.now(), history, ctx.events),
      backlog: () => ctx.store.loanbond.unprocessedCount(),
      processingOf: (id) => history.of(id),
    };
  },
};
