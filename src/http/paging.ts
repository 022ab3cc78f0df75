// Pages of the control plane's lists: `limit` items from where `cursor` says, and the cursor of the
// next page. A cursor is the sort key of the last item given, so a page is an index range whatever
// the list's size (no OFFSET to walk), and items written meanwhile never shift a page already read.
// Cursors are opaque to clients (base64url of the key as JSON): only one this list gave is accepted.
// A page also stops at PAGE_BYTES of items, so an answer stays under about 1 MB however large its
// items are; the cursor then points after the last item given, and nothing is skipped.
import { Type } from '@fastify/type-provider-typebox';
import { validationError } from './errors.js';

export type CursorKey = ReadonlyArray<string | number>;

/** The query parameters of a paged list; `limit` defaults to `byDefault` (Ajv fills it in). */
export function pageQuery(byDefault: number, max: number) {
  return {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: max, default: byDefault, description: `items per page (default ${byDefault}, at most ${max}); fewer when the next would take the page's items past ${PAGE_BYTES} bytes of JSON (one at least)` }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'nextCursor of the previous page, as it came; absent: the first page',
      }),
    ),
  };
}

/** The answer's pointer to the next page. */
export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass it as cursor to get the next page; null: this is the last page',
});

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * The key a cursor carries, checked against the kinds this list's keys have; a 400 naming the query
 * parameter for anything else (a cursor of another list, edited, or made up).
 */
export function decodeCursor(cursor: string, kinds: ReadonlyArray<'string' | 'number'>): CursorKey {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const fits =
    Array.isArray(key) &&
    key.length === kinds.length &&
    key.every((v, i) => (kinds[i] === 'number' ? Number.isSafeInteger(v) : typeof v === 'string'));
  if (!fits)
    throw validationError([
      { path: '/cursor', message: 'query parameter cursor is not one this list gave: pass nextCursor of its previous page as it came' },
    ]);
  return key as CursorKey;
}

/** Where a list sorted by one string key resumes: the key in `cursor`; undefined on the first page. */
export function afterKey(cursor: string | undefined): string | undefined {
  return cursor === undefined ? undefined : String(decodeCursor(cursor, ['string'])[0]);
}

/**
 * Bytes of JSON a page's items take at most: with the envelope (a few hundred bytes), an answer stays
 * under about 1 MB whatever the items hold (a journal entry keeps up to tens of kilobytes of bodies, a
 * registry document up to a few). A page stops before the item that would go over, and holds one
 * item at least, so a single larger item still comes, alone on its page.
 */
export const PAGE_BYTES = 1_000_000;

// Characters JSON may write other than as their UTF-8 bytes: quote, backslash, controls (C1 ones
// too, which it does not escape: measured exactly all the same) and lone surrogates.
const ESCAPED = /["\\\p{Cc}\p{Cs}]/u;

/**
 * The bytes of `value` written as JSON (as JSON.stringify writes it), counted without writing it: a
 * page is measured item by item while it is built, and serialized once, by the route's serializer.
 */
export function jsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return ESCAPED.test(value) ? Buffer.byteLength(JSON.stringify(value), 'utf8') : Buffer.byteLength(value, 'utf8') + 2;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return String(value).length;
    case 'object': {
      if (value === null) return 4;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return jsonBytes((toJSON as () => unknown).call(value));
      if (Array.isArray(value)) {
        let n = 2 + Math.max(0, value.length - 1);
        for (const v of value) n += v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 4 : jsonBytes(v);
        return n;
      }
      let n = 2;
      let first = true;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        n += (first ? 0 : 1) + jsonBytes(key) + 1 + jsonBytes(v);
        first = false;
      }
      return n;
    }
    default:
      return 0;
  }
}

/**
 * A page from `rows`, read with one row more than `limit` (the extra row only tells that another page
 * follows): the views of the first rows, up to `limit` of them and `budget` bytes of JSON (at least
 * one), and the cursor after the last given, so the next page starts at the first row left out.
 * Rows past the page are never turned into views.
 */
export function pageOf<T, V = T>(
  rows: T[],
  limit: number,
  keyOf: (row: T) => CursorKey,
  view: (row: T) => V = (row) => row as unknown as V,
  budget: number = PAGE_BYTES,
): { items: V[]; nextCursor: string | null } {
  const items: V[] = [];
  let bytes = 0;
  const most = Math.min(limit, rows.length);
  for (let i = 0; i < most; i++) {
    const item = view(rows[i] as T);
    // The comma before every item but the first.
    const size = jsonBytes(item) + (i === 0 ? 0 : 1);
    if (i > 0 && bytes + size > budget) break;
    items.push(item);
    bytes += size;
  }
  if (items.length === rows.length) return { items, nextCursor: null };
  return { items, nextCursor: encodeCursor(keyOf(rows[items.length - 1] as T)) };
}

/**
 * A page of a list sorted by one string key: `read(after, rows)` gives up to `rows` rows whose key
 * sorts after `after` ('' on the first page).
 */
export function pageByKey<T>(
  query: { limit?: number; cursor?: string },
  byDefault: number,
  read: (after: string, rows: number) => T[],
  keyOf: (row: T) => string,
): { items: T[]; nextCursor: string | null } {
  const limit = query.limit ?? byDefault;
  return pageOf(read(afterKey(query.cursor) ?? '', limit + 1), limit, (row) => [keyOf(row)]);
}
