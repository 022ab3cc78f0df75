// The coverage report as CI reads it: JUnit XML read back by a JUnit parser from npm (junit2json) and
// held to the common JUnit schema's shape, Markdown for a pull request, and the counters' scope.
import { parse, type TestCase, type TestSuite, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { OUTCOMES } from '../../src/interfaces.js';
import { COVERAGE_FIXTURES, T1 } from './drivers.js';

const EXTRACT = `/api/bookkeeping/integration/v1/${T1}/trade-receivable-certificates/extract`;

// Attributes and children the common JUnit XML schema (testsuites > testsuite > testcase) allows.
const SUITES_KEYS = ['name', 'tests', 'failures', 'errors', 'skipped', 'disabled', 'time', 'testsuite'];
const SUITE_KEYS = [
  'name', 'tests', 'failures', 'errors', 'skipped', 'disabled', 'time', 'timestamp', 'hostname', 'id',
  'package', 'properties', 'testcase', 'system-out', 'system-err',
];
const CASE_KEYS = ['name', 'classname', 'time', 'assertions', 'status', 'skipped', 'error', 'failure', 'system-out', 'system-err'];

const extra = (o: object, allowed: string[]) => Object.keys(o).filter((k) => !allowed.includes(k));

describe('the coverage report', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: COVERAGE_FIXTURES });
  });
  afterAll(async () => sandbox.close());

  async function meetTwoOutcomes() {
    await sandbox.reset('default');
    await fetch(sandbox.url + EXTRACT, { headers: { authorization: 'Bearer bk-token-1' } });
    await fetch(sandbox.url + EXTRACT, { headers: { authorization: 'Bearer bk-token-1' } });
    await fetch(sandbox.url + EXTRACT);
  }

  it('reads back as JUnit XML: a testsuite per operation, a testcase per outcome, the uncovered ones skipped', async () => {
    await meetTwoOutcomes();
    const res = await fetch(`${sandbox.url}/_sandbox/coverage?format=junit`);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const parsed = (await parse(await res.text())) as TestSuites;
    expect(extra(parsed, SUITES_KEYS)).toEqual([]);
    const suites = parsed.testsuite ?? [];
    expect(suites).toHaveLength(6);
    expect(parsed.tests).toBe(OUTCOMES.length);
    expect(parsed.failures).toBe(0);
    expect(parsed.errors).toBe(0);
    const cases: TestCase[] = suites.flatMap((s: TestSuite) => s.testcase ?? []);
    expect(cases).toHaveLength(OUTCOMES.length);
    for (const s of suites) {
      expect(extra(s, SUITE_KEYS)).toEqual([]);
      expect(s.name).toEqual(expect.any(String));
      expect(s.tests).toBe(s.testcase?.length);
      expect(s.skipped).toBe(s.testcase?.filter((c) => c.skipped).length);
      expect(s.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    }
    for (const c of cases) {
      expect(extra(c, CASE_KEYS)).toEqual([]);
      expect(c.classname).toMatch(/^(bookkeeping|registry|receivables|loanbond)\.[a-z-]+$/);
      expect(c.time).toBe(0);
    }
    const passed = cases.filter((c) => !c.skipped).map((c) => c.name?.split(' ')[0]);
    expect(passed.sort()).toEqual(['list-extract-requests.listed', 'list-extract-requests.token-missing']);
    const listed = cases.find((c) => c.name?.startsWith('list-extract-requests.listed '));
    expect(listed?.['system-out']?.[0]).toMatch(/^hits 2; first /);
    expect((parsed as TestSuites & { skipped?: number }).skipped).toBe(OUTCOMES.length - 2);
  });

  it('gives a Markdown table per operation, uncovered outcomes first', async () => {
    await meetTwoOutcomes();
    const text = await sandbox.coverage('markdown');
    expect(text).toContain(`2 of ${OUTCOMES.length} outcomes exercised`);
    const section = text.split('### ')[1] ?? '';
    expect(section).toMatch(/^bookkeeping · `list-extract-requests`/);
    const rows = section.split('\n').filter((l) => l.startsWith('| ✅') || l.startsWith('| ⬜'));
    const firstCovered = rows.findIndex((r) => r.startsWith('| ✅'));
    expect(rows.slice(firstCovered).every((r) => r.startsWith('| ✅'))).toBe(true);
    expect(rows.filter((r) => r.startsWith('| ✅'))).toHaveLength(2);
    expect(rows.find((r) => r.includes('`list-extract-requests.listed`'))).toMatch(/\| 200 \| 2 \|/);
  });

  it('counts from zero again after DELETE /_sandbox/coverage, and narrows to one interface', async () => {
    await meetTwoOutcomes();
    const cleared = await fetch(`${sandbox.url}/_sandbox/coverage`, { method: 'DELETE' });
    expect(await cleared.json()).toMatchObject({ cleared: 3 });
    const report = await sandbox.coverage();
    expect(report.totals.hits).toBe(0);
    const narrowed = (await (await fetch(`${sandbox.url}/_sandbox/coverage?interface=loanbond`)).json()) as {
      operations: Array<{ operation: string }>;
    };
    expect(narrowed.operations.map((o) => o.operation)).toEqual(['register-loan-bond']);
  });

  it('keeps its counts across a snapshot restore, and clears them on reset', async () => {
    await meetTwoOutcomes();
    await sandbox.snapshot('base');
    await fetch(sandbox.url + EXTRACT, { headers: { authorization: 'Bearer bk-token-1' } });
    await sandbox.restore('base');
    expect((await sandbox.coverage()).totals.hits).toBe(4);
    await sandbox.reset('default');
    expect((await sandbox.coverage()).totals.hits).toBe(0);
  });

  it('tags and counts nothing when coverage is turned off', async () => {
    const off = await startSandbox({ fixtures: COVERAGE_FIXTURES, coverage: false });
    try {
      const res = await fetch(off.url + EXTRACT, { headers: { authorization: 'Bearer bk-token-1' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('sandbox-outcome')).toBeNull();
      const report = await off.coverage();
      expect(report.operations).toEqual([]);
      expect(report.totals.hits).toBe(0);
    } finally {
      await off.close();
    }
  });

  it('refuses an unknown format with a 400 naming the parameter', async () => {
    const res = await fetch(`${sandbox.url}/_sandbox/coverage?format=html`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('format');
  });
});
