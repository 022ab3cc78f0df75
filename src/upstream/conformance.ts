// The conformance report: in proxy mode, every answer the real service gives to a documented
// operation is checked against the sandbox's own contract, and each divergence is keyed to what it
// contradicts: a fact of the specification, or the id of an assumption the sandbox made where the
// specification is silent (the assumptions table's row to distrust, and the guess to revisit).
//
// Every check names the basis it rests on, in code (CHECKS below), and the bases are checked against
// the assumption catalog when the checker is built: a check cannot cite a row that does not exist.
// Bodies are judged by Ajv against the OpenAPI document the sandbox serves (its response and request
// schemas), so the report and the document cannot disagree.
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type addFormats from 'ajv-formats';
import { isCalendarDate, isUtcTimestamp } from '../domain/dates.js';
import { isMoney } from '../domain/money.js';
import type { Assumption } from '../http/assumption-catalog.js';
import type { Operation } from '../http/catalog.js';
import type { ErrorShape } from '../http/errors.js';
import { type EchoSecrets, redact, redactUrlSecrets } from '../runtime/redact.js';
import { plainResponseBody, responseHeader } from './exchange.js';
import type { Exchange } from './proxy.js';
import { plural } from '../domain/plural.js';

/** What a finding contradicts: a fact of the specification, or an assumption (its id in the table). */
export type Basis = { kind: 'assumption'; id: string } | { kind: 'specification'; id: string };

export interface Finding {
  /** Which check found it (see CHECKS). */
  check: string;
  basis: Basis;
  message: string;
}

/** A documented operation as the checks see it. */
export interface CheckedOperation {
  operation: Operation;
  shape: ErrorShape;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: Record<string, unknown>;
}

/** One exchange, read once for every check. */
interface Observed {
  op: CheckedOperation;
  exchange: Exchange;
  spec: OpenApiOperation;
  query: URLSearchParams;
  requestJson: { ok: true; value: unknown } | { ok: false };
  responseJson: { ok: true; value: unknown } | { ok: false };
  responseType: string;
  success: boolean;
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function json(bytes: Buffer | null): { ok: true; value: unknown } | { ok: false } {
  if (!bytes || bytes.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** The assumption ids an OpenAPI schema node carries (x-sandbox-assumption texts end with "[id]"). */
function annotatedIds(schema: unknown): string[] {
  const text = (schema as Record<string, unknown> | undefined)?.['x-sandbox-assumption'];
  if (typeof text !== 'string') return [];
  return [...text.matchAll(/\[([a-z0-9-]+)\]/g)].map((m) => m[1] ?? '');
}

const A = (id: string): Basis => ({ kind: 'assumption', id });
const S = (id: string): Basis => ({ kind: 'specification', id });

/**
 * The facts of the specification the checks rest on, by id; per-operation facts are named
 * `<operation>.statuses`, `<operation>.success-body` and `<operation>.request`.
 */
export function specificationFact(id: string, operations: readonly CheckedOperation[], statusesOf: (op: string) => string[]): string {
  switch (id) {
    case 'json-bodies':
      return 'All bodies are application/json (specification: "What the service does").';
    case 'receivables-error-envelope':
      return 'A receivables 400 carries {"error": {"code", "message", "target"}} (specification: "Receivables error envelope").';
  }
  const [opId, part] = id.split('.');
  const op = operations.find((o) => o.operation.id === opId)?.operation;
  if (!op) return id;
  const where = `specification: "${op.name}"`;
  switch (part) {
    case 'statuses':
      return `${op.method} ${op.path} answers ${statusesOf(op.id).join(', ')} (${where}).`;
    case 'success-body':
      return `The success body of ${op.name} is the one its table shows, with the documented field types (${where}).`;
    case 'request':
      return `The body of ${op.name} is the one its table shows: field names, types, required fields and limits (${where}).`;
    default:
      return id;
  }
}

/** Which assumption or fact a request-schema refusal rests on: explicit for the keywords that carry one. */
function requestBasis(op: CheckedOperation, e: ErrorObject): Basis {
  switch (e.keyword) {
    case 'additionalProperties':
    case 'type':
      // Unknown fields refused, types never coerced.
      return A('strict-fields');
    case 'format':
      if (e.params.format === 'money') return A('money-cents');
      break;
    case 'minItems':
      if (e.instancePath === '/registros') return A(op.operation.interface === 'loanbond' ? 'lb-empty-batch' : 'registry-non-empty');
      break;
    case 'required':
      if (op.operation.interface === 'loanbond') return A('lb-required-fields');
      break;
  }
  const annotated = annotatedIds(e.parentSchema)[0];
  return annotated ? A(annotated) : S(`${op.operation.id}.request`);
}

/** A check: which exchanges it reads, and the findings it makes, each with its basis. */
interface Check {
  id: string;
  /** Every assumption id a finding of this check may cite (checked against the catalog). */
  cites: readonly string[];
  run(o: Observed, c: ConformanceChecker): Finding[];
}

const CHECKS: readonly Check[] = [
  {
    id: 'status',
    cites: ['bk-unknown-uid', 'lb-status-products'],
    run(o, c) {
      const documented = c.statusesOf(o.op.operation.id);
      if (documented.includes(String(o.exchange.status))) return [];
      const findings: Finding[] = [
        {
          check: 'status',
          basis: S(`${o.op.operation.id}.statuses`),
          message: `answered ${o.exchange.status}, which is not among the documented ${documented.join(', ')}`,
        },
      ];
      // Where the sandbox decided which documented status stands for an undocumented case.
      if (o.op.operation.id === 'declare-payment' && o.exchange.status === 404) {
        findings.push({ check: 'status', basis: A('bk-unknown-uid'), message: 'answered 404 where the sandbox answers 400 for a trade bill the tenant does not have' });
      }
      if (o.op.operation.interface === 'loanbond' && o.exchange.status === 403) {
        findings.push({ check: 'status', basis: A('lb-status-products'), message: 'answered 403 where the sandbox answers 401 for a caller without a contracted product (rules 1-2)' });
      }
      return findings;
    },
  },
  {
    id: 'json-content-type',
    cites: [],
    run(o) {
      if ((o.exchange.responseBody?.length ?? 0) === 0) return [];
      if (/^application\/([\w.+-]*\+)?json\b/i.test(o.responseType)) return [];
      return [{ check: 'json-content-type', basis: S('json-bodies'), message: `a body of Content-Type "${o.responseType || 'none'}"` }];
    },
  },
  {
    id: 'success-body',
    cites: ['bk-payment-no-body'],
    run(o, c) {
      if (!o.success) return [];
      const status = String(o.exchange.status);
      const declared = o.spec.responses?.[status]?.content?.['application/json']?.schema;
      const body = o.exchange.responseBody;
      if (body === null) return [];
      const op = o.op.operation;
      if (declared === undefined) {
        if (body.length === 0) return [];
        const basis = op.id === 'declare-payment' ? A('bk-payment-no-body') : S(`${op.id}.success-body`);
        return [{ check: 'success-body', basis, message: `a ${status} with a body of ${plural(body.length, 'byte')}, where none is expected` }];
      }
      if (!o.responseJson.ok) return [{ check: 'success-body', basis: S(`${op.id}.success-body`), message: 'the body is not JSON' }];
      const validate = c.validator(`/paths/${escape(op.path ?? '')}/${(op.method ?? '').toLowerCase()}/responses/${status}/content/application~1json/schema`);
      if (validate(o.responseJson.value)) return [];
      return (validate.errors ?? []).slice(0, 10).map((e) => {
        const annotated = e.keyword === 'additionalProperties' || e.keyword === 'required' ? undefined : annotatedIds(e.parentSchema)[0];
        const field = e.keyword === 'additionalProperties' ? `${e.instancePath}/${String(e.params.additionalProperty)}` : e.instancePath || '/';
        const what = e.keyword === 'additionalProperties' ? 'is a field the specification does not show' : (e.message ?? 'is invalid');
        return { check: 'success-body', basis: annotated ? A(annotated) : S(`${op.id}.success-body`), message: `${field} ${what}` };
      });
    },
  },
  {
    id: 'error-shape',
    cites: ['error-body'],
    run(o, c) {
      if (o.exchange.status < 400 || o.exchange.responseBody === null) return [];
      const envelope = o.op.shape === 'envelope';
      const basis = envelope ? S('receivables-error-envelope') : A('error-body');
      if (!o.responseJson.ok) return [{ check: 'error-shape', basis, message: `the ${o.exchange.status} body is not JSON` }];
      const validate = c.validator(`/components/schemas/${envelope ? 'EnvelopeError' : 'StandardError'}`);
      const findings: Finding[] = [];
      if (!validate(o.responseJson.value)) {
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
        findings.push({ check: 'error-shape', basis, message: `the ${o.exchange.status} body is not ${envelope ? 'the documented envelope' : 'the assumed error body'}: ${errors.join('; ')}` });
      } else if (!envelope) {
        const details = (o.responseJson.value as { details?: Array<{ path?: unknown }> }).details ?? [];
        const bad = details.find((d) => typeof d.path !== 'string' || (d.path !== '' && !d.path.startsWith('/')));
        if (bad) findings.push({ check: 'error-shape', basis, message: `details[].path ${JSON.stringify(bad.path)} is not a JSON pointer` });
      }
      return findings;
    },
  },
  {
    id: 'receivables-error-code',
    cites: ['rc-validation-error'],
    run(o) {
      if (o.op.shape !== 'envelope' || o.exchange.status !== 400 || !o.responseJson.ok) return [];
      const code = (o.responseJson.value as { error?: { code?: unknown } }).error?.code;
      if (typeof code !== 'string' || code === 'InvalidToken' || code === 'ValidationError') return [];
      return [{ check: 'receivables-error-code', basis: A('rc-validation-error'), message: `error code "${code}", where the sandbox answers ValidationError for every bad field but the token` }];
    },
  },
  {
    id: 'page-defaults',
    cites: ['bk-page-base', 'bk-page-size'],
    run(o) {
      if (o.op.operation.id !== 'list-extract-requests' || o.exchange.status !== 200 || !o.responseJson.ok) return [];
      const pagination = (o.responseJson.value as { pagination?: { page?: unknown; size?: unknown } }).pagination;
      if (!pagination) return [];
      const findings: Finding[] = [];
      if (!o.query.has('page') && pagination.page !== 1) {
        findings.push({ check: 'page-defaults', basis: A('bk-page-base'), message: `without page, the answer is page ${JSON.stringify(pagination.page)}; the sandbox starts at 1` });
      }
      if (!o.query.has('pageSize') && pagination.size !== 10) {
        findings.push({ check: 'page-defaults', basis: A('bk-page-size'), message: `without pageSize, pages hold ${JSON.stringify(pagination.size)}; the sandbox's default is 10` });
      }
      return findings;
    },
  },
  {
    id: 'query-accepted',
    cites: ['bk-unknown-query', 'bk-page-base', 'bk-page-size'],
    run(o) {
      if (o.op.operation.id !== 'list-extract-requests' || !o.success) return [];
      const known = new Set((o.spec.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
      const findings: Finding[] = [];
      for (const name of new Set(o.query.keys())) {
        if (!known.has(name)) findings.push({ check: 'query-accepted', basis: A('bk-unknown-query'), message: `the query parameter ${name} was accepted; the sandbox refuses it` });
      }
      const page = o.query.get('page');
      if (page !== null && /^-?\d+$/.test(page) && Number(page) < 1) {
        findings.push({ check: 'query-accepted', basis: A('bk-page-base'), message: `page=${page} was accepted; the sandbox's pages start at 1` });
      }
      const size = o.query.get('pageSize');
      if (size !== null && /^-?\d+$/.test(size) && (Number(size) < 1 || Number(size) > 100)) {
        findings.push({ check: 'query-accepted', basis: A('bk-page-size'), message: `pageSize=${size} was accepted; the sandbox takes 1 to 100` });
      }
      return findings;
    },
  },
  {
    id: 'request-accepted',
    cites: ['strict-fields', 'money-cents', 'lb-empty-batch', 'registry-non-empty', 'lb-required-fields'],
    run(o, c) {
      // A request the sandbox refuses by its schema that the real service accepted.
      if (!o.success || !o.requestJson.ok) return [];
      const op = o.op.operation;
      const declared = o.spec.requestBody?.content?.['application/json']?.schema;
      if (declared === undefined) return [];
      const validate = c.validator(`/paths/${escape(op.path ?? '')}/${(op.method ?? '').toLowerCase()}/requestBody/content/application~1json/schema`);
      if (validate(o.requestJson.value)) return [];
      return (validate.errors ?? []).slice(0, 10).map((e) => {
        const field = e.keyword === 'additionalProperties' ? `${e.instancePath}/${String(e.params.additionalProperty)}` : e.instancePath || '/';
        return {
          check: 'request-accepted',
          basis: requestBasis(o.op, e),
          message: `a request the sandbox refuses was accepted (${o.exchange.status}): ${field} ${e.keyword === 'additionalProperties' ? 'is an unknown field' : (e.message ?? 'is invalid')}`,
        };
      });
    },
  },
  {
    id: 'registry-credential',
    cites: ['registry-bearer'],
    run(o) {
      if (o.op.operation.interface !== 'registry') return [];
      if (o.exchange.status === 401) {
        const challenge = o.exchange.responseHeaders.find(([n]) => n.toLowerCase() === 'www-authenticate')?.[1] ?? '';
        if (!/^bearer\b/i.test(challenge)) {
          return [{ check: 'registry-credential', basis: A('registry-bearer'), message: `a 401 without a WWW-Authenticate: Bearer challenge${challenge ? ` (it sent "${challenge}")` : ''}` }];
        }
      }
      if (o.success && !/^bearer\s/i.test(o.exchange.requestHeaders.get('authorization')?.[0] ?? '')) {
        return [{ check: 'registry-credential', basis: A('registry-bearer'), message: `a request without an Authorization: Bearer header was accepted (${o.exchange.status})` }];
      }
      return [];
    },
  },
];

const load = createRequire(import.meta.url);

/** Judges exchanges by the sandbox's contract: the served OpenAPI document and the assumption catalog. */
export class ConformanceChecker {
  // Ajv's 2020-12 dialect and ajv-formats load with the first checker (proxy mode only): start-up time otherwise.
  private readonly ajv = new (load('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020({ strict: false, allErrors: true, verbose: true, multipleOfPrecision: 6 });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly byId: ReadonlyMap<string, CheckedOperation>;

  constructor(
    private readonly document: OpenApiDocument,
    readonly operations: readonly CheckedOperation[],
    readonly assumptions: readonly Assumption[],
  ) {
    (load('ajv-formats') as typeof addFormats).default(this.ajv);
    this.ajv.addFormat('money', { type: 'number', validate: (v: number) => isMoney(v) });
    this.ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
    this.ajv.addFormat('utc-timestamp', { type: 'string', validate: isUtcTimestamp });
    this.ajv.addSchema({ ...document, $id: 'openapi.json' } as object);
    this.byId = new Map(operations.map((o) => [o.operation.id, o]));
    const known = new Set(assumptions.map((a) => a.id));
    const unknown = CHECKS.flatMap((c) => c.cites).filter((id) => !known.has(id));
    if (unknown.length > 0) throw new Error(`conformance checks cite assumptions that do not exist: ${unknown.join(', ')}`);
  }

  /** The checks, with the assumptions each may cite (the docs and their test list them). */
  static get checks(): ReadonlyArray<{ id: string; cites: readonly string[] }> {
    return CHECKS.map((c) => ({ id: c.id, cites: c.cites }));
  }

  validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.compiled.set(pointer, v);
    }
    return v;
  }

  /** The documented statuses of an operation: the responses its OpenAPI entry declares. */
  statusesOf(operationId: string): string[] {
    const op = this.byId.get(operationId)?.operation;
    if (!op?.path || !op.method) return [];
    return Object.keys(this.document.paths[op.path]?.[op.method.toLowerCase()]?.responses ?? {});
  }

  operation(id: string): CheckedOperation | undefined {
    return this.byId.get(id);
  }

  /** Every divergence of one exchange of a documented operation from the contract. */
  check(operationId: string, exchange: Exchange): Finding[] {
    const op = this.byId.get(operationId);
    if (!op?.operation.path || !op.operation.method) return [];
    const spec = this.document.paths[op.operation.path]?.[op.operation.method.toLowerCase()] ?? {};
    const q = exchange.url.indexOf('?');
    const requestType = exchange.requestHeaders.get('content-type')?.[0] ?? '';
    const observed: Observed = {
      op,
      exchange,
      spec,
      query: new URLSearchParams(q < 0 ? '' : exchange.url.slice(q + 1)),
      requestJson: /json/i.test(requestType) ? json(exchange.requestBody) : { ok: false },
      // Judged as the upstream meant it: a gzip answer is JSON once decoded, as a client reads it.
      responseJson: json(plainResponseBody(exchange)),
      responseType: responseHeader(exchange, 'content-type') ?? '',
      success: exchange.status >= 200 && exchange.status < 300,
    };
    return CHECKS.flatMap((c) => c.run(observed, this));
  }

  factText(id: string): string {
    return specificationFact(id, this.operations, (op) => this.statusesOf(op));
  }
}

/** An exchange as the report shows it: secrets and documents replaced, bodies bounded. */
export interface Example {
  request: { method: string; url: string; body: unknown };
  response: { status: number; contentType: string | null; body: unknown };
}

function redactedBody(bytes: Buffer | null): unknown {
  if (bytes === null) return '[not kept: larger than the capture limit]';
  if (bytes.length === 0) return null;
  const parsed = json(bytes);
  if (parsed.ok) return redact(parsed.value);
  return redact(`[${plural(bytes.length, 'byte')} that ${bytes.length === 1 ? 'is' : 'are'} not JSON]`);
}

/**
 * The example of a finding: secret query values redacted by name (after a ";" too), bodies by key,
 * and each secret of the exchange replaced wherever else it appears (a real service that echoes the
 * request), as the journal shows them.
 */
export function exampleOf(x: Exchange, secrets: EchoSecrets): Example {
  return {
    request: { method: x.method, url: secrets.scrubText(redactUrlSecrets(x.url)), body: secrets.scrub(redactedBody(x.requestBody)) },
    response: {
      status: x.status,
      contentType: responseHeader(x, 'content-type') ?? null,
      body: secrets.scrub(redactedBody(plainResponseBody(x))),
    },
  };
}
