// Outcomes: the distinct answers of a documented operation, each one a documented status split by the
// rule that decides it (a partial payment accepted, a payment above the open value, a 401 for a
// missing token...). Every answer of a documented operation carries one: the rule that decides sets
// it (SandboxError.tag, or request.outcome on success), and the interface's error handler falls back
// to one derived from the status and the kind of refusal for what the framework refuses itself
// (malformed body, schema). The catalog of each interface lives in its folder (outcomes.ts).
import type { FastifyError } from 'fastify';
import type { InterfaceId } from './errors.js';

export interface Outcome {
  /** `<operation>.<slug>`: stable, shown in the Sandbox-Outcome header, the journal and the report. */
  id: string;
  interface: InterfaceId;
  operation: string;
  /** The slug alone, as the rule that decides sets it. */
  slug: string;
  /** The status the answer carries (the same for every answer with this outcome). */
  status: number;
  sentence: string;
}

/** slug -> [status, sentence]. */
export type OutcomeEntries = Readonly<Record<string, readonly [status: number, sentence: string]>>;

/** An operation's own outcomes, and the kinds of refusal it has in common with others. */
export interface OperationOutcomes {
  /** The answers its rules decide, each set where the rule decides it. */
  own: OutcomeEntries;
  /** The operation reads a JSON body: a malformed one and one that breaks the schema are outcomes. */
  body?: boolean;
  /**
   * With `body`: a schema refusal is told apart by the top-level field it names (`invalid-<field>`,
   * `unknown-field`) instead of one `body-invalid` (receivables: ValidationError per target).
   */
  fields?: readonly string[];
  /** The operation reads a query string. */
  query?: boolean;
  /** The operation validates request headers. */
  headers?: boolean;
  /** The operation validates path parameters. */
  params?: boolean;
}

/** The slugs the rules of an interface set, across its operations: what `outcome()` of its outcomes.ts takes. */
export type OwnSlug<T extends Readonly<Record<string, OperationOutcomes>>> = {
  [K in keyof T]: keyof T[K]['own'] & string;
}[keyof T];

/** Slugs the error handler derives when the rule that refused did not tag its error. */
export const FALLBACK = {
  malformed: 'body-malformed',
  bodyInvalid: 'body-invalid',
  unknownField: 'unknown-field',
  queryInvalid: 'query-invalid',
  headersInvalid: 'headers-invalid',
  paramsInvalid: 'path-invalid',
} as const;

export const invalidField = (field: string): string => `invalid-${field}`;
export const faultSlug = (status: number): string => `fault-${status}`;

/**
 * The outcomes of one operation: its own, then those every operation of its kind has, then one per
 * documented error status a fault rule (or the sandbox failing) can answer.
 */
export function operationOutcomes(
  iface: InterfaceId,
  operation: string,
  options: OperationOutcomes,
  statuses: readonly number[],
): Outcome[] {
  const all: Record<string, readonly [number, string]> = { ...options.own };
  if (options.body) {
    all[FALLBACK.malformed] = [
      400,
      'the body cannot be read: malformed JSON, an empty body, a key twice in one object, a Content-Type other than JSON, or a body over the size limit',
    ];
    if (options.fields) {
      for (const f of options.fields)
        all[invalidField(f)] = [400, `the field ${f} is missing, of the wrong type, or too long (schema)`];
      all[FALLBACK.unknownField] = [400, 'the body has a field the specification does not document'];
    } else {
      all[FALLBACK.bodyInvalid] = [
        400,
        'the body breaks the schema: a required field missing, an unknown field, a wrong type or format',
      ];
    }
  }
  if (options.query) all[FALLBACK.queryInvalid] = [400, 'a query parameter breaks its rule (type, range, value, or unknown)'];
  if (options.headers) all[FALLBACK.headersInvalid] = [400, 'a request header the sandbox reads has a value it does not take'];
  if (options.params) all[FALLBACK.paramsInvalid] = [400, 'a path parameter is empty'];
  for (const status of statuses) {
    all[faultSlug(status)] = [
      status,
      status >= 500
        ? `the service fails with ${status} (in the sandbox: a fault rule with status ${status}, or a failure of the sandbox itself)`
        : `a fault rule (POST /_sandbox/faults) answers ${status} before the service reads the request`,
    ];
  }
  return Object.entries(all).map(([slug, [status, sentence]]) => ({
    id: `${operation}.${slug}`,
    interface: iface,
    operation,
    slug,
    status,
    sentence,
  }));
}

/**
 * The outcome of a refusal nobody tagged: what Fastify refused (body, schema) or a failure of the
 * sandbox. `known` holds the operation's slugs; null when none fits (the answer stays untagged, which
 * the invariant checks report).
 */
export function fallbackSlug(
  err: Error,
  answer: { status: number; sandboxFault: boolean },
  firstPath: string | undefined,
  known: { has(slug: string): boolean },
): string | null {
  const pick = (slug: string) => (known.has(slug) ? slug : null);
  if (answer.status >= 500 || answer.sandboxFault) return pick(faultSlug(answer.status));
  const fe = err as FastifyError;
  if (fe.validation) {
    switch (fe.validationContext) {
      case 'querystring':
        return pick(FALLBACK.queryInvalid);
      case 'headers':
        return pick(FALLBACK.headersInvalid);
      case 'params':
        return pick(FALLBACK.paramsInvalid);
    }
    const field = firstPath?.split('/')[1];
    if (field !== undefined) {
      if (known.has(invalidField(field))) return invalidField(field);
      if (known.has(FALLBACK.unknownField)) return FALLBACK.unknownField;
    }
    // A body that is no JSON object at all (an array, a string) reads as malformed where fields are told apart.
    return pick(FALLBACK.bodyInvalid) ?? pick(FALLBACK.malformed);
  }
  if (typeof fe.code === 'string' && fe.code.startsWith('FST_ERR_CTP_')) return pick(FALLBACK.malformed);
  return null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The outcome slug a documented route's rule set; null until one does. */
    outcome: string | null;
  }
}
