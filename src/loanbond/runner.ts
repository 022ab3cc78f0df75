// The asynchronous part of a registration (the specification: registration is processed
// asynchronously). registered -> signatures-complete (assinado true: the signatures came with the
// record) or signatures-pending (signing is not emulated, so it stays there). At the end of the
// flow the emails_final_fluxo addresses would be notified; the notification's shape is not shown,
// so the sandbox records "would notify" and sends nothing.
//
// A slice advances up to SLICE registrations in one transaction: when it fails (disk full, the
// database locked) none of them moved, each registration's processing record notes the failure,
// and the work scheduler tries again after a backoff.
import type { WorkKind } from '../runtime/index.js';
import { JobError, JobHistory, type JobRecord, type Runner } from '../runtime/work.js';
import type { Store } from '../store/index.js';

const SLICE = 100;

/** Advances one slice of registrations; returns how many it advanced (0: nothing left). */
export function advanceRegistrations(store: Store, now: Date, history?: JobHistory): number {
  const at = now.toISOString();
  let slice: string[] = [];
  try {
    return store.transaction(() => {
      const rows = store.loanbond.registeredBatch(SLICE);
      slice = rows.map((r) => r.codigoIdentificador);
      for (const id of slice) history?.attempting(id);
      for (const r of rows) {
        const complete = r.assinado === 1;
        const recipients = JSON.parse(r.emails) as string[];
        store.loanbond.advance(
          r.codigoIdentificador,
          complete ? 'signatures-complete' : 'signatures-pending',
          at,
          complete && recipients.length > 0 ? at : null,
        );
      }
      return rows.length;
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
}

export interface RegistrationWork {
  run: Runner;
  backlog: (upTo: number) => number;
  /** The failures and retries of a registration's asynchronous step, null when it had none. */
  processingOf(codigoIdentificador: string): JobRecord | null;
}

export const registrationWork: WorkKind<RegistrationWork> = {
  name: 'loanbond',
  create: (ctx) => {
    const history = new JobHistory();
    return {
      run: () => advanceRegistrations(ctx.store, ctx.clock.now(), history),
      backlog: (upTo) => ctx.store.loanbond.registeredCount(upTo),
      processingOf: (id) => history.of(id),
    };
  },
};
