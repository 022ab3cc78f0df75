// @ts-check
// The inspector's registry section: its default export draws it into #registry-body (app.js calls it).
import { api } from './api.js';
import { fill, h, money, table, when } from './dom.js';
import { $, badge, lazyDetails, LIST_MAX, paged, warningsList } from './page.js';

export default async function registry() {
  const { participants } = /** @type {{ participants: import('../types.js').ParticipantSummary[] }} */ (
    await api(`/registry/participants?limit=${LIST_MAX}`)
  );
  const views = /** @type {import('../types.js').ParticipantView[]} */ (
    await Promise.all(participants.map((p) => api(`/registry/participants/${encodeURIComponent(p.participantId)}`)))
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

/** @param {import('../types.js').ParticipantView} p */
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

/** @param {string} key */
async function batchView(key) {
  const b = /** @type {import('../types.js').BatchView} */ (await api(`/registry/batches/${encodeURIComponent(key)}`));
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

/** @param {string} key */
async function reconciliationView(key) {
  const r = /** @type {import('../types.js').ReconciliationView} */ (
    await api(`/registry/reconciliations/${encodeURIComponent(key)}`)
  );
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
