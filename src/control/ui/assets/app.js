// The inspector page: reads the sandbox's state through /_sandbox and shows it section by section.
// Live: every two seconds it asks for the overview and the newest journal entry, and redraws the
// sections when either changed. Lists that can grow to thousands are paged.
import { AuthError, adoptTokenFromFragment, api, setToken } from './api.js';
import { fill, h, json, money, table, when } from './dom.js';

const PAGE = 50;
const LINES = 200;
const POLL_MS = 2000;

const state = {
  /** offset of the trade-bill page shown, per tenant */
  billOffset: new Map(),
  /** offsets of lists paged in the page, by list */
  offsets: new Map(),
  journalLimit: PAGE,
  /** the import whose file is shown, and the first line of the page */
  openImport: null,
  lineOffset: 0,
  /** <details> left open, by key, so a redraw keeps them open */
  open: new Set(),
  signature: '',
};

const $ = (id) => document.getElementById(id);

function say(text) {
  $('status').textContent = text;
}

// --- lazily filled <details> ------------------------------------------------------------------------

/** A <details> whose content is loaded when opened (and again on redraw while it stays open). */
function lazyDetails(key, summary, load, props = {}) {
  const body = h('div', { class: 'details-body' });
  const el = h('details', { ...props, 'data-key': key }, h('summary', {}, summary), body);
  const show = () =>
    load().then(
      (content) => fill(body, content),
      (err) => fill(body, h('p', { class: 'error' }, err.message)),
    );
  el.addEventListener('toggle', () => {
    if (el.open) {
      state.open.add(key);
      show();
    } else state.open.delete(key);
  });
  if (state.open.has(key)) el.open = true;
  return el;
}

function pager(label, offset, total, onMove) {
  if (total <= PAGE) return null;
  const last = Math.min(offset + PAGE, total);
  return h(
    'nav',
    { class: 'pager', 'aria-label': `${label} pages` },
    h('button', { type: 'button', disabled: offset === 0, onclick: () => onMove(Math.max(0, offset - PAGE)) }, 'Previous'),
    h('span', {}, `${label} ${offset + 1}–${last} of ${total}`),
    h('button', { type: 'button', disabled: last >= total, onclick: () => onMove(offset + PAGE) }, 'Next'),
  );
}

/** Client-side paging of a list already fetched: the page of `items` at the offset kept under `key`. */
function paged(key, label, items, redraw) {
  const total = items.length;
  let offset = state.offsets.get(key) ?? 0;
  if (offset >= total) offset = Math.max(0, Math.floor((total - 1) / PAGE) * PAGE);
  return {
    items: items.slice(offset, offset + PAGE),
    pager: pager(label, offset, total, (o) => {
      state.offsets.set(key, o);
      refreshSection(redraw);
    }),
  };
}

const badge = (text, kind = text) => h('span', { class: `badge badge-${kind}` }, text);

// --- overview ---------------------------------------------------------------------------------------

async function overview(data) {
  const c = data.clock;
  const counts = Object.entries(data.counts).map(([iface, kinds]) =>
    h(
      'div',
      { class: 'count-card' },
      h('h3', {}, iface === 'loanbond' ? 'loan-bond' : iface),
      h('dl', {}, Object.entries(kinds).map(([k, n]) => [h('dt', {}, k), h('dd', { 'data-count': `${iface}.${k}` }, n)])),
    ),
  );
  fill(
    $('overview-body'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Sandbox clock'),
      h(
        'dd',
        { id: 'clock-now' },
        when(c.now),
        c.offsetMs !== 0 ? ` (moved ${Math.round(c.offsetMs / 3_600_000)} h from real time)` : ' (real time)',
        c.frozen ? ', frozen' : '',
      ),
      h('dt', {}, 'Last reset'),
      h('dd', {}, data.lastReset ? when(data.lastReset) : 'never (state as loaded at start)'),
      h('dt', {}, 'Journal'),
      h('dd', {}, `${data.journal.count} of ${data.journal.capacity} requests kept`),
    ),
    h('div', { class: 'counts' }, counts),
    h('h3', {}, 'Warnings'),
    data.warnings.length === 0
      ? h('p', { class: 'ok' }, 'None.')
      : h('ul', { class: 'warnings' }, data.warnings.map((w) => h('li', {}, w))),
  );
}

// --- bookkeeping ------------------------------------------------------------------------------------

async function bookkeeping() {
  const { tenants } = await api('/bookkeeping/tenants');
  const parts = await Promise.all(tenants.map(tenantBlock));
  fill($('bookkeeping-body'), tenants.length === 0 ? h('p', {}, 'No tenants.') : parts);
}

async function tenantBlock(t) {
  const offset = state.billOffset.get(t.tenantId) ?? 0;
  const id = encodeURIComponent(t.tenantId);
  const page = await api(`/bookkeeping/tenants/${id}/trade-bills?offset=${offset}&limit=${PAGE}`);
  const rows = page.tradeBills.map((b) =>
    h(
      'tr',
      { 'data-uid': b.uid },
      h('th', { scope: 'row' }, b.uid),
      h('td', {}, badge(b.status)),
      h('td', { class: 'num' }, money(b.amount)),
      h('td', { class: 'num open-value' }, money(b.openValue)),
      h(
        'td',
        {},
        b.payments === 0
          ? 'none'
          : lazyDetails(`bill:${t.tenantId}:${b.uid}`, `${b.payments} payment${b.payments > 1 ? 's' : ''}`, () =>
              paymentHistory(id, b.uid),
            ),
      ),
    ),
  );
  return h(
    'div',
    { class: 'block', 'data-tenant': t.tenantId },
    h('h3', {}, `Tenant ${t.tenantId}`),
    h(
      'p',
      {},
      `user(s) ${t.userIds.join(', ') || 'none'} · ${t.extractRequests} extract requests · ${t.tradeBills} trade bills`,
    ),
    page.tradeBills.length === 0
      ? h('p', {}, 'No trade bills.')
      : table(`Trade bills of ${t.tenantId}`, ['UID', 'Status', { text: 'Amount', class: 'num' }, { text: 'Open value', class: 'num' }, 'Payment history'], rows),
    pager('Trade bills', offset, page.total ?? page.tradeBills.length, (o) => {
      state.billOffset.set(t.tenantId, o);
      refreshSection(bookkeeping);
    }),
  );
}

async function paymentHistory(tenant, uid) {
  const bill = await api(`/bookkeeping/tenants/${tenant}/trade-bills/${encodeURIComponent(uid)}`);
  return table(
    `Payments of ${uid}`,
    ['Recorded', 'Type', 'Partial', 'Value', 'Open before', 'Open after', 'Status after'],
    bill.payments.map((p) => [
      when(p.recordedAt),
      p.declaration.type,
      p.declaration.isPartial ? 'yes' : 'no',
      money(p.declaration.paymentValue),
      money(p.openValueBefore),
      money(p.openValueAfter),
      p.statusAfter,
    ]),
  );
}

// --- registry ---------------------------------------------------------------------------------------

async function registry() {
  const { participants } = await api('/registry/participants');
  const views = await Promise.all(
    participants.map((p) => api(`/registry/participants/${encodeURIComponent(p.participantId)}`)),
  );
  fill(
    $('registry-body'),
    participants.length === 0
      ? h('p', {}, 'No participants.')
      : table(
          'Participants',
          ['Participant', 'Documents', 'Reconciliation due by', 'Overdue'],
          participants.map((p) => [
            p.participantId,
            p.documentCount,
            when(p.reconciliationDueBy),
            p.overdue ? badge('overdue') : badge('no', 'ok'),
          ]),
        ),
    views.map(participantBlock),
  );
}

function participantBlock(p) {
  const batches = paged(`batches:${p.participantId}`, 'Batches', p.batches, registry);
  const reconciliations = paged(`recons:${p.participantId}`, 'Reconciliations', p.reconciliations, registry);
  return h(
    'div',
    { class: 'block' },
    h('h3', {}, `Participant ${p.participantId}`),
    h('h4', {}, 'Batches'),
    p.batches.length === 0
      ? h('p', {}, 'None registered.')
      : h(
          'ul',
          { class: 'plain' },
          batches.items.map((b) =>
            h(
              'li',
              {},
              lazyDetails(
                `batch:${b.chaveRemessa}`,
                `${b.chaveRemessa} · ${b.documentCount} document(s) · ${when(b.registeredAt)}`,
                () => batchView(b.chaveRemessa),
              ),
            ),
          ),
        ),
    batches.pager,
    h('h4', {}, 'Reconciliations'),
    p.reconciliations.length === 0
      ? h('p', {}, 'None yet.')
      : h(
          'ul',
          { class: 'plain' },
          reconciliations.items.map((r) =>
            h(
              'li',
              {},
              lazyDetails(
                `recon:${r.chaveConciliacao}`,
                `${r.chaveConciliacao} · ${r.itemCount} item(s) · ${when(r.reconciledAt)}`,
                () => reconciliationView(r.chaveConciliacao),
              ),
            ),
          ),
        ),
    reconciliations.pager,
  );
}

function warningsList(warnings) {
  if (warnings.length === 0) return null;
  return h(
    'ul',
    { class: 'warnings' },
    warnings.map((w) => h('li', {}, h('code', {}, w.path), ` ${w.rule ? `(${w.rule}) ` : ''}${w.message}`)),
  );
}

async function batchView(key) {
  const b = await api(`/registry/batches/${encodeURIComponent(key)}`);
  return [
    table(
      `Documents of ${key}`,
      ['#', 'chaveRegistro', 'numeroDuplicata', 'Amount', 'Due', 'Drawee'],
      b.documents.map((d) => [
        d.index,
        h('code', {}, d.chaveRegistro),
        d.document.numeroDuplicata ?? '—',
        money(d.document.valorDuplicata),
        d.document.dataVencimento ?? '—',
        d.document.cpfCnpjSacado ?? '—',
      ]),
    ),
    warningsList(b.warnings),
  ];
}

async function reconciliationView(key) {
  const r = await api(`/registry/reconciliations/${encodeURIComponent(key)}`);
  return [
    h('p', {}, `${r.counts.matched} matched · ${r.counts.diverging} diverging · ${r.counts.unknown} unknown`),
    table(
      `Items of ${key}`,
      ['#', 'chaveRegistro', 'Result', 'Message', 'Diverging fields'],
      r.items.map((i) => [
        i.index,
        i.chaveRegistro ?? '—',
        badge(i.result),
        i.message,
        i.divergences.map((d) => `${d.field}: held ${JSON.stringify(d.held)}, sent ${JSON.stringify(d.sent)}`).join('; ') ||
          '—',
      ]),
    ),
    warningsList(r.warnings),
  ];
}

// --- receivables ------------------------------------------------------------------------------------

async function receivables() {
  const { funds } = await api('/receivables/funds');
  const lists = await Promise.all(
    funds.filter((f) => f.imports > 0).map((f) => api(`/receivables/funds/${encodeURIComponent(f.fundCnpj)}/imports`)),
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

async function openImport(importId) {
  state.openImport = importId;
  state.lineOffset = null;
  try {
    await cnabViewer();
    $('cnab-viewer').focus();
  } catch (err) {
    handle(err);
  }
}

/** Splits a line at the diagnosed column ranges, marking them. */
function markedLine(text, diagnostics) {
  const ranges = diagnostics
    .filter((d) => d.columns)
    .map((d) => {
      const [a, b] = d.columns.split('-').map(Number);
      return { from: a - 1, to: b ?? a, d };
    })
    .sort((x, y) => x.from - y.from);
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
  const id = encodeURIComponent(state.openImport);
  const detail = await api(`/receivables/imports/${id}?titlesLimit=0`);
  const byLine = new Map();
  for (const d of detail.diagnostics) {
    if (d.line === null) continue;
    if (!byLine.has(d.line)) byLine.set(d.line, []);
    byLine.get(d.line).push(d);
  }
  if (state.lineOffset === null) {
    const first = detail.diagnostics.find((d) => d.line !== null);
    state.lineOffset = first ? Math.floor((first.line - 1) / LINES) * LINES : 0;
  }
  const page = await api(`/receivables/imports/${id}/lines?offset=${state.lineOffset}&limit=${LINES}`);
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
  const lastLine = state.lineOffset + page.lines.length;
  fill(
    $('cnab-viewer'),
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
              d.line === null ? null : h('button', { type: 'button', onclick: () => goTo(d.line) }, `Go to line ${d.line}`),
            ),
          ),
        ),
    page.lineCount > LINES
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'File lines' },
          h('button', { type: 'button', disabled: state.lineOffset === 0, onclick: () => goTo(state.lineOffset - LINES + 1) }, 'Previous lines'),
          h('span', {}, `lines ${state.lineOffset + 1}–${lastLine} of ${page.lineCount}`),
          h('button', { type: 'button', disabled: lastLine >= page.lineCount, onclick: () => goTo(lastLine + 1) }, 'Next lines'),
        )
      : null,
    h(
      'div',
      { class: 'scroll' },
      table(`The file, line by line (diagnosed columns marked, spaces shown as ·)`, ['Line', 'Content'], rows, { class: 'cnab' }),
    ),
    h('button', { type: 'button', onclick: () => ((state.openImport = null), fill($('cnab-viewer'))) }, 'Close the file'),
  );
}

// --- loan-bond --------------------------------------------------------------------------------------

async function loanbond() {
  const [{ registrations }, { count }] = await Promise.all([api('/loanbond/registrations'), api('/loanbond/documents')]);
  const { items: shown, pager: registrationsPager } = paged(
    'registrations',
    'Registrations',
    registrations.slice().reverse(),
    loanbond,
  );
  fill(
    $('loanbond-body'),
    h('p', {}, `${registrations.length} registration(s), ${count} distinct stored file(s).`),
    shown.length === 0
      ? null
      : h(
          'ul',
          { class: 'plain' },
          shown.map((r) =>
            h(
              'li',
              { 'data-registration': r.codigo_identificador },
              lazyDetails(
                `lb:${r.codigo_identificador}`,
                [
                  h('code', {}, r.codigo_identificador),
                  ` · ${r.nome_documento ?? 'no name'} · caller ${r.callerId} · assinado ${r.assinado ? 'true' : 'false'} · `,
                  badge(r.state),
                ],
                () => registrationView(r.codigo_identificador),
              ),
            ),
          ),
        ),
    registrationsPager,
  );
}

function signaturesBlock(title, s) {
  return [
    h('h5', {}, title),
    h('p', {}, s.imported ? badge('imported', 'ok') : badge('not imported', 'warning'), ` ${s.note}`),
    s.assinaturas.length === 0
      ? null
      : table(
          title,
          ['Signer', 'CPF/CNPJ', 'Signed at', 'Role'],
          s.assinaturas.map((a) => [a.nome_assinante ?? '—', a.cpf_cnpj ?? '—', a.data_assinatura ?? '—', a.papel ?? '—']),
        ),
  ];
}

async function registrationView(id) {
  const r = await api(`/loanbond/registrations/${encodeURIComponent(id)}`);
  return [
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'chave_registro'),
      h('dd', {}, h('code', {}, r.chave_registro)),
      h('dt', {}, 'Batch (codigo)'),
      h('dd', {}, h('code', {}, r.codigo)),
      h('dt', {}, 'Registered'),
      h('dd', {}, when(r.registeredAt)),
      h('dt', {}, 'End-of-flow notification'),
      h('dd', {}, `${r.notificacao.status}: ${r.notificacao.note}`),
    ),
    h('h5', {}, 'Signers'),
    r.assinantes.length === 0
      ? h('p', {}, 'None.')
      : table(
          `Signers of ${id}`,
          ['Name', 'CPF/CNPJ', 'Role', 'E-mail'],
          r.assinantes.map((s) => [s.nome ?? '—', s.cpf_cnpj ?? '—', s.papel ?? '—', s.email ?? '—']),
        ),
    signaturesBlock('Signatures (rule 7)', r.assinaturas),
    h('h5', {}, 'Documents'),
    table(
      `Documents of ${id}`,
      ['Document', 'Size (bytes)', 'SHA-256'],
      [
        [`${r.documento.nome ?? 'main document'} (main)`, r.documento.size, h('code', {}, r.documento.sha256.slice(0, 16) + '…')],
        ...r.documentos_adicionais.map((d) => [d.nome ?? 'additional', d.size, h('code', {}, d.sha256.slice(0, 16) + '…')]),
      ],
    ),
    r.parcelas.length === 0
      ? null
      : table(
          `Installments of ${id}`,
          ['#', 'Due', 'Value'],
          r.parcelas.map((p) => [p.numero ?? '—', p.data_vencimento ?? '—', money(p.valor)]),
        ),
    warningsList(r.warnings),
  ];
}

// --- coverage ---------------------------------------------------------------------------------------

const IFACE_NAMES = { bookkeeping: 'Bookkeeping', registry: 'Registry', receivables: 'Receivables', loanbond: 'Loan-bond' };

/** Uncovered first (what is left to exercise), then in catalog order. */
const uncoveredFirst = (outcomes) => [...outcomes.filter((o) => o.hits === 0), ...outcomes.filter((o) => o.hits > 0)];

async function coverage() {
  const report = await api('/coverage');
  const byInterface = new Map();
  for (const op of report.operations) {
    if (!byInterface.has(op.interface)) byInterface.set(op.interface, []);
    byInterface.get(op.interface).push(op);
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
  );
}

// --- journal ----------------------------------------------------------------------------------------

async function journal() {
  const data = await api(`/requests?limit=${state.journalLimit}`);
  fill(
    $('journal-body'),
    h('p', {}, `Showing ${data.entries.length} of ${data.count} kept (capacity ${data.capacity}).`),
    h(
      'ol',
      { class: 'journal plain' },
      data.entries.map((e) =>
        h(
          'li',
          { 'data-entry': e.id },
          lazyDetails(
            `req:${e.id}`,
            [
              badge(String(e.status), e.status >= 500 ? 'error' : e.status >= 400 ? 'warning' : 'ok'),
              ` ${e.method} `,
              h('code', {}, e.path),
              ` · ${e.operation ?? e.interface ?? 'outside the interfaces'} · ${when(e.time)}`,
              e.warnings ? ` · ${e.warnings} warning(s)` : '',
            ],
            async () => [
              h('p', {}, `#${e.id} · ${e.durationMs} ms${e.fault ? ` · fault rule ${e.fault}` : ''} · real time ${when(e.realTime)}`),
              e.outcome ? h('p', {}, 'Outcome: ', h('code', {}, e.outcome)) : null,
              e.query && Object.keys(e.query).length ? [h('h5', {}, 'Query'), h('pre', {}, json(e.query))] : null,
              h('h5', {}, 'Request body (redacted)'),
              h('pre', {}, json(e.requestBody)),
              h('h5', {}, 'Response body (redacted)'),
              h('pre', {}, json(e.responseBody)),
            ],
          ),
        ),
      ),
    ),
    data.entries.length < data.count
      ? h('button', { type: 'button', onclick: () => ((state.journalLimit += PAGE), refreshSection(journal)) }, `Show ${PAGE} more`)
      : null,
  );
}

// --- refreshing -------------------------------------------------------------------------------------

function handle(err) {
  if (err instanceof AuthError) {
    $('token-form').hidden = false;
    say(err.message);
    return;
  }
  say(err.message);
}

async function refreshSection(fn) {
  try {
    await fn();
  } catch (err) {
    handle(err);
  }
}

async function refreshAll() {
  const data = await api('/overview');
  await Promise.all([overview(data), bookkeeping(), registry(), receivables(), loanbond(), coverage(), journal()]);
  return data;
}

const signatureOf = (data, newest) =>
  JSON.stringify([newest, data.counts, data.warnings, data.lastReset, data.clock.offsetMs, data.clock.frozen]);

async function poll() {
  if ($('live').checked && document.visibilityState === 'visible') {
    try {
      const [data, latest] = await Promise.all([api('/overview'), api('/requests?limit=1')]);
      const sig = signatureOf(data, latest.entries[0]?.id ?? null);
      if (sig !== state.signature) {
        state.signature = sig;
        await refreshAll();
        say(`Updated at ${new Date().toLocaleTimeString()}`);
      } else overview(data);
    } catch (err) {
      handle(err);
    }
  }
  setTimeout(poll, POLL_MS);
}

async function act(label, fn) {
  const out = $('action-result');
  out.textContent = `${label}…`;
  try {
    out.textContent = await fn();
    await refreshAll();
  } catch (err) {
    handle(err);
    out.textContent = `${label} failed: ${err.message}`;
  }
}

function wire() {
  $('refresh').addEventListener('click', () => act('Refreshing', async () => 'Refreshed.'));
  $('reset-demo').addEventListener('click', () =>
    act('Resetting', async () => {
      const r = await api('/reset', { method: 'POST', body: { fixtures: 'default' } });
      state.openImport = null;
      state.billOffset.clear();
      state.offsets.clear();
      state.open.clear();
      return `Reset done; loaded ${json(r.loaded).replace(/\s+/g, ' ')}`;
    }),
  );
  $('clock-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const advance = $('clock-advance').value.trim();
    act('Moving the clock', async () => {
      const c = await api('/clock', { method: 'POST', body: { advance } });
      return `The sandbox clock now reads ${when(c.now)}.`;
    });
  });
  $('run-work').addEventListener('click', () =>
    act('Running pending processing', async () => {
      const r = await api('/work/run', { method: 'POST' });
      const done = Object.entries(r.processed).map(([k, n]) => `${k}: ${n}`).join(', ') || 'nothing pending';
      return `Processed ${done}; ${r.errors} error(s).`;
    }),
  );
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setToken($('token-input').value);
    $('token-input').value = '';
    $('token-form').hidden = true;
    act('Loading with the token', async () => 'Token saved for this tab.');
  });
}

adoptTokenFromFragment();
wire();
poll();
