// Schema-driven fuzzing of the six documented operations: every answer is a
// documented status in the interface's error shape, never a 5xx; the sandbox stays healthy; a
// refused request changes no state (row counts, bill values, the seeded key sequence). FUZZ_RUNS
// raises the count; `npm run soak` runs 100k each. The same loop runs again under a workspace's base
// URL (/ws/{name}), on that workspace's state, with a quarter of the cases.
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { OPERATIONS, PINNED_NOW, RELIABILITY_FIXTURES } from './engine/operations.js';
import { fuzzOperation, runtimeIn } from './engine/run.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
// A new seed every run (more ground covered over time); a failure prints its seed, and FUZZ_SEED replays it.
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const BASES = [
  { workspace: '', runs: RUNS, where: 'without a prefix' },
  { workspace: 'fuzz-1', runs: Math.ceil(RUNS / 4), where: 'under /ws/fuzz-1' },
];

function fuzzApp(workspace: string) {
  return async () => {
    const app = await buildApp({ db: ':memory:', logger: false, fixtures: RELIABILITY_FIXTURES, journalSize: 100, seed: 'fuzz' });
    runtimeIn(app, workspace).clock.set(PINNED_NOW, true);
    return app;
  };
}

describe('fuzzing the documented operations', () => {
  for (const { workspace, runs, where } of BASES) {
    for (const op of OPERATIONS) {
      // The time allowed grows with FUZZ_RUNS: 10 000 loan-bond cases took longer than two minutes.
      it(`answers ${runs} mutated ${op.id} requests ${where} within the contract`, { timeout: 120_000 * Math.max(1, runs / 1000) }, async () => {
        const stats = await fuzzOperation(op, fuzzApp(workspace), {
          runs,
          workspace,
          ...(SEED === undefined ? {} : { seed: SEED }),
        });
        expect(stats.cases).toBeGreaterThanOrEqual(runs);
        // Both sides were exercised: some accepted, some refused.
        expect(stats.accepted).toBeGreaterThan(0);
        expect(stats.refused).toBeGreaterThan(0);
      });
    }
  }
});
