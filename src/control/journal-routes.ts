// GET /_sandbox/requests and DELETE /_sandbox/requests: the request journal, what clients sent to the
// interfaces and what they got (runtime/journal.ts keeps it; control/journal-hooks.ts writes it).
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { validationError } from '../http/errors.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { decodeCursor, pageOf } from '../http/paging.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import type { Runtime } from '../runtime/index.js';
import { runtimeOf } from '../runtime/index.js';
import type { JournalEntry, JournalFilter } from '../runtime/journal.js';
import { interfaceSchemas, JOURNAL_PAGE } from './schemas.js';
import { journalFilterProblems } from './verifications.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

/**
 * A page of the journal's entries that match `filter`, newest first, as every journal view pages:
 * `limit` entries (default JOURNAL_PAGE), fewer past the page's byte budget, and the cursor after the
 * last given (the entry's id). `view` is what each entry is shown as.
 */
export function journalPage<V = JournalEntry>(
  runtime: Runtime,
  filter: Omit<JournalFilter, 'before' | 'limit'>,
  query: { limit?: number; cursor?: string },
  view?: (entry: JournalEntry) => V,
): { items: V[]; nextCursor: string | null } {
  const limit = query.limit ?? JOURNAL_PAGE;
  const before = query.cursor === undefined ? undefined : Number(decodeCursor(query.cursor, ['number'])[0]);
  return pageOf(runtime.journal.list({ ...filter, before, limit: limit + 1 }), limit, (e) => [e.id], view);
}

export const journalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { JournalQuery, JournalList } = interfaceSchemas(app.interfaces);

  app.get(
    '/requests',
    {
      schema: {
        operationId: 'listRequests',
        tags: TAG,
        summary: 'The request journal: what clients sent to the interfaces and what they got, newest first',
        description:
          'Every request under an interface prefix (501s included) and every 404 outside the prefixes. Bodies are ' +
          'redacted by key (tokens, Authorization, document bytes) and bounded; the request line, query string and ' +
          'headers as sent are kept beside what the sandbox understood, credentials redacted. A page of ' +
          'limit entries (default 100), fewer when the next would take the entries past about 1 MB of JSON (one at ' +
          'least); nextCursor, passed as cursor, gives the older ones.',
        querystring: JournalQuery,
        response: { 200: JournalList, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': assumed('journal-scope', 'control-pages'),
      },
    },
    (request) => {
      const q = request.query;
      const problems = journalFilterProblems(q, app.interfaces.operations);
      if (problems.length > 0) throw validationError(problems);
      const runtime = runtimeOf(request);
      const page = journalPage(
        runtime,
        { interface: q.interface, operation: q.operation, status: q.status, since: q.since === undefined ? undefined : new Date(q.since) },
        q,
      );
      return {
        capacity: runtime.journal.capacity,
        count: runtime.journal.count,
        dropped: runtime.journal.dropped,
        entries: page.items,
        nextCursor: page.nextCursor,
      };
    },
  );

  app.delete(
    '/requests',
    {
      schema: {
        operationId: 'clearRequests',
        description:
          'Empties the request journal and answers how many entries it removed.',
        tags: TAG,
        summary: 'Clear the request journal',
        response: { 200: Type.Object({ cleared: Type.Integer() }), 401: StandardError },
      },
    },
    async (request) => ({ cleared: runtimeOf(request).journal.clear() }),
  );
};
