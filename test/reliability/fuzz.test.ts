// Schema-driven fuzzing of the six documented operations (issue 9, item 1): every answer is a
// documented status in the interface's error shape, never a 5xx; the sandbox stays healthy; a
// refused request changes no state (row counts, bill values, the seeded key sequence). FUZZ_RUNS
// raises the count; `npm run soak` runs 100k each.
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { OPERATIONS, PINNED_NOW, RELIABILITY_FIXTURES } from './engine/operations.js';
import { fuzzOperation } from './engine/run.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
// A new seed every run (more ground covered over time); a failure prints its seed, and FUZZ_SEED replays it.
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

async function fuzzApp() {
  const app = await buildApp({ db: ':memory:', logger: false, fixtures: RELIABILITY_FIXTURES, journalSize: 100, seed: 'fuzz' });
  app.runtime.clock.set(PINNED_NOW, true);
  return app;
}

describe('fuzzing the documented operations', () => {
  for (const op of OPERATIONS) {
    it(`answers ${RUNS} mutated ${op.id} requests within the contract`, { timeout: 120_000 }, async () => {
      const stats = await fuzzOperation(op, fuzzApp, { runs: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) });
      expect(stats.cases).toBeGreaterThanOrEqual(RUNS);
      // Both sides were exercised: some accepted, some refused.
      expect(stats.accepted).toBeGreaterThan(0);
      expect(stats.refused).toBeGreaterThan(0);
    });
  }
});
