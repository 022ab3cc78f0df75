// Model-based tests: random sequences of control calls and documented operations, each
// command checked against the reference model (test/reliability/sequences/). Bounded here; `npm run
// soak` runs thousands of sequences. SEQ_RUNS and SEQ_SEED replay or lengthen a run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { startSandbox, type Sandbox } from '../../src/index.js';
import { newStats, runSequences, SEQUENCE_FIXTURES } from './sequences/commands.js';
import { httpTransport, injectTransport } from './sequences/transport.js';
import { countsProblem } from './engine/run.js';

const RUNS = Number(process.env.SEQ_RUNS ?? 25);
const SEED = process.env.SEQ_SEED === undefined ? undefined : Number(process.env.SEQ_SEED);
const seed = SEED === undefined ? {} : { seed: SEED };
const identity = (p: string) => p;

describe('random sequences of control calls and operations against the model', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({ db: ':memory:', logger: false, fixtures: SEQUENCE_FIXTURES });
  });
  afterAll(() => app.close());

  it(`keeps ${RUNS} sequences over app.inject in step with the model`, { timeout: 120_000 }, async () => {
    // Besides the model: the row counts the store maintains equal a fresh count after every sequence.
    const check = () => countsProblem(app.runtime);
    app.runtime.store.tableCounts();
    const stats = await runSequences({ workspaces: [{ transport: injectTransport(app), path: identity, check }], runs: RUNS, ...seed });
    expect(stats.sequences).toBeGreaterThanOrEqual(RUNS);
    expect(Object.keys(stats.byCommand).length).toBe(17);
  });
});

describe('random sequences over real HTTP, in process', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: SEQUENCE_FIXTURES });
  });
  afterAll(() => sandbox.close());

  it('keeps sequences sent through a socket in step with the model', { timeout: 120_000 }, async () => {
    const stats = newStats();
    await runSequences({ workspaces: [{ transport: httpTransport(sandbox.url), path: identity }], runs: Math.max(5, Math.round(RUNS / 4)), stats, ...seed });
    expect(stats.commands).toBeGreaterThan(0);
  });
});
