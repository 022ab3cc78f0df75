// Subscriptions under /_sandbox/subscriptions: a URL that receives this workspace's events, signed
// per Standard Webhooks; the delivery log, redelivery and the faults of each subscription. The
// delivery engine is runtime/subscriptions.ts; here the calls are checked and answered. A secret is
// never answered back, logged or journaled: only one the sandbox generated is shown, once, at creation.
import { type FastifyPluginAsyncTypebox, type Static, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { type ErrorDetail, pointer, SandboxError, validationError } from '../http/errors.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { StandardError, Strict } from '../http/schema.js';
import { parseSpanMs } from '../runtime/duration.js';
import { type SandboxEvent, typePatternProblem } from '../runtime/events.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import {
  DEFAULT_RETRY_MS,
  DEFAULT_TIMEOUT_MS,
  DELIVERY_LOG_SIZE,
  MAX_SUBSCRIPTIONS,
  MAX_TIMEOUT_MS,
  NO_FAULTS,
  type SubscriptionFaults,
} from '../runtime/subscriptions.js';
import { compileTemplate, type Template, TemplateError, templateHelpers } from '../runtime/templates.js';

const TAG = ['sandbox control plane'];
const a = assumptionLookup(assumptions);
const SPAN = 'a span such as 500ms, 5s, 2m or PT5S';
/** Longest retry interval or fault delay on the sandbox clock: a week. */
const MAX_CLOCK_SPAN_MS = 7 * 86_400_000;
/** Standard Webhooks: a secret is whsec_ followed by the base64 of 24 to 64 bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

const FaultsInput = Strict(
  {
    duplicate: Type.Optional(Type.Boolean({ description: 'send every message twice (same webhook-id)' })),
    delay: Type.Optional(
      Type.String({ description: `hold every message this long on the sandbox clock before its first attempt: ${SPAN}` }),
    ),
    outOfOrder: Type.Optional(
      Type.Boolean({
        description:
          'messages that come due together (the events of one request, or those held by delay) go out newest first',
      }),
    ),
    failFirst: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        description: 'the first N attempts of every message are sent, then counted failed whatever the answer (and retried)',
      }),
    ),
  },
  { description: 'faults a receiver must survive; all off by default' },
);

const SubscriptionInput = Strict({
  url: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'an absolute http or https URL, written as it is called (RFC 3986 characters; a space or a line break is refused, not mended)',
    example: 'http://127.0.0.1:4000/hooks',
  }),
  types: Type.Array(
    Type.String({ minLength: 1, maxLength: 200, description: 'an event type, or its beginning followed by one * (* alone: every type); docs/events.md' }),
    { minItems: 1, maxItems: 50, example: ['sandbox.receivables.import.*'] },
  ),
  secret: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'the signing secret, whsec_ then the base64 of 24 to 64 bytes (Standard Webhooks); absent: the sandbox generates one and answers it once',
    }),
  ),
  timeout: Type.Optional(Type.String({ description: `how long an attempt may take before it is cut off (real time): ${SPAN}; default 5s, at most 60s` })),
  retrySchedule: Type.Optional(
    Type.Array(Type.String({ description: SPAN }), {
      maxItems: 20,
      description:
        'waits on the sandbox clock before each retry of a failed message; default the Standard Webhooks schedule 5s, 5m, 30m, 2h, 5h, 10h, 10h; [] never retries',
    }),
  ),
  faults: Type.Optional(FaultsInput),
  template: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100_000,
      description:
        'a Handlebars template of the payload, rendered over {event} (the CloudEvent) with the helpers of docs/stubs.md, inspect included, ' +
        'when the event is emitted (so inspect reads the state the event left). {{ }} escapes HTML, {{toJson value}} writes a value as JSON. ' +
        'What it renders must be JSON: it is sent as application/json, signed like any message. One that does not parse is a 400 here; ' +
        'one that fails on an event, or renders no JSON, fails that delivery without an attempt, its error saying why. Absent: the CloudEvent itself',
      example: '{"kind":{{toJson event.type}},"bill":{{toJson event.data.uid}},"at":{{toJson event.time}} }',
    }),
  ),
});

const Faults = Type.Object({
  duplicate: Type.Boolean(),
  delayMs: Type.Integer(),
  outOfOrder: Type.Boolean(),
  failFirst: Type.Integer(),
});

const SubscriptionSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    types: Type.Array(Type.String()),
    template: Type.Union([Type.String(), Type.Null()], { description: 'the payload template as given; null: the CloudEvent itself is sent' }),
    timeoutMs: Type.Integer(),
    retrySchedule: Type.Array(Type.Integer(), { description: 'milliseconds of sandbox time before each retry' }),
    faults: Faults,
    createdAt: Type.String({ description: 'on the sandbox clock' }),
    deliveries: Type.Object({
      pending: Type.Integer(),
      delivered: Type.Integer(),
      failed: Type.Integer({ description: 'given up after the last retry' }),
      forgotten: Type.Integer({ description: `deliveries dropped from the log (it keeps ${DELIVERY_LOG_SIZE})` }),
    }),
  },
  { title: 'Subscription' },
);

const Created = Type.Object({
  ...SubscriptionSchema.properties,
  secret: Type.Optional(
    Type.String({ description: 'only when the sandbox generated it: shown here once, never again' }),
  ),
});

const AttemptSchema = Type.Object({
  n: Type.Integer({ description: '1 for the first attempt of the message' }),
  time: Type.String({ description: 'sandbox clock' }),
  realTime: Type.String({ description: 'real clock (webhook-timestamp)' }),
  status: Type.Union([Type.Integer(), Type.Null()], { description: "the receiver's status; null: no answer" }),
  ok: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
  response: Type.Union([Type.String(), Type.Null()], { description: "the start of the receiver's answer" }),
  responseCutOff: Type.Boolean({
    description: "the answer's body had not ended at the timeout: response is what came until then (the status decides: a 2xx within the timeout delivers)",
  }),
  durationMs: Type.Number(),
  fault: Type.Union([Type.Literal('duplicate'), Type.Literal('fail-first'), Type.Null()]),
  redelivery: Type.Boolean(),
});

const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String(),
    type: Type.String(),
    subject: Type.String(),
    webhookId: Type.String({ description: 'the webhook-id header: the same on every attempt of the message' }),
    status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
    attempts: Type.Array(AttemptSchema),
    nextAttemptAt: Type.Union([Type.String(), Type.Null()], { description: 'sandbox clock' }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'why no message could be made for the event (its template failed on it or rendered no JSON): failed without an attempt; null otherwise',
    }),
  },
  { title: 'Delivery' },
);

const SubscriptionId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

function spanProblem(text: string, where: string, max: number, problems: ErrorDetail[]): number {
  const ms = parseSpanMs(text);
  if (ms === undefined) problems.push({ path: where, message: `must be ${SPAN}` });
  else if (ms > max) problems.push({ path: where, message: `is at most ${max / 1000}s` });
  return ms ?? 0;
}

function faultsOf(input: Static<typeof FaultsInput> | undefined, where: string[], problems: ErrorDetail[]): SubscriptionFaults {
  if (!input) return { ...NO_FAULTS };
  return {
    duplicate: input.duplicate ?? false,
    delayMs: input.delay === undefined ? 0 : spanProblem(input.delay, pointer(...where, 'delay'), MAX_CLOCK_SPAN_MS, problems),
    outOfOrder: input.outOfOrder ?? false,
    failFirst: input.failFirst ?? 0,
  };
}

/** The characters a URL is written in (RFC 3986: unreserved, reserved, and % starting an escape). */
const URL_TEXT = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

function urlProblem(url: string): string | undefined {
  // The URL parser would mend the others (strip a CR, LF or tab, escape a space or a non-ASCII
  // character, read a backslash as a slash): the subscription would show one URL and call another.
  if (!URL_TEXT.test(url) || /%(?![0-9A-Fa-f]{2})/.test(url)) {
    return 'must be written as it is called: an absolute http or https URL in the characters RFC 3986 allows, anything else (a space, a line break, a non-ASCII letter) percent-encoded';
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL such as http://127.0.0.1:4000/hooks';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must be http or https, not ${parsed.protocol.slice(0, -1)}`;
  if (parsed.username || parsed.password) return 'must carry no user or password: sign with the secret instead';
  return undefined;
}

function secretProblem(secret: string): string | undefined {
  if (!SECRET.test(secret)) return 'must be whsec_ followed by base64 (Standard Webhooks), e.g. whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64').length;
  if (bytes < 24 || bytes > 64) return `must encode 24 to 64 bytes of key (it encodes ${bytes})`;
  return undefined;
}

/** What the inspect helper of a template reads: GET /_sandbox{path} in `runtime`, as an object. */
export type Inspect = (runtime: Runtime, path: string) => unknown;

/** The template compiled, or its problem recorded at /template. */
function templateOf(text: string | undefined, problems: ErrorDetail[]): Template | null {
  if (text === undefined) return null;
  try {
    return compileTemplate(text);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    problems.push({ path: pointer('template'), message: err.message });
    return null;
  }
}

export const subscriptionsPlugin: FastifyPluginAsyncTypebox<{ inspect?: Inspect }> = async (app, options) => {
  app.post(
    '/subscriptions',
    {
      schema: {
        operationId: 'createSubscription',
        tags: TAG,
        summary: 'Subscribe a URL to events of this workspace: signed POSTs (Standard Webhooks), retried on the sandbox clock',
        description:
          'Each event whose type matches is POSTed to url as a CloudEvent (structured mode, application/cloudevents+json), ' +
          'or, with a template, as the JSON the template renders over it (application/json), ' +
          'with the webhook-id, webhook-timestamp and webhook-signature headers of the Standard Webhooks specification. ' +
          'A failed attempt (no 2xx within the timeout) is retried on the sandbox clock. The secret is never shown back; ' +
          'one the sandbox generated is answered here, once.',
        body: SubscriptionInput,
        response: { 201: Created, 400: StandardError, 401: StandardError, 409: StandardError },
        'x-sandbox-assumption': a('webhook-deliveries', 'webhook-faults', 'webhook-template', 'template-render-limits'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const body = request.body;
      const problems: ErrorDetail[] = [];
      const url = urlProblem(body.url);
      if (url) problems.push({ path: pointer('url'), message: url });
      body.types.forEach((t, i) => {
        const problem = typePatternProblem(t);
        if (problem) problems.push({ path: pointer('types', i), message: problem });
      });
      if (body.secret !== undefined) {
        const problem = secretProblem(body.secret);
        if (problem) problems.push({ path: pointer('secret'), message: problem });
      }
      const timeoutMs =
        body.timeout === undefined ? DEFAULT_TIMEOUT_MS : spanProblem(body.timeout, pointer('timeout'), MAX_TIMEOUT_MS, problems);
      if (body.timeout !== undefined && timeoutMs === 0 && problems.length === 0)
        problems.push({ path: pointer('timeout'), message: 'must be more than 0' });
      const retryMs =
        body.retrySchedule === undefined
          ? [...DEFAULT_RETRY_MS]
          : body.retrySchedule.map((s, i) => spanProblem(s, pointer('retrySchedule', i), MAX_CLOCK_SPAN_MS, problems));
      const faults = faultsOf(body.faults, ['faults'], problems);
      const template = templateOf(body.template, problems);
      if (problems.length > 0) throw validationError(problems);
      if (runtime.subscriptions.size >= MAX_SUBSCRIPTIONS)
        throw new SandboxError(409, `this workspace holds ${MAX_SUBSCRIPTIONS} subscriptions, the most it keeps: delete one first`);
      const generated = body.secret === undefined;
      // A generated secret follows the sandbox's seed only when secrets do (SANDBOX_SEED_SECRETS).
      const secret = body.secret ?? `whsec_${Buffer.from(runtime.ids.secret(), 'base64url').toString('base64')}`;
      const view = runtime.subscriptions.add({
        url: body.url,
        types: [...body.types],
        secret,
        render: template ? renderer(template, runtime, options.inspect) : null,
        template: body.template ?? null,
        timeoutMs,
        retryMs,
        faults,
      });
      // The receiver's origin and path only: a query string may carry a receiver's own key.
      const { origin, pathname } = new URL(view.url);
      request.log.info({ subscription: view.id, receiver: `${origin}${pathname}`, types: view.types }, 'subscription added');
      return reply.code(201).send(generated ? { ...view, secret } : view);
    },
  );

  app.get(
    '/subscriptions',
    {
      schema: {
        operationId: 'listSubscriptions',
        tags: TAG,
        summary: 'The subscriptions of this workspace, with their delivery counts (never their secrets)',
        description: 'Every subscription in the order it was created.',
        response: { 200: Type.Object({ subscriptions: Type.Array(SubscriptionSchema) }), 401: StandardError },
      },
    },
    async (request) => ({ subscriptions: runtimeOf(request).subscriptions.list() }),
  );

  const unknown = (id: string) => new SandboxError(404, `no subscription "${id}" in this workspace (GET /_sandbox/subscriptions lists them)`);

  app.get(
    '/subscriptions/:id',
    {
      schema: {
        operationId: 'getSubscription',
        tags: TAG,
        summary: 'One subscription',
        description: 'The subscription with its delivery counts; an unknown id is a 404.',
        params: SubscriptionId,
        response: { 200: SubscriptionSchema, 401: StandardError, 404: StandardError },
      },
    },
    async (request) => {
      const view = runtimeOf(request).subscriptions.get(request.params.id);
      if (!view) throw unknown(request.params.id);
      return view;
    },
  );

  app.delete(
    '/subscriptions/:id',
    {
      schema: {
        operationId: 'deleteSubscription',
        tags: TAG,
        summary: 'Remove a subscription: nothing more is sent to it, retries included',
        description: 'Its delivery log goes with it; an unknown id is a 404.',
        params: SubscriptionId,
        response: { 200: Type.Object({ removed: Type.Integer() }), 401: StandardError, 404: StandardError },
      },
    },
    async (request) => {
      if (!runtimeOf(request).subscriptions.remove(request.params.id)) throw unknown(request.params.id);
      return { removed: 1 };
    },
  );

  app.put(
    '/subscriptions/:id/faults',
    {
      // Its delay's reading, named beside the problems of a refused id or of the rest of the body.
      config: {
        refusedBodyChecks: (request) => {
          const delay = (request.body as { delay?: unknown } | null | undefined)?.delay;
          const problems: ErrorDetail[] = [];
          if (typeof delay === 'string') spanProblem(delay, pointer('delay'), MAX_CLOCK_SPAN_MS, problems);
          return { details: problems };
        },
      },
      schema: {
        operationId: 'setSubscriptionFaults',
        tags: TAG,
        summary: "Switch a subscription's faults (the whole set: what is left out is off)",
        description: 'Applies to the messages that come due from now on.',
        params: SubscriptionId,
        body: FaultsInput,
        response: { 200: SubscriptionSchema, 400: StandardError, 401: StandardError, 404: StandardError },
        'x-sandbox-assumption': a('webhook-faults'),
      },
    },
    async (request) => {
      const problems: ErrorDetail[] = [];
      const faults = faultsOf(request.body, [], problems);
      if (problems.length > 0) throw validationError(problems);
      const view = runtimeOf(request).subscriptions.setFaults(request.params.id, faults);
      if (!view) throw unknown(request.params.id);
      return view;
    },
  );

  app.get(
    '/subscriptions/:id/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        tags: TAG,
        summary: 'The delivery log of a subscription, newest first: every attempt with its answer',
        description: `The log keeps the last ${DELIVERY_LOG_SIZE} messages of the subscription.`,
        params: SubscriptionId,
        querystring: Type.Object({
          status: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'] })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DELIVERY_LOG_SIZE })),
        }),
        response: {
          200: Type.Object({ deliveries: Type.Array(DeliverySchema) }),
          400: StandardError,
          401: StandardError,
          404: StandardError,
        },
      },
    },
    async (request) => {
      const { status, limit } = request.query;
      const deliveries = runtimeOf(request).subscriptions.deliveries(request.params.id, {
        ...(status === undefined ? {} : { status: status as 'pending' | 'delivered' | 'failed' }),
        ...(limit === undefined ? {} : { limit }),
      });
      if (!deliveries) throw unknown(request.params.id);
      return { deliveries };
    },
  );

  app.post(
    '/subscriptions/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        operationId: 'redeliver',
        tags: TAG,
        summary: 'Send a message again now (same webhook-id, new timestamp and signature); not retried if it fails',
        description:
          'Answers 202 with the delivery; the new attempt shows in its log once made. ' +
          'A 409 when the delivery has no message: its template failed on the event or rendered no JSON (its error says which).',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), deliveryId: Type.String({ minLength: 1, maxLength: 20 }) }),
        response: { 202: DeliverySchema, 401: StandardError, 404: StandardError, 409: StandardError },
      },
    },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      const result = runtimeOf(request).subscriptions.redeliver(id, deliveryId);
      if (result === 'no-subscription') throw unknown(id);
      if (result === 'no-delivery')
        throw new SandboxError(404, `subscription ${id} has no delivery "${deliveryId}" (its log keeps the last ${DELIVERY_LOG_SIZE})`);
      if (result === 'no-message')
        throw new SandboxError(409, `delivery ${deliveryId} has no message to send: its template made none for its event (its error says why)`);
      return reply.code(202).send(result);
    },
  );
};

/**
 * The payload of each event, rendered when the event is emitted (so `inspect` reads the state the
 * event left) with the helpers every sandbox template gets: time on the sandbox clock, seeded values.
 */
function renderer(template: Template, runtime: Runtime, inspect: Inspect | undefined) {
  const helpers = templateHelpers({
    clock: runtime.clock,
    ids: runtime.ids,
    ...(inspect ? { inspect: (path: string) => inspect(runtime, path) } : {}),
  });
  return (event: SandboxEvent) => template({ event }, helpers);
}
