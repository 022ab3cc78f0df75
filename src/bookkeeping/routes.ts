// Emulates the trade-bill bookkeeping interface (duplicatas escriturais): extract list and payment.
// Differs from the real service where docs/assumptions.md says (interface "bookkeeping").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { bearerToken } from '../http/bearer.js';
import { type ErrorDetail, pointer, SandboxError, validationError } from '../http/errors.js';
import { partProblems, serveInterface } from '../http/interface-plugin.js';
import { MAX_DETAILS } from '../http/validation.js';
import { BEARER_CHALLENGE, errorResponses, StandardError } from '../http/schema.js';
import { assumptions } from './assumptions.js';
import { contract } from './contract.js';
import { outcome } from './outcomes.js';
import { tenantIdProblem } from './fixtures.js';
import { declarationOnlyProblems, declarePayment, refusedPaymentProblems } from './payment.js';
import {
  DEFAULT_PAGE_SIZE,
  ExtractList,
  ExtractQuery,
  NoBody,
  PaymentDeclaration,
  PaymentParams,
  TenantParams,
} from './schemas.js';
import { runtimeOf } from '../runtime/index.js';

const assumed = assumptionLookup(assumptions);
const ERRORS = errorResponses(contract.statuses, StandardError, assumed('bk-credential-order'), BEARER_CHALLENGE);
const EXTRACT = contract.route('list-extract-requests');
const PAYMENT = contract.route('declare-payment');

/** The user each authorized request acts as. */
const actingUser = new WeakMap<FastifyRequest, number>();

/**
 * A malformed tenantId of a payment, named with the body's problems once the body is read
 * (bk-credential-order): the problem, set by authorize() instead of the acting user.
 */
const malformedTenant = new WeakMap<FastifyRequest, ErrorDetail>();

const TENANT_INVALID = outcome('tenant-id-invalid');

/** The acting user; on a payment whose tenantId is malformed, the 400 naming it with the body's other problems. */
function userOf(request: FastifyRequest, now: Date): number {
  const user = actingUser.get(request);
  if (user !== undefined) return user;
  const tenant = malformedTenant.get(request);
  if (!tenant) throw new Error('bookkeeping route reached without authorization');
  const problems = declarationOnlyProblems(request.body, now).map((p) => p.detail);
  throw validationError([tenant, ...problems]).tag(TENANT_INVALID);
}

/** tenantIdProblem of the tenants requests name, remembered: a pure check, and per request it was a hot path cost. */
const tenantProblems = new Map<string, string | undefined>();

function tenantProblem(tenantId: string): string | undefined {
  if (tenantProblems.has(tenantId)) return tenantProblems.get(tenantId);
  const problem = tenantIdProblem(tenantId);
  if (tenantProblems.size >= 1024) tenantProblems.clear();
  tenantProblems.set(tenantId, problem);
  return problem;
}

export const bookkeepingPlugin: FastifyPluginAsyncTypebox = async (app) => {
  serveInterface(app, contract);
  // Credentials before anything in the request is read: token (401), tenantId (400), access (403).
  async function authorize(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = bearerToken(request, reply, 'a bookkeeping user');
    const { tenantId } = request.params as { tenantId: string };
    const { userId, hasTenant } = runtimeOf(request).store.bookkeeping.access(token, tenantId, request);
    if (userId === undefined) {
      reply.header('www-authenticate', 'Bearer');
      throw new SandboxError(
        401,
        'the bearer token sent in the Authorization header is not the access token of any bookkeeping user (fixtures: bookkeeping.users[].accessToken)',
      ).tag(outcome('token-unknown'));
    }
    const problem = tenantProblem(tenantId);
    if (problem) {
      // Named with the query's or the body's problems; no access to judge (403) for a tenant that is none.
      const tenant = { path: pointer('tenantId'), message: `path parameter tenantId ${problem}` };
      if (request.method === 'PUT') {
        malformedTenant.set(request, tenant);
        return;
      }
      const query = partProblems(request, 'querystring');
      throw validationError([tenant, ...query.details].slice(0, MAX_DETAILS), undefined, 1 + query.total).tag(TENANT_INVALID);
    }
    if (!hasTenant) {
      throw new SandboxError(
        403,
        `user ${userId} (identified by the bearer token in the Authorization header) has no access to tenant ${tenantId} (the tenantId in the path); the user's tenants are fixtures: bookkeeping.users[].tenants`,
      ).tag(outcome('tenant-forbidden'));
    }
    actingUser.set(request, userId);
  }

  app.get(
    EXTRACT.url,
    {
      config: EXTRACT.config,
      onRequest: authorize,
      schema: {
        tags: [contract.id],
        description:
          "The tenant's extract requests, one page at a time (page from 1, pageSize at most 100, sorted by sortBy, desc for descending order), with the pagination totals. The bearer token is checked first (401), then the tenant id (400, naming every problem of the query with it), then the user's access to the tenant (403).",
        summary: "List the tenant's extract requests, one page at a time",
        params: TenantParams,
        querystring: ExtractQuery,
        response: { 200: ExtractList, ...ERRORS },
        'x-sandbox-assumption': assumed(
          'bk-credential-order',
          'bk-page-base',
          'bk-page-size',
          'bk-sort',
          'bk-unknown-query',
        ),
      },
    },
    async (request, reply) => {
      const { tenantId } = request.params;
      // Ajv has filled the defaults; the fallbacks only satisfy the optional types.
      const { page = 1, pageSize = DEFAULT_PAGE_SIZE, sortBy = 'registeredAt', desc = false } = request.query;
      const store = runtimeOf(request).store;
      // The serialized page, answered again from the read cache until any row changes (this
      // request's earlier lookups already asked about other connections' commits).
      const key = `bk-extract|${sortBy}|${desc}|${page}|${pageSize}|${tenantId}`;
      const cached = store.readCache.get(key, () => {
        // The total comes from the tenant's counter: no count over the tenant's rows.
        const total = store.bookkeeping.extractRequestCount(tenantId);
        const items = store.bookkeeping.extractPage(
          { tenantId, sortBy, desc, offset: (page - 1) * pageSize, limit: pageSize },
          total,
        );
        const text = reply.serialize({
          extractTradeReceivables: items,
          pagination: { page, size: pageSize, totalItems: total, totalPages: Math.ceil(total / pageSize) },
        }) as string;
        return { text, outcome: outcome(items.length === 0 ? 'listed-empty' : 'listed') };
      }, request);
      request.outcome = cached.outcome;
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(cached.text);
    },
  );

  app.put(
    PAYMENT.url,
    {
      config: {
        ...PAYMENT.config,
        refusedBodyChecks: (request: FastifyRequest) => {
          const { tenantId, uid } = request.params as { tenantId: string; uid: string };
          const { store, clock } = runtimeOf(request);
          const problems = malformedTenant.has(request)
            ? declarationOnlyProblems(request.body, clock.now())
            : refusedPaymentProblems(request.body, { store, now: clock.now(), tenantId, uid });
          return { details: problems.map((p) => p.detail) };
        },
        pendingProblems: (request: FastifyRequest) => {
          const tenant = malformedTenant.get(request);
          return tenant && { details: [tenant], outcome: TENANT_INVALID };
        },
      },
      onRequest: async (request, reply) => {
        // ".../extract" names the extract list, never a trade bill: no such operation, so a 501.
        if ((request.params as { uid?: string }).uid === 'extract') return reply.callNotFound();
        return authorize(request, reply);
      },
      schema: {
        tags: [contract.id],
        description:
          "Records a payment of the trade bill uid: partial (isPartial true, below the open value) or total (the whole open value). Amounts are JSON numbers with at most two decimal places. Answers 204 with no body; the trade bill's open value and status change (GET /_sandbox/bookkeeping/tenants/{tenantId}/trade-bills/{uid} shows them).",
        summary: 'Declare a partial or total payment of a trade bill',
        params: PaymentParams,
        body: PaymentDeclaration,
        response: { 204: NoBody, ...ERRORS },
        'x-sandbox-assumption': assumed(
          'bk-payment-no-body',
          'bk-credential-order',
          'bk-unknown-uid',
          'bk-trade-bill-statuses',
          'bk-payment-not-idempotent',
          'bk-concurrent-payments',
        ),
      },
    },
    async (request, reply) => {
      const { tenantId, uid } = request.params;
      const { store, clock, events } = runtimeOf(request);
      const now = clock.now();
      const effect = await declarePayment(request.body, { store, now, tenantId, uid, userId: userOf(request, now), events });
      request.outcome = outcome(effect.statusAfter === 'paid' ? 'total-accepted' : 'partial-accepted');
      return reply.code(204).send(null);
    },
  );
};
