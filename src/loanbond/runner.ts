// The asynchronous part of a registration (the specification: registration is processed
// asynchronously). registered -> signatures-complete (assinado true: the signatures came with the
// record) or signatures-pending (signing is not emulated, so it stays there). At the end of the
// flow the emails_final_fluxo addresses would be notified; the notification's shape is not shown,
// so the sandbox records "would notify" and sends nothing.
import type { WorkKind } from '../runtime/index.js';
import type { Store } from '../store/index.js';

const SLICE = 100;

/** Advances one slice of registrations; returns how many it advanced (0: nothing left). */
export function advanceRegistrations(store: Store, now: Date): number {
  const at = now.toISOString();
  return store.transaction(() => {
    const rows = store.loanbond.registeredBatch(SLICE);
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
}

export const registrationWork: WorkKind = {
  name: 'loanbond',
  create: (ctx) => ({ run: () => advanceRegistrations(ctx.store, ctx.clock.now()) }),
};
