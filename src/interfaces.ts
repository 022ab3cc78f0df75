// The four emulated interfaces gathered for app.ts and the control plane: each interface folder
// describes itself in its contract.ts (prefix, error shape, documented statuses, catalog).
import { setup as bookkeeping } from './bookkeeping/contract.js';
import type { InterfaceId } from './http/errors.js';
import type { InterfaceTable } from './http/interface-plugin.js';
import type { Operation } from './http/catalog.js';
import { setup as loanbond } from './loanbond/contract.js';
import { setup as receivables } from './receivables/contract.js';
import { setup as registry } from './registry/contract.js';

export type { InterfaceSetup } from './http/interface-plugin.js';

export const INTERFACES: InterfaceTable = { bookkeeping, registry, receivables, loanbond };

export const CATALOG: readonly Operation[] = Object.values(INTERFACES).flatMap((i) => i.operations);

/** The interface whose prefix a path is under, or null. */
export function interfaceOfPath(path: string): InterfaceId | null {
  for (const setup of Object.values(INTERFACES)) {
    if (path === setup.prefix || path.startsWith(`${setup.prefix}/`)) return setup.id;
  }
  return null;
}
