// The asynchronous part of a registration (the specification: registration is processed
// asynchronously). registered -> signatures-complete (assinado true: the signatures came with the
// record) or signatures-pending (signing is not emulated, so it stays there). At the end of the
// flow the emails_final_fluxo addresses would be notified; the notification's shape is not shown,
// so the sandbox records "would notify" and sends nothing.
import type { EventSink } from '../runtime/events.js';
import type { WorkKind } from '../runtime/index.js';
import type { Store } from '../store/index.js';
import { recordProcessed } from './events.js';

const SLICE = 100;

/**
 * Advances one slice of registrations, reporting each to `events` once committed; returns how many it
 * advanced (0: nothing left).
 */
export function advanceRegistrations(store: Store, now: Date, events?: EventSink): number {
  const at = now.toISOString();
  const moved = store.transaction(() => {
    const rows = store.loanbond.registeredBatch(SLICE);
    return rows.map((r) => {
      const complete = r.assinado === 1;
      const recipients = JSON.parse(r.emails) as string[];
      const state = complete ? 'signatures-complete' : 'signatures-pending';
      store.loanbond.advance(r.codigoIdentificador, state, at, complete && recipients.length > 0 ? at : null);
      const notification = !complete ? 'waiting-for-signatures' : recipients.length > 0 ? 'would-notify' : 'no-recipients';
      return { codigoIdentificador: r.codigoIdentificador, state, notification, at } as const;
    });
  });
  if (events) for (const m of moved) recordProcessed(events, m);
  return moved.length;
}

export const registrationWork: WorkKind = {
  name: 'loanbond',
  create: (ctx) => ({ run: () => advanceRegistrations(ctx.store, ctx.clock.now(), ctx.events) }),
};
