// The catalog: every operation of the four interfaces, documented or known by name only.
import type { InterfaceId } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  /** Stable kebab-case id, used by route configs, the journal and fault rules. */
  id: string;
  interface: InterfaceId;
  /** The name a reader recognises from the specification. */
  name: string;
  /** `null` where the specification does not show it. */
  method: HttpMethod | null;
  path: string | null;
  status: 'implemented' | 'named-only';
}

type Entry = [id: string, name: string, method: HttpMethod | null, path?: string];

/** Builds an interface's catalog: entries with a path are documented, the rest named only. */
export function catalog(iface: InterfaceId, entries: Entry[]): Operation[] {
  return entries.map(([id, name, method, path]) => ({
    id,
    interface: iface,
    name,
    method,
    path: path ?? null,
    status: path ? 'implemented' : 'named-only',
  }));
}

export function namedOnly(operations: readonly Operation[]): Operation[] {
  return operations.filter((o) => o.status === 'named-only');
}

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
