// Copies of request and response bodies for the journal: secrets and document bytes replaced by key
// anywhere in the tree, long strings cut, and a budget per body so that a 100 MB request costs the
// journal a few kilobytes. The copy is built while walking, so the walk stops where the budget ends.
import { DecimalText } from '../domain/money.js';
import { exactText } from '../http/exact-numbers.js';

/** Keys whose values never reach the journal (compared case-insensitively). */
export const SECRET_KEYS: ReadonlySet<string> = new Set(
  [
    'token',
    'accessToken',
    'access_token',
    'token_acesso',
    'authorization',
    'password',
    'senha',
    'secret',
    'client_secret',
    'refresh_token',
    'id_token',
    'api_key',
    'apikey',
    'sandbox-admin-token',
    'pin',
    // Document bytes: base64 PDFs and CNAB files.
    'documento',
    'conteudo',
    'operationFile',
  ].map((k) => k.toLowerCase()),
);

export const REDACTED = '[redacted]';

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
      SECRET_KEYS.has(key.toLowerCase()) && v !== null && v !== undefined
        ? REDACTED
        : typeof v === 'number'
          ? exactOrSame(value, key, v, state)
          : walk(v, limits, state, depth + 1);
  }
  return out;
}
