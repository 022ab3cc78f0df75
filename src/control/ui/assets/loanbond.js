// @ts-check
// The inspector's loan-bond section: its default export draws it into #loanbond-body (app.js calls it).
import { api } from './api.js';
import { fill, h, money, table, when } from './dom.js';
import { $, badge, lazyDetails, LIST_MAX, paged, warningsList } from './page.js';

export default async function loanbond() {
  const [{ registrations, total }, { count }] =
    /** @type {[{ registrations: import('../types.js').RegistrationSummary[], total: number }, { count: number }]} */ (
      await Promise.all([api(`/loanbond/registrations?limit=${LIST_MAX}`), api('/loanbond/documents')])
    );
  const { items: shown, pager: registrationsPager } = paged(
    'registrations',
    'Registrations',
    registrations.slice().reverse(),
    loanbond,
  );
  fill(
    $('loanbond-body'),
    h('p', {}, `${total} registration(s)${total > registrations.length ? ` (the first ${registrations.length} shown)` : ''}, ${count} distinct stored file(s).`),
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

/**
 * @param {string} title
 * @param {import('../types.js').Signatures} s
 */
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

/** @param {string} id */
async function registrationView(id) {
  const r = /** @type {import('../types.js').RegistrationDetail} */ (
    await api(`/loanbond/registrations/${encodeURIComponent(id)}`)
  );
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
