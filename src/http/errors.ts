// One error type for every interface; each interface's error handler renders it in that
// interface's body shape (docs/errors.md).

/** An emulated interface's id (its folder's name): the list in src/interfaces.ts says which there are. */
export type InterfaceId = string;

export interface ErrorDetail {
  /** JSON pointer into the request body (or into the query/path parameters, see `message`). */
  path: string;
  message: string;
}

export class SandboxError extends Error {
  readonly status: number;
  /** Receivables envelope code (`InvalidToken`, `ValidationError`); ignored by the other shapes. */
  readonly code: string;
  readonly details: ErrorDetail[];
  /** The outcome slug of the rule that refused (see http/outcomes.ts); set with tag(). */
  outcome: string | undefined;
  /** How many problems the message counts: more than `details` when only the first are listed. */
  readonly problems: number;

  constructor(
    status: number,
    message: string,
    options: { code?: string; details?: ErrorDetail[]; outcome?: string; problems?: number } = {},
  ) {
    super(message);
    this.name = 'SandboxError';
    this.status = status;
    this.code = options.code ?? defaultCode(status);
    this.details = options.details ?? [];
    this.outcome = options.outcome;
    this.problems = Math.max(options.problems ?? 0, this.details.length, 1);
  }

  /** Names the outcome this refusal is (`throw validationError([...]).tag('above-open-value')`). */
  tag(outcome: string): this {
    this.outcome = outcome;
    return this;
  }
}

function defaultCode(status: number): string {
  if (status === 400) return 'ValidationError';
  return STATUS_TEXT[status]?.replace(/ /g, '') ?? 'Error';
}

export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/**
 * A 400 with one detail per problem; the message names the first problem and how many more.
 * `total` counts every problem found when `details` lists only the first ones (see MAX_DETAILS).
 */
export function validationError(details: ErrorDetail[], summary?: string, total = details.length): SandboxError {
  const first = details[0];
  const head = summary ?? (first ? `${first.path || '/'}: ${first.message}` : 'the request is invalid');
  const count = Math.max(total, details.length);
  let more = count > 1 ? ` (and ${count - 1} more problem${count > 2 ? 's' : ''})` : '';
  if (count > details.length) more = `${more.slice(0, -1)}; the first ${details.length} are listed)`;
  return new SandboxError(400, `${head}${more}`, { details, problems: count });
}

/**
 * A refusal with problems found before the rest of the request was read (`first`, e.g. a malformed
 * path parameter) named ahead of its own; a refusal without details (a body that is not JSON) is
 * one problem about the whole body. `refusal` itself when it names them already.
 */
export function namingFirst(first: ErrorDetail[], refusal: SandboxError, limit: number): SandboxError {
  if (first.length === 0 || first.every((d) => refusal.details.includes(d))) return refusal;
  const own = refusal.details.length > 0 ? refusal.details : [{ path: '', message: refusal.message }];
  return validationError([...first, ...own].slice(0, limit), undefined, first.length + refusal.problems);
}

/** JSON pointer escaping (RFC 6901). */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The standard body of bookkeeping, registry, loan-bond and the control plane (an assumed shape). */
export interface StandardErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details: ErrorDetail[];
}

/** The documented receivables envelope: exactly `{error: {code, message, target}}`. */
export interface EnvelopeErrorBody {
  error: { code: string; message: string; target: string | null };
}

export type ErrorShape = 'standard' | 'envelope';

export function standardBody(
  status: number,
  message: string,
  details: ErrorDetail[] = [],
): StandardErrorBody {
  return { statusCode: status, error: STATUS_TEXT[status] ?? 'Error', message, details };
}

export function envelopeBody(code: string, message: string, target: string | null): EnvelopeErrorBody {
  return { error: { code, message, target } };
}

/** The receivables `target` is the name of the top-level field a pointer starts with. */
export function targetOf(path: string | undefined): string | null {
  if (!path) return null;
  const first = path.split('/')[1];
  return first ? first.replace(/~1/g, '/').replace(/~0/g, '~') : null;
}

export function renderError(shape: ErrorShape, err: SandboxError): StandardErrorBody | EnvelopeErrorBody {
  if (shape === 'envelope') {
    // The envelope has room for one target: the message lists the other problems after the first.
    const others = err.details.slice(1).map((d) => `${d.path || '/'}: ${d.message}`);
    const message = others.length > 0 ? `${err.message}: ${others.join('; ')}` : err.message;
    return envelopeBody(err.code, message, targetOf(err.details[0]?.path));
  }
  return standardBody(err.status, err.message, err.details);
}
