// What every emulated interface shares at the HTTP edge: JSON-only bodies, its own error shape for
// every refusal (malformed JSON, wrong content type, too large, schema), and a 501 that names the
// operations the specification knows only by name.
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { namedOnly, type Operation } from './catalog.js';
import type { InterfaceContract } from './interface-module.js';
import {
  type ErrorDetail,
  namingFirst,
  renderError,
  SandboxError,
  STATUS_TEXT,
  validationError,
  standardBody,
} from './errors.js';
import { describeStorageFault } from '../store/errors.js';
import { besideRefused, collapseAlternatives, detailsFromAjv, MAX_DETAILS } from './validation.js';
import { assumptions as sandboxAssumptions } from './sandbox-assumptions.js';
import { assumptionLookup } from './assumption-catalog.js';
import { emptyBodyError, forbiddenKeyError, useJsonBodies } from './json.js';
import { fallbackSlug } from './outcomes.js';
import { type NearMiss, nearestOperation, nearMissSentence, OUTSIDE_PREFIX_DISTANCE } from './near-miss.js';
import { pathOf } from './url.js';
import { CREATED_HEADER, SIMILAR_HEADER } from '../runtime/workspaces.js';
import { plural } from '../domain/plural.js';

/** The checks of a body that its schema refused, as far as they still mean something. */
export interface RefusedBodyChecks {
  details: ErrorDetail[];
  /** The outcome the first of them names, when they come first. */
  outcome?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The rest of an operation's checks (domain, cross-field, against the state), run on a body its
     * schema refused, or on any body of a request another part of which was refused (a path or query
     * parameter, a header), so that one answer names every problem. Each check reads only fields of
     * the right type, and skips what an earlier problem makes meaningless; it never writes.
     */
    refusedBodyChecks?: (request: FastifyRequest) => RefusedBodyChecks;
    /**
     * Problems found before the request was read in full (bookkeeping: a malformed tenantId, known
     * at routing), named first in any 400 that refuses the rest of it: its body's problems, or a body
     * that is not JSON. With the outcome they name. Asked only of a refused request.
     */
    pendingProblems?: (request: FastifyRequest) => { details: ErrorDetail[]; outcome: string } | undefined;
  }
}

/**
 * The details found so far (the path parameters' and the body schema's), then what the route's other
 * checks of the body find (see refusedBodyChecks), at most MAX_DETAILS of them; a check about a field
 * refused already is left out. A failing check never turns the 400 into something else: it is logged and skipped.
 */
function allBodyProblems(request: FastifyRequest, schema: ErrorDetail[], total: number): { details: ErrorDetail[]; total: number } {
  const checks = request.routeOptions.config.refusedBodyChecks;
  if (!checks) return { details: schema, total };
  let more: ErrorDetail[];
  try {
    more = checks(request).details;
  } catch (err) {
    request.log.error({ err }, 'the checks of a refused body failed');
    return { details: schema, total };
  }
  const kept = besideRefused(schema, more);
  return { details: [...schema, ...kept].slice(0, MAX_DETAILS), total: total + kept.length };
}

/** The parts of a request Fastify validates, in its order: it stops at the first it refuses. */
const PARTS = ['params', 'body', 'querystring', 'headers'] as const;
export type RequestPart = (typeof PARTS)[number];

const NO_PROBLEMS = { details: [], total: 0 };

/**
 * The problems of one part of a request, judged by the route's own validator as Fastify would: for a
 * refusal that names them beside others (another part refused, a malformed tenantId), never on a
 * request that is otherwise accepted. The text parts are judged on a copy (their validator coerces
 * it); the body as parsed, which its validator leaves as it is (its exact numbers are recorded by
 * its objects, http/exact-numbers.ts).
 */
export function partProblems(request: FastifyRequest, part: RequestPart): { details: ErrorDetail[]; total: number } {
  const validate = request.getValidationFunction(part);
  if (typeof validate !== 'function') return NO_PROBLEMS;
  const sent: unknown = part === 'body' ? request.body : part === 'querystring' ? request.query : request[part];
  const data = part === 'body' ? (sent ?? null) : { ...(sent as object) };
  try {
    if (validate(data)) return NO_PROBLEMS;
  } catch (err) {
    // As with a failing check of a refused body: the refusal stands, without this part's problems.
    request.log.error({ err, part }, 'judging a part of a refused request failed');
    return NO_PROBLEMS;
  }
  const errors = validate.errors ?? [];
  return { details: detailsFromAjv(errors, part), total: collapseAlternatives(errors).length };
}

/**
 * A validation refusal naming the problems of every part of the request, not only of the part
 * Fastify stopped at: the parts it judged before passed, the later ones are judged now (only on this
 * refusal, so an accepted request is validated once). In Fastify's order, params, body (its schema's
 * problems, then the route's other checks of it: refusedBodyChecks), querystring, headers; each
 * part's details as that part alone gets them.
 */
function allPartsProblems(request: FastifyRequest, context: RequestPart, refusal: ErrorObject[]): SandboxError {
  const refused = PARTS.indexOf(context);
  let details: ErrorDetail[] = [];
  let total = 0;
  for (const [i, part] of PARTS.entries()) {
    const found =
      i === refused
        ? { details: detailsFromAjv(refusal, context), total: collapseAlternatives(refusal).length }
        : i > refused
          ? partProblems(request, part)
          : NO_PROBLEMS;
    details = [...details, ...found.details].slice(0, MAX_DETAILS);
    total += found.total;
    // The body's other checks: on a body its schema refused, or never judged, or accepted beside a refused later part.
    if (part === 'body') ({ details, total } = allBodyProblems(request, details, total));
  }
  return validationError(details, undefined, total);
}

/** A near miss as the body shows it (the distance is the sandbox's business). */
function nearMissView(miss: NearMiss) {
  return { operation: miss.operation, method: miss.method, path: miss.path, differences: miss.differences };
}

export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  return plural(bytes, 'byte');
}

/** A body over its route's limit, and the setting that raises it. */
export function bodyTooLargeMessage(limit: number, setting: string): string {
  return `the body is larger than this sandbox's limit of ${describeBytes(limit)}; raise ${setting} to send more`;
}

/** Turns whatever a route or Fastify threw into a SandboxError with a message a user can act on. */
export function toSandboxError(
  err: FastifyError | SandboxError | Error,
  request: FastifyRequest,
): SandboxError {
  if (err instanceof SandboxError) return err;
  const fe = err as FastifyError;
  if (fe.validation) {
    const context = fe.validationContext ?? 'body';
    if ((PARTS as readonly string[]).includes(context)) return allPartsProblems(request, context as RequestPart, fe.validation);
    return validationError(detailsFromAjv(fe.validation, context), undefined, collapseAlternatives(fe.validation).length);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const ct = request.headers['content-type'];
      return new SandboxError(
        400,
        ct
          ? `Content-Type must be application/json, got "${String(ct).slice(0, 100)}"`
          : 'Content-Type must be application/json (the header is missing)',
      );
    }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return emptyBodyError();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return forbiddenKeyError();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SandboxError(400, bodyTooLargeMessage(request.routeOptions.bodyLimit ?? 0, 'SANDBOX_BODY_LIMIT'));
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new SandboxError(400, 'the Content-Length header does not match the body');
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) return new SandboxError(400, fe.message || 'bad request');
  // The request id ties the answer to the log line; a storage failure is named by its cause (disk
  // full, database locked...), which holds no secret; in process, with the logger off, the control
  // plane's body carries any other cause itself (causeDetails), so the thrown error says what broke.
  return new SandboxError(500, `internal sandbox error (request ${request.id}): ${faultCause(err)}`);
}

/** What an unexpected error was, as far as an answer may say: a storage failure's cause, else the log. */
function faultCause(err: unknown): string {
  const storage = describeStorageFault(err);
  return storage === undefined ? 'see the sandbox log' : `the sandbox's storage failed, ${storage}; see the sandbox log`;
}

/**
 * An unexpected error as a detail a developer can act on: its name, message and first frames, with
 * paths relative to the working directory. Only the control plane shows it (its caller runs the
 * sandbox); the message is cut short, and no request value is ever part of it.
 */
export function causeDetails(err: unknown): Array<{ path: string; message: string }> {
  if (!(err instanceof Error)) return [];
  const cwd = `${process.cwd()}/`;
  const frames = (err.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().replaceAll(`file://${cwd}`, '').replaceAll(cwd, ''))
    .filter((line) => line.startsWith('at '))
    .slice(0, 3);
  const message = `${err.name}: ${err.message}`.slice(0, 300);
  return [{ path: '', message: `cause: ${[message, ...frames].join(' | ')}` }];
}

/** The sandbox-wide decisions that hold for every documented route, marked on each in OpenAPI. */
const assumed = assumptionLookup(sandboxAssumptions);
const everyRoute = assumed(
  'strict-fields',
  'duplicate-keys',
  'malformed-body',
  'body-depth',
  'malformed-http',
  'repeated-headers',
  'body-limit',
  'money-cents',
  'exact-numbers',
  'json-utf8',
  'compressed-bodies',
  'money-sign',
  'tax-id-letters',
  'cnpj-all-equal',
  'query-numbers',
  'query-booleans',
  'head-like-get',
  'named-only-501',
  'sandbox-fault-status',
  'near-miss',
  'no-rate-limit',
);

const NO_SLUGS: ReadonlySet<string> = new Set();

const OUTCOME_HEADER_SCHEMA = {
  type: 'string',
  description: 'the outcome of this answer, <operation>.<outcome>, as listed by GET /_sandbox/coverage',
  'x-sandbox-assumption': assumed('coverage-outcomes'),
};

/** The headers an answer from a workspace created on first use carries (workspace-created-header), as OpenAPI declares them. */
export const WORKSPACE_HEADER_SCHEMAS = {
  [CREATED_HEADER]: {
    type: 'string',
    description: 'the workspace this very request created on first use (a path under /ws/{name}/); absent when it existed',
    'x-sandbox-assumption': assumed('workspace-created-header'),
  },
  [SIMILAR_HEADER]: {
    type: 'string',
    description: 'an existing workspace whose name is near the new one (a likely typo); absent when none is',
    'x-sandbox-assumption': assumed('workspace-created-header'),
  },
};

/** Gives the routes registered on `app` the interface's edge: JSON bodies, its error shape and statuses, outcomes, the 501. */
export function serveInterface(app: FastifyInstance, contract: InterfaceContract): void {
  app.addHook('onRoute', (route) => {
    // The HEAD twin of a GET shares the GET's schema object, already marked.
    if (route.method === 'HEAD') return;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const own = schema['x-sandbox-assumption'];
    schema['x-sandbox-assumption'] = typeof own === 'string' ? `${own} ${everyRoute}` : everyRoute;
    // Every answer of a documented operation names its outcome (coverage-outcomes), and its workspace
    // when the request created it (workspace-created-header): declared on each response.
    const responses = schema.response as Record<string, Record<string, unknown>> | undefined;
    if (route.config?.operation !== undefined && responses) {
      for (const [status, response] of Object.entries(responses)) {
        const headers = (response.headers ?? {}) as Record<string, unknown>;
        responses[status] = { ...response, headers: { ...headers, 'Sandbox-Outcome': OUTCOME_HEADER_SCHEMA, ...WORKSPACE_HEADER_SCHEMAS } };
      }
    }
    route.schema = schema;
  });

  // Only JSON bodies: Fastify would otherwise parse text/plain and report a confusing type error.
  useJsonBodies(app);

  // The outcome slugs of each operation, for the fallback of a refusal nobody tagged.
  const slugsOf = new Map<string, Set<string>>();
  for (const o of contract.outcomes) {
    let slugs = slugsOf.get(o.operation);
    if (!slugs) slugsOf.set(o.operation, (slugs = new Set()));
    slugs.add(o.slug);
  }

  app.setErrorHandler((err: FastifyError | SandboxError, request, reply) => {
    let e = toSandboxError(err, request);
    const pending = e.status === 400 ? request.routeOptions.config.pendingProblems?.(request) : undefined;
    if (pending) e = namingFirst(pending.details, e, MAX_DETAILS).tag(pending.outcome);
    if (e.status >= 500) {
      request.log.error({ err }, 'unexpected error');
    }
    const operation = request.routeOptions.config.operation;
    if (!contract.statuses.includes(e.status)) {
      // Documented statuses only. An undocumented refusal becomes the interface's 400; a fault of the
      // sandbox itself, where the interface documents no 5xx, is a 400 that says whose fault it is.
      e =
        e.status < 500
          ? new SandboxError(400, e.message, { code: e.code, details: e.details })
          : new SandboxError(
              400,
              `internal sandbox error (request ${request.id}): a fault of the sandbox, not of your request (${faultCause(err)}); this interface documents no 5xx status`,
              { code: 'SandboxFault' },
            );
    }
    if (operation !== undefined) {
      // The rule that refused named its outcome; what the framework refused gets one from its kind.
      request.outcome =
        e.outcome ??
        fallbackSlug(
          err,
          { status: e.status, sandboxFault: e.code === 'SandboxFault' },
          e.details[0]?.path,
          slugsOf.get(operation) ?? NO_SLUGS,
        );
    }
    return reply.code(e.status).type('application/json').send(renderError(contract.shape, e));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    reply.code(501).send(notImplementedBody(contract, request.method, pathOf(request.url))),
  );
}

/**
 * The 501 of a request under an interface's prefix that no documented operation owns: it names the
 * interface, its named-only operations, and the nearest documented operation with what differs.
 */
export function notImplementedBody(contract: InterfaceContract, method: string, path: string): Record<string, unknown> {
  const names = namedOnly(contract.operations).map((o) => o.name);
  const nearest = nearestOperation(method, path, contract.operations);
  const message = `${method} ${path} is not a documented operation of the ${contract.id} interface: the sandbox does not emulate it (the specification shows no method, path or payload for the operations it names only)${nearest ? `; ${nearMissSentence(nearest)}` : ''}`;
  const base =
    contract.shape === 'envelope'
      ? { error: { code: 'NotImplemented', message, target: null } }
      : { statusCode: 501, error: STATUS_TEXT[501], message, details: [] };
  return { ...base, interface: contract.id, namedOnlyOperations: names, ...(nearest ? { nearest: nearMissView(nearest) } : {}) };
}

/** The 404 of a request outside every interface prefix, naming a documented operation it is a near miss of. */
export function outsideBody(method: string, path: string, message: string, operations: readonly Operation[]): Record<string, unknown> {
  const nearest = nearestOperation(method, path, operations);
  if (!nearest || nearest.distance > OUTSIDE_PREFIX_DISTANCE) return { ...standardBody(404, message) };
  return { ...standardBody(404, `${message}; ${nearMissSentence(nearest)}`), nearest: nearMissView(nearest) };
}

/**
 * The standard error body for what is not an emulated interface (the control plane, unknown paths
 * outside every prefix): statuses as they are, a 404 with the caller's own wording.
 */
export function useStandardErrors(
  app: FastifyInstance,
  notFound: (request: FastifyRequest) => string,
  /** Documented operations a 404 may be a near miss of (outside every prefix: a version or prefix typo). */
  operations: readonly Operation[] = [],
): void {
  app.setErrorHandler((err: FastifyError | SandboxError, request, reply) => {
    const e = toSandboxError(err, request);
    // A 5xx the sandbox answers on purpose (503: it is closing) is not a fault: no cause to detail.
    if (e.status >= 500 && !(err instanceof SandboxError && err.status !== 500)) {
      request.log.error({ err }, 'unexpected error');
      // A storage failure is said in the message; any other cause is detailed for the developer.
      const details = describeStorageFault(err) === undefined ? causeDetails(err) : [];
      return reply.code(e.status).send(standardBody(e.status, e.message, details));
    }
    return reply.code(e.status).send(standardBody(e.status, e.message, e.details));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(outsideBody(request.method, pathOf(request.url), notFound(request), operations)),
  );
}
