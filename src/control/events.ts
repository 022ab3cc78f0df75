// The event feed and the waits: GET /_sandbox/events (a long poll answered by the event itself) and
// POST /_sandbox/wait (until an event comes or an inspection view reaches a state, or the timeout).
import { type FastifyPluginAsyncTypebox, type Static, Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { type ErrorDetail, pointer, validationError } from '../http/errors.js';
import { PAGE_BYTES } from '../http/paging.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { StandardError, Strict } from '../http/schema.js';
import { type Condition, ConditionError, evaluate, jsonpathProblem } from '../runtime/conditions.js';
import { parseSpanMs } from '../runtime/duration.js';
import { type EventFilter, type Events, type SandboxEvent, typePatternProblem } from '../runtime/events.js';
import { runtimeOf } from '../runtime/index.js';
import { workspaceNameOf } from '../runtime/workspaces.js';

const TAG = ['sandbox control plane'];
const a = assumptionLookup(assumptions);

/** Longest long poll or wait, in milliseconds. */
export const MAX_WAIT_MS = 120_000;
/** The wait of POST /_sandbox/wait when none is given. */
export const DEFAULT_WAIT_TIMEOUT_MS = 5_000;
const SPAN = 'a span such as 250ms, 5s, 2m or PT5S';

export const CloudEventSchema = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    id: Type.String({ description: 'a decimal sequence number, increasing, never reused in its workspace' }),
    source: Type.String({ description: 'the workspace: /ws/{name} (the sandbox itself is /ws/default)' }),
    type: Type.String({ description: 'one of the types of the events table (docs/events.md)' }),
    subject: Type.String({ description: 'what it is about, e.g. imports/{importId}' }),
    time: Type.String({ description: 'when it happened, on the sandbox clock (RFC 3339)' }),
    datacontenttype: Type.Literal('application/json'),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'CloudEvent', description: 'an event in the CloudEvents 1.0 JSON format' },
);

const EventId = Type.String({ pattern: '^[0-9]{1,15}$', description: 'an event id' });
const TypeList = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'event types, comma-separated; a type ending with one * takes every type that starts with the rest (* alone: every type); another * is refused (docs/events.md)',
  example: 'sandbox.receivables.import.*',
});
const SubjectPattern = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'the subject, exact or ending with * (a prefix)',
  example: 'imports/*',
});

const FeedQuery = Type.Object({
  after: Type.Optional(EventId),
  type: Type.Optional(TypeList),
  subject: Type.Optional(SubjectPattern),
  wait: Type.Optional(
    Type.String({ description: `how long to wait for a matching event when there is none yet: ${SPAN}; default 0 (answer at once)` }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: `at most this many events, default 1000; fewer when the next would take them past ${PAGE_BYTES} bytes of JSON (one at least), and next then points after the last given` })),
});

const FeedAnswer = Type.Object({
  events: Type.Array(CloudEventSchema, { description: 'matching events after `after`, oldest first' }),
  next: Type.String({
    description: 'what to pass as `after` next time with the same filter: the last event returned, or the last event looked at',
  }),
  capacity: Type.Integer({ description: 'events the feed keeps (SANDBOX_EVENTS_SIZE)' }),
  dropped: Type.Integer({ description: 'older events overwritten since the last reset' }),
});

const EventWait = Strict(
  {
    type: Type.Optional(Type.Union([TypeList, Type.Array(TypeList, { minItems: 1, maxItems: 50 })])),
    subject: Type.Optional(SubjectPattern),
    after: Type.Optional(EventId),
  },
  { description: 'holds when an event matching all of these exists (after `after`; default: every one the feed holds)' },
);

const InspectWait = Strict(
  {
    path: Type.String({
      minLength: 10,
      maxLength: 2000,
      pattern: '^/_sandbox/',
      description: 'a GET path of the control plane (an inspection view), relative to the workspace',
      example: '/_sandbox/receivables/imports/IMP-1',
    }),
    jsonpath: Type.String({ minLength: 1, maxLength: 2000, description: 'a JSONPath on the view', example: '$.status' }),
    equals: Type.Optional(Type.Unknown({ description: 'a JSON value one of the selected values must equal' })),
  },
  { description: 'holds when the view answers 200 and the condition holds on its body' },
);

const WaitBody = Strict({
  event: Type.Optional(EventWait),
  inspect: Type.Optional(InspectWait),
  timeout: Type.Optional(Type.String({ description: `${SPAN}; default 5s, at most 120s` })),
});

const WaitAnswer = Type.Object({
  held: Type.Boolean({ description: 'false: the timeout ended the wait (still a 200: the wait did what it was asked)' }),
  waitedMs: Type.Integer(),
  message: Type.String({ description: 'what held, or what the sandbox saw instead' }),
  events: Type.Optional(
    Type.Array(CloudEventSchema, {
      description: 'held: the matching events; not held: the latest events that came meanwhile (any type, at most 10)',
    }),
  ),
  inspection: Type.Optional(
    Type.Object({
      path: Type.String(),
      status: Type.Integer({ description: "the view's status" }),
      selected: Type.Array(Type.Unknown(), { description: 'what the JSONPath selected' }),
      body: Type.Unknown({ description: "the view's body" }),
    }),
  ),
});

export type WaitRequest = Static<typeof WaitBody>;
export type WaitResult = Static<typeof WaitAnswer>;

/**
 * Where a value came from: a body field (its pointer), or a query parameter, which a detail names at
 * the start of its message besides (docs/errors.md).
 */
interface Field {
  path: string;
  /** Put before the rule: '' for a body field, `query parameter {name} ` for a query parameter. */
  named: string;
}
const bodyField = (...segments: string[]): Field => ({ path: pointer(...segments), named: '' });
const queryParameter = (name: string): Field => ({ path: pointer(name), named: `query parameter ${name} ` });

/** A span of time in ms from a field, or a 400 naming it. */
function spanOf(text: string | undefined, where: Field, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseSpanMs(text);
  if (ms === undefined) throw validationError([{ path: where.path, message: `${where.named}must be ${SPAN}` }]);
  if (ms > MAX_WAIT_MS) throw validationError([{ path: where.path, message: `${where.named}is at most ${MAX_WAIT_MS / 1000}s` }]);
  return ms;
}

/**
 * The type patterns of a filter: one comma-separated list, or several; each must be a pattern by the
 * rule every type filter follows (runtime/events.ts), else a 400 naming the list it is in.
 */
function typesOf(value: string | string[] | undefined, where: Field): string[] | undefined {
  if (value === undefined) return undefined;
  const problems: ErrorDetail[] = [];
  const types: string[] = [];
  (Array.isArray(value) ? value : [value]).forEach((list, i) => {
    for (const type of list.split(',').map((t) => t.trim())) {
      if (type === '') continue;
      const problem = typePatternProblem(type);
      if (problem) problems.push({ path: Array.isArray(value) ? `${where.path}${pointer(i)}` : where.path, message: `${where.named}${problem}` });
      else types.push(type);
    }
  });
  if (problems.length > 0) throw validationError(problems);
  return types;
}

/** `after` as a number, or a 400 when no such event was ever issued (the feed restarted, or a typo). */
function afterOf(after: string | undefined, events: Events, where: Field): number | undefined {
  if (after === undefined) return undefined;
  const n = Number(after);
  if (n > events.lastId)
    throw validationError([
      {
        path: where.path,
        message: `${where.named}is ${after}, but no event ${after} has been issued in this workspace (the last is ${events.lastId}); events live in memory, and a restart or a new workspace starts again from 1`,
      },
    ]);
  return n;
}

/** The filter a feed read or an event wait asks for, `after` checked against the feed. */
function filterOf(
  events: Events,
  q: { after?: string; type?: string | string[]; subject?: string },
  where: { after: Field; type: Field },
): EventFilter {
  const after = afterOf(q.after, events, where.after);
  const types = typesOf(q.type, where.type);
  return {
    ...(after === undefined ? {} : { after }),
    ...(types ? { types } : {}),
    ...(q.subject === undefined ? {} : { subject: q.subject }),
  };
}

/** Resolves after `ms`, or at once when the client goes away; `until` ends it early. */
function deadline(request: FastifyRequest, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const gone = () => controller.abort();
  request.raw.once('close', gone);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      request.raw.off('close', gone);
    },
  };
}

const describeEvent = (e: SandboxEvent) => `${e.id} ${e.type} (${e.subject})`;

function filterSentence(filter: EventFilter): string {
  const parts = [
    filter.types?.length ? `of type ${filter.types.join(' or ')}` : 'of any type',
    filter.subject !== undefined ? `with subject ${filter.subject}` : '',
    filter.after !== undefined ? `after event ${filter.after}` : '',
  ];
  return parts.filter(Boolean).join(' ');
}

export const eventsPlugin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        tags: TAG,
        summary: 'The event feed: state changes of this workspace as CloudEvents, oldest first; a long poll with wait',
        description:
          'Every state change that committed is an event (docs/events.md lists the types); a refused request emits none. ' +
          'With wait, the answer comes as soon as a matching event exists (in the turn of the event loop that emitted it) ' +
          'or when the wait ends, with no events. Pass `next` as `after` to read on.',
        querystring: FeedQuery,
        response: { 200: FeedAnswer, 400: StandardError, 401: StandardError, 409: StandardError, 503: StandardError },
        'x-sandbox-assumption': a('event-feed', 'control-pages'),
      },
    },
    async (request) => {
      const { events } = runtimeOf(request);
      const q = request.query;
      const waitMs = spanOf(q.wait, queryParameter('wait'), 0);
      const filter = filterOf(events, q, { after: queryParameter('after'), type: queryParameter('type') });
      const after = filter.after;
      if (waitMs > 0) {
        const { signal, done } = deadline(request, waitMs);
        await events.waitFor(filter, signal);
        done();
        if (events.interruption) throw events.interruption;
      }
      const limit = q.limit ?? 1000;
      const { events: list, cut } = events.page(filter, limit, PAGE_BYTES);
      const last = list[list.length - 1];
      const next = cut && last ? last.id : String(Math.max(after ?? 0, events.lastId));
      return { events: list, next, capacity: events.capacity, dropped: events.dropped };
    },
  );

  app.post(
    '/wait',
    {
      schema: {
        operationId: 'waitFor',
        tags: TAG,
        summary: 'Wait until an event comes, or an inspection view reaches a state; answers what it saw at the timeout',
        description:
          'Give event (type, subject, after) or inspect (a GET path of the control plane, a JSONPath and optionally the ' +
          'value it must select). The answer comes as soon as it holds: an event is checked when it is emitted, an ' +
          'inspection view again after every event of the workspace (every state change is one). At the timeout the ' +
          'answer is still a 200, with held false and what the sandbox saw instead.',
        body: WaitBody,
        response: { 200: WaitAnswer, 400: StandardError, 401: StandardError, 409: StandardError, 503: StandardError },
        'x-sandbox-assumption': a('waits'),
      },
    },
    async (request) => {
      const body = request.body;
      const problems: ErrorDetail[] = [];
      if ((body.event === undefined) === (body.inspect === undefined))
        problems.push({ path: '', message: 'give event or inspect (one of them)' });
      if (body.inspect) {
        const problem = jsonpathProblem(body.inspect.jsonpath);
        if (problem) problems.push({ path: pointer('inspect', 'jsonpath'), message: problem });
        if (/^\/_sandbox\/(events|wait)\b/.test(body.inspect.path))
          problems.push({ path: pointer('inspect', 'path'), message: 'must be an inspection view, not the feed or a wait' });
      }
      if (problems.length > 0) throw validationError(problems);
      const timeoutMs = spanOf(body.timeout, bodyField('timeout'), DEFAULT_WAIT_TIMEOUT_MS);
      const started = performance.now();
      const waited = () => Math.round(performance.now() - started);
      const { events } = runtimeOf(request);
      if (body.event) return waitForEvent(request, events, body.event, timeoutMs, waited);
      return waitForView(request, events, body.inspect as Static<typeof InspectWait>, timeoutMs, waited);
    },
  );
};

async function waitForEvent(
  request: FastifyRequest,
  events: Events,
  spec: Static<typeof EventWait>,
  timeoutMs: number,
  waited: () => number,
): Promise<WaitResult> {
  const filter = filterOf(events, spec, { after: bodyField('event', 'after'), type: bodyField('event', 'type') });
  const after = filter.after;
  const seenFrom = events.lastId;
  const { signal, done } = deadline(request, timeoutMs);
  await events.waitFor(filter, signal);
  done();
  if (events.interruption) throw events.interruption;
  const found = events.list(filter, 100);
  if (found.length > 0)
    return { held: true, waitedMs: waited(), message: `event ${describeEvent(found[0] as SandboxEvent)}`, events: found };
  const meanwhile = events.list({ after: after ?? seenFrom }).slice(-10);
  const saw =
    meanwhile.length === 0
      ? 'no event came at all'
      : `the events that came were: ${meanwhile.map(describeEvent).join('; ')}`;
  return {
    held: false,
    waitedMs: waited(),
    message: `no event ${filterSentence(filter)} within ${timeoutMs} ms; ${saw}`,
    events: meanwhile,
  };
}

async function waitForView(
  request: FastifyRequest,
  events: Events,
  spec: Static<typeof InspectWait>,
  timeoutMs: number,
  waited: () => number,
): Promise<WaitResult> {
  const name = workspaceNameOf(request.raw);
  const base = name === undefined ? '' : `/ws/${name}`;
  const token = request.headers['sandbox-admin-token'];
  const condition: Condition = { jsonpath: spec.jsonpath, ...('equals' in spec ? { equals: spec.equals } : {}) };
  let last: { status: number; body: unknown; selected: unknown[]; holds: boolean } = {
    status: 0,
    body: null,
    selected: [],
    holds: false,
  };
  const look = async () => {
    const res = await request.server.inject({
      method: 'GET',
      url: `${base}${spec.path}`,
      ...(typeof token === 'string' ? { headers: { 'sandbox-admin-token': token } } : {}),
    });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      // not JSON: the condition selects nothing in it
    }
    if (res.statusCode !== 200) {
      last = { status: res.statusCode, body, selected: [], holds: false };
      return;
    }
    try {
      const { holds, selected } = evaluate(condition, body);
      last = { status: res.statusCode, body, selected, holds };
    } catch (err) {
      if (err instanceof ConditionError)
        throw validationError([{ path: pointer('inspect', 'jsonpath'), message: err.message }]);
      throw err;
    }
  };

  const { signal, done } = deadline(request, timeoutMs);
  // Every state change is an event: the view is read again after each, never on a timer.
  let dirty = false;
  let wake: (() => void) | undefined;
  const stop = events.listen(() => {
    dirty = true;
    wake?.();
  });
  let end = () => {};
  // A view that is slow to answer never holds the wait past its timeout.
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const abort = () => {
    wake?.();
    end();
  };
  signal.addEventListener('abort', abort, { once: true });
  // The workspace being removed ends the wait at once, as the timeout does; the telling is removed
  // when the wait ends, so a long-lived workspace keeps nothing of its past waits.
  const untell = events.whenInterrupted(abort);
  const over = () => signal.aborted || events.interruption !== undefined;
  const lookUntilEnd = () => Promise.race([look(), ended]);
  try {
    await lookUntilEnd();
    while (!last.holds && !over()) {
      if (!dirty) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (over()) break;
      dirty = false;
      await lookUntilEnd();
    }
  } finally {
    signal.removeEventListener('abort', abort);
    untell();
    stop();
    done();
  }
  if (events.interruption) throw events.interruption;
  const inspection = { path: spec.path, status: last.status, selected: last.selected, body: last.body };
  const wanted = 'equals' in spec ? `${spec.jsonpath} selecting ${JSON.stringify(spec.equals)}` : `${spec.jsonpath} selecting something`;
  if (last.holds) return { held: true, waitedMs: waited(), message: `GET ${spec.path}: ${wanted}`, inspection };
  const saw =
    last.status !== 200
      ? `it answered ${last.status}${messageOf(last.body)}`
      : `it answered 200 and ${spec.jsonpath} selected ${JSON.stringify(last.selected)}`;
  return {
    held: false,
    waitedMs: waited(),
    message: `GET ${spec.path} did not reach ${wanted} within ${timeoutMs} ms: ${saw}`,
    inspection,
  };
}

function messageOf(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? ` (${message})` : '';
}
