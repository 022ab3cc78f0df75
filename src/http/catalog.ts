// An interface's contract: its prefix, error shape, documented statuses, every operation the
// specification names (documented with a method and path, or by name only) and the outcomes of the
// documented ones. Paths are written once, relative to the prefix and in the specification's
// spelling ({param}); the catalog shows them absolute and the routes read them in Fastify's (:param)
// through route(), so the two can never drift.
import type { ErrorShape, InterfaceId } from './errors.js';
import { type Outcome, type OperationOutcomes, operationOutcomes } from './outcomes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  /** Stable kebab-case id, used by route configs, the journal and fault rules. */
  id: string;
  interface: InterfaceId;
  /** The name a reader recognises from the specification. */
  name: string;
  /** `null` where the specification does not show it. */
  method: HttpMethod | null;
  /** Absolute, {param} spelling; `null` where the specification does not show it. */
  path: string | null;
  status: 'implemented' | 'named-only';
}

/** [id, name, method, path relative to the prefix]: with a path, documented; without, named only. */
export type OperationEntry = readonly [id: string, name: string, method: HttpMethod | null, path?: string];

/** Route config shared by every documented route: which operation it serves. */
export interface RouteMeta {
  interface: InterfaceId;
  operation: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    interface?: InterfaceId;
    operation?: string;
  }
}

/** What the shared HTTP layer, the journal, fault rules and coverage need to know of an interface. */
export interface InterfaceContract<Id extends string = string, OperationId extends string = string> {
  id: Id;
  /** Every path of the interface starts with it; no two interfaces share one. */
  prefix: string;
  shape: ErrorShape;
  /** Statuses the specification documents for this interface (501 is the sandbox's own). */
  statuses: readonly number[];
  operations: readonly Operation[];
  /** The distinct answers of its documented operations (coverage, the Sandbox-Outcome header). */
  outcomes: readonly Outcome[];
  /** A documented operation's route: its path relative to the prefix in Fastify's spelling, and its config. */
  route(operation: OperationId): { url: string; config: RouteMeta };
}

type DocumentedId<E extends readonly OperationEntry[]> = Extract<E[number], readonly [string, string, HttpMethod, string]>[0];

export interface ContractSpec<Id extends string, E extends readonly OperationEntry[]> {
  id: Id;
  prefix: string;
  shape: ErrorShape;
  statuses: readonly number[];
  operations: E;
  /** The outcomes of each documented operation (its fault outcomes follow from `statuses`). */
  outcomes: { readonly [K in DocumentedId<E>]: OperationOutcomes };
}

/** An interface's contract, its operation ids typed from the entries so that a misspelt one fails to compile. */
export function defineContract<const Id extends string, const E extends readonly OperationEntry[]>(
  spec: ContractSpec<Id, E>,
): InterfaceContract<Id, DocumentedId<E>> {
  const operations: Operation[] = spec.operations.map(([id, name, method, path]) => ({
    id,
    interface: spec.id,
    name,
    method,
    path: path === undefined ? null : `${spec.prefix}${path}`,
    status: path === undefined ? 'named-only' : 'implemented',
  }));
  const routes = new Map(
    spec.operations.flatMap(([id, , , path]) =>
      path === undefined ? [] : [[id, { url: path.replace(/\{([^}]+)\}/g, ':$1'), config: { interface: spec.id, operation: id } }] as const],
    ),
  );
  const outcomes = (Object.entries(spec.outcomes) as Array<[string, OperationOutcomes]>).flatMap(([operation, own]) =>
    operationOutcomes(spec.id, operation, own, spec.statuses),
  );
  return {
    id: spec.id,
    prefix: spec.prefix,
    shape: spec.shape,
    statuses: spec.statuses,
    operations,
    outcomes,
    route(operation) {
      const route = routes.get(operation);
      if (!route) throw new Error(`${operation} is not a documented operation of ${spec.id}`);
      return route;
    },
  };
}

export function namedOnly(operations: readonly Operation[]): Operation[] {
  return operations.filter((o) => o.status === 'named-only');
}
