// Pages of the control plane's lists: `limit` items from where `cursor` says, and the cursor of the
// next page. A cursor is the sort key of the last item given, so a page is an index range whatever
// the list's size (no OFFSET to walk), and items written meanwhile never shift a page already read.
// Cursors are opaque to clients (base64url of the key as JSON): only one this list gave is accepted.
import { Type } from '@fastify/type-provider-typebox';
import { validationError } from './errors.js';

export type CursorKey = ReadonlyArray<string | number>;

/** The query parameters of a paged list; `limit` defaults to `byDefault` (Ajv fills it in). */
export function pageQuery(byDefault: number, max: number) {
  return {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: max, default: byDefault, description: `items per page (default ${byDefault}, at most ${max})` }),
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
 * A page from `rows`, read with one row more than `limit` (the extra row only tells that another page
 * follows): the first `limit` rows and the cursor after the last of them.
 */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => CursorKey): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: last === undefined ? null : encodeCursor(keyOf(last)) };
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
