// @ts-check
// The inspector page: reads the sandbox's state through /_sandbox and shows it section by section.
// The overview names the emulated interfaces in order; each gets a section drawn by the panel script
// its module names (loaded once, by dynamic import), or its counts when it has none. Live: every two
// seconds it asks for the overview and the newest journal entry, and redraws the sections when either
// changed. Lists that can grow to thousands are paged.
import { adoptTokenFromFragment, api, hasToken, openWithToken, setToken } from './api.js';
import { coverage } from './coverage.js';
import { fill, h, json, when } from './dom.js';
import { events } from './events.js';
import { $, badge, handle, lazyDetails, messageOf, PAGE, refreshSection, say, state } from './page.js';
import { workspacePicker } from './workspaces.js';

/** @typedef {import('../types.js').Overview} Overview */
/** @typedef {import('../types.js').JournalList} JournalList */

const POLL_MS = 2000;

/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ ($(id));

// --- overview ---------------------------------------------------------------------------------------

/** @param {Overview} data */
async function overview(data) {
  const c = data.clock;
  const titles = new Map(data.interfaces.map((i) => [i.id, i.title]));
  const counts = Object.entries(data.counts).map(([iface, kinds]) =>
    h(
      'div',
      { class: 'count-card' },
      h('h3', {}, (titles.get(iface) ?? iface).toLowerCase()),
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
      h('dt', {}, 'Events'),
      h('dd', {}, `${data.events.count} of ${data.events.capacity} kept, last id ${data.events.lastId}; ${data.events.waiting} wait(s) under way`),
      h('dt', {}, 'Subscriptions'),
      h(
        'dd',
        {},
        `${data.subscriptions.count}: ${data.subscriptions.delivered} delivered, ${data.subscriptions.pending} pending, ${data.subscriptions.failed} failed`,
      ),
    ),
    h('div', { class: 'counts' }, counts),
    h('h3', {}, 'Warnings'),
    data.warnings.length === 0
      ? h('p', { class: 'ok' }, 'None.')
      : h('ul', { class: 'warnings' }, data.warnings.map((w) => h('li', {}, w))),
  );
}

// --- the interfaces' sections -----------------------------------------------------------------------

/** The draw function of each interface's section, by id, once its section exists. @type {Map<string, (data: Overview) => Promise<void>>} */
const sections = new Map();

/**
 * Makes the section of every interface the overview names and not yet shown, with its link in the
 * navigation, and loads the script that draws it.
 * @param {Overview} data
 */
async function ensureSections(data) {
  for (const { id, title, panel } of data.interfaces) {
    if (sections.has(id)) continue;
    $('interface-sections').append(
      h(
        'section',
        { id, 'aria-labelledby': `${id}-h` },
        h('h2', { id: `${id}-h` }, title),
        h('div', { id: `${id}-body`, class: 'body', 'aria-busy': 'true' }, 'Loading…'),
      ),
    );
    $('nav-coverage').before(h('li', {}, h('a', { href: `#${id}` }, title)));
    if (panel) {
      const module = /** @type {{ default: () => Promise<void> }} */ (await import(`./${panel}`));
      sections.set(id, module.default);
    } else sections.set(id, (overviewData) => countsOnly(id, overviewData));
  }
}

/**
 * The section of an interface without a panel script: its rows per table, and where to read more.
 * @param {string} id
 * @param {Overview} data
 */
async function countsOnly(id, data) {
  const kinds = Object.entries(data.counts[id] ?? {});
  fill(
    $(`${id}-body`),
    kinds.length === 0
      ? h('p', {}, 'Nothing stored.')
      : h('dl', {}, kinds.map(([k, n]) => [h('dt', {}, k), h('dd', {}, n)])),
    h('p', { class: 'hint' }, 'Its inspection calls are under ', h('code', {}, `/_sandbox/${id}/`), ' (see /docs).'),
  );
}

// --- journal ----------------------------------------------------------------------------------------

async function journal() {
  // Pages followed by their cursor: a page ends at its byte budget as well as at its limit, so
  // asking for a larger limit would not show more of a journal of large entries.
  let data = /** @type {JournalList} */ (await api(`/requests?limit=${PAGE}`));
  const entries = [...data.entries];
  for (let page = 1; page < state.journalPages && data.nextCursor; page++) {
    data = /** @type {JournalList} */ (await api(`/requests?limit=${PAGE}&cursor=${encodeURIComponent(data.nextCursor)}`));
    entries.push(...data.entries);
  }
  fill(
    $('journal-body'),
    h('p', {}, `Showing ${entries.length} of ${data.count} kept (capacity ${data.capacity}).`),
    h(
      'ol',
      { class: 'journal plain' },
      entries.map((e) =>
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
              e.mapping ? [' · mapping ', h('code', { 'data-mapping': e.mapping }, e.mapping)] : '',
              e.upstream ? ` · from ${e.upstream}` : '',
            ],
            async () => [
              h('p', {}, `#${e.id} · ${e.durationMs} ms${e.fault ? ` · fault rule ${e.fault}` : ''} · real time ${when(e.realTime)}`),
              e.outcome ? h('p', {}, 'Outcome: ', h('code', {}, e.outcome)) : null,
              h('h5', {}, 'Sent'),
              h('pre', {}, [e.requestLine, ...(e.headers ?? []).map((x) => `${x.name}: ${x.value}`)].join('\n')),
              e.query && Object.keys(e.query).length ? [h('h5', {}, 'Query as understood'), h('pre', {}, json(e.query))] : null,
              h('h5', {}, 'Request body (redacted)'),
              h('pre', {}, json(e.requestBody)),
              h('h5', {}, 'Response body (redacted)'),
              h('pre', {}, json(e.responseBody)),
            ],
          ),
        ),
      ),
    ),
    data.nextCursor
      ? h('button', { type: 'button', onclick: () => ((state.journalPages += 1), refreshSection(journal)) }, 'Show more')
      : null,
  );
}

// --- refreshing -------------------------------------------------------------------------------------

async function refreshAll() {
  const data = /** @type {Overview} */ (await api('/overview'));
  await ensureSections(data);
  await Promise.all([overview(data), ...[...sections.values()].map((draw) => draw(data)), coverage(), events(), journal(), workspacePicker()]);
  return data;
}

/**
 * @param {Overview} data
 * @param {number | null} newest
 */
const signatureOf = (data, newest) =>
  JSON.stringify([
    newest,
    data.counts,
    data.warnings,
    data.lastReset,
    data.clock.offsetMs,
    data.clock.frozen,
    data.events.lastId,
    data.subscriptions,
  ]);

async function poll() {
  if (input('live').checked && document.visibilityState === 'visible') {
    try {
      const [data, latest] = /** @type {[Overview, JournalList]} */ (
        await Promise.all([api('/overview'), api('/requests?limit=1')])
      );
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

/**
 * @param {string} label
 * @param {() => Promise<string>} fn
 */
async function act(label, fn) {
  const out = $('action-result');
  out.textContent = `${label}…`;
  try {
    out.textContent = await fn();
    await refreshAll();
  } catch (err) {
    handle(err);
    out.textContent = `${label} failed: ${messageOf(err)}`;
  }
}

function wire() {
  $('refresh').addEventListener('click', () => act('Refreshing', async () => 'Refreshed.'));
  $('reset-demo').addEventListener('click', () =>
    act('Resetting', async () => {
      const r = /** @type {{ loaded: unknown }} */ (await api('/reset', { method: 'POST', body: { fixtures: 'default' } }));
      state.openImport = null;
      state.billOffset.clear();
      state.offsets.clear();
      state.open.clear();
      return `Reset done; loaded ${json(r.loaded).replace(/\s+/g, ' ')}`;
    }),
  );
  $('clock-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const advance = input('clock-advance').value.trim();
    act('Moving the clock', async () => {
      const c = /** @type {{ now: string }} */ (await api('/clock', { method: 'POST', body: { advance } }));
      return `The sandbox clock now reads ${when(c.now)}.`;
    });
  });
  $('run-work').addEventListener('click', () =>
    act('Running pending processing', async () => {
      const r = /** @type {{ processed: Record<string, number>, errors: number }} */ (
        await api('/work/run', { method: 'POST' })
      );
      const done = Object.entries(r.processed).map(([k, n]) => `${k}: ${n}`).join(', ') || 'nothing pending';
      return `Processed ${done}; ${r.errors} error(s).`;
    }),
  );
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setToken(input('token-input').value);
    input('token-input').value = '';
    $('token-form').hidden = true;
    act('Loading with the token', async () => 'Token saved for this tab.');
  });
}

adoptTokenFromFragment();
// The data links are relative to this workspace's page: each shows the address it opens. With an
// admin token a followed link would be a 401 (it carries no header): the click fetches with it instead.
for (const a of document.querySelectorAll('a.api-link')) {
  if (!(a instanceof HTMLAnchorElement)) continue;
  a.textContent = a.pathname + a.search;
  a.addEventListener('click', (event) => {
    if (!hasToken()) return;
    event.preventDefault();
    // Opened while the click is still a user's gesture; the data fills it once fetched.
    const tab = window.open('', '_blank');
    void act(`Opening ${a.pathname + a.search}`, () => openWithToken(a.href, tab));
  });
}
wire();
poll();