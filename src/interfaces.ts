// The four emulated interfaces at a glance: where they live, how they answer errors, which statuses
// the specification documents for each. Plugins, the journal and fault rules all read this table.
import { operations as bookkeeping, PREFIX as bookkeepingPrefix } from './bookkeeping/contract.js';
import { operations as loanbond, PREFIX as loanbondPrefix } from './loanbond/contract.js';
import { operations as receivables, PREFIX as receivablesPrefix } from './receivables/contract.js';
import { operations as registry, PREFIX as registryPrefix } from './registry/contract.js';
import type { Operation } from './http/catalog.js';
import type { ErrorShape, InterfaceId } from './http/errors.js';

export interface InterfaceSetup {
  id: InterfaceId;
  prefix: string;
  shape: ErrorShape;
  /** Statuses the specification documents for this interface (501 is the sandbox's own). */
  statuses: readonly number[];
  operations: readonly Operation[];
}

export const INTERFACES: Readonly<Record<InterfaceId, InterfaceSetup>> = {
  bookkeeping: {
    id: 'bookkeeping',
    prefix: bookkeepingPrefix,
    shape: 'standard',
    statuses: [400, 401, 403, 500],
    operations: bookkeeping,
  },
  registry: {
    id: 'registry',
    prefix: registryPrefix,
    shape: 'standard',
    statuses: [400, 401, 500],
    operations: registry,
  },
  receivables: {
    id: 'receivables',
    prefix: receivablesPrefix,
    shape: 'envelope',
    statuses: [400],
    operations: receivables,
  },
  loanbond: {
    id: 'loanbond',
    prefix: loanbondPrefix,
    shape: 'standard',
    statuses: [400, 401],
    operations: loanbond,
  },
};

export const CATALOG: readonly Operation[] = [...bookkeeping, ...registry, ...receivables, ...loanbond];

/** The interface whose prefix a path is under, or null. */
export function interfaceOfPath(path: string): InterfaceId | null {
  for (const setup of Object.values(INTERFACES)) {
    if (path === setup.prefix || path.startsWith(`${setup.prefix}/`)) return setup.id;
  }
  return null;
}

