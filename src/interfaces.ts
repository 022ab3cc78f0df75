// The four emulated interfaces gathered for app.ts and the control plane: each interface folder
// describes itself in its contract.ts (prefix, error shape, documented statuses, catalog).
import { setup as bookkeeping } from './bookkeeping/contract.js';
import { EVENT_TYPES as bookkeepingEvents } from './bookkeeping/events.js';
import type { InterfaceId } from './http/errors.js';
import type { InterfaceTable } from './http/interface-plugin.js';
import type { Operation } from './http/catalog.js';
import type { Outcome } from './http/outcomes.js';
import { setup as loanbond } from './loanbond/contract.js';
import { EVENT_TYPES as loanbondEvents } from './loanbond/events.js';
import { setup as receivables } from './receivables/contract.js';
import { EVENT_TYPES as receivablesEvents } from './receivables/events.js';
import { setup as registry } from './registry/contract.js';
import { EVENT_TYPES as registryEvents } from './registry/events.js';
import type { EventType } from './runtime/events.js';

export type { InterfaceSetup } from './http/interface-plugin.js';

export const INTERFACES: InterfaceTable = { bookkeeping, registry, receivables, loanbond };

export const CATALOG: readonly Operation[] = Object.values(INTERFACES).flatMap((i) => i.operations);

/** Every outcome of the documented operations, interface by interface, operation by operation. */
export const OUTCOMES: readonly Outcome[] = Object.values(INTERFACES).flatMap((s) => s.outcomes);

/** The event types the interfaces emit, interface by interface (each declared in its events.ts). */
export const INTERFACE_EVENT_TYPES: readonly EventType[] = [
  ...bookkeepingEvents,
  ...registryEvents,
  ...receivablesEvents,
  ...loanbondEvents,
];

const OUTCOME_BY_ID = new Map(OUTCOMES.map((o) => [o.id, o]));

/**
 * The invariant between an answer and its outcome tag (the Sandbox-Outcome header), for any suite
 * that drives the sandbox: null when it holds, else what is wrong. `operation` is the documented
 * operation the request reached (null: none, e.g. a 501). An answer of a documented operation
 * carries exactly one outcome of that operation, whose status is the status sent; a 501 or an
 * answer outside the documented operations carries none.
 */
export function outcomeTagProblem(operation: string | null, tag: string | undefined, status: number): string | null {
  if (operation === null || status === 501) {
    return tag === undefined ? null : `an answer of no documented operation (${status}) carries the outcome ${tag}`;
  }
  if (tag === undefined) return `a ${status} of ${operation} carries no outcome`;
  const outcome = OUTCOME_BY_ID.get(tag);
  if (!outcome) return `the outcome ${tag} of a ${status} is not in the catalog`;
  if (outcome.operation !== operation) return `the outcome ${tag} belongs to ${outcome.operation}, not ${operation}`;
  if (outcome.status !== status) return `the outcome ${tag} means ${outcome.status}, but ${status} was sent`;
  return null;
}

/** The interface whose prefix a path is under, or null. */
export function interfaceOfPath(path: string): InterfaceId | null {
  for (const setup of Object.values(INTERFACES)) {
    if (path === setup.prefix || path.startsWith(`${setup.prefix}/`)) return setup.id;
  }
  return null;
}
