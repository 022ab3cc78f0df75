// npm run soak [-- --runs 100000] [-- --ops import-cnab,...] [-- --journal 1000000] [-- --seed 42]
// The long versions of the reliability suite (docs/reliability.md): the schema-driven fuzzer on each
// documented operation (a fresh app every few thousand cases keeps the database small), a journal
// flooded far past its capacity, and bodies at the size limit, with memory figures for each.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { OPERATIONS, PINNED_NOW, RELIABILITY_FIXTURES, BK_TENANT, BK_TOKEN, LB_TOKEN } from '../test/reliability/engine/operations.js';
import { fuzzOperation } from '../test/reliability/engine/run.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const RUNS = Number(arg('runs') ?? 100_000);
const JOURNAL_REQUESTS = Number(arg('journal') ?? 1_000_000);
const SEED = arg('seed') === undefined ? Date.now() % 2 ** 31 : Number(arg('seed'));
const ONLY = arg('ops')?.split(',');
const MiB = 1024 * 1024;

const mem = () => {
  // Run with --expose-gc (npm run soak does): figures after a full collection are what is retained.
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return {
    rssMiB: Math.round(m.rss / MiB),
    heapUsedMiB: Math.round(m.heapUsed / MiB),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
};
const log = (line: string) => process.stdout.write(`${line}\n`);

async function fuzzApp(): Promise<FastifyInstance> {
  // Seeded: the key sequence is part of the state a refused request must leave alone.
  const app = await buildApp({ db: ':memory:', logger: false, fixtures: RELIABILITY_FIXTURES, journalSize: 1000, seed: 'soak' });
  app.runtime.clock.set(PINNED_NOW, true);
  return app;
}

async function fuzz(): Promise<boolean> {
  let ok = true;
  log(`## fuzz: ${RUNS} cases per operation, seed ${SEED}`);
  for (const op of OPERATIONS) {
    if (ONLY && !ONLY.includes(op.id)) continue;
    try {
      const stats = await fuzzOperation(op, fuzzApp, { runs: RUNS, seed: SEED, rebuildEvery: 2000, healthEvery: 500 });
      const fiveXX = Object.entries(stats.statuses)
        .filter(([s]) => Number(s) >= 500 && Number(s) !== 501)
        .reduce((n, [, c]) => n + c, 0);
      log(
        `${op.id}: ${stats.cases} cases in ${(stats.ms / 1000).toFixed(1)} s, accepted ${stats.accepted}, refused ${stats.refused}, ` +
          `statuses ${JSON.stringify(stats.statuses)}, 5xx ${fiveXX}, apps ${stats.appsBuilt}, memory ${JSON.stringify(mem())}`,
      );
    } catch (err) {
      ok = false;
      log(`${op.id}: FAILED ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return ok;
}

async function journalFlood(): Promise<boolean> {
  log(`## journal: ${JOURNAL_REQUESTS} requests into the default journal (1000 entries)`);
  const app = await fuzzApp();
  const started = performance.now();
  const url = `/api/bookkeeping/integration/v1/${BK_TENANT}/trade-receivable-certificates/extract?pageSize=5`;
  const headers = { authorization: `Bearer ${BK_TOKEN}` };
  let bad = 0;
  try {
    for (let i = 1; i <= JOURNAL_REQUESTS; i++) {
      // Mostly reads, one in four a refused write with a body (the journal keeps redacted bodies).
      const res =
        i % 4 === 0
          ? await app.inject({ method: 'POST', url: '/api/service/document/registrar', payload: { versao: '2.0', token: LB_TOKEN, registros: [{ documento: 'x'.repeat(2000) }] } })
          : await app.inject({ url, headers });
      if (res.statusCode >= 500) bad++;
      if (i % 100_000 === 0) log(`  ${i} requests: journal ${app.runtime.journal.count} entries, memory ${JSON.stringify(mem())}`);
    }
    log(`journal: ${JOURNAL_REQUESTS} requests in ${((performance.now() - started) / 1000).toFixed(1)} s, 5xx ${bad}, journal ${app.runtime.journal.count}/${app.runtime.journal.capacity} entries, dropped ${app.runtime.journal.dropped}`);
    return bad === 0 && app.runtime.journal.count === app.runtime.journal.capacity;
  } finally {
    await app.close();
  }
}

async function bigBodies(): Promise<boolean> {
  log('## bodies at the default limit (100 MiB)');
  const app = await buildApp({ db: ':memory:', logger: false, fixtures: RELIABILITY_FIXTURES });
  let ok = true;
  try {
    for (const size of [99 * MiB, 101 * MiB]) {
      const payload = `{"versao":"2.0","token":"${LB_TOKEN}","registros":[{"documento":"${'A'.repeat(size - 100)}"}]}`;
      const res = await app.inject({ method: 'POST', url: '/api/service/document/registrar', headers: { 'content-type': 'application/json' }, payload });
      log(`  ${Math.round(payload.length / MiB)} MiB body -> ${res.statusCode}: ${res.body.slice(0, 160)}; memory ${JSON.stringify(mem())}`);
      if (res.statusCode !== 400) ok = false;
    }
    const health = await app.inject({ url: '/_sandbox/health' });
    if (health.statusCode !== 200) ok = false;
  } finally {
    await app.close();
  }
  return ok;
}

const t0 = performance.now();
const results = [await fuzz(), await journalFlood(), await bigBodies()];
log(`## done in ${((performance.now() - t0) / 1000).toFixed(0)} s; peak memory ${JSON.stringify(mem())}`);
process.exit(results.every(Boolean) ? 0 : 1);
