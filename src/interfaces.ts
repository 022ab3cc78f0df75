// The emulated interfaces, in order: the one list the app, the control plane, OpenAPI, fixtures,
// coverage and the inspector iterate over. Each entry is the module its folder's index.ts exports
// (http/interface-module.ts says what one holds); adding an interface is adding its entry here.
import type { Static } from '@fastify/type-provider-typebox';
import { bookkeeping } from './bookkeeping/index.js';
import type { Assumption } from './http/assumption-catalog.js';
import { Interfaces } from './http/interface-module.js';
import type { Outcome } from './http/outcomes.js';
import { assumptions as sandboxAssumptions } from './http/sandbox-assumptions.js';
import { loanbond } from './loanbond/index.js';
import { receivables } from './receivables/index.js';
import { registry } from './registry/index.js';

export const INTERFACE_MODULES = [bookkeeping, registry, receivables, loanbond] as const;

export const INTERFACES = new Interfaces(INTERFACE_MODULES);

type Module = (typeof INTERFACE_MODULES)[number];

/** The id of an emulated interface. */
export type InterfaceId = Module['contract']['id'];

/** A fixture document (docs/fixtures.md): one optional section per interface. */
export type FixtureDocument = { [M in Module as M['contract']['id']]?: Static<M['fixtures']['schema']> };

/** Every outcome of the documented operations, interface by interface, operation by operation. */
export const OUTCOMES: readonly Outcome[] = INTERFACES.outcomes;

/** Every sandbox decision: the sandbox-wide ones, then each interface's. */
export const ASSUMPTIONS: readonly Assumption[] = [...sandboxAssumptions, ...INTERFACES.assumptions];

/** See Interfaces.outcomeTagProblem: the invariant between an answer and its Sandbox-Outcome tag. */
export function outcomeTagProblem(operation: string | null, tag: string | undefined, status: number): string | null {
  return INTERFACES.outcomeTagProblem(operation, tag, status);
}
