// The coverage report in the two forms a CI or a pull request reads besides JSON: JUnit XML (one
// testsuite per operation, one testcase per outcome, an uncovered outcome skipped) and a Markdown
// table. Pure functions of the report.
import { junitDocument, markdownCell as cell, xmlText as xml } from '../http/report-text.js';
import type { CoverageReport, OperationCoverage, OutcomeCoverage, UserDefinedCoverage } from '../runtime/coverage.js';
import { plural } from '../domain/plural.js';

/** JUnit's timestamp: ISO 8601 without zone or fraction (the common schema's pattern); the report is UTC. */
function junitTimestamp(iso: string): string {
  return iso.slice(0, 19);
}

function suiteName(op: OperationCoverage): string {
  return `${op.interface} ${op.operation} (${op.method ?? '?'} ${op.path ?? '?'})`;
}

function testcase(op: OperationCoverage, o: OutcomeCoverage, since: string): string {
  const attrs = `classname="${xml(`${op.interface}.${op.operation}`)}" name="${xml(`${o.id} (${o.status}): ${o.sentence}`)}" time="0"`;
  if (o.hits === 0) {
    return `    <testcase ${attrs}>\n      <skipped message="${xml(`not exercised since ${since}`)}"/>\n    </testcase>`;
  }
  const out = `hits ${o.hits}; first ${o.firstAt ?? '-'}; last ${o.lastAt ?? '-'}`;
  return `    <testcase ${attrs}>\n      <system-out>${xml(out)}</system-out>\n    </testcase>`;
}

export function toJunit(report: CoverageReport): string {
  const stamp = junitTimestamp(report.since);
  const suites = report.operations.map((op, i) => {
    const cases = op.outcomes.map((o) => testcase(op, o, report.since)).join('\n');
    return [
      `  <testsuite id="${i}" name="${xml(suiteName(op))}" package="${xml(op.interface)}" tests="${op.totals.outcomes}" failures="0" errors="0" skipped="${op.totals.uncovered}" time="0" timestamp="${stamp}" hostname="tradebill-sandbox">`,
      '    <properties>',
      `      <property name="interface" value="${xml(op.interface)}"/>`,
      `      <property name="operation" value="${xml(op.operation)}"/>`,
      `      <property name="since" value="${xml(report.since)}"/>`,
      `      <property name="hits" value="${op.totals.hits}"/>`,
      '    </properties>',
      cases,
      '    <system-out/>',
      '    <system-err/>',
      '  </testsuite>',
    ].join('\n');
  });
  const t = report.totals;
  const user = report.userDefined;
  const unanswered = user.filter((u) => u.hits === 0).length;
  if (user.length > 0) suites.push(userDefinedSuite(user, report.operations.length, stamp, report.since));
  return junitDocument('tradebill-sandbox client coverage', { tests: t.outcomes + user.length, failures: 0, skipped: t.uncovered + unanswered }, suites);
}

const userDefinedName = (u: UserDefinedCoverage) => `${u.name ?? u.mapping} (${u.method} ${u.url ?? 'any URL'} -> ${u.status})`;

/** The user-defined operations: one testcase per mapping, skipped while it has answered nothing. */
function userDefinedSuite(user: readonly UserDefinedCoverage[], id: number, stamp: string, since: string): string {
  const cases = user.map((u) => {
    const attrs = `classname="${xml(`${u.interface ?? 'outside'}.user-defined${u.operation ? `.${u.operation}` : ''}`)}" name="${xml(`${u.mapping}: ${userDefinedName(u)}`)}" time="0"`;
    if (u.hits === 0) return `    <testcase ${attrs}>\n      <skipped message="${xml(`not answered since ${since}`)}"/>\n    </testcase>`;
    return `    <testcase ${attrs}>\n      <system-out>${xml(`hits ${u.hits}; first ${u.firstAt ?? '-'}; last ${u.lastAt ?? '-'}`)}</system-out>\n    </testcase>`;
  });
  return [
    `  <testsuite id="${id}" name="user-defined operations (stub mappings)" package="user-defined" tests="${user.length}" failures="0" errors="0" skipped="${user.filter((u) => u.hits === 0).length}" time="0" timestamp="${stamp}" hostname="tradebill-sandbox">`,
    ...cases,
    '  </testsuite>',
  ].join('\n');
}

const percent = (covered: number, total: number) => (total === 0 ? 100 : Math.floor((covered * 100) / total));

/** Uncovered first (what is left to exercise), then by catalog order. */
export function uncoveredFirst(outcomes: readonly OutcomeCoverage[]): OutcomeCoverage[] {
  return [...outcomes.filter((o) => o.hits === 0), ...outcomes.filter((o) => o.hits > 0)];
}

/** One line per operation: covered of total, answers counted. */
export function summaryMarkdown(report: CoverageReport): string {
  const rows = report.operations.map(
    (op) =>
      `| ${op.interface} | \`${op.operation}\` | ${op.totals.covered} of ${op.totals.outcomes} (${percent(op.totals.covered, op.totals.outcomes)}%) | ${op.totals.hits} |`,
  );
  const t = report.totals;
  return [
    '| interface | operation | outcomes covered | answers |',
    '| --- | --- | --- | --- |',
    ...rows,
    `| **all** | | **${t.covered} of ${t.outcomes} (${percent(t.covered, t.outcomes)}%)** | **${t.hits}** |`,
  ].join('\n');
}

export function toMarkdown(report: CoverageReport): string {
  const t = report.totals;
  const parts = [
    `## Client coverage of the documented behaviours`,
    '',
    `${t.covered} of ${plural(t.outcomes, 'outcome')} exercised (${percent(t.covered, t.outcomes)}%), ${plural(t.hits, 'answer')} counted since ${report.since}.`,
    '',
    summaryMarkdown(report),
  ];
  if (report.userDefined.length > 0) {
    parts.push(
      '',
      '### User-defined operations (stub mappings)',
      '',
      '| | mapping | interface | operation | answers with | hits | last |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...report.userDefined.map(
        (u) =>
          `| ${u.hits > 0 ? '✅' : '⬜'} | \`${u.mapping}\`${u.name ? ` ${cell(u.name)}` : ''} | ${u.interface ?? '–'} | ${u.operation ? `\`${u.operation}\`` : '–'} | ${u.method} \`${cell(u.url ?? 'any URL')}\` → ${u.status} | ${u.hits} | ${u.lastAt ?? '–'} |`,
      ),
    );
  }
  for (const op of report.operations) {
    parts.push(
      '',
      `### ${op.interface} · \`${op.operation}\` · ${op.method ?? '?'} \`${op.path ?? '?'}\``,
      '',
      '| | outcome | status | hits | first | last | what it is |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...uncoveredFirst(op.outcomes).map(
        (o) =>
          `| ${o.hits > 0 ? '✅' : '⬜'} | \`${o.id}\` | ${o.status} | ${o.hits} | ${o.firstAt ?? '–'} | ${o.lastAt ?? '–'} | ${cell(o.sentence)} |`,
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}
