// The fuzz loop shared by `npm test` (a thousand cases per operation) and `npm run soak` (100k):
// valid request -> mutation -> app.inject -> invariants. A violated invariant throws, with fast-check's
// shrunk counterexample and seed, so that every finding can be replayed and kept as a regression test.
import { createHash } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { INTERFACES, outcomeTagProblem } from '../../../src/interfaces.js';
import { type Mutation, mutateBody, mutateQueryValue, mutation, type Wire } from './mutate.js';
import type { BuiltRequest, FuzzOperation } from './operations.js';
import type { Runtime } from '../../../src/runtime/index.js';

// ---- state fingerprint ----

const fingerprints = new WeakMap<Runtime, () => string>();

/** The runtime of `workspace` ('' or undefined: the default one; else created now if need be). */
export function runtimeIn(app: FastifyInstance, workspace = ''): Runtime {
  return workspace === '' ? app.runtime : app.workspaces.runtime(workspace);
}

/**
 * Row counts of every table, the bookkeeping bills' open values and the key sequence, hashed; of
 * the default workspace, or of `workspace`.
 */
export function fingerprint(app: FastifyInstance, workspace = ''): string {
  const runtime = runtimeIn(app, workspace);
  let fn = fingerprints.get(runtime);
  if (!fn) {
    const db = runtime.store.db;
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    const counts = db.prepare(tables.map((t) => `SELECT '${t}', count(*) FROM "${t}"`).join(' UNION ALL ')).raw();
    const bills = db.prepare('SELECT tenant_id, uid, open_cents, status FROM bk_trade_bills ORDER BY id').raw();
    // With a seed, the key sequence is state too: a refused request must not consume keys.
    fn = () =>
      createHash('sha256')
        .update(JSON.stringify(counts.all()))
        .update(JSON.stringify(bills.all()))
        .update(JSON.stringify(runtime.ids.save()))
        .digest('hex');
    fingerprints.set(runtime, fn);
  }
  return fn();
}

/**
 * Null when the row counts the store maintains (the control plane's overview and totals read them)
 * equal a fresh count of every table and watched state; else the keys that differ.
 */
export function countsProblem(runtime: Runtime): string | null {
  const maintained = runtime.store.counts.maintained();
  if (!maintained) return null;
  const counted = runtime.store.counts.counted();
  const keys = new Set([...maintained.keys(), ...counted.keys()]);
  const off = [...keys].filter((k) => (maintained.get(k) ?? 0) !== (counted.get(k) ?? 0));
  return off.length === 0
    ? null
    : `maintained row counts differ from the database: ${off.map((k) => `${k} ${maintained.get(k) ?? 0} != ${counted.get(k) ?? 0}`).join(', ')}`;
}

/** `/ws/{name}` for a workspace name, '' for the default workspace. */
export const basePath = (workspace: string): string => (workspace === '' ? '' : `/ws/${workspace}`);

// ---- response invariants ----

const isString = (v: unknown): v is string => typeof v === 'string';
const sameKeys = (o: object, keys: string[]) =>
  Object.keys(o).sort().join(',') === [...keys].sort().join(',');

/** Null when the body is exactly the interface's error shape for `status`; else what is wrong. */
export function errorShapeProblem(iface: string, status: number, text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `the error body is not JSON: ${text.slice(0, 200)}`;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the error body is not an object';
  const o = body as Record<string, unknown>;
  if (INTERFACES.contract(iface).shape === 'envelope') {
    const e = o.error as Record<string, unknown> | undefined;
    if (!sameKeys(o, ['error']) || !e || typeof e !== 'object') return `not the envelope: ${text.slice(0, 300)}`;
    if (!sameKeys(e, ['code', 'message', 'target'])) return `envelope keys ${Object.keys(e).join(',')}`;
    if (!isString(e.code) || !isString(e.message) || !(e.target === null || isString(e.target)))
      return `envelope field types: ${text.slice(0, 300)}`;
    return null;
  }
  if (!sameKeys(o, ['statusCode', 'error', 'message', 'details'])) return `standard keys ${Object.keys(o).join(',')}`;
  if (o.statusCode !== status) return `statusCode ${String(o.statusCode)} in a ${status} answer`;
  if (!isString(o.error) || !isString(o.message) || !Array.isArray(o.details)) return 'standard field types';
  for (const d of o.details as unknown[]) {
    const dd = d as Record<string, unknown>;
    if (!dd || !sameKeys(dd, ['path', 'message']) || !isString(dd.path) || !isString(dd.message))
      return `a detail is not {path, message}: ${JSON.stringify(d).slice(0, 200)}`;
  }
  return null;
}

export interface Verdict {
  problem: string | null;
  refused: boolean;
}

/**
 * The outcome tag (Sandbox-Outcome) against the status sent: every answer of the documented operation
 * carries one of its outcomes with that status. A mangled path may be refused before routing, untagged.
 */
export function outcomeProblem(op: FuzzOperation, res: LightMyRequestResponse, pathMutated: boolean): string | null {
  const header = res.headers['sandbox-outcome'];
  const tag = header === undefined ? undefined : String(header);
  if (pathMutated && tag === undefined) return null;
  return outcomeTagProblem(res.statusCode === 501 ? null : op.id, tag, res.statusCode);
}

export function judge(op: FuzzOperation, res: LightMyRequestResponse, pathMutated: boolean): Verdict {
  const status = res.statusCode;
  const refused = status >= 400;
  const tagProblem = outcomeProblem(op, res, pathMutated);
  if (tagProblem) return { problem: tagProblem, refused };
  if (status >= 500 && status !== 501) return { problem: `answered ${status}: ${res.body.slice(0, 500)}`, refused };
  if (status === 501) {
    // 501 is the fallback for paths that match no route: only a mangled path may reach it.
    return { problem: pathMutated ? null : `501 on the documented route: ${res.body.slice(0, 300)}`, refused };
  }
  if (!refused) {
    if (!op.success.includes(status)) return { problem: `undocumented success status ${status}`, refused };
    if (status === 204 && res.body !== '') return { problem: '204 with a body', refused };
    return { problem: null, refused };
  }
  if (!INTERFACES.contract(op.interface).statuses.includes(status))
    return { problem: `status ${status} is not documented for ${op.interface}: ${res.body.slice(0, 300)}`, refused };
  return { problem: errorShapeProblem(op.interface, status, res.body), refused };
}

// ---- building the mutated request ----

export type AuthMutation = 'keep' | 'missing' | 'wrong' | 'other' | 'malformed';
export const authMutation: fc.Arbitrary<AuthMutation> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<AuthMutation>('keep') },
  { weight: 4, arbitrary: fc.constantFrom<AuthMutation>('missing', 'wrong', 'other', 'malformed') },
);

const OTHER_TOKENS: Record<string, string> = {
  bookkeeping: 'rel-bk-token-2',
  registry: 'rel-rg-token-2',
  receivables: 'rel-rc-token-2',
  loanbond: 'rel-lb-token-2',
};

const PATH_SEGMENTS = [
  '',
  '%zz',
  '..',
  encodeURIComponent('😀'),
  'x'.repeat(600),
  '00000000000000',
  '11222333000182',
  '52998224725',
  '%2F',
  'a%00b',
  '%C0%AF',
  encodeURIComponent('__proto__'),
  encodeURIComponent('IUD-0001 '),
  // Numbers of extreme magnitude and sign, control characters, a lone surrogate.
  '9'.repeat(400),
  `-${'9'.repeat(300)}`,
  '1e309',
  '-0',
  '11222333000181%00',
  '%01%1F',
  '%ED%A0%80',
  'IUD-0001%0A',
];

export interface Case {
  request: BuiltRequest;
  mutation: Mutation;
  auth: AuthMutation;
  /** Index into PATH_SEGMENTS and which segment, or null to leave the path alone. */
  path: { segment: number; which: number } | null;
}

export const caseArbitrary = (op: FuzzOperation): fc.Arbitrary<Case> =>
  fc.record({
    request: op.valid,
    mutation,
    auth: authMutation,
    // One case in eight mangles a path segment (bookkeeping only: the others have none to mangle).
    path: fc.oneof(
      { weight: 7, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.record({ segment: fc.nat(PATH_SEGMENTS.length - 1), which: fc.nat(1) }) },
    ),
  });

export interface Injection {
  method: BuiltRequest['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  pathMutated: boolean;
}

function applyAuth(op: FuzzOperation, c: Case, headers: Record<string, string>, body: unknown): unknown {
  if (c.auth === 'keep') return body;
  const inHeader = op.interface === 'bookkeeping' || op.interface === 'registry';
  const replacement = {
    missing: undefined,
    wrong: 'not-a-known-token',
    other: OTHER_TOKENS[op.interface],
    malformed: ' ',
  }[c.auth];
  if (inHeader) {
    if (replacement === undefined) delete headers.authorization;
    else headers.authorization = c.auth === 'malformed' ? 'Basic dXNlcjpwYXNz' : `Bearer ${replacement}`;
    return body;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  if (replacement === undefined) delete copy.token;
  else copy.token = replacement;
  return copy;
}

function mutatePath(url: string, op: FuzzOperation, c: Case): { url: string; mutated: boolean } {
  if (!c.path || op.interface !== 'bookkeeping') return { url, mutated: false };
  const [path, query] = url.split('?') as [string, string | undefined];
  const parts = path.split('/');
  // /api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/{uid|extract}/...
  const index = c.path.which === 0 || parts.length < 8 ? 5 : 7;
  parts[index] = PATH_SEGMENTS[c.path.segment] ?? '';
  return { url: parts.join('/') + (query === undefined ? '' : `?${query}`), mutated: true };
}

function mutateQuery(url: string, m: Mutation): string {
  const [path, query = ''] = url.split('?') as [string, string | undefined];
  const pairs = query
    .split('&')
    .filter(Boolean)
    .map((p) => p.split('=') as [string, string]);
  const at = pairs.length === 0 ? 0 : m.pick % pairs.length;
  const raw = mutateQueryValue(m);
  const value = /%/.test(raw) ? raw : encodeURIComponent(raw);
  switch (m.kind) {
    case 'none':
      break;
    case 'drop-field':
      pairs.splice(at, 1);
      break;
    case 'add-field':
    case 'proto-key':
      pairs.push([encodeURIComponent(m.kind === 'proto-key' ? '__proto__' : m.key), value]);
      break;
    case 'duplicate-key':
      if (pairs[at]) pairs.push([pairs[at][0], value]);
      break;
    case 'huge-array':
      // The parameter repeated: 2 to 1000 times.
      if (pairs[at]) for (let i = 0; i < Math.min(1000, 2 + (m.pick % 1000)); i++) pairs.push([pairs[at][0], pairs[at][1]]);
      else pairs.push(['page', '1'], ['page', '1']);
      break;
    default:
      if (pairs[at]) pairs[at] = [pairs[at][0], value];
      else pairs.push(['page', value]);
  }
  return `${path}?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
}

export function buildInjection(op: FuzzOperation, c: Case): Injection {
  const headers = { ...c.request.headers };
  const { url, mutated } = mutatePath(c.request.url, op, c);
  if (c.request.method === 'GET') {
    applyAuth(op, c, headers, undefined);
    return { method: 'GET', url: mutateQuery(url, c.mutation), headers, pathMutated: mutated };
  }
  const body = applyAuth(op, c, headers, c.request.body);
  if (op.interface === 'registry' && c.mutation.pick % 7 === 0) {
    // The registry's optional strict-mode header, valid and not.
    headers['sandbox-strict'] = ['true', 'false', 'TRUE', 'maybe', ''][c.mutation.pick % 5] ?? '';
  }
  const wire: Wire = mutateBody(body, c.mutation);
  if (wire.contentType !== null) headers['content-type'] = wire.contentType;
  return {
    method: c.request.method,
    url,
    headers,
    ...(wire.payload === undefined ? {} : { payload: wire.payload }),
    pathMutated: mutated,
  };
}

// ---- the loop ----

export interface FuzzStats {
  operation: string;
  cases: number;
  statuses: Record<string, number>;
  accepted: number;
  refused: number;
  ms: number;
  appsBuilt: number;
}

export interface FuzzOptions {
  runs: number;
  seed?: number;
  /** Start a fresh app every this many cases (bounds the database in long runs). */
  rebuildEvery?: number;
  /** Check /_sandbox/health every this many cases. */
  healthEvery?: number;
  /** Called with every answer (secret hygiene scans them). */
  onResponse?: (res: LightMyRequestResponse) => void;
  /** Called with each app before it is closed (secret hygiene reads its journal). */
  beforeClose?: (app: FastifyInstance) => Promise<void>;
  /** Send every request to this workspace (its paths under /ws/{name}); default: the default one. */
  workspace?: string;
}

export async function fuzzOperation(
  op: FuzzOperation,
  makeApp: () => Promise<FastifyInstance>,
  options: FuzzOptions,
): Promise<FuzzStats> {
  const started = performance.now();
  const stats: FuzzStats = {
    operation: op.id,
    cases: 0,
    statuses: {},
    accepted: 0,
    refused: 0,
    ms: 0,
    appsBuilt: 1,
  };
  const healthEvery = options.healthEvery ?? 100;
  const workspace = options.workspace ?? '';
  const base = basePath(workspace);
  const untouched = new WeakMap<FastifyInstance, string>();
  let app = await makeApp();
  const healthy = async (): Promise<void> => {
    const admin = app.settings.adminToken;
    const res = await app.inject({
      url: `${base}/_sandbox/health`,
      headers: admin ? { 'sandbox-admin-token': admin } : {},
    });
    if (res.statusCode !== 200) throw new Error(`the sandbox is not healthy: ${res.statusCode} ${res.body}`);
  };
  try {
    await fc.assert(
      fc.asyncProperty(caseArbitrary(op), async (c) => {
        if (options.rebuildEvery && stats.cases > 0 && stats.cases % options.rebuildEvery === 0) {
          await options.beforeClose?.(app);
          await app.close();
          app = await makeApp();
          stats.appsBuilt++;
        }
        stats.cases++;
        if (workspace !== '' && !untouched.has(app)) untouched.set(app, fingerprint(app));
        const injection = buildInjection(op, c);
        const before = fingerprint(app, workspace);
        const res = await app.inject({
          method: injection.method,
          url: base + injection.url,
          headers: injection.headers,
          ...(injection.payload === undefined ? {} : { payload: injection.payload }),
        });
        options.onResponse?.(res);
        // Under a workspace, nothing reaches the default one.
        if (workspace !== '' && fingerprint(app) !== untouched.get(app))
          throw new Error(`${op.id}: a request under ${base} changed the default workspace`);
        stats.statuses[res.statusCode] = (stats.statuses[res.statusCode] ?? 0) + 1;
        const verdict = judge(op, res, injection.pathMutated);
        if (verdict.problem) throw new Error(`${op.id}: ${verdict.problem}`);
        if (verdict.refused) {
          stats.refused++;
          const after = fingerprint(app, workspace);
          if (after !== before) throw new Error(`${op.id}: a refused request (${res.statusCode}) changed the state`);
        } else {
          stats.accepted++;
          await runtimeIn(app, workspace).work.drain();
        }
        // Read once so that the counts are maintained from here on, then compared after every case.
        runtimeIn(app, workspace).store.tableCounts();
        const drift = countsProblem(runtimeIn(app, workspace));
        if (drift) throw new Error(`${op.id}: ${drift}`);
        if (({} as Record<string, unknown>).polluted !== undefined) throw new Error('Object.prototype polluted');
        if (stats.cases % healthEvery === 0) await healthy();
      }),
      { numRuns: options.runs, ...(options.seed === undefined ? {} : { seed: options.seed }), endOnFailure: false },
    );
    await healthy();
    await options.beforeClose?.(app);
  } finally {
    await app.close();
  }
  stats.ms = Math.round(performance.now() - started);
  return stats;
}
