import { describe, expect, it } from 'vitest';
import { Work } from '../../src/runtime/work.js';
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
    expect(res.json()).toEqual({ processed: { receivables: 0, loanbond: 0, 'test-imports': 7 }, errors: 0 });
    const again = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(again.json()).toEqual({ processed: { receivables: 0, loanbond: 0, 'test-imports': 0 }, errors: 0 });
  });

  it('reports a runner that failed', async () => {
    const app = await testApp();
    app.runtime.work.register('broken', () => {
      throw new Error('boom');
    });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(res.json()).toEqual({ processed: { receivables: 0, loanbond: 0, broken: 0 }, errors: 1 });
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
    expect(await drained).toEqual({ slow: 1 });
  });
});
