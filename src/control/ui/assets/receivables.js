// @ts-check
// The inspector's receivables section (CNAB imports and the file viewer): its default export draws it
// into #receivables-body (app.js calls it).
import { api } from './api.js';
import { fill, h, table, when } from './dom.js';
import { $, badge, handle, LIST_MAX, paged, state } from './page.js';

/** @typedef {import('../types.js').Diagnostic} Diagnostic */

const LINES = 200;

/** The file viewer below the section's body, made on first use. */
function viewer() {
  const made = document.getElementById('cnab-viewer');
  if (made) return made;
  const el = h('div', { id: 'cnab-viewer', class: 'body', tabindex: '-1' });
  $('receivables-body').after(el);
  return el;
}

export default async function receivables() {
  const { funds } = /** @type {{ funds: import('../types.js').Fund[] }} */ (await api(`/receivables/funds?limit=${LIST_MAX}`));
  const lists = /** @type {Array<{ imports: import('../types.js').ImportSummary[] }>} */ (
    await Promise.all(
      funds
        .filter((f) => f.imports > 0)
        .map((f) => api(`/receivables/funds/${encodeURIComponent(f.fundCnpj)}/imports?limit=${LIST_MAX}`)),
    )
  );
  const all = lists.flatMap((l) => l.imports).sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
  const { items: imports, pager: importsPager } = paged('imports', 'Imports', all, receivables);
  fill(
    $('receivables-body'),
    h('p', {}, `Funds: ${funds.map((f) => `${f.fundCnpj}${f.hasToken ? '' : ' (no token)'}`).join(', ') || 'none'}`),
    imports.length === 0
      ? h('p', {}, 'No CNAB imports yet.')
      : table(
          'CNAB imports, newest first',
          ['Import', 'File', 'Received', 'Status', 'Layout', 'Titles', 'Errors', 'Warnings', 'File view'],
          imports.map((i) =>
            h(
              'tr',
              { 'data-import': i.importId },
              h('th', { scope: 'row' }, h('code', {}, i.importId)),
              h('td', {}, i.fileName),
              h('td', {}, when(i.receivedAt)),
              h('td', {}, badge(i.status)),
              h('td', {}, i.layout ?? '—'),
              h('td', {}, i.titleCount ?? '—'),
              h('td', {}, i.errorCount ?? '—'),
              h('td', {}, i.warningCount ?? '—'),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-controls': 'cnab-viewer',
                    'aria-pressed': state.openImport === i.importId ? 'true' : 'false',
                    onclick: () => openImport(i.importId),
                  },
                  `Show ${i.fileName}`,
                ),
              ),
            ),
          ),
        ),
    importsPager,
  );
  if (state.openImport) await cnabViewer();
}

/** @param {string} importId */
async function openImport(importId) {
  state.openImport = importId;
  state.lineOffset = null;
  try {
    await cnabViewer();
    viewer().focus();
  } catch (err) {
    handle(err);
  }
}

/** Splits a line at the diagnosed column ranges, marking them. */
/**
 * @param {string} text
 * @param {Diagnostic[]} diagnostics
 */
function markedLine(text, diagnostics) {
  const ranges = diagnostics
    .flatMap((d) => {
      if (!d.columns) return [];
      const [a = 0, b] = d.columns.split('-').map(Number);
      return [{ from: a - 1, to: b ?? a, d }];
    })
    .sort((x, y) => x.from - y.from);
  /** @type {Array<string | HTMLElement>} */
  const out = [];
  let at = 0;
  for (const r of ranges) {
    if (r.from < at) continue;
    if (r.from > at) out.push(text.slice(at, r.from));
    out.push(
      h('mark', { class: `m-${r.d.severity}`, title: `${r.d.rule}: ${r.d.message}` }, text.slice(r.from, r.to).replaceAll(' ', '·')),
    );
    at = r.to;
  }
  out.push(text.slice(at));
  return out;
}

async function cnabViewer() {
  if (state.openImport === null) return;
  const id = encodeURIComponent(state.openImport);
  const detail = /** @type {import('../types.js').ImportDetail} */ (await api(`/receivables/imports/${id}?titlesLimit=0`));
  /** @type {Map<number, Diagnostic[]>} */
  const byLine = new Map();
  for (const d of detail.diagnostics) {
    if (d.line === null) continue;
    const list = byLine.get(d.line) ?? [];
    list.push(d);
    byLine.set(d.line, list);
  }
  if (state.lineOffset === null) {
    const first = detail.diagnostics.find((d) => d.line !== null)?.line;
    state.lineOffset = typeof first === 'number' ? Math.floor((first - 1) / LINES) * LINES : 0;
  }
  const offset = state.lineOffset;
  const page = /** @type {import('../types.js').FileLines} */ (
    await api(`/receivables/imports/${id}/lines?offset=${offset}&limit=${LINES}`)
  );
  /** @param {number} line */
  const goTo = (line) => {
    state.lineOffset = Math.floor((line - 1) / LINES) * LINES;
    cnabViewer().then(() => document.getElementById(`cnab-line-${line}`)?.focus(), handle);
  };
  const rows = page.lines.flatMap((l) => {
    const diags = byLine.get(l.line) ?? [];
    const severity = diags.some((d) => d.severity === 'error') ? 'error' : diags.length ? 'warning' : null;
    const row = h(
      'tr',
      { id: `cnab-line-${l.line}`, tabindex: diags.length ? '-1' : null, class: severity ? `diag diag-${severity}` : null, 'data-line': l.line },
      h('th', { scope: 'row', class: 'num' }, l.line),
      h('td', {}, h('code', { class: 'cnab-text' }, markedLine(l.text, diags))),
    );
    if (!diags.length) return [row];
    return [
      row,
      h(
        'tr',
        { class: `diag-note diag-${severity}` },
        h('td', {}, ''),
        h(
          'td',
          {},
          h('ul', { class: 'plain' }, diags.map((d) => h('li', {}, `${d.severity} · columns ${d.columns ?? 'whole line'} · ${d.rule}: ${d.message}`))),
        ),
      ),
    ];
  });
  const lastLine = offset + page.lines.length;
  fill(
    viewer(),
    h('h3', {}, `File ${detail.fileName} (import ${detail.importId})`),
    h(
      'p',
      {},
      badge(detail.status),
      ` ${detail.layout ?? 'layout not read'} · ${detail.lineCount} lines · ${detail.titleCount ?? 0} titles · `,
      `${detail.errorCount ?? 0} errors · ${detail.warningCount ?? 0} warnings`,
    ),
    detail.diagnostics.length === 0
      ? h('p', { class: 'ok' }, 'No diagnostics.')
      : h(
          'ul',
          { class: 'diagnostics' },
          detail.diagnostics.map((d) =>
            h(
              'li',
              { class: `diag-${d.severity}` },
              `${d.severity}: ${d.line === null ? 'file' : `line ${d.line}`}${d.columns ? `, columns ${d.columns}` : ''} · ${d.rule} · ${d.message} `,
              d.line === null ? null : h('button', { type: 'button', onclick: () => goTo(/** @type {number} */ (d.line)) }, `Go to line ${d.line}`),
            ),
          ),
        ),
    page.lineCount > LINES
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'File lines' },
          h('button', { type: 'button', disabled: offset === 0, onclick: () => goTo(offset - LINES + 1) }, 'Previous lines'),
          h('span', {}, `lines ${offset + 1}–${lastLine} of ${page.lineCount}`),
          h('button', { type: 'button', disabled: lastLine >= page.lineCount, onclick: () => goTo(lastLine + 1) }, 'Next lines'),
        )
      : null,
    h(
      'div',
      { class: 'scroll' },
      table(`The file, line by line (diagnosed columns marked, spaces shown as ·)`, ['Line', 'Content'], rows, { class: 'cnab' }),
    ),
    h('button', { type: 'button', onclick: () => ((state.openImport = null), fill(viewer())) }, 'Close the file'),
  );
}
