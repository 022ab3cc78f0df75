// npm run soak:service [-- --minutes 10] [-- --slots 16] [-- --clients 4] [-- --think-ms 0] [-- --seed 7]
// The sandbox as a team's shared CI service would run it: the compiled server (dist/server.js) on a
// database file, its control plane locked (SANDBOX_ADMIN_TOKEN), over real HTTP for the whole run.
// Meanwhile:
//   - clients in the default workspace send a mix of the six documented operations (one loan-bond
//     registration in ten with a PDF of 0.3-1.5 MB, which the document writer's thread writes);
//   - `slots` workers each create a workspace, send it the same mix (and one fault rule per round),
//     then delete it while a last request is still in flight, and start again under the same name;
//   - a reader walks the control plane (overview, workspaces, imports, registrations, journal);
//   - a prober (a worker thread of its own: bench/health-probe.ts) asks for /_sandbox/health every 200 ms
//     and times it; the server's RSS is read every second, and its own event-loop delay is taken
//     (bench/loop-delay.ts, loaded into the server) over the traffic's minutes.
// Every acknowledged write (a payment, a registry batch and reconciliation, a CNAB import, a loan-bond
// registration) is recorded with the workspace round it belongs to. At the end the workers stop short
// of their last deletion, and every acknowledged write of the default workspace and of each live round
// is looked up: once in the running server, once after it was stopped with SIGTERM and started again.
// A write of a deleted round must be gone from the round that replaced it.
// Pass/fail: no 5xx but the documented faults the rules asked for, the RSS of the last third within
// 10 % of the first third's, health p99 under 100 ms, no acknowledged write missing. Exit code 1 on any
// miss; the figures (docs/reliability.md) are printed either way. Reported beside the health figures,
// not judged: the server's event-loop delay (the part of a probe's wait spent in the server), and how
// much of the run its main thread spent on a core and waiting for one (on a machine shared with other
// work, the wait is what the machine adds to that delay).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { cnab444, loanBondRecord, pdf, registryDocument } from './data.js';
import type { LoopDelayReport } from './loop-delay.js';
import { freePort } from './lib.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const MINUTES = Number(arg('minutes') ?? 10);
const SLOTS = Number(arg('slots') ?? 16);
const DEFAULT_CLIENTS = Number(arg('clients') ?? 4);
/** A pause after each operation of every client, as a test suite's own work between calls; 0 saturates the server. */
const THINK_MS = Number(arg('think-ms') ?? 0);
let seed = Number(arg('seed') ?? Date.now() % 2 ** 31);
const KEY = 'soak-admin-key';
const TENANT = '11222333000181';
const FUND = '11222333000181';
const BILLS = 200;
const log = (line: string) => process.stdout.write(`${line}\n`);

/** A small deterministic generator (mulberry32): the run's choices replay with --seed. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const FIXTURES = {
  bookkeeping: {
    users: [{ userId: 7, accessToken: 'soak-bk-token', tenants: [TENANT] }],
    tradeBills: Array.from({ length: BILLS }, (_, i) => ({ tenantId: TENANT, uid: `SOAK-${i}`, amount: 1_000_000 })),
  },
  registry: { participants: [{ participantId: 'SOAK-PART', accessToken: 'soak-rg-token' }] },
  receivables: { funds: [{ fundCnpj: FUND, token: 'soak-rc-token' }] },
  loanbond: { callers: [{ callerId: 'SOAK-CALLER', token: 'soak-lb-token', products: ['electronic-signature', 'digital-loan-bond'] }] },
};
const CNAB = cnab444(10).toString('base64');
const REGISTRY_PDF = pdf(1200).toString('base64');

// ---- the server ------------------------------------------------------------------------------------

interface Running {
  child: ChildProcess;
  url: string;
  /** The server's warn and error lines. */
  problems: string[];
}

async function startServer(db: string, fixtures: string, port: number): Promise<Running> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      new URL('./loop-delay.js', import.meta.url).href,
      'dist/server.js',
      ...['--host', '127.0.0.1', '--port', String(port), '--db', db, '--fixtures', fixtures, '--log-level', 'warn'],
    ],
    // The IPC channel carries only the loop-delay messages.
    { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, SANDBOX_ADMIN_TOKEN: KEY } },
  );
  const problems: string[] = [];
  // Read every line (an unread pipe would stall the server's log writer) and keep the few that matter.
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '' && problems.length < 200) problems.push(line.slice(0, 500));
    });
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 20) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${problems.join('\n')}`);
    const ok = await fetch(`${url}/_sandbox/health`, { headers: { 'sandbox-admin-token': KEY } }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (waited > 60_000) throw new Error('the server did not become healthy in a minute');
    await sleep(20);
  }
  return { child, url, problems };
}

async function stopServer(server: Running): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

// ---- calls and what they tell ------------------------------------------------------------------------

interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

const stats = {
  requests: 0,
  byStatus: {} as Record<string, number>,
  byOperation: {} as Record<string, number>,
  /** 5xx answered by a fault rule the worker added (Sandbox-Outcome ...fault-500). */
  documentedFaults: 0,
  /** Any other 5xx: the bar is zero. */
  fiveXX: [] as string[],
  /** Requests that got no answer at all (reset connections, timeouts). */
  noAnswer: [] as string[],
  /** Requests refused because their workspace was being removed or was gone: the documented answers. */
  workspaceRefusals: 0,
  workspacesCreated: 0,
  workspacesDeleted: 0,
  /** The first answers of each 4xx status (what was refused, and why): to read, not a bar. */
  refusals: {} as Record<string, string[]>,
  /** 4xx answers by status, method and path (workspace names and keys left out). */
  refusalCounts: {} as Record<string, number>,
};

let base = '';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, operation?: string): Promise<Answer | undefined> {
  stats.requests++;
  if (operation) stats.byOperation[operation] = (stats.byOperation[operation] ?? 0) + 1;
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
    if (res.status >= 400 && res.status < 500) {
      const seen = (stats.refusals[res.status] ??= []);
      if (seen.length < 5) seen.push(`${method} ${path} -> ${text.slice(0, 200)}`);
      const where = path.replace(/^\/ws\/[^/]+/, '/ws/{name}').replace(/\?.*$/, '').replace(/\/[^/]*\d[^/]*(?=\/|$)/g, '/{id}');
      const kind = `${res.status} ${method} ${where}`;
      stats.refusalCounts[kind] = (stats.refusalCounts[kind] ?? 0) + 1;
    }
    if (res.status >= 500) {
      if (/\.fault-5\d\d$/.test(res.headers.get('sandbox-outcome') ?? '')) stats.documentedFaults++;
      else if (stats.fiveXX.length < 1000) stats.fiveXX.push(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
    }
    return { status: res.status, body: text, headers: res.headers };
  } catch (err) {
    if (stats.noAnswer.length < 1000) stats.noAnswer.push(`${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

const admin = { 'sandbox-admin-token': KEY };
const json = <T>(a: Answer | undefined): T => JSON.parse(a?.body ?? 'null') as T;

// ---- acknowledged writes -----------------------------------------------------------------------------

type WriteKind = 'payment' | 'batch' | 'reconciliation' | 'import' | 'registration';
interface Write {
  kind: WriteKind;
  /** The workspace's base path ('' for default) and its round (each creation starts a new one). */
  ws: string;
  round: number;
  key: string;
  /** For a payment: the bill. */
  bill?: string;
}

const acknowledged: Write[] = [];
/** Payments per workspace round and bill: acknowledged, and sent without an answer. */
const payments = new Map<string, { acked: number; unknown: number }>();
const liveRound = new Map<string, number>();
const deletedWrites: Write[] = [];

/** Registry documents registered in a workspace round, for its reconciliations. */
const registered = new Map<string, Array<{ chaveRegistro: string; doc: Record<string, unknown> }>>();

async function operation(ws: string, round: number, kind: number): Promise<void> {
  const roundKey = `${ws}#${round}`;
  switch (kind) {
    case 0: {
      await call('GET', `${ws}/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract?page=1&pageSize=20`, undefined, { authorization: 'Bearer soak-bk-token' }, 'list-extract-requests');
      return;
    }
    case 1: {
      const bill = `SOAK-${Math.floor(random() * BILLS)}`;
      const tally = payments.get(`${roundKey}|${bill}`) ?? { acked: 0, unknown: 0 };
      payments.set(`${roundKey}|${bill}`, tally);
      const a = await call(
        'PUT',
        `${ws}/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/${bill}/payment`,
        { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 0.01 },
        { authorization: 'Bearer soak-bk-token' },
        'declare-payment',
      );
      if (!a) tally.unknown++;
      else if (a.status === 204) {
        tally.acked++;
        acknowledged.push({ kind: 'payment', ws, round, key: bill, bill });
      }
      return;
    }
    case 2: {
      const n = Math.floor(random() * 1e9);
      const docs = [registryDocument(n, REGISTRY_PDF), registryDocument(n + 1, REGISTRY_PDF)];
      const a = await call('POST', `${ws}/api/v1.0/service/dup/registrar_documentos`, { registros: docs }, { authorization: 'Bearer soak-rg-token' }, 'register-documents');
      if (a?.status === 200) {
        const key = json<{ chaveRemessa: string }>(a).chaveRemessa;
        acknowledged.push({ kind: 'batch', ws, round, key });
        const view = await call('GET', `${ws}/_sandbox/registry/batches/${key}`, undefined, admin);
        if (view?.status === 200) {
          const list = registered.get(roundKey) ?? [];
          for (const [i, d] of json<{ documents: Array<{ chaveRegistro: string }> }>(view).documents.entries())
            list.push({ chaveRegistro: d.chaveRegistro, doc: docs[i] as Record<string, unknown> });
          registered.set(roundKey, list.slice(-50));
        }
      }
      return;
    }
    case 3: {
      const known = registered.get(roundKey) ?? [];
      const item = known.length > 0 ? pick(known) : undefined;
      const registros = item ? [{ ...item.doc, chaveRegistro: item.chaveRegistro }] : [{ ...registryDocument(1, REGISTRY_PDF), chaveRegistro: 'UNKNOWN' }];
      const a = await call('POST', `${ws}/api/v1.0/service/dup/conciliar_documentos`, { registros }, { authorization: 'Bearer soak-rg-token' }, 'reconcile-documents');
      if (a?.status === 200) acknowledged.push({ kind: 'reconciliation', ws, round, key: json<{ chaveConciliacao: string }>(a).chaveConciliacao });
      return;
    }
    case 4: {
      const a = await call(
        'POST',
        `${ws}/v1/import-cnab`,
        { token: 'soak-rc-token', fundCnpj: FUND, operationFile: CNAB, fileName: 'soak.rem', additiveNumber: 1 },
        {},
        'import-cnab',
      );
      const id = a?.headers.get('sandbox-import-id');
      if (a?.status === 200 && id) acknowledged.push({ kind: 'import', ws, round, key: id });
      return;
    }
    default: {
      // One registration in ten carries a PDF over 256 KiB: the document writer's thread hashes and
      // writes it (src/store/document-writer.ts), while workspaces are removed under it.
      const size = random() < 0.1 ? 300_000 + Math.floor(random() * 1_200_000) : 1500;
      const record = loanBondRecord(Math.floor(random() * 1e9), pdf(size, Math.floor(random() * 50)));
      const a = await call('POST', `${ws}/api/service/document/registrar`, { versao: '2.0', token: 'soak-lb-token', registros: [record] }, {}, 'register-loan-bond');
      if (a?.status === 201)
        for (const r of json<{ registros: Array<{ codigo_identificador: string }> }>(a).registros)
          acknowledged.push({ kind: 'registration', ws, round, key: r.codigo_identificador });
    }
  }
}

/** The mix: reads and payments most, CNAB imports least (their processing is the heaviest). */
const MIX = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4, 5, 5];

// ---- the workers ------------------------------------------------------------------------------------

let running = true;

async function defaultClient(): Promise<void> {
  while (running) {
    await operation('', 0, pick(MIX));
    if (THINK_MS > 0) await sleep(THINK_MS);
  }
}

async function slot(i: number): Promise<void> {
  const name = `soak-${i}`;
  const ws = `/ws/${name}`;
  let round = 0;
  while (running) {
    round++;
    const created = await call('POST', '/_sandbox/workspaces', { name }, admin);
    // 409: the reader's control call (it carries the key) created it by name since the deletion; a
    // new workspace all the same, with the start-up fixtures.
    if (created?.status !== 201 && created?.status !== 409) {
      await sleep(100);
      continue;
    }
    stats.workspacesCreated++;
    liveRound.set(ws, round);
    // One documented fault per round: the next registry registration answers the 500 the rule asks for.
    await call('POST', `${ws}/_sandbox/faults`, { interface: 'registry', path: '/api/v1.0/service/dup/registrar_documentos', status: 500, times: 1 }, admin);
    const requests = 20 + Math.floor(random() * 40);
    for (let n = 0; n < requests && running; n++) {
      await operation(ws, round, pick(MIX));
      if (THINK_MS > 0) await sleep(THINK_MS);
    }
    if (!running) return;
    // Deleted while one more request is in flight (it is answered, or refused because the workspace
    // is going), then asked for again at once (refused: the workspace is unknown to a request without the key).
    const last = operation(ws, round, pick([1, 2, 5]));
    const removed = await call('DELETE', `/_sandbox/workspaces/${name}`, undefined, admin);
    await last;
    const after = await call('GET', `${ws}/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract`, undefined, { authorization: 'Bearer soak-bk-token' });
    if (after && (after.status === 404 || after.status === 400)) stats.workspaceRefusals++;
    if (removed?.status === 200) {
      stats.workspacesDeleted++;
      liveRound.delete(ws);
      for (const w of acknowledged) if (w.ws === ws && w.round === round && deletedWrites.length < 20_000) deletedWrites.push(w);
    }
  }
}

async function reader(): Promise<void> {
  while (running) {
    const wsList = ['', ...[...liveRound.keys()]];
    const ws = pick(wsList);
    await call('GET', `${ws}/_sandbox/overview`, undefined, admin);
    await call('GET', '/_sandbox/workspaces', undefined, admin);
    await call('GET', `${ws}/_sandbox/receivables/funds/${FUND}/imports`, undefined, admin);
    await call('GET', `${ws}/_sandbox/loanbond/registrations`, undefined, admin);
    await call('GET', `${ws}/_sandbox/registry/participants/SOAK-PART`, undefined, admin);
    await call('GET', `${ws}/_sandbox/requests?limit=50`, undefined, admin);
    await sleep(250);
  }
}

const healthMs: number[] = [];
/** Starts the health prober's thread; the promise settles once it stopped after `stop`. */
function prober(url: string): { stop: () => void; done: Promise<void> } {
  const worker = new Worker(new URL('./health-probe.js', import.meta.url), { workerData: { url, key: KEY, intervalMs: 200 } });
  worker.on('message', (ms: number | null) => {
    stats.requests++;
    if (ms === null) {
      if (stats.noAnswer.length < 1000) stats.noAnswer.push('GET /_sandbox/health: no answer, or not 200');
    } else {
      stats.byStatus[200] = (stats.byStatus[200] ?? 0) + 1;
      healthMs.push(ms);
    }
  });
  const done = once(worker, 'exit').then(() => undefined);
  return { stop: () => worker.postMessage('stop'), done };
}

/**
 * The server's main thread (its event loop) as Linux's scheduler counted it: seconds on a core, and
 * seconds it was ready to run but waited for one (/proc/{pid}/task/{pid}/schedstat). The wait is the
 * machine's share of the loop's delay: other processes on the same cores. Undefined elsewhere.
 */
function mainThreadSched(pid: number | undefined): { cpuS: number; waitS: number } | undefined {
  if (!pid) return undefined;
  try {
    const [cpuNs = 0, waitNs = 0] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { cpuS: cpuNs / 1e9, waitS: waitNs / 1e9 };
  } catch {
    return undefined;
  }
}

/** The server's event-loop delay since the last reset (bench/loop-delay.ts); undefined if it did not answer. */
async function loopDelay(server: Running): Promise<LoopDelayReport | undefined> {
  const answer = new Promise<LoopDelayReport>((resolve) => {
    const listen = (m: unknown) => {
      if ((m as { type?: string } | null)?.type !== 'loop-delay') return;
      server.child.off('message', listen);
      resolve(m as LoopDelayReport);
    };
    server.child.on('message', listen);
  });
  server.child.send('loop-delay:report');
  return Promise.race([answer, sleep(5000).then(() => undefined)]);
}

const rss: Array<{ at: number; mib: number }> = [];
function sampleRss(pid: number | undefined, startedAt: number): void {
  if (!pid) return;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) rss.push({ at: (performance.now() - startedAt) / 1000, mib: Number(m[1]) / 1024 });
  } catch {
    // The process is gone: the run reports it.
  }
}

// ---- the checks at the end ---------------------------------------------------------------------------

/** Acknowledged writes not found, by kind; and writes of deleted rounds found where they must not be. */
async function verify(label: string): Promise<{ missing: string[]; resurrected: string[]; checked: number }> {
  const missing: string[] = [];
  const resurrected: string[] = [];
  let checked = 0;
  const live = acknowledged.filter((w) => w.ws === '' || liveRound.get(w.ws) === w.round);
  const paths: Record<WriteKind, (w: Write) => string> = {
    payment: (w) => `${w.ws}/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/${w.bill ?? ''}?limit=1`,
    batch: (w) => `${w.ws}/_sandbox/registry/batches/${w.key}?limit=1`,
    reconciliation: (w) => `${w.ws}/_sandbox/registry/reconciliations/${w.key}?limit=1`,
    import: (w) => `${w.ws}/_sandbox/receivables/imports/${w.key}?titlesLimit=0`,
    registration: (w) => `${w.ws}/_sandbox/loanbond/registrations/${w.key}`,
  };
  // Payments: the bill holds at least the acknowledged ones, and at most those plus the unanswered.
  const billsSeen = new Set<string>();
  for (const w of live) {
    if (w.kind === 'payment') {
      const id = `${w.ws}#${w.round}|${w.bill ?? ''}`;
      if (billsSeen.has(id)) continue;
      billsSeen.add(id);
      const tally = payments.get(id) ?? { acked: 0, unknown: 0 };
      const a = await call('GET', paths.payment(w), undefined, admin);
      checked++;
      const count = a?.status === 200 ? json<{ paymentCount: number }>(a).paymentCount : -1;
      if (count < tally.acked || count > tally.acked + tally.unknown)
        missing.push(`${label}: ${w.ws || 'default'} bill ${w.bill}: ${count} payments, ${tally.acked} acknowledged (+${tally.unknown} unanswered)`);
      continue;
    }
    const a = await call('GET', paths[w.kind](w), undefined, admin);
    checked++;
    if (a?.status !== 200) missing.push(`${label}: ${w.kind} ${w.key} in ${w.ws || 'default'} round ${w.round}: ${a?.status ?? 'no answer'}`);
  }
  // A deleted round's writes are gone from the round that replaced it (a sample).
  for (const w of deletedWrites.filter((d) => d.kind !== 'payment' && liveRound.has(d.ws)).slice(0, 500)) {
    const a = await call('GET', paths[w.kind](w), undefined, admin);
    checked++;
    if (a?.status === 200) resurrected.push(`${label}: ${w.kind} ${w.key} of deleted round ${w.round} found in ${w.ws}`);
  }
  return { missing, resurrected, checked };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-soak-'));
  try {
    return await soak(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The soak itself, its database and fixtures in `dir`. */
async function soak(dir: string): Promise<number> {
  const db = join(dir, 'soak.db');
  const fixtures = join(dir, 'fixtures.json');
  writeFileSync(fixtures, JSON.stringify(FIXTURES));
  const port = await freePort();
  log(`## service soak: ${MINUTES} min, ${DEFAULT_CLIENTS} clients in default, ${SLOTS} workspace slots, think ${THINK_MS} ms, seed ${seed}, database ${db}`);
  let server = await startServer(db, fixtures, port);
  base = server.url;
  const startedAt = performance.now();
  // The server's loop delay counts from here: its start-up (loading modules) is not the traffic's.
  server.child.send('loop-delay:reset');
  const schedAtStart = mainThreadSched(server.child.pid);
  const probe = prober(server.url);
  const sampler = setInterval(() => sampleRss(server.child.pid, startedAt), 1000);
  const progress = setInterval(() => {
    const last = rss.at(-1);
    log(`  ${Math.round((performance.now() - startedAt) / 1000)} s: ${stats.requests} requests, ${stats.workspacesCreated} workspaces created, ${stats.workspacesDeleted} deleted, RSS ${last?.mib.toFixed(0) ?? '?'} MiB, 5xx ${stats.fiveXX.length}, unanswered ${stats.noAnswer.length}`);
  }, 30_000);
  const workers = [
    ...Array.from({ length: DEFAULT_CLIENTS }, () => defaultClient()),
    ...Array.from({ length: SLOTS }, (_, i) => slot(i)),
    reader(),
  ];
  await sleep(MINUTES * 60_000);
  running = false;
  probe.stop();
  const serverLoop = await loopDelay(server);
  const schedAtEnd = mainThreadSched(server.child.pid);
  const trafficSeconds = (performance.now() - startedAt) / 1000;
  await Promise.all([...workers, probe.done]);
  clearInterval(sampler);
  clearInterval(progress);
  const seconds = (performance.now() - startedAt) / 1000;

  // Everything pending processed, in every live workspace, before looking.
  for (const ws of ['', ...liveRound.keys()]) await call('POST', `${ws}/_sandbox/work/run`, undefined, admin);
  const before = await verify('running');
  const stopped = await stopServer(server);
  const restartAt = performance.now();
  server = await startServer(db, fixtures, port);
  const restartMs = performance.now() - restartAt;
  const after = await verify('after a restart');
  await stopServer(server);

  const third = seconds / 3;
  const first = rss.filter((r) => r.at < third).map((r) => r.mib);
  const last = rss.filter((r) => r.at >= 2 * third).map((r) => r.mib);
  const drift = (mean(last) - mean(first)) / mean(first);
  const p99 = percentile(healthMs, 99);
  const load = readFileSync('/proc/loadavg', 'utf8').trim();
  const results = {
    minutes: MINUTES,
    thinkMs: THINK_MS,
    seconds: Math.round(seconds),
    requests: stats.requests,
    requestsPerSecond: Math.round(stats.requests / seconds),
    byOperation: stats.byOperation,
    byStatus: stats.byStatus,
    workspacesCreated: stats.workspacesCreated,
    workspacesDeleted: stats.workspacesDeleted,
    workspaceRefusals: stats.workspaceRefusals,
    documentedFaults: stats.documentedFaults,
    fiveXX: stats.fiveXX.length,
    unanswered: stats.noAnswer.length,
    acknowledgedWrites: acknowledged.length,
    checkedRunning: before.checked,
    checkedAfterRestart: after.checked,
    missingRunning: before.missing.length,
    missingAfterRestart: after.missing.length,
    resurrected: before.resurrected.length + after.resurrected.length,
    sigtermExit: stopped,
    restartMs: Math.round(restartMs),
    rssFirstThirdMiB: Math.round(mean(first)),
    rssLastThirdMiB: Math.round(mean(last)),
    rssPeakMiB: Math.round(Math.max(...rss.map((r) => r.mib))),
    rssDriftPercent: Math.round(drift * 1000) / 10,
    healthProbes: healthMs.length,
    healthP50Ms: Math.round(percentile(healthMs, 50) * 10) / 10,
    healthP99Ms: Math.round(p99 * 10) / 10,
    healthMaxMs: Math.round(Math.max(...healthMs) * 10) / 10,
    // monitorEventLoopDelay with a 10 ms timer: each figure is 10 ms plus the delay.
    serverLoopDelayP50Ms: serverLoop?.p50Ms ?? null,
    serverLoopDelayP99Ms: serverLoop?.p99Ms ?? null,
    serverLoopDelayMaxMs: serverLoop?.maxMs ?? null,
    // Of the traffic's wall time, the share the server's main thread ran on a core, and the share it
    // was ready to run but waited for one (Linux only; null elsewhere).
    serverMainThreadCpuPercent:
      schedAtStart && schedAtEnd ? Math.round(((schedAtEnd.cpuS - schedAtStart.cpuS) / trafficSeconds) * 1000) / 10 : null,
    serverMainThreadWaitForCorePercent:
      schedAtStart && schedAtEnd ? Math.round(((schedAtEnd.waitS - schedAtStart.waitS) / trafficSeconds) * 1000) / 10 : null,
    loadAverageAtEnd: load,
  };
  log(`## results\n${JSON.stringify(results, null, 2)}`);
  log(`## 4xx answers by path\n${JSON.stringify(stats.refusalCounts, null, 2)}`);
  log(`## the first refusals of each 4xx status\n${JSON.stringify(stats.refusals, null, 2)}`);
  for (const line of [...stats.fiveXX.slice(0, 20), ...stats.noAnswer.slice(0, 20), ...before.missing.slice(0, 20), ...after.missing.slice(0, 20), ...before.resurrected.slice(0, 10), ...after.resurrected.slice(0, 10)])
    log(`  ${line}`);
  const serverLines = server.problems.filter((l) => /"level":(4|5)0/.test(l));
  if (serverLines.length > 0) log(`## server warnings and errors (first 20)\n${serverLines.slice(0, 20).join('\n')}`);
  const pass =
    stats.fiveXX.length === 0 &&
    Math.abs(drift) <= 0.1 &&
    p99 < 100 &&
    before.missing.length === 0 &&
    after.missing.length === 0 &&
    results.resurrected === 0 &&
    stopped === 0;
  log(`## ${pass ? 'PASS' : 'FAIL'}: 5xx ${stats.fiveXX.length} (documented faults ${stats.documentedFaults}), RSS ${results.rssFirstThirdMiB} -> ${results.rssLastThirdMiB} MiB (${results.rssDriftPercent} %), health p99 ${results.healthP99Ms} ms (server loop delay p99 ${results.serverLoopDelayP99Ms} ms; its main thread on a core ${results.serverMainThreadCpuPercent} %, waiting for one ${results.serverMainThreadWaitForCorePercent} % of the time), missing ${before.missing.length}/${after.missing.length}, load ${load}`);
  return pass ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`## the soak could not run: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
