// A large receivables submission: a CNAB 444 file of about 10 MB and about 90 MB of base64 (the
// default body limit is 100 MiB) sent to POST /v1/import-cnab on a fresh sandbox, while a worker
// thread asks /_sandbox/health every 10 ms. The figures: the health checks' p99 during the upload
// against their p99 on the same idle server just before, and the server's own event-loop delay
// (bench/loop-delay.ts, loaded into it) over the upload; the longest delay is the longest turn one
// submission held the loop for.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { cnab444 } from './data.js';
import { fmt, freePort, waitHealthy } from './lib.js';
import { type LargeResult, send } from './loanbond-large.js';
import type { LoopDelayReport } from './loop-delay.js';

export const FUND = '11222333000181';
export const TOKEN = 'rc-bench';
/** Bytes of a CNAB 444 detail line with its CR LF. */
export const LINE = 446;
const PROBE_MS = 10;

/** A row of the figures, shaped as the loan-bond rows are. */
export type CnabLargeResult = LargeResult;

export interface Sandbox {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A sandbox with the loop-delay module loaded, on :memory: unless `db` names a database file. */
export async function start(nodeArgs: string[], db = ':memory:'): Promise<Sandbox> {
  const port = await freePort();
  // An open control plane, as the other rows start it.
  const { SANDBOX_ADMIN_TOKEN: _admin, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      '--import',
      new URL('./loop-delay.js', import.meta.url).href,
      'dist/server.js',
      ...['--host', '127.0.0.1', '--port', String(port), '--db', db, '--fixtures', 'none'],
    ],
    // The IPC channel carries only the loop-delay messages; the log goes nowhere, as in the other rows.
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url);
  } catch (err) {
    // The IPC channel would keep the benchmark alive with the child.
    child.kill('SIGTERM');
    throw err;
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export async function loopDelay(child: ChildProcess): Promise<LoopDelayReport> {
  const answer = new Promise<LoopDelayReport>((resolve) => {
    const listen = (m: unknown) => {
      if ((m as { type?: string } | null)?.type !== 'loop-delay') return;
      child.off('message', listen);
      resolve(m as LoopDelayReport);
    };
    child.on('message', listen);
  });
  child.send('loop-delay:report');
  return answer;
}

/** Health round trips (ms) from a worker thread, every PROBE_MS, until `stop`. */
function probe(url: string): { stop: () => Promise<number[]> } {
  const times: number[] = [];
  let failures = 0;
  const worker = new Worker(new URL('./health-probe.js', import.meta.url), { workerData: { url, key: '', intervalMs: PROBE_MS } });
  worker.on('message', (ms: number | null) => (ms === null ? failures++ : times.push(ms)));
  return {
    stop: async () => {
      worker.postMessage('stop');
      await once(worker, 'exit');
      if (failures > 0) throw new Error(`${failures} health checks had no 200`);
      return times;
    },
  };
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.POSITIVE_INFINITY;
}

export function body(file: Buffer): Buffer[] {
  return [
    Buffer.from(`{"token":"${TOKEN}","fundCnpj":"${FUND}","fileName":"large.rem","additiveNumber":1,"operationFile":"`),
    Buffer.from(file.toString('base64'), 'latin1'),
    Buffer.from('"}'),
  ];
}

/**
 * One row per size (base64 characters, about): a fresh sandbox on :memory:, one small submission to
 * warm it up, 1 s of health checks on the idle server (the baseline), then the large submission with
 * the checks running. `nodeArgs` go to the server's node (such as --cpu-prof).
 */
export async function largeCnab(base64Sizes: number[], nodeArgs: string[] = []): Promise<CnabLargeResult[]> {
  const rows: CnabLargeResult[] = [];
  for (const size of base64Sizes) {
    const details = Math.max(1, Math.round((size * 3) / 4 / LINE) - 2);
    const pieces = body(cnab444(details));
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const s = await start(nodeArgs);
    try {
      const admin = { 'content-type': 'application/json' };
      const fixtures = await fetch(`${s.url}/_sandbox/fixtures`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ receivables: { funds: [{ fundCnpj: FUND, token: TOKEN }] } }),
      });
      if (fixtures.status >= 300) throw new Error(`fixtures answered ${fixtures.status}: ${await fixtures.text()}`);
      const warm = body(cnab444(10));
      const warmed = await send(s.url, warm, warm.reduce((n, p) => n + p.length, 0), '/v1/import-cnab');
      if (warmed.status !== 200) throw new Error(`the warm-up import answered ${warmed.status}: ${warmed.text.slice(0, 300)}`);

      const idle = probe(s.url);
      await new Promise((r) => setTimeout(r, 1000));
      const idleTimes = await idle.stop();

      const during = probe(s.url);
      await new Promise((r) => setTimeout(r, 50));
      s.child.send('loop-delay:reset');
      const t0 = performance.now();
      const res = await send(s.url, pieces, length, '/v1/import-cnab');
      const ms = performance.now() - t0;
      const delay = await loopDelay(s.child);
      const times = await during.stop();
      if (res.status !== 200) throw new Error(`the large import answered ${res.status}: ${res.text.slice(0, 300)}`);

      const idleP99 = p99(idleTimes);
      const duringP99 = p99(times);
      // The delay histogram's samples include its 10 ms period: a turn held for x ms reads as about 10 + x.
      const held = Math.max(0, delay.maxMs - 10);
      rows.push({
        figure: `POST import-cnab, CNAB 444 of ${fmt.n(details)} details (${fmt.mb(length)} body), health checks every ${PROBE_MS} ms`,
        value: `200 in ${fmt.ms(ms)}; health p99 ${fmt.ms(duringP99)}, max ${fmt.ms(Math.max(...times))} over ${times.length} checks; event-loop delay max ${fmt.ms(delay.maxMs)}, p99 ${fmt.ms(delay.p99Ms)} (10 ms period included)`,
        baseline: `idle health p99 ${fmt.ms(idleP99)} over ${idleTimes.length} checks`,
        ratio: fmt.x(duringP99 / idleP99),
        bar: 'health p99 during the upload < 50 ms; no turn held > 50 ms (loop delay max <= 60 ms)',
        pass: duringP99 < 50 && held <= 50,
      });
    } finally {
      await s.stop();
    }
  }
  return rows;
}
