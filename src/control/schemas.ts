// Wire shapes of the control plane's journal, faults, clock, snapshots, work and coverage calls (ours to
// design; described in the OpenAPI document and docs/). Those that name an interface are built for the
// app's list of interfaces, so an interface added to it is accepted and documented everywhere.
import { Type } from '@fastify/type-provider-typebox';
import type { Interfaces } from '../http/interface-module.js';
import { NextCursor, pageQuery } from '../http/paging.js';
import { Strict, StringEnum, UtcTimestamp } from '../http/schema.js';
import { FAULT_METHODS, MAX_DELAY_MS } from '../runtime/faults.js';

/** Journal entries per page: an entry holds a few kilobytes at most, so a page stays under about 1 MB. */
export const JOURNAL_PAGE = 100;
export const JOURNAL_PAGE_MAX = 1000;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const built = new WeakMap<Interfaces, ReturnType<typeof build>>();

/** The schemas that name an interface, for the app's interfaces (built once per list). */
export function interfaceSchemas(interfaces: Interfaces): ReturnType<typeof build> {
  let schemas = built.get(interfaces);
  if (!schemas) built.set(interfaces, (schemas = build(interfaces.ids)));
  return schemas;
}

function build(ids: readonly string[]) {
  const InterfaceName = StringEnum(ids);
  return {
    JournalQuery: journalQuery(InterfaceName),
    JournalList: journalList(InterfaceName),
    JournalEntry: journalEntry(InterfaceName),
    FaultInput: faultInput(InterfaceName),
    FaultRule: faultRule(InterfaceName),
    CoverageQuery: coverageQuery(InterfaceName),
    CoverageReport: coverageReport(InterfaceName),
  };
}

type Name = ReturnType<typeof StringEnum<string>>;

const journalEntry = (InterfaceName: Name) => Type.Object({
  id: Type.Integer({ description: 'sequence number since the sandbox started' }),
  time: Type.String({ description: 'arrival on the sandbox clock' }),
  realTime: Type.String({ description: 'arrival on the real clock' }),
  interface: Type.Union([InterfaceName, Type.Null()], {
    description: 'null: outside every interface (a 404)',
  }),
  operation: Nullable(
    Type.String({ description: 'operation id from GET /_sandbox/operations; null when none was reached' }),
  ),
  method: Type.String(),
  path: Type.String({ description: 'without the query string' }),
  query: Type.Unknown({ description: 'the query string as the sandbox understood it (parsed, defaults added), redacted' }),
  requestLine: Type.String({
    description: 'the request line as sent ("GET /path?desc=True HTTP/1.1"), values of secret query parameters "[redacted]"',
  }),
  rawQuery: Type.String({ description: 'the query string as sent, without "?" ("" when none), secret values "[redacted]"' }),
  headers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }), {
    description:
      'the request headers as sent, in order and as written; credentials (Authorization, cookies, tokens, the admin key) "[redacted]", an Authorization scheme kept',
  }),
  status: Type.Integer(),
  durationMs: Type.Number(),
  warnings: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the number of warnings in the Sandbox-Warnings response header; null without one',
  }),
  fault: Nullable(Type.String({ description: 'id of the fault rule that answered or delayed the request' })),
  outcome: Nullable(
    Type.String({
      description:
        'the outcome of the answer, as in GET /_sandbox/coverage and the Sandbox-Outcome header; null for a 501, a 404 or a path the router cannot read',
    }),
  ),
  mapping: Nullable(Type.String({ description: 'id of the user-defined operation (stub mapping) that answered; null: none' })),
  upstream: Nullable(Type.String({ description: 'the upstream the request was forwarded to (proxy mode); null: the sandbox answered' })),
  requestBody: Type.Unknown({
    description:
      'the parsed JSON body: secrets and document bytes "[redacted]" by key, long parts "[truncated: ...]"',
  }),
  responseBody: Type.Unknown({ description: 'the response body, redacted and bounded the same way' }),
});

const journalQuery = (InterfaceName: Name) => Type.Object({
  interface: Type.Optional(InterfaceName),
  operation: Type.Optional(
    Type.String({ minLength: 1, description: 'an operation id of GET /_sandbox/operations (documented or named only); another is refused' }),
  ),
  status: Type.Optional(
    Type.String({
      pattern: '^([1-5][0-9][0-9]|[1-5]xx)$',
      description: 'an exact status (404) or a class (4xx)',
    }),
  ),
  since: Type.Optional(
    UtcTimestamp({ description: 'entries that arrived at or after this sandbox-clock instant' }),
  ),
  ...pageQuery(JOURNAL_PAGE, JOURNAL_PAGE_MAX),
});

const journalList = (InterfaceName: Name) => Type.Object({
  capacity: Type.Integer({ description: 'entries kept at most (SANDBOX_JOURNAL_SIZE); 0: journal off' }),
  count: Type.Integer({ description: 'entries held now' }),
  dropped: Type.Integer({ description: 'older entries overwritten since the last clear' }),
  entries: Type.Array(journalEntry(InterfaceName), { description: 'newest first: a page of the entries that match' }),
  nextCursor: NextCursor,
});

const faultInput = (InterfaceName: Name) => Strict(
  {
    method: Type.Optional(StringEnum(FAULT_METHODS, { description: 'default: every method' })),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'a path pattern matched against the request path without its query string: * stands for any characters (slashes included), the rest is literal. Default: the whole interface',
        example: '/api/v1.0/service/dup/registrar_documentos',
      }),
    ),
    interface: Type.Optional(InterfaceName),
    status: Type.Optional(
      Type.Integer({
        description: "a documented status of the interface, answered with the interface's error body",
      }),
    ),
    code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'receivables only: the envelope code (default ValidationError)',
      }),
    ),
    message: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'the error message (default names the rule)',
      }),
    ),
    delayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_DELAY_MS,
        description: 'wait this long first; without a status the request then proceeds',
      }),
    ),
    times: Type.Optional(
      Type.Integer({ minimum: 1, description: 'the next N matching requests; default until removed' }),
    ),
  },
  { description: 'a fault rule: give path, interface or both, and status, delayMs or both' },
);

const faultRule = (InterfaceName: Name) => Type.Object({
  id: Type.String(),
  method: Nullable(Type.String()),
  path: Type.String(),
  interface: InterfaceName,
  status: Type.Union([Type.Integer(), Type.Null()]),
  code: Nullable(Type.String()),
  message: Nullable(Type.String()),
  delayMs: Type.Integer(),
  times: Type.Union([Type.Integer(), Type.Null()]),
  hits: Type.Integer({ description: 'requests the rule answered or delayed' }),
  remaining: Type.Union([Type.Integer(), Type.Null()], {
    description: 'matches left; null: unlimited; 0: spent',
  }),
  createdAt: Type.String({ description: 'on the sandbox clock' }),
});

export const ClockState = Type.Object({
  now: Type.String({ description: 'the sandbox clock, ISO 8601 UTC' }),
  realNow: Type.String({ description: 'the real clock' }),
  offsetMs: Type.Number({ description: 'sandbox clock minus real clock' }),
  frozen: Type.Boolean({ description: 'true: the sandbox clock stands still until moved' }),
});

export const ClockChange = Strict(
  {
    now: Type.Optional(UtcTimestamp({ description: 'move the clock to this instant' })),
    advance: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 64,
        description:
          'move the clock by an ISO 8601 duration: P31D, PT36H, P1M, P1Y2M3DT4H5M6.5S, P2W; a leading - moves it back',
        example: 'P31D',
      }),
    ),
    freeze: Type.Optional(
      Type.Boolean({ description: 'true: stop the clock; false: let it run (from where it is)' }),
    ),
  },
  { description: 'give now or advance (not both), freeze, or both' },
);

export const SnapshotName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
  description: 'letters, digits, _ . -; at most 64',
  example: 'baseline',
});

export const SnapshotInfo = Type.Object({
  name: Type.String(),
  createdAt: Type.String({ description: 'on the real clock' }),
  clock: ClockState,
  rows: Type.Record(Type.String(), Type.Integer(), {
    description: "rows per interface table holding any (the sandbox's own sb_ tables left out)",
  }),
  bytes: Type.Integer({
    minimum: 0,
    description: 'the bytes its copy takes in memory, counted against SANDBOX_SNAPSHOTS_SIZE (snapshot-limits)',
  }),
});

export const WorkFailureSchema = Type.Object({
  runner: Type.String({ description: 'the kind of work: receivables (CNAB imports) or loanbond (the registration flow)' }),
  job: Type.Union([Type.String(), Type.Null()], {
    description: 'what was being processed: a CNAB import id (Sandbox-Import-Id), or the loan-bond registrations of the slice',
  }),
  error: Type.String({
    description: 'what went wrong; a storage failure is named by its cause and code, e.g. "database locked (SQLITE_BUSY): ..."',
  }),
  at: Type.String({ description: 'when, on the real clock' }),
  attempt: Type.Integer({ description: 'failures of this kind of work in a row, this one included' }),
  retryInMs: Type.Integer({ description: 'the sandbox retries by itself after this many milliseconds (or at the next work/run)' }),
});

export const WorkState = Type.Object({
  held: Type.Boolean({ description: 'true: asynchronous processing waits (POST /_sandbox/work/run still runs it)' }),
  maxBacklog: Type.Integer({
    description: 'items each kind of work may have waiting before submissions are refused (SANDBOX_WORK_BACKLOG) [work-backlog]',
  }),
  runners: Type.Record(
    Type.String(),
    Type.Object({
      pending: Type.Integer({ description: 'items waiting, counted up to maxBacklog' }),
      failuresInRow: Type.Integer({ description: 'failed runs since the last one that went through' }),
      retryInMs: Type.Union([Type.Integer(), Type.Null()], { description: 'when the next retry is due; null when none waits' }),
    }),
  ),
  failures: Type.Array(WorkFailureSchema, { description: 'the last 100 failed runs, oldest first' }),
});

export const WorkChange = Strict({
  held: Type.Optional(Type.Boolean({ description: 'true: hold asynchronous processing (items stay pending); false: release it' })),
  maxBacklog: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'the backlog bound of this workspace from now on (until reset)' }),
  ),
});

export const WorkResult = Type.Object({
  processed: Type.Record(Type.String(), Type.Integer(), { description: 'items processed per kind of work' }),
  errors: Type.Integer({ description: 'runs that failed meanwhile; each is listed in failures' }),
  failures: Type.Array(WorkFailureSchema, {
    description: 'the runs that failed meanwhile: which work, which job, what error; the job stays pending and is retried',
  }),
});

const CoverageTotals = Type.Object({
  outcomes: Type.Integer({ description: 'outcomes in the catalog' }),
  covered: Type.Integer({ description: 'outcomes answered at least once' }),
  uncovered: Type.Integer(),
  hits: Type.Integer({ description: 'answers counted' }),
});

const coverageReport = (InterfaceName: Name) => Type.Object(
  {
    since: Type.String({ description: 'when counting started: the last reset or DELETE /_sandbox/coverage (sandbox clock)' }),
    totals: CoverageTotals,
    operations: Type.Array(
      Type.Object({
        interface: InterfaceName,
        operation: Type.String({ description: 'operation id, as in GET /_sandbox/operations' }),
        method: Nullable(Type.String()),
        path: Nullable(Type.String({ description: 'path template' })),
        totals: CoverageTotals,
        outcomes: Type.Array(
          Type.Object({
            id: Type.String({ description: '<operation>.<outcome>, as in the Sandbox-Outcome header and the journal' }),
            status: Type.Integer({ description: 'the status every answer with this outcome carries' }),
            sentence: Type.String({ description: 'what the outcome is' }),
            hits: Type.Integer(),
            firstAt: Nullable(Type.String({ description: 'first answer (sandbox clock); null: never' })),
            lastAt: Nullable(Type.String({ description: 'last answer (sandbox clock); null: never' })),
          }),
          { description: 'every outcome of the operation, in catalog order' },
        ),
      }),
    ),
    userDefined: Type.Array(
      Type.Object({
        mapping: Type.String({ description: 'the mapping id (GET /_sandbox/stubs)' }),
        name: Nullable(Type.String()),
        interface: Type.Union([InterfaceName, Type.Null()]),
        operation: Nullable(Type.String({ description: 'the named-only operation it implements (metadata.sandbox.operation)' })),
        method: Type.String({ description: 'the method it matches, or ANY' }),
        url: Nullable(Type.String({ description: 'its URL rule (url, urlPath, pattern or template); null: every URL' })),
        status: Type.Integer({ description: 'the status it answers' }),
        hits: Type.Integer(),
        firstAt: Nullable(Type.String({ description: 'first answer (sandbox clock); null: never' })),
        lastAt: Nullable(Type.String({ description: 'last answer (sandbox clock); null: never' })),
      }),
      { description: 'the user-defined operations of the workspace (stub mappings), each with the answers it gave' },
    ),
  },
  { description: 'per documented operation, every outcome with its hits; then the user-defined operations' },
);

const coverageQuery = (InterfaceName: Name) => Strict({
  format: Type.Optional(
    StringEnum(['json', 'junit', 'markdown'] as const, {
      description: 'json (default), junit (JUnit XML: a testsuite per operation, a testcase per outcome, uncovered ones skipped) or markdown',
    }),
  ),
  interface: Type.Optional(InterfaceName),
});
