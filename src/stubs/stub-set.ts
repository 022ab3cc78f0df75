// The user-defined operations of a sandbox: the mappings of the --stubs folder (the server's, in every
// workspace, kept by reset) and the mappings each workspace adds at run time (in its database), with
// each workspace's scenario states. Finds the mapping that answers a request, or the closest one and
// why it did not match.
import { type ErrorDetail, SandboxError, validationError } from '../http/errors.js';
import { stringifyExact } from '../http/exact-numbers.js';
import { parseJsonAsWritten } from '../http/json.js';
import type { UserDefinedOperation } from '../runtime/coverage.js';
import type { Runtime } from '../runtime/index.js';
import { newUuid } from '../runtime/templates.js';
import type { StubRow } from '../store/stubs.js';
import { forgetReadJson, type ReadContext, readMapping, STARTED, type Stub } from './mapping.js';
import { byPrecedence, fits, leastDistance, matchStub, type RequestView } from './match.js';
import { plural } from '../domain/plural.js';

/** A stub in the order of addition (folder mappings first, in file order; run-time ones after). */
export type OrderedStub = Stub & { seq: number };

export type Found =
  | { stub: OrderedStub; pathParams: Record<string, string> }
  | {
      stub: null;
      nearest: { stub: OrderedStub; differences: string[] } | null;
      /** How many mappings were compared in full (every part, with its reasons) to find the nearest. */
      compared: number;
    };

/** Compiled run-time mappings kept at most (past it the cache starts over): text -> stub. */
const COMPILED_LIMIT = 10_000;

/** Mappings one POST may add. */
export const MAX_MAPPINGS_PER_CALL = 1000;

/**
 * Mappings a workspace holds at most, the --stubs folder's included (assumption stub-limits): every
 * request no mapping answers is tried against each of them, and the list is held in memory.
 */
export const MAX_MAPPINGS_PER_WORKSPACE = 2000;

/**
 * Mappings compared in full (every part, and why each does not fit) to find the one nearest a request
 * none matches: those nearest by method and URL first, so the nearest is found within it unless more
 * than this many are as near by method and URL (then the nearest of those compared is told).
 */
export const NEAREST_BUDGET = 50;

export interface ScenarioView {
  name: string;
  state: string;
  possibleStates: string[];
}

/** A mapping as coverage and the catalog name it. */
export function userDefinedOperation(stub: Stub): UserDefinedOperation {
  const url = stub.request.url;
  return {
    mapping: stub.id,
    name: stub.name,
    interface: stub.interface,
    operation: stub.operation,
    method: stub.request.method,
    url: url.kind === 'any' ? null : url.text,
    status: stub.response.status,
  };
}

export class StubSet {
  private readonly folder: OrderedStub[];
  private readonly compiled = new Map<string, Stub | null>();
  private readonly sorted = new WeakMap<readonly StubRow[], OrderedStub[]>();

  constructor(
    folder: readonly Stub[],
    private readonly context: Pick<ReadContext, 'operations' | 'interfaceOfPath'>,
    private readonly onUnreadable: (id: string, problems: ErrorDetail[]) => void = () => undefined,
  ) {
    // Sorted once here: a workspace with no mapping of its own tries the folder's as they are.
    this.folder = folder.map((stub, i) => ({ ...stub, seq: i - folder.length })).sort(byPrecedence);
  }

  /** The folder's mappings (the same in every workspace). */
  get folderStubs(): readonly OrderedStub[] {
    return this.folder;
  }

  /** `request`: the request the rows are read for (see ReadCache.get). */
  private rows(runtime: Runtime, request?: object): readonly StubRow[] {
    return runtime.store.readCache.keep(['sb_stub_mappings'], 'sb-stub-rows', () => runtime.store.stubs.list(), request);
  }

  /** Every mapping of a workspace, in the order they are tried. */
  all(runtime: Runtime): readonly OrderedStub[] {
    const rows = this.rows(runtime);
    if (rows.length === 0) return this.folder;
    let list = this.sorted.get(rows);
    if (!list) {
      list = [...this.folder, ...rows.flatMap((row) => this.compile(row))].sort(byPrecedence);
      this.sorted.set(rows, list);
    }
    return list;
  }

  /** True when the workspace has no mapping at all: requests then go where they always went. */
  isEmpty(runtime: Runtime, request?: object): boolean {
    return this.folder.length === 0 && this.rows(runtime, request).length === 0;
  }

  private compile(row: StubRow): OrderedStub[] {
    const key = `${row.id}\u0000${row.mapping}`;
    let stub = this.compiled.get(key);
    if (stub === undefined) {
      // Numbers as the mapping wrote them, as stored by stringifyExact (1.10, 1E+2).
      const result = readMapping(parseJsonAsWritten(row.mapping), '', { ...this.context, source: 'runtime', newId: () => row.id });
      stub = 'stub' in result ? result.stub : null;
      if (!stub && 'problems' in result) this.onUnreadable(row.id, result.problems);
      if (this.compiled.size >= COMPILED_LIMIT) this.compiled.clear();
      this.compiled.set(key, stub);
    }
    return stub ? [{ ...stub, seq: row.seq }] : [];
  }

  /**
   * Adds one mapping, or `{"mappings": [...]}`, all or nothing: a 400 names every problem by its
   * pointer. A mapping whose id is stored already replaces it.
   */
  add(runtime: Runtime, body: unknown): { added: Stub[]; replaced: string[] } {
    const list = body !== null && typeof body === 'object' && !Array.isArray(body) && 'mappings' in body ? (body as { mappings: unknown }).mappings : undefined;
    const items: Array<[unknown, string]> = [];
    if (list !== undefined) {
      if (!Array.isArray(list)) throw validationError([{ path: '/mappings', message: 'must be an array of mappings' }]);
      const extra = Object.keys(body as object).filter((k) => k !== 'mappings' && k !== 'meta' && k !== 'importOptions');
      if (extra.length > 0) throw validationError(extra.map((k) => ({ path: `/${k}`, message: 'is not read beside mappings' })));
      if (list.length > MAX_MAPPINGS_PER_CALL) {
        throw validationError([{ path: '/mappings', message: `holds ${plural(list.length, 'mapping')}: at most ${MAX_MAPPINGS_PER_CALL} per call` }]);
      }
      list.forEach((m, i) => items.push([m, `/mappings/${i}`]));
    } else {
      items.push([body, '']);
    }
    const problems: ErrorDetail[] = [];
    const added: Stub[] = [];
    const ids = new Set<string>();
    for (const [raw, at] of items) {
      const result = readMapping(raw, at, { ...this.context, source: 'runtime', newId: () => newUuid(runtime.ids) });
      if ('problems' in result) {
        problems.push(...result.problems);
        continue;
      }
      const { stub } = result;
      if (this.folder.some((f) => f.id === stub.id)) {
        problems.push({ path: `${at}/id`, message: `is the id of a mapping of the --stubs folder (${stub.id}), which only the folder changes` });
      } else if (ids.has(stub.id)) {
        problems.push({ path: `${at}/id`, message: `is given to two mappings of this call (${stub.id})` });
      }
      ids.add(stub.id);
      added.push(stub);
    }
    if (problems.length > 0) throw validationError(problems);
    const rows = this.rows(runtime);
    const stored = new Set(rows.map((r) => r.id));
    const more = added.filter((s) => !stored.has(s.id)).length;
    const held = this.folder.length + rows.length;
    if (held + more > MAX_MAPPINGS_PER_WORKSPACE) {
      throw new SandboxError(
        409,
        `this workspace holds ${plural(held, 'mapping')}${this.folder.length > 0 ? ` (${this.folder.length} of the --stubs folder)` : ''} and this call adds ${more}: ` +
          `at most ${MAX_MAPPINGS_PER_WORKSPACE} per workspace; remove some first (DELETE /_sandbox/stubs/{id}, or DELETE /_sandbox/stubs)`,
      );
    }
    const { replaced } = runtime.store.transaction(() =>
      runtime.store.stubs.put(added.map((s) => ({ id: s.id, mapping: stringifyExact(s.mapping) }))),
    );
    return { added, replaced };
  }

  /** Removes a run-time mapping: 'removed', 'folder' (a folder mapping, which stays) or 'unknown'. */
  remove(runtime: Runtime, id: string): 'removed' | 'folder' | 'unknown' {
    if (this.folder.some((s) => s.id === id)) return 'folder';
    return runtime.store.transaction(() => runtime.store.stubs.remove(id)) ? 'removed' : 'unknown';
  }

  /** Removes every run-time mapping; the folder's stay. */
  clear(runtime: Runtime): number {
    return runtime.store.transaction(() => runtime.store.stubs.clear());
  }

  get(runtime: Runtime, id: string): OrderedStub | undefined {
    return this.all(runtime).find((s) => s.id === id);
  }

  /** The mapping that answers the request (moving its scenario), or the closest one and why not. */
  find(runtime: Runtime, view: RequestView): Found {
    try {
      return this.search(runtime, view);
    } finally {
      forgetReadJson();
    }
  }

  private search(runtime: Runtime, view: RequestView): Found {
    const states = new Map<string, string>();
    const stateOf = (stub: Stub) => {
      if (!stub.scenario) return undefined;
      const name = stub.scenario.name;
      let state = states.get(name);
      if (state === undefined) {
        state = runtime.store.stubs.scenario(name) ?? STARTED;
        states.set(name, state);
      }
      return state;
    };
    const all = this.all(runtime);
    // First the answer: each mapping's method and URL, then the rest only where those fit, without reasons.
    const least: number[] = new Array(all.length);
    for (let i = 0; i < all.length; i++) {
      const stub = all[i] as OrderedStub;
      least[i] = leastDistance(stub, view);
      if (least[i] !== 0) continue;
      const pathParams = fits(stub, view, stateOf(stub));
      if (pathParams === undefined) continue;
      const next = stub.scenario?.next;
      if (stub.scenario && next !== null && next !== undefined) {
        const name = stub.scenario.name;
        runtime.store.transaction(() => runtime.store.stubs.setScenario(name, next));
      }
      return { stub, pathParams };
    }
    // None answers: the nearest, compared in full from the nearest by method and URL on, until no
    // other can be nearer (a mapping's distance is never below its method and URL's) or the budget is spent.
    const order = all.map((_, i) => i).sort((a, b) => (least[a] as number) - (least[b] as number) || a - b);
    let nearest: { index: number; differences: string[]; distance: number } | null = null;
    let compared = 0;
    for (const i of order) {
      if (compared >= NEAREST_BUDGET || (nearest !== null && (least[i] as number) > nearest.distance)) break;
      const stub = all[i] as OrderedStub;
      const result = matchStub(stub, view, stateOf(stub));
      compared++;
      if (result.matched) continue;
      if (nearest === null || result.distance < nearest.distance || (result.distance === nearest.distance && i < nearest.index)) {
        nearest = { index: i, differences: result.differences, distance: result.distance };
      }
    }
    const stub = nearest && (all[nearest.index] as OrderedStub);
    return { stub: null, nearest: stub && nearest && { stub, differences: nearest.differences }, compared };
  }

  /**
   * A page of the workspace's mappings in the order they are tried: `limit` of them after the one
   * whose precedence key (priority, order of addition) is `after`, and how many there are in all.
   */
  page(runtime: Runtime, after: readonly [number, number] | undefined, limit: number): { stubs: OrderedStub[]; total: number } {
    const all = this.all(runtime);
    let start = 0;
    if (after !== undefined) {
      const [priority, seq] = after;
      const key = { priority, seq } as OrderedStub;
      // The list is sorted by byPrecedence: the first mapping that comes after the key.
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (byPrecedence(all[mid] as OrderedStub, key) <= 0) lo = mid + 1;
        else hi = mid;
      }
      start = lo;
    }
    return { stubs: all.slice(start, start + limit), total: all.length };
  }

  /** Every scenario the workspace's mappings name, with its state and the states its mappings use. */
  scenarios(runtime: Runtime): ScenarioView[] {
    const byName = new Map<string, Set<string>>();
    for (const stub of this.all(runtime)) {
      if (!stub.scenario) continue;
      const states = byName.get(stub.scenario.name) ?? new Set([STARTED]);
      if (stub.scenario.required) states.add(stub.scenario.required);
      if (stub.scenario.next) states.add(stub.scenario.next);
      byName.set(stub.scenario.name, states);
    }
    const stored = new Map(runtime.store.stubs.scenarios().map((s) => [s.name, s.state]));
    return [...byName]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, states]) => ({ name, state: stored.get(name) ?? STARTED, possibleStates: [...states] }));
  }

  /** Sets one scenario's state; `undefined` puts it back to its start. */
  setScenario(runtime: Runtime, name: string, state: string | undefined): void {
    runtime.store.transaction(() => {
      if (state === undefined || state === STARTED) runtime.store.stubs.resetScenarios(name);
      else runtime.store.stubs.setScenario(name, state);
    });
  }

  /** Every scenario back to its start. */
  resetScenarios(runtime: Runtime): number {
    return runtime.store.transaction(() => runtime.store.stubs.resetScenarios());
  }
}
