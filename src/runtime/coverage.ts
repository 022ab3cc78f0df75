// Client coverage: how many times each outcome of the documented operations was answered since the
// last reset (or DELETE /_sandbox/coverage), and when first and last. Per sandbox state: the catalog
// is handed in (this module knows no interface), the counters live here.
import type { InterfaceId } from '../http/errors.js';
import type { Outcome } from '../http/outcomes.js';

/** The operations the report names, with where they are served. */
export interface CoveredOperation {
  id: string;
  interface: InterfaceId;
  method: string | null;
  path: string | null;
}

/** One outcome's counter; find() hands it out so the hot path counts without a second lookup. */
export interface Counter {
  readonly outcome: Outcome;
  hits: number;
  /** Epoch ms on the sandbox clock; 0 while never hit. */
  firstMs: number;
  lastMs: number;
}

export interface Totals {
  outcomes: number;
  covered: number;
  uncovered: number;
  hits: number;
}

export interface OutcomeCoverage {
  id: string;
  status: number;
  sentence: string;
  hits: number;
  firstAt: string | null;
  lastAt: string | null;
}

export interface OperationCoverage {
  interface: InterfaceId;
  operation: string;
  method: string | null;
  path: string | null;
  totals: Totals;
  outcomes: OutcomeCoverage[];
}

/** A user-defined operation (a stub mapping) as the report names it. */
export interface UserDefinedOperation {
  mapping: string;
  name: string | null;
  interface: string | null;
  /** The named-only operation it implements, if it names one. */
  operation: string | null;
  method: string;
  url: string | null;
  status: number;
}

export interface UserDefinedCoverage extends UserDefinedOperation {
  hits: number;
  firstAt: string | null;
  lastAt: string | null;
}

export interface CoverageReport {
  /** When counting started: the last reset or clear (sandbox clock). */
  since: string;
  totals: Totals;
  operations: OperationCoverage[];
  /** The user-defined operations of the workspace, each with the answers it gave. */
  userDefined: UserDefinedCoverage[];
}

function totalsOf(counters: readonly { hits: number }[]): Totals {
  let covered = 0;
  let hits = 0;
  for (const c of counters) {
    if (c.hits > 0) covered++;
    hits += c.hits;
  }
  return { outcomes: counters.length, covered, uncovered: counters.length - covered, hits };
}

const iso = (ms: number): string | null => (ms === 0 ? null : new Date(ms).toISOString());

export class Coverage {
  private readonly counters: Counter[];
  /** operation -> slug -> counter. */
  private readonly index = new Map<string, Map<string, Counter>>();
  /** Answers of user-defined operations, by mapping id. */
  private readonly stubs = new Map<string, { hits: number; firstMs: number; lastMs: number }>();
  private sinceMs: number;
  /** false with an empty catalog (coverage turned off): answers are neither tagged nor counted. */
  readonly enabled: boolean;

  constructor(
    outcomes: readonly Outcome[],
    private readonly operations: readonly CoveredOperation[],
    private readonly now: () => number,
  ) {
    this.counters = outcomes.map((outcome) => ({ outcome, hits: 0, firstMs: 0, lastMs: 0 }));
    for (const c of this.counters) {
      let slugs = this.index.get(c.outcome.operation);
      if (!slugs) this.index.set(c.outcome.operation, (slugs = new Map()));
      slugs.set(c.outcome.slug, c);
    }
    this.sinceMs = now();
    this.enabled = outcomes.length > 0;
  }

  /** The counter of an operation's outcome, or undefined when the operation has no such outcome. */
  find(operation: string, slug: string): Counter | undefined {
    return this.index.get(operation)?.get(slug);
  }

  hit(counter: Counter): void {
    const t = this.now();
    if (counter.hits === 0) counter.firstMs = t;
    counter.hits++;
    counter.lastMs = t;
  }

  /** Counts an outcome reached off the request path (an asynchronous result); false when unknown. */
  record(operation: string, slug: string): boolean {
    const counter = this.find(operation, slug);
    if (!counter) return false;
    this.hit(counter);
    return true;
  }

  /** Counts an answer given by a user-defined operation (a stub mapping). */
  hitUserDefined(mapping: string): void {
    const t = this.now();
    const c = this.stubs.get(mapping);
    if (c) {
      c.hits++;
      c.lastMs = t;
    } else {
      this.stubs.set(mapping, { hits: 1, firstMs: t, lastMs: t });
    }
  }

  /** Back to zero; returns how many hits were cleared. */
  clear(): number {
    let cleared = 0;
    for (const c of this.stubs.values()) cleared += c.hits;
    this.stubs.clear();
    for (const c of this.counters) {
      cleared += c.hits;
      c.hits = 0;
      c.firstMs = 0;
      c.lastMs = 0;
    }
    this.sinceMs = this.now();
    return cleared;
  }

  /** When counting started (sandbox clock). */
  get since(): string {
    return new Date(this.sinceMs).toISOString();
  }

  /**
   * Per operation in catalog order, every outcome with its hits, then the workspace's user-defined
   * operations with theirs; `interfaceId` narrows it.
   */
  report(interfaceId?: InterfaceId, userDefined: readonly UserDefinedOperation[] = []): CoverageReport {
    const operations: OperationCoverage[] = [];
    for (const op of this.operations) {
      if (interfaceId !== undefined && op.interface !== interfaceId) continue;
      const counters = [...(this.index.get(op.id)?.values() ?? [])];
      if (counters.length === 0) continue;
      operations.push({
        interface: op.interface,
        operation: op.id,
        method: op.method,
        path: op.path,
        totals: totalsOf(counters),
        outcomes: counters.map((c) => ({
          id: c.outcome.id,
          status: c.outcome.status,
          sentence: c.outcome.sentence,
          hits: c.hits,
          firstAt: iso(c.firstMs),
          lastAt: iso(c.lastMs),
        })),
      });
    }
    return {
      since: new Date(this.sinceMs).toISOString(),
      totals: totalsOf(operations.flatMap((o) => o.outcomes)),
      operations,
      userDefined: userDefined
        .filter((u) => interfaceId === undefined || u.interface === interfaceId)
        .map((u) => {
          const c = this.stubs.get(u.mapping);
          return { ...u, hits: c?.hits ?? 0, firstAt: iso(c?.firstMs ?? 0), lastAt: iso(c?.lastMs ?? 0) };
        }),
    };
  }
}
