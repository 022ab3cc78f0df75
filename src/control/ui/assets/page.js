// @ts-check
// What every section of the inspector page shares: its state, paging, lazily filled <details>,
// badges, and how a failed call is shown.
import { AuthError } from './api.js';
import { fill, h } from './dom.js';

/** @typedef {import('./dom.js').Child} Child */

export const PAGE = 50;
/** The most items the control plane gives in one page of a list (the page lists at most that many). */
export const LIST_MAX = 1000;

export const state = {
  /** offset of the trade-bill page shown, per tenant @type {Map<string, number>} */
  billOffset: new Map(),
  /** offsets of lists paged in the page, by list @type {Map<string, number>} */
  offsets: new Map(),
  /** pages of the journal shown, each followed from the one before by its cursor */
  journalPages: 1,
  /** the import whose file is shown, and the first line of the page @type {string | null} */
  openImport: null,
  /** @type {number | null} */
  lineOffset: 0,
  /** <details> left open, by key, so a redraw keeps them open @type {Set<string>} */
  open: new Set(),
  signature: '',
};

/**
 * The page's element with this id (the page is static: a missing one is a bug of the page).
 * @param {string} id
 * @returns {HTMLElement}
 */
export const $ = (id) => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no element #${id}`);
  return el;
};

/** @param {string} text */
export function say(text) {
  $('status').textContent = text;
}

// --- lazily filled <details> ------------------------------------------------------------------------

/**
 * A <details> whose content is loaded when opened (and again on redraw while it stays open).
 * @param {string} key
 * @param {Child} summary
 * @param {() => Promise<Child>} load
 * @param {Record<string, unknown>} [props]
 */
export function lazyDetails(key, summary, load, props = {}) {
  const body = h('div', { class: 'details-body' });
  const el = /** @type {HTMLDetailsElement} */ (h('details', { ...props, 'data-key': key }, h('summary', {}, summary), body));
  const show = () =>
    load().then(
      (content) => fill(body, content),
      (err) => fill(body, h('p', { class: 'error' }, messageOf(err))),
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

/**
 * @param {string} label
 * @param {number} offset
 * @param {number} total
 * @param {(offset: number) => void} onMove
 */
export function pager(label, offset, total, onMove) {
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

/**
 * Client-side paging of a list already fetched: the page of `items` at the offset kept under `key`.
 * @template T
 * @param {string} key
 * @param {string} label
 * @param {T[]} items
 * @param {() => Promise<void>} redraw
 */
export function paged(key, label, items, redraw) {
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

/**
 * @param {string} text
 * @param {string} [kind]
 */
export const badge = (text, kind = text) => h('span', { class: `badge badge-${kind}` }, text);

/** @param {ReadonlyArray<{ path: string, rule?: string, message: string }>} warnings */
export function warningsList(warnings) {
  if (warnings.length === 0) return null;
  return h(
    'ul',
    { class: 'warnings' },
    warnings.map((w) => h('li', {}, h('code', {}, w.path), ` ${w.rule ? `(${w.rule}) ` : ''}${w.message}`)),
  );
}

// --- failures ---------------------------------------------------------------------------------------

/** @param {unknown} err */
export const messageOf = (err) => (err instanceof Error ? err.message : String(err));

/** @param {unknown} err */
export function handle(err) {
  if (err instanceof AuthError) {
    $('token-form').hidden = false;
  }
  say(messageOf(err));
}

/** @param {() => Promise<unknown>} fn */
export async function refreshSection(fn) {
  try {
    await fn();
  } catch (err) {
    handle(err);
  }
}
