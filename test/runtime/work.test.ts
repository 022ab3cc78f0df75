import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { JobError, Work } from '../../src/runtime/work.js';
import { testApp } from '../helpers.js';

describe('running pending asynchronous work', () => {
  it('POST /_sandbox/work/run processes everything pending and answers when done, with counts', async () => {
    const app = await testApp();
    // A runner as the interfaces register theirs: it processes a slice of its pending items per call.
    let pending = 7;
    app.runtime.work.register('test-imports', () => {
      const n = Math.min(pending, 3);
      pending -= n;
      return n;
    });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(res.statusCode).toBe(200);
    expect(pending).toBe(0);
    expect(res.json()).toEqual({ processed: { receivables: 0, loanbond: 0, 'test-imports': 7 }, errors: 0, failures: [] });
    const again = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(again.json()).toEqual({ processed: { receivables: 0, loanbond: 0, 'test-imports': 0 }, errors: 0, failures: [] });
  });

  it('reports a runner that failed: which runner, which job, what error, when it is retried', async () => {
    const app = await testApp();
    app.runtime.work.register('broken', () => {
      throw new JobError('JOB-7', new Error('boom'));
    });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(res.json()).toEqual({
      processed: { receivables: 0, loanbond: 0, broken: 0 },
      errors: 1,
      failures: [
        { runner: 'broken', job: 'JOB-7', error: 'Error: boom', at: expect.any(String), attempt: 1, retryInMs: 100 },
      ],
    });
  });

  it('drain waits for a run already under way', async () => {
    const work = new Work();
    let release: () => void = () => {};
    let pending = 1;
    work.register('slow', async () => {
      if (pending === 0) return 0;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      pending = 0;
      return 1;
    });
    work.kick('slow');
    await new Promise((resolve) => setImmediate(resolve));
    let done = false;
    const drained = work.drain().then((counts) => {
      done = true;
      return counts;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    release();
    expect(await drained).toEqual({ processed: { slow: 1 }, failures: [] });
  });
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the work scheduler', () => {
  it('costs the same per kick whatever the backlog: 8000 kicks while a run is busy add one look, not 8000 runs', async () => {
    const work = new Work();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    let pending = 1;
    work.register('busy', async () => {
      calls += 1;
      if (pending === 0) return 0;
      await gate;
      pending = 0;
      return 1;
    });
    work.kick('busy');
    await turn();
    // Each kick in a turn of its own, as requests arriving while the runner is busy make them.
    for (let i = 0; i < 8000; i++) {
      work.kick('busy');
      await turn();
    }
    release();
    const drained = await work.drain();
    for (let i = 0; i < 10; i++) await turn();
    // The busy slice, its "nothing left" look, the look the kicks asked for, drain's own look.
    expect(calls).toBeLessThanOrEqual(4);
    // One run for the first kick, one for drain: the 8000 kicks started none of their own.
    expect(work.runs).toBeLessThanOrEqual(2);
    expect(drained.processed).toEqual({ busy: 1 });
    await work.close();
  });

  it('picks up an item pending after a run looked, through the kick that came with it', async () => {
    const work = new Work();
    let pending = 0;
    let processed = 0;
    let release: () => void = () => {};
    work.register('items', async () => {
      if (pending === 0) return 0;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      processed += pending;
      const n = pending;
      pending = 0;
      return n;
    });
    pending = 1;
    work.kick('items');
    await turn();
    // While the first slice is busy, another item arrives with its kick.
    pending += 1;
    work.kick('items');
    release();
    await vi.waitFor(() => expect(processed).toBe(2));
    await work.close();
  });

  it('retries a failed run after a backoff that doubles, naming the job and the error, and clears it on success', async () => {
    const work = new Work({ retryBaseMs: 5, retryMaxMs: 1000 });
    let failuresLeft = 3;
    let pending = 1;
    work.register('imports', () => {
      if (pending === 0) return 0;
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new JobError('CNAB-1', new Database.SqliteError('database is locked', 'SQLITE_BUSY'));
      }
      pending = 0;
      return 1;
    });
    work.kick('imports');
    await vi.waitFor(() => expect(pending).toBe(0), { timeout: 5000 });
    const failures = work.recentFailures;
    expect(failures.map((f) => [f.runner, f.job, f.attempt, f.retryInMs])).toEqual([
      ['imports', 'CNAB-1', 1, 5],
      ['imports', 'CNAB-1', 2, 10],
      ['imports', 'CNAB-1', 3, 20],
    ]);
    expect(failures[0]?.error).toMatch(/^database locked \(SQLITE_BUSY\): another connection/);
    expect(work.errors).toBe(3);
    await work.close();
  });

  it('a kick while a retry waits for its backoff starts no run before it', async () => {
    const work = new Work({ retryBaseMs: 60_000 });
    let calls = 0;
    work.register('broken', () => {
      calls += 1;
      throw new Error('boom');
    });
    work.kick('broken');
    await vi.waitFor(() => expect(work.errors).toBe(1));
    for (let i = 0; i < 100; i++) {
      work.kick('broken');
      await turn();
    }
    expect(calls).toBe(1);
    // drain runs it now, backoff or not.
    const drained = await work.drain();
    expect(calls).toBe(2);
    expect(drained.failures.map((f) => [f.runner, f.job, f.error, f.attempt])).toEqual([['broken', null, 'Error: boom', 2]]);
    await work.close();
  });

  it('a release runs the runners kicked or due for a retry while held, and no other', async () => {
    const work = new Work({ retryBaseMs: 20 });
    const calls = { kicked: 0, idle: 0, failing: 0 };
    work.register('kicked', () => {
      calls.kicked += 1;
      return 0;
    });
    work.register('idle', () => {
      calls.idle += 1;
      return 0;
    });
    work.register('failing', () => {
      calls.failing += 1;
      if (calls.failing === 1) throw new Error('boom');
      return 0;
    });
    work.kick('failing');
    while (work.errors === 0) await turn();
    work.configure({ held: true });
    work.kick('kicked');
    // The retry's backoff ends while held: it starts nothing, and is owed to the release.
    await vi.waitFor(() => expect(work.describe().failing?.retryInMs).toBeNull());
    expect(calls).toEqual({ kicked: 0, idle: 0, failing: 1 });
    work.configure({ held: false });
    await vi.waitFor(() => expect(calls).toEqual({ kicked: 1, idle: 0, failing: 2 }));
    // Held and released with nothing kicked meanwhile: nothing runs.
    work.configure({ held: true });
    work.configure({ held: false });
    for (let i = 0; i < 10; i++) await turn();
    expect(calls).toEqual({ kicked: 1, idle: 0, failing: 2 });
    await work.close();
  });
});
