// @ts-check
// Calls to the /_sandbox API. When the sandbox has an admin token, the page keeps it in this tab's
// sessionStorage (never in a URL sent to the server) and sends it as the Sandbox-Admin-Token header.
const KEY = 'tradebill-sandbox-admin-token';

/**
 * The workspace this page shows: /ws/{name}/_sandbox/ui shows {name}, /_sandbox/ui the default one.
 * The server served the page, so the name already keeps the rule (runtime/workspaces.ts).
 */
const PREFIX = /^\/ws\/([^/]+)\/_sandbox\//.exec(location.pathname);
export const WORKSPACE = PREFIX?.[1] ?? 'default';
const BASE = PREFIX ? `/ws/${WORKSPACE}` : '';

export class AuthError extends Error {}

/** #adminToken=... in the address (never sent to the server): adopt it, then drop it from the address bar. */
export function adoptTokenFromFragment() {
  const match = /(?:^#|&)adminToken=([^&]*)/.exec(location.hash);
  if (!match) return;
  setToken(decodeURIComponent(match[1] ?? ''));
  history.replaceState(null, '', location.pathname + location.search);
}

/** @param {string} token */
export function setToken(token) {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

/** Whether this tab holds an admin token. */
export function hasToken() {
  return Boolean(sessionStorage.getItem(KEY));
}

/**
 * Opens a data link of the page (an address under this workspace's /_sandbox) in `tab` when the sandbox
 * has an admin token: a browser following a link sends no header, so the page fetches the data with
 * Sandbox-Admin-Token and shows what came, with the type the server gave, from a blob: address.
 * @param {string} url
 * @param {Window | null} tab a tab opened on the click (a popup blocker may have refused it: then this one)
 */
export async function openWithToken(url, tab) {
  const token = sessionStorage.getItem(KEY) ?? '';
  const res = await fetch(url, { headers: { 'sandbox-admin-token': token } });
  if (res.status === 401) {
    tab?.close();
    throw new AuthError(await res.text());
  }
  const blob = new Blob([await res.arrayBuffer()], { type: res.headers.get('content-type') ?? 'text/plain' });
  const address = URL.createObjectURL(blob);
  if (tab) tab.location.href = address;
  else location.assign(address);
  return `Opened ${new URL(url).pathname}${new URL(url).search} (${res.status}).`;
}

/**
 * GET (or method) /_sandbox + path in this page's workspace (`server`: the sandbox-wide call, without
 * the workspace prefix); answers the parsed JSON body, throws with the server's message.
 * The caller names the body's type (types.d.ts), as the /_sandbox API documents it.
 * @param {string} path
 * @param {{ method?: string, body?: unknown, server?: boolean }} [options]
 * @returns {Promise<unknown>}
 */
export async function api(path, { method = 'GET', body, server = false } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  const token = sessionStorage.getItem(KEY);
  if (token) headers['sandbox-admin-token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const url = `${server ? '' : BASE}/_sandbox${path}`;
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  /** @type {unknown} */
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  const said = typeof data === 'object' && data !== null ? /** @type {{ message?: unknown }} */ (data).message : undefined;
  const message = typeof said === 'string' ? said : text;
  if (res.status === 401) throw new AuthError(message);
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${message}`);
  return data;
}
