// Copies of request and response bodies for the journal: secrets and document bytes replaced by key
// anywhere in the tree, long strings cut, and a budget per body so that a 100 MB request costs the
// journal a few kilobytes. The copy is built while walking, so the walk stops where the budget ends.
import { DecimalText } from '../domain/money.js';
import { exactText } from '../http/exact-numbers.js';

/**
 * The one rule for what names a secret, shared by the journal's headers, query parameters and body
 * keys (and the recorder's and conformance report's copies): a name whose letters and digits, read
 * without case and separators, contain token, secret, password, passwd, pwd, bearer, credential,
 * authoriz(ation), apikey, private, signature, session, cookie or senha; or one of whose words
 * (split at separators and lower-to-upper case changes) is key, pass, pin or auth. So accessToken,
 * x-api-key, client_secret, refreshToken, privateKey, pwd, passwd, pass, bearer, API_KEY.
 * Compound names holding `key` as a word count too (Idempotency-Key): a value redacted for nothing
 * costs a reader less than a secret kept. A name whose last word is `type` names what kind of secret
 * (OAuth's token_type "Bearer"), not one, and is kept.
 */
const NOT_SECRET = /[^a-z0-9]type$/;
const SECRET_FRAGMENTS = /token|secret|passw|pwd|bearer|credential|authori[sz]|apikey|private|signature|session|cookie|senha/;
const SECRET_WORDS = /(?:^|[^a-z0-9])(?:key|pass|pin|auth)(?:$|[^a-z0-9])/;
/** Keys of document bytes (base64 PDFs, CNAB files): not secrets, but never journaled either. */
const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['documento', 'conteudo', 'operationfile']);

/** Whether `name` names a secret by the rule above. */
export function namesSecret(name: string): boolean {
  // Words: a separator before each lower-to-upper change, then lower case.
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  if (NOT_SECRET.test(words)) return false;
  return SECRET_FRAGMENTS.test(words.replace(/[^a-z0-9]/g, '')) || SECRET_WORDS.test(words);
}

// Each distinct name is read once: the journal tests every key of every body it shows, and a body's
// keys repeat from one request to the next. Names come from clients, so the cache is bounded.
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 4096;

/** Whether the value under `key` never reaches the journal: a secret (namesSecret) or document bytes. */
export function isRedactedKey(key: string): boolean {
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = namesSecret(key) || DOCUMENT_KEYS.has(key.toLowerCase());
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

export const REDACTED = '[redacted]';

/**
 * A form-encoded body (application/x-www-form-urlencoded: an OAuth token request, a login form) as
 * it was sent. Shown as its text with the value of each field named like a secret redacted, as a
 * query string is; its secret values are looked for in answers that echo the request.
 */
export class FormText {
  constructor(readonly text: string) {}
}

/** Whether a Content-Type names a form-encoded body. */
export function isFormType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType);
}

/**
 * Where the value of a form or query pair (name=value) named like a secret begins, or -1. A name
 * that is not percent-encoding is read as sent.
 */
export function secretValueAt(pair: string): number {
  const eq = pair.indexOf('=');
  if (eq === -1) return -1;
  let name = pair.slice(0, eq);
  try {
    name = decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    // Kept as sent.
  }
  return isRedactedKey(name) ? eq + 1 : -1;
}

/** A query string or form body as sent, the value of each field named like a secret redacted. */
export function redactPairs(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const at = secretValueAt(pair);
      return at === -1 ? pair : `${pair.slice(0, at)}${REDACTED}`;
    })
    .join('&');
}

/** The values of the fields named like a secret in a query string or form body: as sent, and decoded. */
export function pairSecretValues(text: string, add: (value: string) => void): void {
  for (const pair of text.split('&')) {
    const at = secretValueAt(pair);
    if (at === -1) continue;
    add(pair.slice(at));
    try {
      add(decodeURIComponent(pair.slice(at).replaceAll('+', ' ')));
    } catch {
      // Not percent-encoding: nothing a template could have echoed decoded.
    }
  }
}

export interface RedactLimits {
  /** Characters kept of one string before it is cut. */
  maxString: number;
  /** Rough size of the whole copy, in characters; past it, the rest is summarised. */
  budget: number;
  maxDepth: number;
}

export const DEFAULT_LIMITS: RedactLimits = { maxString: 512, budget: 16_384, maxDepth: 24 };

export function truncatedMarker(what: string): string {
  return `[truncated: ${what}]`;
}

/** A number as the client wrote it, where its double would change it (http/exact-numbers.ts). */
function exactOrSame(holder: object, key: string | number, v: number, state: { left: number }): unknown {
  state.left -= 8;
  const text = exactText(holder, key);
  return text === undefined ? v : new DecimalText(text);
}

export function redact(value: unknown, limits: RedactLimits = DEFAULT_LIMITS): unknown {
  const state = { left: limits.budget };
  return walk(value, limits, state, 0);
}

function walk(value: unknown, limits: RedactLimits, state: { left: number }, depth: number): unknown {
  if (value instanceof FormText) return walk(redactPairs(value.text), limits, state, depth);
  if (typeof value === 'string') {
    if (value.length <= limits.maxString) {
      state.left -= value.length + 2;
      return value;
    }
    state.left -= limits.maxString + 40;
    return `${value.slice(0, limits.maxString)}…${truncatedMarker(`${value.length} characters`)}`;
  }
  if (value === null || typeof value !== 'object') {
    state.left -= 8;
    return value;
  }
  if (depth >= limits.maxDepth) return truncatedMarker('nested too deep');
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (state.left <= 0) {
        out.push(truncatedMarker(`${value.length - i} more items`));
        break;
      }
      const v: unknown = value[i];
      out.push(typeof v === 'number' ? exactOrSame(value, i, v, state) : walk(v, limits, state, depth + 1));
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (state.left <= 0) {
      out['[truncated]'] = `${keys.length - i} more fields`;
      break;
    }
    const v = (value as Record<string, unknown>)[key];
    state.left -= key.length + 4;
    out[key] =
      v !== null && v !== undefined && isRedactedKey(key)
        ? REDACTED
        : typeof v === 'number'
          ? exactOrSame(value, key, v, state)
          : walk(v, limits, state, depth + 1);
  }
  return out;
}

/**
 * A value shorter than this is not looked for in an answer: "1234" as a PIN would turn every 1234 of
 * the answer into [redacted], and a secret that short is no secret a test suite needs kept.
 */
export const MIN_ECHOED_SECRET = 6;

/** The strings under redacted keys anywhere in `value` (a request body), added to `out`. */
export function collectSecretValues(value: unknown, out: Set<string>, depth = 0): void {
  if (value instanceof FormText) {
    pairSecretValues(value.text, (v) => {
      if (v.length >= MIN_ECHOED_SECRET) out.add(v);
    });
    return;
  }
  if (value === null || typeof value !== 'object' || depth > DEFAULT_LIMITS.maxDepth) return;
  if (Array.isArray(value)) {
    for (const v of value) collectSecretValues(v, out, depth + 1);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    // Document bytes are redacted but are no secret to look for in an answer (megabytes of base64).
    if (typeof v === 'string' && v.length >= MIN_ECHOED_SECRET && isRedactedKey(key) && !DOCUMENT_KEYS.has(key.toLowerCase()))
      out.add(v);
    else collectSecretValues(v, out, depth + 1);
  }
}

/**
 * `value` (an answer, already redacted by key) with every occurrence of each of `secrets` in its
 * strings and keys replaced by [redacted]: a stub's template that echoes the request
 * ({{request.headers.Authorization}}, {{request.body}}) would otherwise carry the request's secrets
 * into the journaled answer.
 */
export function scrubEchoes(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const scrub = (text: string) => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
  const walkEcho = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (v === null || typeof v !== 'object' || v instanceof DecimalText) return v;
    if (Array.isArray(v)) return v.map(walkEcho);
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(v)) out[scrub(key)] = walkEcho(inner);
    return out;
  };
  return walkEcho(value);
}
