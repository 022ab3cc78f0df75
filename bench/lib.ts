// Benchmark plumbing: child servers, autocannon runs, RSS sampling, the results table.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitHealthy(url: string, healthPath = '/_sandbox/health', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}${healthPath}`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become healthy`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts a node script as a child, logs to /dev/null as a user would, resolves once healthy. */
/** Spawns a server on a free port and waits until it answers healthy: spawn -> health 200 is startMs. */
async function launch(
  spawnAt: (port: number) => ChildProcess,
  healthPath: string,
): Promise<{ url: string; child: ChildProcess; startMs: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnAt(port);
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, healthPath);
  return { url, child, startMs: performance.now() - t0 };
}

export async function startChild(
  script: string,
  args: (port: number) => string[],
  healthPath = '/_sandbox/health',
  nodeArgs: string[] = [],
): Promise<Server & { startMs: number }> {
  const { url, child, startMs } = await launch(
    (port) => spawn(process.execPath, [...nodeArgs, script, ...args(port)], { stdio: ['ignore', 'ignore', 'inherit'] }),
    healthPath,
  );
  return {
    url,
    child,
    startMs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Starts `npm start -- <args>` in `cwd` as a user does, resolves once healthy. Stopping signals the
 * whole process group (npm, its shell, node) and waits until nothing answers on the port.
 */
export async function startNpm(
  cwd: string,
  args: (port: number) => string[],
  healthPath = '/_sandbox/health',
): Promise<Server & { startMs: number }> {
  const { url, child, startMs } = await launch(
    (port) =>
      spawn('npm', ['start', '--silent', '--', ...args(port)], { cwd, detached: true, stdio: ['ignore', 'ignore', 'inherit'] }),
    healthPath,
  );
  return {
    url,
    child,
    startMs,
    stop: async () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      for (let i = 0; i < 200; i++) {
        if (!(await fetch(url + healthPath).then(() => true, () => false))) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`${url} still answers after npm start was stopped`);
    },
  };
}

export interface LoadResult {
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ ...options });
  return {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
  };
}

/**
 * CPU time a process has used (user + system), in clock ticks (1/100 s on Linux) from /proc/<pid>/stat.
 * On a shared machine the CPU a server spends per request varies far less than its throughput.
 */
export function cpuTicks(pid: number | undefined): number {
  if (!pid) throw new Error('no process id to read the CPU time of');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, inside parentheses): utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Peak resident set of a child (Linux VmHWM), in bytes. */
export function peakRss(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export interface Row {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  bar: string;
  pass: boolean | null;
}

export function printTable(rows: Row[]): string {
  const head = ['figure', 'value', 'baseline', 'ratio', 'bar', 'result'];
  const cells = rows.map((r) => [
    r.figure,
    r.value,
    r.baseline,
    r.ratio,
    r.bar,
    r.pass === null ? 'report' : r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export const fmt = {
  n: (x: number, digits = 0) =>
    x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }),
  ms: (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`,
  mb: (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`,
  x: (r: number) => `${r.toFixed(2)}x`,
};

/** Sequential latencies of one GET, in milliseconds with microsecond precision (autocannon's are whole ms). */
export async function latencies(url: string, headers: Record<string, string>, n: number): Promise<number[]> {
  for (let i = 0; i < Math.min(200, n); i++) await (await fetch(url, { headers })).arrayBuffer();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}
