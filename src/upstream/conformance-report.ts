// What a workspace has seen of the real service: per documented operation the exchanges proxied, how
// many conformed, and each divergence (grouped, counted, with one redacted example), gathered into a
// report in JSON, JUnit XML (a testsuite per operation, a testcase per check, a failure per check
// that found something) or Markdown. In memory, per workspace, until DELETE /_sandbox/conformance.
import { junitDocument, markdownCell as cell, xmlText } from '../http/report-text.js';
import { type Basis, type ConformanceChecker, type Example, exampleOf, type Finding } from './conformance.js';
import { exchangeSecrets } from './exchange.js';
import type { Exchange } from './proxy.js';
import { plural } from '../domain/plural.js';

/** Distinct findings kept per operation; past it, findings are counted in the last group only. */
const MAX_GROUPS = 100;

interface Group {
  check: string;
  basis: Basis;
  message: string;
  count: number;
  firstMs: number;
  lastMs: number;
  example: Example;
}

interface OperationLog {
  exchanges: number;
  conforming: number;
  groups: Map<string, Group>;
}

export interface FindingView {
  check: string;
  basis: Basis & { text: string };
  message: string;
  count: number;
  firstAt: string;
  lastAt: string;
  example: Example;
}

export interface OperationConformance {
  interface: string;
  operation: string;
  method: string | null;
  path: string | null;
  exchanges: number;
  conforming: number;
  findings: FindingView[];
}

export interface BasisSummary {
  id: string;
  text: string;
  findings: number;
  operations: string[];
}

export interface ConformanceReport {
  since: string;
  upstreams: Array<{ interface: string; url: string }>;
  totals: { exchanges: number; conforming: number; diverging: number; findings: number };
  /** The assumptions the real service contradicted: the rows of the table to distrust. */
  assumptions: BasisSummary[];
  /** The facts of the specification it contradicted. */
  specification: BasisSummary[];
  operations: OperationConformance[];
  /** The checks run on every exchange, with the assumptions each may cite. */
  checks: Array<{ id: string; cites: string[] }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class ConformanceLog {
  private readonly byOperation = new Map<string, OperationLog>();
  private sinceMs: number;

  constructor(private readonly now: () => number) {
    this.sinceMs = now();
  }

  record(operationId: string, exchange: Exchange, findings: readonly Finding[]): void {
    let log = this.byOperation.get(operationId);
    if (!log) this.byOperation.set(operationId, (log = { exchanges: 0, conforming: 0, groups: new Map() }));
    log.exchanges++;
    if (findings.length === 0) {
      log.conforming++;
      return;
    }
    const t = this.now();
    const secrets = exchangeSecrets(exchange);
    let example: Example | undefined;
    for (const found of findings) {
      // A message may quote the answer (an error code): the exchange's secrets are replaced in it too.
      const f = { ...found, message: secrets.scrubText(found.message) };
      const key = `${f.check}\u0000${f.basis.kind}:${f.basis.id}\u0000${f.message}`;
      let group = log.groups.get(key);
      if (!group && log.groups.size >= MAX_GROUPS) group = [...log.groups.values()].pop();
      if (!group) {
        example ??= exampleOf(exchange, secrets);
        group = { ...f, count: 0, firstMs: t, lastMs: t, example };
        log.groups.set(key, group);
      }
      group.count++;
      group.lastMs = t;
    }
  }

  clear(): number {
    let n = 0;
    for (const log of this.byOperation.values()) n += log.exchanges;
    this.byOperation.clear();
    this.sinceMs = this.now();
    return n;
  }

  report(checker: ConformanceChecker, upstreams: Array<{ interface: string; url: string }>, interfaceId?: string): ConformanceReport {
    const assumptionText = new Map(checker.assumptions.map((a) => [a.id, `${a.topic}: ${a.decision}`]));
    const textOf = (b: Basis) => (b.kind === 'assumption' ? (assumptionText.get(b.id) ?? b.id) : checker.factText(b.id));
    const summaries = { assumption: new Map<string, BasisSummary>(), specification: new Map<string, BasisSummary>() };
    const operations: OperationConformance[] = [];
    let exchanges = 0;
    let conforming = 0;
    let findingCount = 0;
    for (const { operation } of checker.operations) {
      if (interfaceId !== undefined && operation.interface !== interfaceId) continue;
      const log = this.byOperation.get(operation.id);
      const findings = [...(log?.groups.values() ?? [])].map((g) => {
        const summary = summaries[g.basis.kind];
        let s = summary.get(g.basis.id);
        if (!s) summary.set(g.basis.id, (s = { id: g.basis.id, text: textOf(g.basis), findings: 0, operations: [] }));
        s.findings += g.count;
        if (!s.operations.includes(operation.id)) s.operations.push(operation.id);
        findingCount += g.count;
        return {
          check: g.check,
          basis: { ...g.basis, text: textOf(g.basis) },
          message: g.message,
          count: g.count,
          firstAt: iso(g.firstMs),
          lastAt: iso(g.lastMs),
          example: g.example,
        };
      });
      exchanges += log?.exchanges ?? 0;
      conforming += log?.conforming ?? 0;
      operations.push({
        interface: operation.interface,
        operation: operation.id,
        method: operation.method,
        path: operation.path,
        exchanges: log?.exchanges ?? 0,
        conforming: log?.conforming ?? 0,
        findings,
      });
    }
    const sorted = (m: Map<string, BasisSummary>) => [...m.values()].sort((a, b) => a.id.localeCompare(b.id));
    return {
      since: iso(this.sinceMs),
      upstreams,
      totals: { exchanges, conforming, diverging: exchanges - conforming, findings: findingCount },
      assumptions: sorted(summaries.assumption),
      specification: sorted(summaries.specification),
      operations,
      checks: checkListOf(checker),
    };
  }
}

function checkListOf(checker: ConformanceChecker): Array<{ id: string; cites: string[] }> {
  return (checker.constructor as typeof ConformanceChecker).checks.map((c) => ({ id: c.id, cites: [...c.cites] }));
}

const basisLabel = (b: Basis) => (b.kind === 'assumption' ? `assumption ${b.id}` : `specification ${b.id}`);

export function conformanceJunit(report: ConformanceReport): string {
  const stamp = report.since.slice(0, 19);
  const suites = report.operations.map((op, i) => {
    const cases = report.checks.map((check) => {
      const name = `${op.operation}: ${check.id}`;
      const attrs = `classname="${xmlText(`${op.interface}.${op.operation}`)}" name="${xmlText(name)}" time="0"`;
      if (op.exchanges === 0) return `    <testcase ${attrs}>\n      <skipped message="no exchange proxied since ${xmlText(report.since)}"/>\n    </testcase>`;
      const found = op.findings.filter((f) => f.check === check.id);
      if (found.length === 0) return `    <testcase ${attrs}/>`;
      const message = found.map((f) => `${basisLabel(f.basis)}: ${f.message} (x${f.count})`).join('; ');
      const detail = found.map((f) => `${basisLabel(f.basis)} - ${f.basis.text}\n${f.message} (x${f.count})\nexample: ${JSON.stringify(f.example)}`).join('\n\n');
      return `    <testcase ${attrs}>\n      <failure message="${xmlText(message)}" type="${xmlText(found[0]?.basis.kind ?? '')}">${xmlText(detail)}</failure>\n    </testcase>`;
    });
    const failures = report.checks.filter((c) => op.findings.some((f) => f.check === c.id)).length;
    return [
      `  <testsuite id="${i}" name="${xmlText(`${op.interface} ${op.operation} (${op.method ?? '?'} ${op.path ?? '?'})`)}" package="${xmlText(op.interface)}" tests="${report.checks.length}" failures="${failures}" errors="0" skipped="${op.exchanges === 0 ? report.checks.length : 0}" time="0" timestamp="${stamp}" hostname="tradebill-sandbox">`,
      '    <properties>',
      `      <property name="exchanges" value="${op.exchanges}"/>`,
      `      <property name="conforming" value="${op.conforming}"/>`,
      '    </properties>',
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  const failures = report.operations.reduce((n, op) => n + report.checks.filter((c) => op.findings.some((f) => f.check === c.id)).length, 0);
  const skipped = report.operations.filter((op) => op.exchanges === 0).length * report.checks.length;
  return junitDocument('tradebill-sandbox conformance of the real service', { tests: report.operations.length * report.checks.length, failures, skipped }, suites);
}

export function conformanceMarkdown(report: ConformanceReport): string {
  const t = report.totals;
  const lines = [
    '## Conformance of the real service to the sandbox',
    '',
    `${plural(t.exchanges, 'exchange')} with documented operations proxied since ${report.since} (${report.upstreams.map((u) => `${u.interface}: ${u.url}`).join(', ') || 'no upstream'}); ${t.conforming} conformed, ${t.diverging} diverged (${plural(t.findings, 'finding')}).`,
    '',
  ];
  const table = (title: string, rows: BasisSummary[], note: string) => {
    if (rows.length === 0) return;
    lines.push(`### ${title}`, '', note, '', '| id | what it says | findings | operations |', '| --- | --- | --- | --- |');
    for (const r of rows) lines.push(`| \`${r.id}\` | ${cell(r.text)} | ${r.findings} | ${r.operations.map((o) => `\`${o}\``).join(', ')} |`);
    lines.push('');
  };
  table('Assumptions contradicted', report.assumptions, 'The real service answered otherwise than the sandbox assumed: distrust these rows of the assumptions table.');
  table('Specification facts contradicted', report.specification, 'The real service answered otherwise than the specification documents.');
  lines.push('### Operations', '', '| interface | operation | exchanges | conforming | findings |', '| --- | --- | --- | --- | --- |');
  for (const op of report.operations) {
    lines.push(`| ${op.interface} | \`${op.operation}\` | ${op.exchanges} | ${op.conforming} | ${op.findings.reduce((n, f) => n + f.count, 0)} |`);
  }
  for (const op of report.operations.filter((o) => o.findings.length > 0)) {
    lines.push('', `#### ${op.interface} · \`${op.operation}\` · ${op.method ?? '?'} \`${op.path ?? '?'}\``, '', '| check | contradicts | finding | count | example |', '| --- | --- | --- | --- | --- |');
    for (const f of op.findings) {
      lines.push(`| ${f.check} | ${basisLabel(f.basis)} | ${cell(f.message)} | ${f.count} | \`${cell(JSON.stringify(f.example)).slice(0, 300)}\` |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
