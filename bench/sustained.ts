// npm run sustained [-- --seconds 30] [-- --connections 4] [-- --titles 10] [-- --server dist/server.js]
// A sustained stream of CNAB submissions against a sandbox in a child process, as a team's shared CI
// service gets it: `connections` clients submit an operation file each, back to back, for `seconds`.
// Meanwhile the child's resident memory is sampled every second and its health call timed every
// 200 ms from another connection. The report: submissions answered (accepted, refused by the
// backlog bound), memory by thirds of the run, health latency, what still waits at the end and how
// long processing it takes. sustainedCnab() is the same run for another script (the service soak).
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cnab444 } from './data.js';
import { fmt, startChild } from './lib.js';

export interface SustainedOptions {
  /** The sandbox's base URL (a workspace's base URL works too). */
  url: string;
  /** The sandbox's process id, for its memory (Linux /proc); undefined: memory not sampled. */
  pid: number | undefined;
  seconds: number;
  connections: number;
  /** Title records per file. */
  titles: number;
  /** A fund the sandbox knows, with its token. */
  fund: { cnpj: string; token: string };
}

export interface SustainedReport {
  seconds: number;
  connections: number;
  submissions: number;
  /** Answers by status (200 accepted; 400 the backlog bound, receivables code SandboxBusy). */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Resident memory in MiB: every sample, and the mean of the first and last third of the run. */
  rssMiB: { samples: number[]; firstThird: number; lastThird: number; peak: number };
  /** Health call latencies in ms (a call that failed or took over 10 s counts as 10 s). */
  health: { calls: number; failures: number; p50: number; p99: number; max: number };
  /** Imports still pending when the stream stopped, and how long POST /_sandbox/work/run took to process them. */
  pendingAtEnd: number;
  drainMs: number;
}

const HEALTH_TIMEOUT_MS = 10_000;

function rssMiB(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The stream of submissions, with memory and health sampled meanwhile. */
export async function sustainedCnab(options: SustainedOptions): Promise<SustainedReport> {
  const file = cnab444(options.titles).toString('base64');
  const body = JSON.stringify({
    token: options.fund.token,
    fundCnpj: options.fund.cnpj,
    operationFile: file,
    fileName: 'sustained.rem',
    additiveNumber: 1,
  });

  const rss: number[] = [];
  const health: number[] = [];
  let healthFailures = 0;
  let running = true;
  const memory = setInterval(() => {
    const m = rssMiB(options.pid);
    if (m !== undefined) rss.push(m);
  }, 1000);
  const probe = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${options.url}/_sandbox/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
        await res.arrayBuffer();
        if (!res.ok) healthFailures += 1;
        health.push(performance.now() - t0);
      } catch {
        healthFailures += 1;
        health.push(HEALTH_TIMEOUT_MS);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();

  const result = await autocannon({
    url: `${options.url}/v1/import-cnab`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: options.connections,
    duration: options.seconds,
    timeout: 30,
  });
  running = false;
  clearInterval(memory);
  await probe;

  const work = (await (await fetch(`${options.url}/_sandbox/work`)).json()) as {
    runners?: { receivables?: { pending: number } };
  };
  const t0 = performance.now();
  const drained = await fetch(`${options.url}/_sandbox/work/run`, { method: 'POST' });
  await drained.arrayBuffer();
  const drainMs = performance.now() - t0;

  const statuses: Record<string, number> = {};
  for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = count.count ?? 0;
  const third = Math.max(1, Math.floor(rss.length / 3));
  const sorted = [...health].sort((a, b) => a - b);
  return {
    seconds: options.seconds,
    connections: options.connections,
    submissions: result.requests.total,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    rssMiB: {
      samples: rss.map((x) => Math.round(x)),
      firstThird: Math.round(mean(rss.slice(0, third))),
      lastThird: Math.round(mean(rss.slice(-third))),
      peak: Math.round(Math.max(0, ...rss)),
    },
    health: {
      calls: health.length,
      failures: healthFailures,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
    },
    pendingAtEnd: work.runners?.receivables?.pending ?? -1,
    drainMs,
  };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const seconds = Number(arg('seconds') ?? 30);
  const connections = Number(arg('connections') ?? 4);
  const titles = Number(arg('titles') ?? 10);
  const script = arg('server') ?? 'dist/server.js';
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-sustained-'));
  const fund = { cnpj: '11222333000181', token: 'rc-sustained-token' };
  const server = await startChild(script, (port) => [
    '--port',
    String(port),
    '--db',
    join(dir, 'sandbox.db'),
    '--fixtures',
    'none',
    '--log-level',
    'warn',
  ]);
  try {
    const loaded = await fetch(`${server.url}/_sandbox/fixtures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ receivables: { funds: [{ fundCnpj: fund.cnpj, token: fund.token }] } }),
    });
    if (!loaded.ok) throw new Error(`loading the fund answered ${loaded.status}`);
    process.stderr.write(`${script}: ${connections} connections submitting ${titles}-title CNAB files for ${seconds} s\n`);
    const report = await sustainedCnab({ url: server.url, pid: server.child.pid, seconds, connections, titles, fund });
    const h = report.health;
    process.stdout.write(
      [
        `submissions ${fmt.n(report.submissions)} (${fmt.n(report.submissions / seconds)}/s), statuses ${JSON.stringify(report.statuses)}, errors ${report.errors}, timeouts ${report.timeouts}`,
        `RSS first third ${report.rssMiB.firstThird} MiB, last third ${report.rssMiB.lastThird} MiB, peak ${report.rssMiB.peak} MiB (samples ${report.rssMiB.samples.join(' ')})`,
        `health ${h.calls} calls, ${h.failures} failed or over ${HEALTH_TIMEOUT_MS / 1000} s, p50 ${fmt.ms(h.p50)}, p99 ${fmt.ms(h.p99)}, max ${fmt.ms(h.max)}`,
        `pending at the end ${report.pendingAtEnd}, processed by work/run in ${fmt.ms(report.drainMs)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('sustained.js')) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
