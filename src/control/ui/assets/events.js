// @ts-check
// The inspector's events section: the newest events of the feed (each opens on its data), and every
// subscription with its faults, counts and latest deliveries (each opens on its attempts).
import { api } from './api.js';
import { fill, h, json, table, when } from './dom.js';
import { $, badge, lazyDetails, PAGE } from './page.js';

/** @typedef {import('../types.js').SandboxEvent} SandboxEvent */
/** @typedef {import('../types.js').SubscriptionView} SubscriptionView */
/** @typedef {import('../types.js').Delivery} Delivery */

/** Deliveries shown per subscription. */
const DELIVERIES = 20;

/** @param {string} status */
const tone = (status) => (status === 'delivered' ? 'ok' : status === 'failed' ? 'error' : 'warning');

/** @param {SubscriptionView['faults']} f */
function faultsText(f) {
  const on = [
    f.duplicate ? 'duplicate' : '',
    f.delayMs > 0 ? `delay ${f.delayMs} ms` : '',
    f.outOfOrder ? 'out of order' : '',
    f.failFirst > 0 ? `first ${f.failFirst} attempt(s) failed` : '',
  ].filter(Boolean);
  return on.length === 0 ? 'none' : on.join(', ');
}

/** @param {Delivery} d */
function attempts(d) {
  if (d.error !== null) return h('p', {}, `No message was sent: ${d.error}`);
  if (d.attempts.length === 0)
    return h('p', {}, d.nextAttemptAt ? `No attempt yet; the first is due at ${when(d.nextAttemptAt)} (sandbox clock).` : 'No attempt yet.');
  return table(
    `Attempts of message ${d.webhookId}`,
    ['#', 'Sandbox time', 'Answer', 'Error', 'Fault', { text: 'ms', class: 'num' }],
    d.attempts.map((a) =>
      h(
        'tr',
        {},
        h('td', {}, `${a.n}${a.redelivery ? ' (redelivery)' : ''}`),
        h('td', {}, when(a.time)),
        h('td', {}, a.status === null ? 'none' : String(a.status)),
        h('td', {}, a.error ?? ''),
        h('td', {}, a.fault ?? ''),
        h('td', { class: 'num' }, String(a.durationMs)),
      ),
    ),
  );
}

/** @param {SubscriptionView} sub */
async function subscription(sub) {
  const { deliveries } = /** @type {{ deliveries: Delivery[] }} */ (
    await api(`/subscriptions/${encodeURIComponent(sub.id)}/deliveries?limit=${DELIVERIES}`)
  );
  const c = sub.deliveries;
  return h(
    'div',
    { class: 'block', 'data-subscription': sub.id },
    h('h4', {}, h('code', {}, sub.url)),
    h(
      'p',
      {},
      `${sub.id} · types ${sub.types.join(', ')} · faults: ${faultsText(sub.faults)} · `,
      `${c.delivered} delivered, ${c.pending} pending, ${c.failed} failed`,
      c.forgotten ? `, ${c.forgotten} no longer kept` : '',
    ),
    deliveries.length === 0
      ? h('p', {}, 'No delivery yet.')
      : h(
          'ol',
          { class: 'plain deliveries' },
          deliveries.map((d) =>
            h(
              'li',
              { 'data-delivery': d.id },
              lazyDetails(
                `delivery:${sub.id}:${d.id}`,
                [badge(d.status, tone(d.status)), ` event ${d.eventId} `, h('code', {}, d.type), ` · ${d.subject} · ${d.attempts.length} attempt(s)`],
                async () => attempts(d),
              ),
            ),
          ),
        ),
  );
}

export async function events() {
  const [feed, subs] = /** @type {[{ events: SandboxEvent[], next: string, capacity: number }, { subscriptions: SubscriptionView[] }]} */ (
    await Promise.all([api('/events'), api('/subscriptions')])
  );
  const newest = feed.events.slice(-PAGE).reverse();
  fill(
    $('events-body'),
    h('h3', {}, 'Feed'),
    h('p', { id: 'events-count' }, `${feed.events.length} event(s) held of ${feed.capacity}; the last id issued is ${feed.next}.`),
    newest.length === 0
      ? h('p', {}, 'No event since the last reset.')
      : h(
          'ol',
          { class: 'plain event-feed' },
          newest.map((e) =>
            h(
              'li',
              { 'data-event': e.id },
              lazyDetails(`event:${e.id}`, [`#${e.id} `, h('code', {}, e.type), ` · ${e.subject} · ${when(e.time)}`], async () =>
                h('pre', {}, json(e)),
              ),
            ),
          ),
        ),
    h('h3', {}, 'Subscriptions'),
    subs.subscriptions.length === 0
      ? h('p', {}, 'No subscription. POST /_sandbox/subscriptions {"url","types"} adds one.')
      : await Promise.all(subs.subscriptions.map(subscription)),
  );
}
