// The four emulated interfaces at a glance: where they live, how they answer errors, which statuses
// the specification documents for each. Plugins, the journal and fault rules all read this table.
import { operations as bookkeeping, PREFIX as bookkeepingPrefix } from './bookkeeping/contract.js';
import { operations as loanbond, PREFIX as loanbondPrefix } from './loanbond/contract.js';
import { operations as receivables, PREFIX as receivablesPrefix } from './receivables/contract.js';
import { operations as registry, PREFIX as registryPrefix } from './registry/contract.js';
import { outcomes as bookkeepingOutcomes } from './bookkeeping/outcomes.js';
import { outcomes as loanbondOutcomes } from './loanbond/outcomes.js';
import { outcomes as receivablesOutcomes } from './receivables/outcomes.js';
import { outcomes as registryOutcomes } from './registry/outcomes.js';
import type { Operation } from './http/catalog.js';
import type { ErrorShape, InterfaceId } from './http/errors.js';
import type { Outcome } from './http/outcomes.js';

export interface InterfaceSetup {
  id: InterfaceId;
  prefix: string;
  shape: ErrorShape;
  /** Statuses the specification documents for this interface (501 is the sandbox's own). */
  statuses: readonly number[];
  operations: readonly Operation[];
  /** The distinct answers of its documented operations (coverage, the Sandbox-Outcome header). */
  outcomes: readonly Outcome[];
}

export const INTERFACES: Readonly<Record<InterfaceId, InterfaceSetup>> = {
  bookkeeping: {
    id: 'bookkeeping',
    prefix: bookkeepingPrefix,
    shape: 'standard',
    statuses: [400, 401, 403, 500],
    operations: bookkeeping,
    outcomes: bookkeepingOutcomes,
  },
  registry: {
    id: 'registry',
    prefix: registryPrefix,
    shape: 'standard',
    statuses: [400, 401, 500],
    operations: registry,
    outcomes: registryOutcomes,
  },
  receivables: {
    id: 'receivables',
    prefix: receivablesPrefix,
    shape: 'envelope',
    statuses: [400],
    operations: receivables,
    outcomes: receivablesOutcomes,
  },
  loanbond: {
    id: 'loanbond',
    prefix: loanbondPrefix,
    shape: 'standard',
    statuses: [400, 401],
    operations: loanbond,
    outcomes: loanbondOutcomes,
  },
};

export const CATALOG: readonly Operation[] = [...bookkeeping, ...registry, ...receivables, ...loanbond];

/** Every outcome of the documented operations, interface by interface, operation by operation. */
export const OUTCOMES: readonly Outcome[] = Object.values(INTERFACES).flatMap((s) => s.outcomes);

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

