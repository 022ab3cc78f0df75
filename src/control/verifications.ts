// Verifications on the request journal: how many requests matched a filter (the journal's filters and
// a JSONPath condition on the body), the closest ones when a count is not what a test expected, and
// the requests that reached no documented operation with the operation they nearly were.
import { type FastifyPluginAsyncTypebox, type Static, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { METHODS } from 'node:http';
import type { Operation } from '../http/catalog.js';
import { type ErrorDetail, pointer, validationError } from '../http/errors.js';
import { stringifyExact } from '../http/exact-numbers.js';
import { nearestName, nearestOperation, operationIdProblem } from '../http/near-miss.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { StandardError } from '../http/schema.js';
import { type Condition, ConditionError, conditionValue, evaluate, jsonpathProblem } from '../runtime/conditions.js';
import type { Interfaces } from '../http/interface-module.js';
import { runtimeOf } from '../runtime/index.js';
import type { JournalEntry, JournalFilter } from '../runtime/journal.js';
import { NextCursor, pageQuery } from '../http/paging.js';
import { journalPage } from './journal-routes.js';
import { interfaceSchemas, JOURNAL_PAGE, JOURNAL_PAGE_MAX } from './schemas.js';

const TAG = ['sandbox control plane'];
const a = assumptionLookup(assumptions);

const NearestSchema = Type.Union([
  Type.Object({
    operation: Type.String(),
    method: Type.String(),
    path: Type.String(),
    differences: Type.Array(Type.String()),
  }),
  Type.Null(),
]);

/** The schemas of the verification calls, for the app's interfaces (the journal's filters name them). */
function verificationSchemas(interfaces: Interfaces) {
  const { JournalQuery, JournalEntry } = interfaceSchemas(interfaces);
  // The journal's filters, but no limit: a count is over every entry the journal holds.
  const { limit: _limit, ...journalFilters } = JournalQuery.properties;
  const CountQuery = Type.Object({
    ...journalFilters,
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'the HTTP method, e.g. PUT (any case); one Node does not know is refused' })),
    jsonpath: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          'a JSONPath on the request body (as journaled, secrets redacted): the request counts when it selects something; a filter at the root applies to the body itself',
        example: '$[?(@.isPartial == true)]',
      }),
    ),
    equals: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'with jsonpath: a JSON value one of the selected values must equal (true, 10.5, "text"; a bare word is a string); numbers compare by their exact decimal value (10 equals 10.00)',
      }),
    ),
    closest: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 20,
        description: 'also answer up to this many requests that did not match, closest first; default 0',
      }),
    ),
  });
  const Miss = Type.Object({
    entry: JournalEntry,
    missed: Type.Array(Type.String(), { description: 'what of the filter this request does not meet' }),
  });
  const CountAnswer = Type.Object({
    count: Type.Integer({ description: 'journaled requests that match' }),
    journal: Type.Object({
      count: Type.Integer({ description: 'entries held' }),
      dropped: Type.Integer({ description: 'older entries overwritten since the last clear: a count cannot see them' }),
    }),
    closest: Type.Optional(Type.Array(Miss, { description: 'requests that did not match, those that miss least first' })),
  });
  const UnmatchedAnswer = Type.Object({
    unmatched: Type.Array(Type.Object({ entry: JournalEntry, nearest: NearestSchema }), { description: 'newest first: a page of them' }),
    nextCursor: NextCursor,
  });
  return { CountQuery, CountAnswer, UnmatchedAnswer };
}

type CountQueryT = Static<ReturnType<typeof verificationSchemas>['CountQuery']>;

/** A request filter as the count reads it; what each entry must meet, one check per criterion. */
export interface RequestCriteria extends JournalFilter {
  method?: string;
  condition?: Condition;
}

/** The methods a request can come with (Node reads no other), the common ones first, as a message lists them. */
const KNOWN_METHODS = [...new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', ...METHODS])];

/**
 * What is wrong with the journal filters that name things (an operation id, a method): a filter that
 * names nothing that exists would match nothing, and a check that none was sent would pass.
 */
export function journalFilterProblems(q: { operation?: string; method?: string }, operations: readonly Operation[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (q.operation !== undefined) {
    const problem = operationIdProblem(q.operation, operations);
    if (problem) problems.push({ path: pointer('operation'), message: problem });
  }
  if (q.method !== undefined && !KNOWN_METHODS.includes(q.method.toUpperCase())) {
    const near = nearestName(q.method.toUpperCase(), KNOWN_METHODS);
    problems.push({
      path: pointer('method'),
      message: `${JSON.stringify(q.method)} is no HTTP method: ${near === undefined ? '' : `did you mean "${near}"? `}one of ${KNOWN_METHODS.join(', ')}`,
    });
  }
  return problems;
}

function criteriaOf(q: CountQueryT, operations: readonly Operation[]): RequestCriteria {
  const problems = journalFilterProblems(q, operations);
  if (q.equals !== undefined && q.jsonpath === undefined)
    problems.push({ path: pointer('equals'), message: 'needs jsonpath: the value is compared with what it selects' });
  if (q.jsonpath !== undefined) {
    const problem = jsonpathProblem(q.jsonpath);
    if (problem) problems.push({ path: pointer('jsonpath'), message: problem });
  }
  if (problems.length > 0) throw validationError(problems);
  return {
    ...(q.interface === undefined ? {} : { interface: q.interface }),
    ...(q.operation === undefined ? {} : { operation: q.operation }),
    ...(q.status === undefined ? {} : { status: q.status }),
    ...(q.since === undefined ? {} : { since: new Date(q.since) }),
    ...(q.method === undefined ? {} : { method: q.method.toUpperCase() }),
    ...(q.jsonpath === undefined
      ? {}
      : { condition: { jsonpath: q.jsonpath, ...(q.equals === undefined ? {} : { equals: conditionValue(q.equals) }) } }),
  };
}

/** What of `c` the entry does not meet (empty: it matches). */
export function missedCriteria(c: RequestCriteria, e: JournalEntry): string[] {
  const missed: string[] = [];
  if (c.interface !== undefined && e.interface !== c.interface) missed.push(`interface is ${e.interface ?? 'none'}, not ${c.interface}`);
  if (c.operation !== undefined && e.operation !== c.operation) missed.push(`operation is ${e.operation ?? 'none'}, not ${c.operation}`);
  if (c.method !== undefined && e.method !== c.method) missed.push(`method is ${e.method}, not ${c.method}`);
  if (c.status !== undefined) {
    const klass = /^[1-5]xx$/i.test(c.status) ? Number(c.status[0]) : undefined;
    const ok = klass !== undefined ? Math.floor(e.status / 100) === klass : e.status === Number(c.status);
    if (!ok) missed.push(`status is ${e.status}, not ${c.status}`);
  }
  if (c.since !== undefined && Date.parse(e.time) < c.since.getTime()) missed.push(`came at ${e.time}, before ${c.since.toISOString()}`);
  if (c.condition) {
    const { holds, selected } = evaluate(c.condition, e.requestBody);
    if (!holds)
      missed.push(
        c.condition.equals === undefined
          ? `${c.condition.jsonpath} selects nothing in its body`
          : `${c.condition.jsonpath} selects ${stringifyExact(selected)} in its body, not ${stringifyExact(c.condition.equals)}`,
      );
  }
  return missed;
}

/** The count of entries meeting `c`, and the closest that do not (fewest criteria missed, newest first). */
export function countRequests(
  entries: readonly JournalEntry[],
  c: RequestCriteria,
  closest: number,
): { count: number; closest: Array<{ entry: JournalEntry; missed: string[] }> } {
  let count = 0;
  const misses: Array<{ entry: JournalEntry; missed: string[] }> = [];
  for (const entry of entries) {
    const missed = missedCriteria(c, entry);
    if (missed.length === 0) count += 1;
    else if (closest > 0) misses.push({ entry, missed });
  }
  // A stable sort: among equals, the journal's order (newest first) stays.
  misses.sort((x, y) => x.missed.length - y.missed.length);
  return { count, closest: misses.slice(0, closest) };
}

export const verificationsPlugin: FastifyPluginAsyncTypebox = async (app) => {
  const { CountQuery, CountAnswer, UnmatchedAnswer } = verificationSchemas(app.interfaces);
  const operations = app.interfaces.operations;
  app.get(
    '/requests/count',
    {
      schema: {
        operationId: 'countRequests',
        tags: TAG,
        summary: 'How many journaled requests match: the journal filters, the method and a JSONPath condition on the body',
        description:
          'Counts over the request journal (GET /_sandbox/requests), so only what it still holds: `journal.dropped` says ' +
          'how many older entries it overwrote. With closest=N, the N requests that came nearest to matching, each ' +
          'with what it missed.',
        querystring: CountQuery,
        response: { 200: CountAnswer, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': a('verifications'),
      },
    },
    async (request) => {
      const { journal } = runtimeOf(request);
      const criteria = criteriaOf(request.query, operations);
      const entries = journal.list({});
      let result;
      try {
        result = countRequests(entries, criteria, request.query.closest ?? 0);
      } catch (err) {
        if (err instanceof ConditionError) throw validationError([{ path: pointer('jsonpath'), message: err.message }]);
        throw err;
      }
      return {
        count: result.count,
        journal: { count: journal.count, dropped: journal.dropped },
        ...(request.query.closest ? { closest: result.closest } : {}),
      };
    },
  );

  app.get(
    '/requests/unmatched',
    {
      schema: {
        operationId: 'listUnmatchedRequests',
        tags: TAG,
        summary: 'Requests that reached no documented operation (404, 501, unreadable paths), each with its nearest operation',
        description:
          'From the request journal, newest first: what a client sent that the sandbox does not emulate or that matched ' +
          'no route, and the documented operation it nearly was (the near miss), with what differs. A page of limit ' +
          'requests (default 100), fewer when the next would take them past about 1 MB of JSON (one at least); ' +
          'nextCursor, passed as cursor, gives the older ones.',
        querystring: Type.Object(pageQuery(JOURNAL_PAGE, JOURNAL_PAGE_MAX)),
        response: { 200: UnmatchedAnswer, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': a('near-miss', 'control-pages'),
      },
    },
    async (request) => {
      const page = journalPage(runtimeOf(request), { unmatched: true }, request.query, (entry) => {
        const near = nearestOperation(entry.method, entry.path, operations);
        return { entry, nearest: near && { operation: near.operation, method: near.method, path: near.path, differences: near.differences } };
      });
      return { unmatched: page.items, nextCursor: page.nextCursor };
    },
  );
};
