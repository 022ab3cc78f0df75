// Client coverage: every outcome of the catalog is reachable over HTTP and counted once;
// an untouched sandbox reports every outcome with hits 0; each answer's Sandbox-Outcome names the
// outcome its status documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { OUTCOMES, outcomeTagProblem } from '../../src/interfaces.js';
import { type Answer, type Client, COVERAGE_FIXTURES, DRIVERS } from './drivers.js';

function httpClient(sandbox: Sandbox, seen: Answer[]): Client {
  return {
    async send(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(sandbox.url + path, { method, headers, body });
      const answer = { status: res.status, outcome: res.headers.get('sandbox-outcome'), body: await res.text() };
      if (!path.startsWith('/_sandbox')) seen.push(answer);
      return answer;
    },
  };
}

describe('client coverage of the documented behaviours', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: COVERAGE_FIXTURES });
  });
  afterAll(async () => sandbox.close());

  it('reports every outcome of an untouched sandbox with hits 0, under every documented operation', async () => {
    const report = await sandbox.coverage();
    const listed = report.operations.flatMap((op) => op.outcomes);
    expect(listed.map((o) => o.id).sort()).toEqual(OUTCOMES.map((o) => o.id).sort());
    expect(listed.filter((o) => o.hits !== 0)).toEqual([]);
    expect(report.totals).toEqual({ outcomes: OUTCOMES.length, covered: 0, uncovered: OUTCOMES.length, hits: 0 });
    expect(report.operations.map((op) => op.operation)).toEqual([
      'list-extract-requests',
      'declare-payment',
      'register-documents',
      'reconcile-documents',
      'import-cnab',
      'register-loan-bond',
    ]);
  });

  it('has a driver for every outcome of the catalog, and no driver for an outcome it lacks', () => {
    expect(OUTCOMES.map((o) => o.id).filter((id) => !(id in DRIVERS))).toEqual([]);
    const ids = new Set(OUTCOMES.map((o) => o.id));
    expect(Object.keys(DRIVERS).filter((id) => !ids.has(id))).toEqual([]);
  });

  for (const outcome of OUTCOMES) {
    it(`reaches ${outcome.id} (${outcome.status}) over HTTP and counts it once`, { timeout: 30_000 }, async () => {
      await sandbox.reset('default');
      const drive = DRIVERS[outcome.id];
      expect(drive, `no driver for ${outcome.id}`).toBeDefined();
      const seen: Answer[] = [];
      await drive?.(httpClient(sandbox, seen));
      const report = await sandbox.coverage();
      const counted = report.operations.flatMap((op) => op.outcomes).find((o) => o.id === outcome.id);
      expect(counted?.hits, outcome.id).toBe(1);
      expect(counted?.firstAt).not.toBeNull();
      // The answer that met it said so, with the documented status (the asynchronous CNAB results
      // are counted when processing ends; their answer was the 200 accepted).
      const tagged = seen.filter((a) => a.outcome === outcome.id);
      if (!outcome.slug.startsWith('rejected-') && outcome.slug !== 'processed') {
        expect(tagged.map((a) => a.status)).toEqual([outcome.status]);
      }
      // Every answer journaled (the driver's setup calls included) carries the outcome of the operation
      // it reached, with the status sent.
      const entries = await sandbox.requests();
      expect(entries.length).toBe(seen.length);
      for (const e of entries) expect(outcomeTagProblem(e.operation, e.outcome ?? undefined, e.status), `${e.method} ${e.path}`).toBeNull();
    });
  }
});
