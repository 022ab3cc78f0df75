// npm run profile [-- --seconds 10] [extract|payment|register|reconcile|import|loanbond] [ledger]: where each
// documented operation's time goes, as shares of the server's CPU. Starts the built sandbox under
// `node --cpu-prof` with the benchmark's data (the 10k tenant, bills to pay, a participant, a fund, a
// caller), drives one operation at a time (50 connections for the two hot-path operations, 10 for the
// others, with small bodies so that the fixed costs show), and sums the profile's self time per fixed
// cost (auth, tenant check, journal, fault check, coverage tag, logging, ...) and per part of the
// operation's own work. Shares, not speeds: they stay meaningful on a shared machine where req/s do not.
// `ledger`: the costs a setting can switch off (request line, journal, coverage), measured by running
// the operation with and without each; `bare`: the bare Fastify server's CPU time per request.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { cnab444, extractRequests, loanBondRecord, pdf, registryDocument, TENANTS } from './data.js';
import { load, startChild } from './lib.js';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1] ?? 0) || 8;
const work = mkdtempSync(join(tmpdir(), 'sandbox-profile-'));
const TOKEN = 'bk-bench-token';
const headers = { authorization: `Bearer ${TOKEN}` };
const BILLS = 100_000;
const RG_TOKEN = 'rg-bench';
const RC_TOKEN = 'rc-bench';
const LB_TOKEN = 'lb-bench';
const FUND = '11222333000181';
/** Extra server arguments, for A/B runs: --server-args "--log-level warn". */
const serverArgs = (process.argv[process.argv.indexOf('--server-args') + 1] ?? '').split(' ').filter(Boolean);
const withArgs = process.argv.includes('--server-args');
/** Another build to measure (A/B runs): --server /path/to/dist/server.js. */
const serverScript = process.argv.includes('--server') ? (process.argv[process.argv.indexOf('--server') + 1] ?? '') : 'dist/server.js';
/** Only the kernel's CPU time per request, without the profiler's own overhead. */
const noProfile = process.argv.includes('--no-profile');

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The fixed costs of ours a sample can belong to: the frame nearest the leaf that names one decides
 * (so SQLite's native calls count for the store method that made them, a pino write for logging).
 */
const OWNERS: Array<[string, (url: string, fn: string) => boolean]> = [
  ['auth: credential lookup (bearer header or body token)', (u, f) => /http\/bearer/.test(u) || /userIdByToken|userHasTenant|^access$|participantByToken|callerByToken|^authorize$|^sameSecret$|^tokenHash$/.test(f)],
  ['tenant check: tenant id check digits', (u, f) => /tenantIdProblem|tenantProblem/.test(f) || /domain\/tax-id/.test(u)],
  ['read cache: change-count check', (u) => /store\/read-cache/.test(u)],
  ['extract page read (SQLite)', (_u, f) => /extractPage|extractRequestCount|toExtractItem/.test(f)],
  // A transaction's body is often an anonymous function of a store module.
  ['operation: SQLite writes (one transaction)', (u, f) => /declarePayment|payTx/.test(f) || /dist\/store\/(?!read-cache)/.test(u) || /better-sqlite3\/lib\/methods\/transaction/.test(u)],
  ['operation: rules and domain checks', (u) => /bookkeeping\/payment|registry\/(register|reconcile|checks|documents)|receivables\/(submit|cnab)|loanbond\/register|dist\/domain\//.test(u)],
  ['operation: queued work (CNAB reading, loan-bond state)', (u) => /receivables\/runner|loanbond\/runner|runtime\/work/.test(u)],
  ['journal (capture, ring buffer)', (u) => /runtime\/journal|runtime\/redact/.test(u)],
  ['fault check + journal trace (control hooks)', (u) => /control\/hooks|runtime\/faults/.test(u)],
  ['coverage tag', (u) => /coverage/.test(u)],
  ['runtime resolution (runtimeOf)', (_u, f) => /runtimeOf|runtimeResolver/.test(f)],
  ['logging: request line, per-request child logger', (u) => /node_modules\/(pino|sonic-boom|fast-redact|@pinojs|quick-format)/.test(u) || /fastify\/lib\/logger/.test(u)],
  ['response serialization', (u) => /fast-json-stringify/.test(u)],
  ['body parsing + validation (Ajv, duplicate keys)', (u, f) => /secure-json-parse|node_modules\/ajv|http\/json|http\/validation/.test(u) || /^validate\d*$/.test(f)],
  ['route handler, rest of the interface code', (u) => /dist\/(bookkeeping|registry|receivables|loanbond)\//.test(u)],
  ['other sandbox code', (u) => /\/dist\//.test(u)],
];
/** Where the rest went, by the leaf frame alone: the stack's own cost (a bare server pays it too). */
const LEAVES: Array<[string, (url: string, fn: string) => boolean]> = [
  ['Fastify (routing, hooks, reply)', (u) => /node_modules\/(fastify|find-my-way|avvio|@fastify)/.test(u)],
  ['Node HTTP + sockets', (u) => /^node:|^internal/.test(u)],
];

/**
 * The built server is one bundled module (scripts/build.mjs): a frame in it is put back in the module
 * it came from, through the bundle's source map, as `.../dist/<folder>/<module>.js`, so that the
 * categories above (which name modules) read it as they read the unbundled build.
 */
function unbundle(p: Profile): void {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (url: string): SourceMap | null => {
    if (!maps.has(url)) {
      let map: SourceMap | null = null;
      try {
        const file = url.startsWith('file:') ? fileURLToPath(url) : url;
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
      } catch {
        // No map beside it: the frame keeps its own url.
      }
      maps.set(url, map);
    }
    return maps.get(url) ?? null;
  };
  for (const n of p.nodes) {
    const f = n.callFrame;
    if (!/\/dist\/server\.js$/.test(f.url)) continue;
    const map = mapOf(f.url);
    const entry = map?.findEntry(f.lineNumber, f.columnNumber ?? 0);
    const source = entry && 'originalSource' in entry ? entry.originalSource : undefined;
    if (!source) continue;
    // A source under src/ becomes its dist/ module; a package inlined in the bundle keeps its path.
    const original = resolve(dirname(f.url.startsWith('file:') ? fileURLToPath(f.url) : f.url), source);
    f.url = original.replace(/\/src\/(.*)\.ts$/, '/dist/$1.js');
  }
}

/** Node's HTTP and socket modules. */
const NODE_HTTP = /^node:(_http_|net$|internal\/stream_base_commons|internal\/streams\/)/;

/** Busy CPU microseconds per category, after start-up. */
function summarize(file: string): Array<[string, number]> {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  unbundle(p);
  const parent = new Map<number, number>();
  const byId = new Map<number, Node>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const cache = new Map<number, string>();
  const categoryOf = (id: number): string => {
    const hit = cache.get(id);
    if (hit) return hit;
    const leaf = byId.get(id)?.callFrame;
    const fn = leaf?.functionName ?? '';
    let cat: string | undefined;
    if (fn === '(garbage collector)') cat = 'GC';
    else if (fn === '(idle)' || fn === '(program)') cat = fn;
    for (let cur: number | undefined = id; cat === undefined && cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)?.callFrame;
      if (!f) break;
      // Node writing the response (or reading the socket) is the stack's work, whichever of our frames
      // called it: hooks that are callbacks send the answer inside the handler's own call.
      if (NODE_HTTP.test(f.url)) cat = 'Node HTTP + sockets';
      else cat = OWNERS.find(([, test]) => test(f.url, f.functionName))?.[0];
    }
    // A native leaf (writev, a SQLite call) counts for the nearest frame that has a script.
    let near: number | undefined = id;
    while (near !== undefined && !byId.get(near)?.callFrame.url) near = parent.get(near);
    const f = near === undefined ? undefined : byId.get(near)?.callFrame;
    if (cat === undefined && f) cat = LEAVES.find(([, test]) => test(f.url, f.functionName))?.[0];
    cat ??= 'native, V8 (no JS frame of ours)';
    cache.set(id, cat);
    return cat;
  };
  // Start-up (module loading, opening the database) ends before the health check answers, and the
  // load starts after a pause: only samples after the first long idle stretch are the hot path.
  const isIdle = (i: number) => byId.get(p.samples[i] ?? 0)?.callFrame.functionName === '(idle)';
  let first = 0;
  for (let i = 0, idle = 0; i < p.samples.length; i++) {
    idle = isIdle(i) ? idle + (p.timeDeltas[i] ?? 0) : 0;
    if (idle >= 400_000) {
      first = i + 1;
      break;
    }
  }
  const totals = new Map<string, number>();
  for (let i = first; i < p.samples.length; i++) {
    const cat = categoryOf(p.samples[i] ?? 0);
    totals.set(cat, (totals.get(cat) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  totals.delete('(idle)');
  if (process.argv.includes('--top')) {
    const self = new Map<string, number>();
    for (let i = first; i < p.samples.length; i++) {
      const f = byId.get(p.samples[i] ?? 0)?.callFrame;
      const k = `${f?.functionName || '(anon)'} ${f?.url.replace(/.*node_modules\//, '').replace(/.*dist\//, 'dist/')}:${f?.lineNumber}`;
      self.set(k, (self.get(k) ?? 0) + (p.timeDeltas[i] ?? 0));
    }
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) process.stdout.write(`    ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}\n`);
  }
  return [...totals].map(([k, v]) => [k, v] as [string, number]).sort((a, b) => b[1] - a[1]);
}

/** User + system CPU time of a process so far, in milliseconds (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
}

/**
 * Drives one operation against a sandbox started with `args`; answers the server's CPU time per
 * request (the kernel's count), and prints the profile's shares unless `profile` is false.
 */
async function profileOne(
  name: string,
  drive: (url: string) => Promise<number>,
  options: { args: string[]; profile: boolean } = { args: withArgs ? serverArgs : [], profile: !noProfile },
): Promise<number> {
  const dir = join(work, name);
  const server = await startChild(serverScript, (port) => [
    '--port', String(port), '--db', join(work, `${name}.db`), '--fixtures', 'none',
  ]);
  // Restart under the profiler once the data is in, so loading it is not in the profile.
  await post(`${server.url}/_sandbox/fixtures`, {
    bookkeeping: {
      users: [{ userId: 7, accessToken: TOKEN, tenants: [TENANTS.t10k] }],
      extractRequests: extractRequests(TENANTS.t10k, 10_000, 1),
      tradeBills: Array.from({ length: BILLS }, (_, i) => ({ tenantId: TENANTS.t10k, uid: `BENCH-${i}`, amount: 1000 })),
    },
    registry: { participants: [{ participantId: 'BENCH', accessToken: RG_TOKEN }] },
    receivables: { funds: [{ fundCnpj: FUND, token: RC_TOKEN }] },
    loanbond: { callers: [{ callerId: 'BENCH', token: LB_TOKEN, products: ['electronic-signature', 'digital-loan-bond'] }] },
  });
  await server.stop();
  const profiled = await startChild(
    serverScript,
    (port) => ['--port', String(port), '--db', join(work, `${name}.db`), '--fixtures', 'none', ...options.args],
    '/_sandbox/health',
    options.profile ? ['--cpu-prof', '--cpu-prof-dir', dir] : [],
  );
  await new Promise((r) => setTimeout(r, 800));
  const cpu0 = cpuMs(profiled.child.pid);
  const requests = await drive(profiled.url);
  const cpuPerRequest = ((cpuMs(profiled.child.pid) - cpu0) * 1000) / requests;
  await profiled.stop();
  rmSync(join(work, `${name}.db`), { force: true });
  if (!options.profile) {
    process.stdout.write(`${name}: server CPU time (user + system, /proc): ${cpuPerRequest.toFixed(1)} us per request\n`);
    return cpuPerRequest;
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const totals = summarize(join(dir, file));
  const busy = totals.reduce((a, [, v]) => a + v, 0);
  process.stdout.write(`\n${name}: share of the server's busy CPU time, and CPU microseconds per request\n`);
  for (const [cat, us] of totals) {
    process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / requests).toFixed(1).padStart(6)} us  ${cat}\n`);
  }
  process.stdout.write(`  total ${(busy / requests).toFixed(1)} us per request in the profile (${requests} requests)\n`);
  // The kernel's count of the server's CPU time: robust to the machine being shared (a descheduled
  // process is not charged), unlike the profile's wall-clock sample intervals.
  process.stdout.write(`  server CPU time (user + system, /proc): ${cpuPerRequest.toFixed(1)} us per request\n`);
  return cpuPerRequest;
}

/**
 * The fixed costs a setting can switch off, measured rather than attributed: the same operation with
 * and without each, in interleaved rounds, by the kernel's count of the server's CPU time (a
 * profiler charges a sample to the frame it lands on, which skews native and short calls).
 */
const SWITCHES: Array<[string, string[]]> = [
  ['as shipped', []],
  ['request line off (--log-level warn)', ['--log-level', 'warn']],
  ['journal off (--journal-size 0)', ['--journal-size', '0']],
  ['coverage off (--no-coverage)', ['--no-coverage']],
  ['all three off', ['--log-level', 'warn', '--journal-size', '0', '--no-coverage']],
];

async function ledger(names: string[], rounds = 3): Promise<void> {
  for (const name of names) {
    const drive = OPERATIONS[name];
    if (!drive) continue;
    const runs = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const [label, args] of SWITCHES) {
        const us = await profileOne(name, drive, { args, profile: false });
        runs.set(label, [...(runs.get(label) ?? []), us]);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const shipped = median(runs.get('as shipped') ?? []);
    process.stdout.write(`\n${name}: server CPU per request, median of ${rounds} interleaved rounds\n`);
    for (const [label] of SWITCHES) {
      const us = median(runs.get(label) ?? []);
      const saved = shipped - us;
      process.stdout.write(
        `  ${us.toFixed(1).padStart(6)} us  ${label}${label === 'as shipped' ? '' : `: costs ${saved.toFixed(1)} us (${((saved / shipped) * 100).toFixed(0)}%)`}\n`,
      );
    }
  }
}

const extract = `/api/bookkeeping/integration/v1/${TENANTS.t10k}/trade-receivable-certificates/extract?page=1&pageSize=20&sortBy=registeredAt&desc=true`;

/** The stack's floor: the benchmark's bare Fastify server, its CPU time per request under the same load. */
async function bare(): Promise<void> {
  const page = { extractTradeReceivables: extractRequests(TENANTS.t10k, 20, 1), pagination: { page: 1, size: 20, totalItems: 10000, totalPages: 500 } };
  const s = await startChild('dist-bench/bench/baseline-fastify.js', (p) => [String(p), JSON.stringify(page)]);
  for (const method of ['GET', 'PUT'] as const) {
    const cpu0 = cpuMs(s.child.pid);
    const r = await load({ url: `${s.url}/x`, method, connections: 50, duration: seconds });
    process.stdout.write(`bare Fastify ${method}: ${Math.round(r.reqPerSec)} req/s, p99 ${r.p99} ms, server CPU ${(((cpuMs(s.child.pid) - cpu0) * 1000) / r.requests).toFixed(1)} us per request\n`);
  }
  await s.stop();
}

/** One operation driven with `connections` connections; every answer must be `status`. */
function driver(name: string, connections: number, status: number, request: () => { method: 'POST' | 'PUT' | 'GET'; path: string; headers?: Record<string, string>; body?: string }) {
  return async (url: string): Promise<number> => {
    const r = await load({
      url,
      connections,
      duration: seconds,
      requests: [
        {
          setupRequest: (req) => {
            const next = request();
            return { ...req, ...next, headers: { 'content-type': 'application/json', ...next.headers } };
          },
        },
      ],
    });
    if (r.non2xx > 0) process.stdout.write(`${name}: ${r.non2xx} answers outside 2xx (expected ${status})!\n`);
    process.stdout.write(`${name}: ${Math.round(r.reqPerSec)} req/s, p99 ${r.p99} ms (${connections} connections; a rough signal only)\n`);
    return r.requests;
  };
}

const OPERATIONS: Record<string, (url: string) => Promise<number>> = {
  extract: async (url) => {
    const r = await load({ url: url + extract, headers, connections: 50, duration: seconds });
    process.stdout.write(`extract: ${Math.round(r.reqPerSec)} req/s, p99 ${r.p99} ms (shared machine: a rough signal only)\n`);
    return r.requests;
  },
  payment: (() => {
    let next = 0;
    return driver('payment', 50, 204, () => ({
      method: 'PUT',
      path: `/api/bookkeeping/integration/v1/${TENANTS.t10k}/trade-receivable-certificates/BENCH-${next++ % BILLS}/payment`,
      headers,
      body: JSON.stringify({ type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 0.01 }),
    }));
  })(),
  // One document of 2 KB per batch: the batch's fixed costs, not the document's bytes.
  register: (() => {
    let next = 0;
    return driver('register', 10, 200, () => ({
      method: 'POST',
      path: '/api/v1.0/service/dup/registrar_documentos',
      headers: { authorization: `Bearer ${RG_TOKEN}` },
      body: JSON.stringify({ registros: [registryDocument(next, pdf(2048, next++).toString('base64'))] }),
    }));
  })(),
  // One item whose key the registry does not hold: a reconciliation is recorded all the same.
  reconcile: (() => {
    let next = 0;
    return driver('reconcile', 10, 200, () => ({
      method: 'POST',
      path: '/api/v1.0/service/dup/conciliar_documentos',
      headers: { authorization: `Bearer ${RG_TOKEN}` },
      body: JSON.stringify({ registros: [{ ...registryDocument(next, pdf(2048, next++).toString('base64')), chaveRegistro: 'RGBENCHUNKNOWN' }] }),
    }));
  })(),
  // A 10-title CNAB 444 file per submission; the queued reading runs in the same process.
  import: (() => {
    const file = cnab444(10).toString('base64');
    let next = 0;
    return driver('import', 10, 202, () => ({
      method: 'POST',
      path: '/v1/import-cnab',
      body: JSON.stringify({ token: RC_TOKEN, fundCnpj: FUND, operationFile: file, fileName: 'bench.rem', additiveNumber: 1 + (next++ % 1000) }),
    }));
  })(),
  // One record with a 4 KB PDF per call.
  loanbond: (() => {
    let next = 0;
    return driver('loanbond', 10, 201, () => ({
      method: 'POST',
      path: '/api/service/document/registrar',
      body: JSON.stringify({
        versao: '1.0',
        token: LB_TOKEN,
        registros: [loanBondRecord(next, pdf(4096, next++))],
      }),
    }));
  })(),
};

async function main(): Promise<void> {
  if (process.argv.includes('bare')) return bare();
  const chosen = Object.keys(OPERATIONS).filter((k) => process.argv.includes(k));
  if (process.argv.includes('ledger')) return ledger(chosen.length > 0 ? chosen : ['extract', 'payment']);
  for (const name of chosen.length > 0 ? chosen : Object.keys(OPERATIONS)) {
    const drive = OPERATIONS[name];
    if (drive) await profileOne(name, drive);
  }
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`profile failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
