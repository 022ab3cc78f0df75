// @ts-check
// Calls to the /_sandbox API. When the sandbox has an admin token, the page keeps it in this tab's
// sessionStorage (never in a URL sent to the server) and sends it as the Sandbox-Admin-Token header.
const KEY = 'tradebill-sandbox-admin-token';

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

/**
 * GET (or method) /_sandbox + path; answers the parsed JSON body, throws with the server's message.
 * The caller names the body's type (types.d.ts), as the /_sandbox API documents it.
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [options]
 * @returns {Promise<unknown>}
 */
export async function api(path, { method = 'GET', body } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  const token = sessionStorage.getItem(KEY);
  if (token) headers['sandbox-admin-token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/_sandbox${path}`, {
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
  if (!res.ok) throw new Error(`${method} /_sandbox${path} answered ${res.status}: ${message}`);
  return data;
}
