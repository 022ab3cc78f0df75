// The compiled server as a user runs it: a child process, configured by flags, stopped by a signal.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { body as lbBody, FIXTURES as LB_FIXTURES, pdf as lbPdf, record as lbRecord, URL as LB_URL } from './loanbond/helpers.js';
import { closesSoon, listeningPort } from './process.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts dist/server.js and resolves with its port once it listens. */
async function start(args: string[], env?: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, ['dist/server.js', '--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env }),
  });
  children.push(child);
  const listening = listeningPort(child);
  return { child, port: await listening.port, output: listening.output };
}

/** Runs node with `args` to its exit; answers the exit code and what it printed. */
async function runToExit(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out, err };
}

/** The request lines in `output`, once there are `n` of them (or after ten seconds of waiting). */
async function requestLines(output: () => string, n: number): Promise<number> {
  const count = () => output().split('\n').filter((l) => l.includes('"msg":"request"')).length;
  for (let waited = 0; count() < n && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  return count();
}

describe('the server process', () => {
  it('refuses to start with HOST or SANDBOX_ADMIN_TOKEN set but empty, saying why (exit 2)', async () => {
    for (const empty of ['HOST', 'SANDBOX_ADMIN_TOKEN']) {
      const env = { ...process.env };
      delete env.HOST;
      delete env.SANDBOX_ADMIN_TOKEN;
      env[empty] = '';
      const child = spawn(process.execPath, ['dist/server.js', '--port', '0', '--db', ':memory:'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
      });
      children.push(child);
      let err = '';
      child.stderr?.on('data', (c: Buffer) => {
        err += c.toString();
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(2);
      expect(err).toContain(`${empty} is set but empty`);
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`serves the demo fixtures, then closes cleanly on ${signal}`, async () => {
      const { child, port, output } = await start(['--db', ':memory:', '--fixtures', 'fixtures/demo.json']);
      const health = await fetch(`http://127.0.0.1:${port}/_sandbox/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = await exited;
      expect(code).toBe(0);
      expect(output()).toContain('"msg":"closing"');
    });
  }

  it('answers open long polls and waits on SIGTERM (503, the sandbox is closing), in every workspace, then exits 0', async () => {
    const { child, port, output } = await start(['--db', ':memory:', '--fixtures', 'none']);
    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/_sandbox/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"w1","fixtures":{}}' });
    expect(created.status).toBe(201);
    const answered = (res: Promise<Response>) => res.then(async (r) => ({ status: r.status, body: (await r.json()) as { message?: string } }));
    const polls = [
      answered(fetch(`${base}/_sandbox/events?wait=120s`)),
      answered(fetch(`${base}/ws/w1/_sandbox/events?wait=120s`)),
      answered(
        fetch(`${base}/_sandbox/wait`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ event: { type: 'sandbox.bookkeeping.payment.declared' }, timeout: '120s' }),
        }),
      ),
    ];
    // Time for the three requests to reach their waits (nothing says so before they are answered).
    await new Promise((r) => setTimeout(r, 500));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(output()).not.toContain('close timed out');
    for (const poll of await Promise.all(polls)) {
      expect(poll.status).toBe(503);
      expect(poll.body.message).toContain('the sandbox is closing');
    }
  });

  it('keeps a frozen clock and held processing across a SIGTERM and a start on the same --db, and logs that it did', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'server-restart-'));
    try {
      const args = ['--db', join(dir, 'sandbox.db'), '--fixtures', 'fixtures/demo.json'];
      const post = (base: string, path: string, body: object) =>
        fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const first = await start(args);
      const before = `http://127.0.0.1:${first.port}`;
      expect((await post(before, '/_sandbox/clock', { now: '2030-01-01T00:00:00Z', freeze: true })).status).toBe(200);
      expect((await post(before, '/_sandbox/work', { held: true })).status).toBe(200);
      const stopped = once(first.child, 'exit');
      first.child.kill('SIGTERM');
      expect((await stopped)[0]).toBe(0);
      const second = await start(args);
      const after = `http://127.0.0.1:${second.port}`;
      expect(await (await fetch(`${after}/_sandbox/clock`)).json()).toMatchObject({ now: '2030-01-01T00:00:00.000Z', frozen: true });
      expect(await (await fetch(`${after}/_sandbox/work`)).json()).toMatchObject({ held: true });
      expect(second.output()).toContain('the sandbox clock keeps its setting from before: frozen at 2030-01-01T00:00:00.000Z');
      expect(second.output()).toContain('asynchronous processing stays held');
      const exited = once(second.child, 'exit');
      second.child.kill('SIGTERM');
      await exited;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a database file another server holds, names it, and starts once that one is gone, however it ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'server-lock-'));
    try {
      const db = join(dir, 'sandbox.db');
      const first = await start(['--db', db, '--fixtures', 'none']);
      // The same file named another way.
      const second = await runToExit(['dist/server.js', '--host', '127.0.0.1', '--port', '0', '--db', `${dir}/./sandbox.db`, '--fixtures', 'none']);
      expect(second.code).toBe(1);
      expect(second.err).toContain(`tradebill-sandbox could not start: the database ${dir}/./sandbox.db is in use by another sandbox process`);
      expect(second.err).toContain('Give each process its own --db');
      // The first one still answers from the file, untouched.
      expect((await fetch(`http://127.0.0.1:${first.port}/_sandbox/health`)).status).toBe(200);
      // The lock is one file: no rollback journal of it is left beside the database.
      expect(readdirSync(dir).filter((f) => f.includes('lock'))).toEqual(['sandbox.db.lock']);
      // Killed, not closed: the operating system lets go of the lock.
      const killed = once(first.child, 'exit');
      first.child.kill('SIGKILL');
      await killed;
      const third = await start(['--db', db, '--fixtures', 'none']);
      expect((await fetch(`http://127.0.0.1:${third.port}/_sandbox/health`)).status).toBe(200);
      const stopped = once(third.child, 'exit');
      third.child.kill('SIGTERM');
      expect((await stopped)[0]).toBe(0);
      // Closed on SIGTERM: the next one starts too.
      const fourth = await start(['--db', db, '--fixtures', 'none']);
      expect((await fetch(`http://127.0.0.1:${fourth.port}/_sandbox/health`)).status).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an in-memory server killed leaves its loan-bond files in the temp folder only until the next in-memory sandbox starts there; a live one keeps its own', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'server-documents-'));
    try {
      const env = { ...process.env, TMPDIR: temp };
      const register = async (port: number, tag: string, first = true) => {
        const base = `http://127.0.0.1:${port}`;
        if (first) {
          const loaded = await fetch(`${base}/_sandbox/fixtures`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(LB_FIXTURES) });
          expect(loaded.status).toBe(200);
        }
        const res = await fetch(`${base}${LB_URL}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(lbBody([lbRecord({ documento: lbPdf(2000, { tag }), documentos_adicionais: [] })])) });
        expect(res.status).toBe(201);
      };
      const pdfFiles = () => readdirSync(temp, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.pdf'));
      // A folder of the same name with no lock in it (an older sandbox's, or anyone's): never touched.
      mkdirSync(join(temp, 'tradebill-sandbox-documents-older'));
      writeFileSync(join(temp, 'tradebill-sandbox-documents-older', 'kept.pdf'), '%PDF-1.4');
      const killed = await start(['--db', ':memory:', '--fixtures', 'none'], env);
      await register(killed.port, 'killed');
      const live = await start(['--db', ':memory:', '--fixtures', 'none'], env);
      await register(live.port, 'live');
      expect(pdfFiles()).toHaveLength(3);
      const exited = once(killed.child, 'exit');
      killed.child.kill('SIGKILL');
      await exited;
      // SIGKILL runs no exit handler: the killed server's file is still there.
      expect(pdfFiles()).toHaveLength(3);
      const next = await start(['--db', ':memory:', '--fixtures', 'none'], env);
      expect((await fetch(`http://127.0.0.1:${next.port}/_sandbox/health`)).status).toBe(200);
      // The killed one's folder went when the next one started; the live one's stayed, and it still serves.
      expect(pdfFiles()).toHaveLength(2);
      await register(live.port, 'live-again', false);
      expect(pdfFiles()).toHaveLength(3);
      for (const s of [live, next]) {
        const stopped = once(s.child, 'exit');
        s.child.kill('SIGTERM');
        await stopped;
      }
      // Stopped as they should be: nothing of theirs is left.
      expect(readdirSync(temp)).toEqual(['tradebill-sandbox-documents-older']);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  it('writes the log line of each request to stdout while it runs, and the last lines before it exits', async () => {
    const { child, port, output } = await start(['--db', ':memory:', '--fixtures', 'none']);
    for (let i = 0; i < 3; i++) await fetch(`http://127.0.0.1:${port}/_sandbox/health`);
    expect(await requestLines(output, 3)).toBe(3);
    const exited = once(child, 'exit');
    // The closing line is logged just before the process exits: it must still come out.
    child.kill('SIGTERM');
    await exited;
    expect(output()).toMatch(/"msg":"closing"/);
  });

  it('keeps answering while nobody reads its stdout, and loses none of the lines meanwhile', async () => {
    const { child, port, output } = await start(['--db', ':memory:', '--fixtures', 'none']);
    // A pager paused, a reader stuck: the pipe fills (64 KiB here) and stays full.
    child.stdout?.pause();
    const n = 800;
    for (let i = 0; i < n; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/_sandbox/health`);
      expect(res.status).toBe(200);
    }
    child.stdout?.resume();
    expect(await requestLines(output, n)).toBe(n);
  });

  it('writes the lines gathered in a turn when the process exits within that turn', async () => {
    const script =
      "import('./dist/http/logging.js').then((m) => { m.stdoutLines().write('{\"msg\":\"last words\"}\\n'); process.exit(3); })";
    const { code, out } = await runToExit(['-e', script]);
    expect(code).toBe(3);
    expect(out).toBe('{"msg":"last words"}\n');
  });

  it('prints every setting for --help', async () => {
    const { code, out } = await runToExit(['dist/server.js', '--help']);
    expect(code).toBe(0);
    for (const s of [
      '--host',
      '--port',
      '--db',
      '--fixtures',
      '--log-level',
      '--body-limit',
      'SANDBOX_ADMIN_TOKEN',
    ]) {
      expect(out).toContain(s);
    }
  });

  it('refuses an unknown flag with exit code 2 and the usage', async () => {
    const { code, err } = await runToExit(['dist/server.js', '--prot', '1']);
    expect(code).toBe(2);
    expect(err).toContain('--prot');
  });
});

describe('npm start', () => {
  it('stops the server when npm gets SIGTERM: no listener is left behind', async () => {
    const child = spawn('npm', ['start', '--', '--port', '0', '--db', ':memory:', '--fixtures', 'none'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const listening = listeningPort(child);
    const port = await listening.port;
    const health = `http://127.0.0.1:${port}/_sandbox/health`;
    expect((await fetch(health)).status).toBe(200);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    // The server notices that npm's shell is gone and closes (src/server.ts).
    expect(await closesSoon(health)).toBe(true);
    expect(listening.output()).toContain('"msg":"closing"');
  }, 60_000);
});
