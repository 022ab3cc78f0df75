// @ts-check
// The inspector's client-coverage section: every outcome of the documented operations, per interface,
// the ones not met yet first (what is left to exercise).
import { api } from './api.js';
import { fill, h, table, when } from './dom.js';
import { $, badge } from './page.js';

/** @typedef {import('../types.js').CoverageReport} CoverageReport */
/** @typedef {import('../types.js').OperationCoverage} OperationCoverage */
/** @typedef {import('../types.js').OutcomeCoverage} OutcomeCoverage */

/** @type {Record<string, string>} */
const IFACE_NAMES = { bookkeeping: 'Bookkeeping', registry: 'Registry', receivables: 'Receivables', loanbond: 'Loan-bond' };

/**
 * Uncovered first, then in catalog order.
 * @param {OutcomeCoverage[]} outcomes
 */
const uncoveredFirst = (outcomes) => [...outcomes.filter((o) => o.hits === 0), ...outcomes.filter((o) => o.hits > 0)];

export async function coverage() {
  const report = /** @type {CoverageReport} */ (await api('/coverage'));
  /** @type {Map<string, OperationCoverage[]>} */
  const byInterface = new Map();
  for (const op of report.operations) {
    const ops = byInterface.get(op.interface) ?? [];
    ops.push(op);
    byInterface.set(op.interface, ops);
  }
  const t = report.totals;
  fill(
    $('coverage-body'),
    h('p', { id: 'coverage-totals' }, `${t.covered} of ${t.outcomes} outcomes met, ${t.hits} answers counted since ${when(report.since)}.`),
    [...byInterface.entries()].map(([iface, ops]) => {
      const covered = ops.reduce((n, op) => n + op.totals.covered, 0);
      const total = ops.reduce((n, op) => n + op.totals.outcomes, 0);
      return h(
        'div',
        { class: 'block', 'data-coverage': iface },
        h('h3', {}, `${IFACE_NAMES[iface] ?? iface}: ${covered} of ${total} outcomes met`),
        ops.map((op) =>
          table(
            `${op.operation} (${op.method} ${op.path}): ${op.totals.covered} of ${op.totals.outcomes}`,
            ['Outcome', 'Status', { text: 'Hits', class: 'num' }, 'Last', 'What it is'],
            uncoveredFirst(op.outcomes).map((o) =>
              h(
                'tr',
                { 'data-outcome': o.id, class: o.hits === 0 ? 'uncovered' : 'covered' },
                h('th', { scope: 'row' }, h('code', {}, o.id.slice(op.operation.length + 1))),
                h('td', {}, String(o.status)),
                h('td', { class: 'num' }, o.hits === 0 ? badge('not met', 'warning') : String(o.hits)),
                h('td', {}, when(o.lastAt)),
                h('td', {}, o.sentence),
              ),
            ),
          ),
        ),
      );
    }),
    report.userDefined.length === 0
      ? null
      : h(
          'div',
          { class: 'block', 'data-coverage': 'user-defined' },
          h('h3', {}, `User-defined operations: ${report.userDefined.filter((u) => u.hits > 0).length} of ${report.userDefined.length} mappings answered`),
          table(
            'Stub mappings of this workspace (GET /_sandbox/stubs)',
            ['Mapping', 'Operation', 'Answers with', { text: 'Hits', class: 'num' }, 'Last'],
            report.userDefined.map((u) =>
              h(
                'tr',
                { 'data-mapping': u.mapping, class: u.hits === 0 ? 'uncovered' : 'covered' },
                h('th', { scope: 'row' }, h('code', {}, u.mapping), u.name ? ` ${u.name}` : ''),
                h('td', {}, u.operation ?? u.interface ?? 'outside the interfaces'),
                h('td', {}, `${u.method} ${u.url ?? 'any URL'} → ${u.status}`),
                h('td', { class: 'num' }, u.hits === 0 ? badge('not met', 'warning') : String(u.hits)),
                h('td', {}, when(u.lastAt)),
              ),
            ),
          ),
        ),
  );
}
