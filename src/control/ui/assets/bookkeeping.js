// @ts-check
// The inspector's bookkeeping section: its default export draws it into #bookkeeping-body (app.js calls it).
import { api } from './api.js';
import { fill, h, money, table, when } from './dom.js';
import { $, badge, lazyDetails, LIST_MAX, PAGE, pager, refreshSection, state } from './page.js';

/** @typedef {import('../types.js').Tenant} Tenant */

export default async function bookkeeping() {
  const { tenants } = /** @type {{ tenants: Tenant[] }} */ (await api(`/bookkeeping/tenants?limit=${LIST_MAX}`));
  const parts = await Promise.all(tenants.map(tenantBlock));
  fill($('bookkeeping-body'), tenants.length === 0 ? h('p', {}, 'No tenants.') : parts);
}

/** @param {Tenant} t */
async function tenantBlock(t) {
  const offset = state.billOffset.get(t.tenantId) ?? 0;
  const id = encodeURIComponent(t.tenantId);
  const page = /** @type {import('../types.js').TradeBillPage} */ (
    await api(`/bookkeeping/tenants/${id}/trade-bills?offset=${offset}&limit=${PAGE}`)
  );
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

/**
 * @param {string} tenant the tenant id, already encoded for a path
 * @param {string} uid
 */
async function paymentHistory(tenant, uid) {
  const bill = /** @type {import('../types.js').TradeBillDetail} */ (
    await api(`/bookkeeping/tenants/${tenant}/trade-bills/${encodeURIComponent(uid)}`)
  );
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
