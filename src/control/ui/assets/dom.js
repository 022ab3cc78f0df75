// @ts-check
// Building the page with text nodes only: everything shown comes from clients' requests, so nothing
// is ever parsed as HTML.

/** What h() and fill() accept as content: nodes, text, numbers, nothing, or lists of these. */
/** @typedef {Node | string | number | null | undefined | false | ChildList} Child */
/** @typedef {ReadonlyArray<Child>} ChildList */

/**
 * h('td', { class: 'x', 'data-uid': 'A' }, 'text', child, [more])
 * @param {string} tag
 * @param {Record<string, unknown> | null} [props]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === 'class') el.className = String(value);
    else if (key === 'text') el.textContent = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {ChildList} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces a container's content and marks it loaded.
 * @param {HTMLElement} container
 * @param {...Child} children
 */
export function fill(container, ...children) {
  container.replaceChildren();
  append(container, children);
  container.removeAttribute('aria-busy');
}

/**
 * A table with a caption, header cells (text, or { text, class }) and rows (arrays of cells or ready <tr> elements).
 * @param {string} caption
 * @param {ReadonlyArray<string | { text: string, class: string }>} headers
 * @param {ReadonlyArray<Node | ReadonlyArray<Child>>} rows
 * @param {Record<string, unknown>} [props]
 */
export function table(caption, headers, rows, props = {}) {
  return h(
    'table',
    props,
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h('tr', {}, headers.map((t) => (typeof t === 'string' ? h('th', { scope: 'col' }, t) : h('th', { scope: 'col', class: t.class }, t.text)))),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        r instanceof Node ? r : h('tr', {}, r.map((c) => (c instanceof HTMLElement && c.tagName === 'TD' ? c : h('td', {}, c)))),
      ),
    ),
  );
}

/** @param {number | null | undefined} n */
export const money = (n) => (typeof n === 'number' ? n.toFixed(2) : '—');

/** @param {string | null | undefined} iso */
export const when = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—');

/**
 * Pretty JSON for a <pre>.
 * @param {unknown} value
 */
export const json = (value) => JSON.stringify(value, null, 2) ?? 'null';
