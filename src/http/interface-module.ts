// The seam between an emulated interface and everything else. Each interface folder exports one
// InterfaceModule from its index.ts; the app, the control plane, the journal, fault rules, fixtures,
// coverage, OpenAPI and the inspector read every interface through an Interfaces list built from
// those modules, and never reach into a folder. Adding an interface is one module and one entry in
// the list (src/interfaces.ts), nothing else.
import type { FastifyPluginAsync } from 'fastify';
import { FixtureDocuments, type FixtureSection } from '../runtime/fixture-document.js';
import type { EventType } from '../runtime/events.js';
import type { InterfaceParts, Runtime, WorkKind } from '../runtime/index.js';
import type { StorePart } from '../store/part.js';
import type { Assumption } from './assumption-catalog.js';
import type { InterfaceContract, Operation } from './catalog.js';
import type { Outcome } from './outcomes.js';

export type { InterfaceContract } from './catalog.js';

/** An OpenAPI security requirement: scheme name -> scopes. */
export type SecurityRequirement = Record<string, string[]>;

export interface InterfaceModule<Id extends string = string> {
  contract: InterfaceContract<Id>;
  /** The interface's routes, registered under contract.prefix. */
  routes: FastifyPluginAsync;
  openapi: {
    /** The tag every operation of the interface carries (its name is the interface id). */
    tag: { name: Id; description: string };
    /** The security requirement of its operations: `[]` says the credentials travel in the body. */
    security: readonly SecurityRequirement[];
    /** The security schemes that requirement names. */
    securitySchemes?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  };
  /** The decisions it makes where the specification is silent. */
  assumptions: readonly Assumption[];
  /** Its section of the fixture document, under the key contract.id. */
  fixtures: FixtureSection;
  /** Its asynchronous processing, run off the request path by each runtime. */
  work: readonly WorkKind[];
  /** The events its rules and work emit once their changes commit (docs/events.md): sandbox.<id>.<what>. */
  events: readonly EventType[];
  /**
   * Tables of its own beyond the sandbox's schema (store/migrations.ts), with their migrations and
   * statements; the four built-in interfaces keep theirs in store/.
   */
  store?: StorePart<unknown>;
  inspection: {
    /** Read-only views of its state, mounted under /_sandbox/<id>. */
    routes: FastifyPluginAsync;
    /** The overview's rows per table: table -> what its rows are called; other tables are not shown. */
    tables: Readonly<Record<string, string>>;
    /** Counts the overview shows before the table rows (what no single table holds). */
    counts?(runtime: Runtime): Record<string, number>;
    /** What deserves a look in its state now (overdue, rejected, pending), one sentence each. */
    warnings(runtime: Runtime): string[];
    /**
     * Its section of the inspector page: a title, and the browser module under control/ui/assets
     * that draws it (none: the page shows the overview counts and the inspection routes).
     */
    panel: { title: string; script?: string };
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The emulated interfaces this app serves. */
    interfaces: Interfaces;
  }
}

/** The emulated interfaces of one app, in order: what everything outside the folders iterates over. */
export class Interfaces {
  readonly modules: readonly InterfaceModule[];
  readonly ids: readonly string[];
  /** Every operation, interface by interface, documented or named only (GET /_sandbox/operations). */
  readonly operations: readonly Operation[];
  /** Every outcome of the documented operations, interface by interface, operation by operation. */
  readonly outcomes: readonly Outcome[];
  /** The decisions of the interfaces (the sandbox-wide ones are in http/sandbox-assumptions.ts). */
  readonly assumptions: readonly Assumption[];
  /** The event types of the interfaces, interface by interface (the sandbox's own: runtime/sandbox-events.ts). */
  readonly events: readonly EventType[];
  /** The fixture document: one section per interface, keyed by its id. */
  readonly fixtures: FixtureDocuments;
  private readonly byId: ReadonlyMap<string, InterfaceModule>;
  private readonly outcomeById: ReadonlyMap<string, Outcome>;

  constructor(modules: readonly InterfaceModule[]) {
    this.modules = modules;
    this.ids = modules.map((m) => m.contract.id);
    this.byId = new Map(modules.map((m) => [m.contract.id, m]));
    this.operations = modules.flatMap((m) => m.contract.operations);
    this.outcomes = modules.flatMap((m) => m.contract.outcomes);
    this.assumptions = modules.flatMap((m) => m.assumptions);
    this.events = modules.flatMap((m) => m.events);
    this.outcomeById = new Map(this.outcomes.map((o) => [o.id, o]));
    const problem = listProblem(modules, this.operations, this.outcomes, this.assumptions);
    if (problem) throw new Error(`the interface list is inconsistent: ${problem}`);
    this.fixtures = new FixtureDocuments(modules.map((m) => m.fixtures));
  }

  /** What every sandbox state of the app is made with; `coverage` false: no outcome is counted. */
  runtimeParts(coverage: boolean): InterfaceParts {
    return {
      work: this.modules.flatMap((m) => m.work),
      fixtures: this.fixtures,
      store: this.modules.flatMap((m) => (m.store ? [m.store] : [])),
      coverage: coverage ? { outcomes: this.outcomes, operations: this.operations } : { outcomes: [], operations: [] },
    };
  }

  get(id: string): InterfaceModule | undefined {
    return this.byId.get(id);
  }

  /** The contract of a listed interface; an unknown id is a programming error. */
  contract(id: string): InterfaceContract {
    const m = this.byId.get(id);
    if (!m) throw new Error(`no interface "${id}" in the list (${this.ids.join(', ')})`);
    return m.contract;
  }

  /** The interface whose prefix a path is under, or undefined. */
  ofPath(path: string): InterfaceModule | undefined {
    for (const m of this.modules) {
      const prefix = m.contract.prefix;
      if (path === prefix || path.startsWith(`${prefix}/`)) return m;
    }
    return undefined;
  }

  /**
   * The invariant between an answer and its outcome tag (the Sandbox-Outcome header), for any suite
   * that drives the sandbox: null when it holds, else what is wrong. `operation` is the documented
   * operation the request reached (null: none, e.g. a 501). An answer of a documented operation
   * carries exactly one outcome of that operation, whose status is the status sent; a 501 or an
   * answer outside the documented operations carries none.
   */
  outcomeTagProblem(operation: string | null, tag: string | undefined, status: number): string | null {
    if (operation === null || status === 501) {
      return tag === undefined ? null : `an answer of no documented operation (${status}) carries the outcome ${tag}`;
    }
    if (tag === undefined) return `a ${status} of ${operation} carries no outcome`;
    const outcome = this.outcomeById.get(tag);
    if (!outcome) return `the outcome ${tag} of a ${status} is not in the catalog`;
    if (outcome.operation !== operation) return `the outcome ${tag} belongs to ${outcome.operation}, not ${operation}`;
    if (outcome.status !== status) return `the outcome ${tag} means ${outcome.status}, but ${status} was sent`;
    return null;
  }
}

/** What would make two interfaces answer for one another: a shared id, prefix, operation, outcome or assumption. */
function listProblem(
  modules: readonly InterfaceModule[],
  operations: readonly Operation[],
  outcomes: readonly Outcome[],
  assumptions: readonly Assumption[],
): string | null {
  const twice = (what: string, keys: readonly string[]) => {
    const seen = new Set<string>();
    for (const k of keys) {
      if (seen.has(k)) return `two ${what} are "${k}"`;
      seen.add(k);
    }
    return null;
  };
  for (const m of modules) {
    const { id, prefix } = m.contract;
    if (m.fixtures.key !== id) return `the fixture section of ${id} is keyed "${m.fixtures.key}"`;
    if (m.openapi.tag.name !== id) return `the OpenAPI tag of ${id} is named "${m.openapi.tag.name}"`;
    if (!prefix.startsWith('/') || prefix.endsWith('/')) return `the prefix of ${id} must start with / and not end with one`;
    const clash = modules.find(
      (o) => o !== m && (o.contract.prefix === prefix || o.contract.prefix.startsWith(`${prefix}/`)),
    );
    if (clash) return `the prefix of ${clash.contract.id} is under the prefix of ${id}`;
    if (prefix === '/_sandbox' || prefix.startsWith('/_sandbox/') || prefix === '/ws' || prefix.startsWith('/ws/'))
      return `the prefix of ${id} is one the sandbox itself uses`;
    const stray = m.contract.operations.find((o) => o.interface !== id);
    if (stray) return `operation ${stray.id} of ${id} names the interface ${stray.interface}`;
    const foreign = m.events.find((e) => !e.type.startsWith(`sandbox.${id}.`));
    if (foreign) return `the event type ${foreign.type} of ${id} does not start with sandbox.${id}.`;
  }
  return (
    twice('interface ids', modules.map((m) => m.contract.id)) ??
    twice('operation ids', operations.map((o) => o.id)) ??
    twice('outcome ids', outcomes.map((o) => o.id)) ??
    twice('assumption ids', assumptions.map((a) => a.id)) ??
    twice('event types', modules.flatMap((m) => m.events.map((e) => e.type))) ??
    twice('work kinds', modules.flatMap((m) => m.work.map((w) => w.name))) ??
    twice('store parts', modules.flatMap((m) => (m.store ? [m.store.name] : [])))
  );
}
