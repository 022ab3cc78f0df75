// Schema building blocks shared by the interfaces and the control plane.
import { type TSchema, Type } from '@fastify/type-provider-typebox';
import type { DecimalText } from '../domain/money.js';
import { assumptionLookup } from './assumption-catalog.js';
import { assumptions as sandboxAssumptions } from './sandbox-assumptions.js';

const assumedSandbox = assumptionLookup(sandboxAssumptions);

/**
 * Money on the wire: a JSON number with at most two decimal places (kept as integer cents). The
 * `money` keyword of the sandbox's Ajv (http/validation.ts) checks it from the number's text where a
 * double would change it; the OpenAPI document says it in standard keywords (http/openapi.ts).
 */
export const Money = (options: Record<string, unknown> = {}) =>
  Type.Number({ money: true, description: 'amount, at most two decimal places', ...options });

/**
 * An amount going out (inspection): a JSON number, written digit for digit where a double would
 * change it (centsToNumber, and the control plane's serializer in http/serializer.ts).
 */
export const AmountOut = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<number | DecimalText>({ type: 'number', description: 'amount in reais, exact to the cent', ...options });

/** A real calendar date written YYYY-MM-DD. */
export const CalendarDate = (options: Record<string, unknown> = {}) =>
  Type.String({ format: 'date', description: 'a real calendar date, YYYY-MM-DD', ...options });

/** An ISO 8601 UTC timestamp. */
export const UtcTimestamp = (options: Record<string, unknown> = {}) =>
  Type.String({ format: 'utc-timestamp', description: 'ISO 8601 UTC timestamp', ...options });

/** A strict object: unknown fields are a 400, never silently dropped. */
export const Strict = <T extends Parameters<typeof Type.Object>[0]>(
  properties: T,
  options: Record<string, unknown> = {},
) => Type.Object(properties, { additionalProperties: false, ...options });

/**
 * The query string of an operation that documents no query parameter: each parameter sent is a 400 naming
 * it (assumption query-on-body-operations), never silently ignored.
 */
export const NoQuery = () =>
  Strict({}, { description: 'no query parameter is documented', 'x-sandbox-assumption': assumedSandbox('query-on-body-operations') });

export const ErrorDetailSchema = Type.Object({
  path: Type.String({ description: 'JSON pointer of the field at fault' }),
  message: Type.String({ description: 'the rule it breaks' }),
}, { title: 'ErrorDetail' });

/** The error body of bookkeeping, registry, loan-bond and the control plane. */
export const StandardError = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  details: Type.Array(ErrorDetailSchema),
}, { title: 'StandardError' });

/** The documented receivables envelope. */
export const EnvelopeError = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    target: Type.Union([Type.String(), Type.Null()]),
  }),
}, { title: 'EnvelopeError' });

/** The challenge a 401 of a bearer-token interface carries (RFC 7235), for the document. */
export const BEARER_CHALLENGE = {
  'WWW-Authenticate': {
    type: 'string',
    description: 'the Bearer challenge (RFC 6750): the Authorization header was missing, malformed or unknown',
  },
};

/**
 * Response schemas for a set of statuses, all with the same error body. `headers401`: response
 * headers of the 401 (read by @fastify/swagger from the schema's `headers`).
 */
export function errorResponses(
  statuses: readonly number[],
  body: TSchema,
  assumption?: string,
  headers401?: Record<string, unknown>,
) {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) {
    const extra = {
      ...(assumption ? { 'x-sandbox-assumption': assumption } : {}),
      ...(s === 401 && headers401 ? { headers: headers401 } : {}),
    };
    out[s] = Object.keys(extra).length > 0 ? Type.Unsafe({ ...body, ...extra }) : body;
  }
  return out;
}

/** A string from a fixed list: one clean `enum` error instead of a union's noise. */
export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/**
 * The optional strict-mode request header (a sandbox addition) of every interface whose domain checks
 * warn (runtime/strict.ts): registry, receivables and loan-bond. `assumption`: the interface's decision.
 */
export const StrictHeaders = (assumption: string) =>
  Type.Object({
    'sandbox-strict': Type.Optional(
      Type.Boolean({
        description:
          'true: domain checks refuse (400) instead of warning; written as a boolean query value is (true, false, 1 or 0 in any case)',
        example: true,
        'x-sandbox-assumption': `${assumption} ${assumedSandbox('query-booleans')}`,
      }),
    ),
  });

/** What befell an item's asynchronous processing (runtime/work.ts, JobRecord), on its inspection. */
export const ProcessingRecord = Type.Union(
  [
    Type.Object({
      failedAttempts: Type.Integer({ description: 'attempts at a slice of this item that failed; the item stayed as it was' }),
      retries: Type.Integer({ description: 'attempts made after a failure, the one that succeeded included' }),
      failures: Type.Array(
        Type.Object({
          at: Type.String({ description: 'when, on the real clock' }),
          slice: Type.String({ description: 'which part of the processing failed, e.g. "lines 1-20000"' }),
          error: Type.String({ description: 'what went wrong, e.g. "database locked (SQLITE_BUSY): ..."' }),
        }),
        { description: 'the last 10 failures, oldest first' },
      ),
    }),
    Type.Null(),
  ],
  {
    description:
      'null while processing had no failure; otherwise its failures and retries (a failed slice is retried after a backoff, doubling from 100 ms to 30 s). Kept in memory: a restart forgets it',
  },
);
