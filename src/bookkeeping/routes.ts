// Emulates the trade-bill bookkeeping interface (duplicatas escriturais): extract list and payment.
// Differs from the real service where the README's assumptions table says (interface "bookkeeping").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toIsoDate } from '../domain/dates.js';
import { toCents } from '../domain/money.js';
import { assumptionLookup } from '../http/assumptions.js';
import { bearerToken } from '../http/bearer.js';
import { pointer, SandboxError, validationError } from '../http/errors.js';
import { setupInterface } from '../http/interface-plugin.js';
import { INTERFACES } from '../interfaces.js';
import { BEARER_CHALLENGE, errorResponses, StandardError } from '../http/schema.js';
import { assumptions } from './assumptions.js';
import { tenantIdProblem } from './fixtures.js';
import { decidePayment, declarationOutcome, declarationProblems } from './payment.js';
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

const a = assumptionLookup(assumptions);
const TRB = '/integration/v1/:tenantId/trade-receivable-certificates';
const ERRORS = errorResponses([400, 401, 403, 500], StandardError, a('bk-credential-order'), BEARER_CHALLENGE);

/** The user each authorized request acts as. */
const actingUser = new WeakMap<FastifyRequest, number>();

function userOf(request: FastifyRequest): number {
  const user = actingUser.get(request);
  if (user === undefined) throw new Error('bookkeeping route reached without authorization');
  return user;
}

export const bookkeepingPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.bookkeeping);
  // Credentials before anything in the request is read: token (401), tenantId (400), access (403).
  async function authorize(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = bearerToken(request, reply, 'a bookkeeping user');
    const store = runtimeOf(request).store.bookkeeping;
    const userId = store.userIdByToken(token);
    if (userId === undefined) {
      reply.header('www-authenticate', 'Bearer');
      throw new SandboxError(
        401,
        'the bearer token sent in the Authorization header is not the access token of any bookkeeping user (fixtures: bookkeeping.users[].accessToken)',
      ).tag('token-unknown');
    }
    const { tenantId } = request.params as { tenantId: string };
    const problem = tenantIdProblem(tenantId);
    if (problem) {
      throw validationError([{ path: pointer('tenantId'), message: `path parameter tenantId ${problem}` }]).tag(
        'tenant-id-invalid',
      );
    }
    if (!store.userHasTenant(userId, tenantId)) {
      throw new SandboxError(
        403,
        `user ${userId} (identified by the bearer token in the Authorization header) has no access to tenant ${tenantId} (the tenantId in the path); the user's tenants are fixtures: bookkeeping.users[].tenants`,
      ).tag('tenant-forbidden');
    }
    actingUser.set(request, userId);
  }

  app.get(
    `${TRB}/extract`,
    {
      config: { interface: 'bookkeeping', operation: 'list-extract-requests' },
      onRequest: authorize,
      schema: {
        tags: ['bookkeeping'],
        description:
          "The tenant's extract requests, one page at a time (page from 1, pageSize at most 100, sorted by sortBy, desc for descending order), with the pagination totals. The bearer token is checked first (401), then the tenant id (400), then the user's access to the tenant (403).",
        summary: "List the tenant's extract requests, one page at a time",
        params: TenantParams,
        querystring: ExtractQuery,
        response: { 200: ExtractList, ...ERRORS },
        'x-sandbox-assumption': a(
          'bk-credential-order',
          'bk-page-base',
          'bk-page-size',
          'bk-sort',
          'bk-unknown-query',
        ),
      },
    },
    async (request) => {
      const { tenantId } = request.params;
      // Ajv has filled the defaults; the fallbacks only satisfy the optional types.
      const { page = 1, pageSize = DEFAULT_PAGE_SIZE, sortBy = 'registeredAt', desc = false } = request.query;
      // The total comes from the tenant's counter: no count over the tenant's rows.
      const store = runtimeOf(request).store.bookkeeping;
      const total = store.extractRequestCount(tenantId);
      const items = store.extractPage(
        { tenantId, sortBy, desc, offset: (page - 1) * pageSize, limit: pageSize },
        total,
      );
      request.outcome = items.length > 0 ? 'listed' : 'listed-empty';
      return {
        extractTradeReceivables: items,
        pagination: { page, size: pageSize, totalItems: total, totalPages: Math.ceil(total / pageSize) },
      };
    },
  );

  app.put(
    `${TRB}/:uid/payment`,
    {
      config: { interface: 'bookkeeping', operation: 'declare-payment' },
      onRequest: async (request, reply) => {
        // ".../extract" names the extract list, never a trade bill: no such operation, so a 501.
        if ((request.params as { uid?: string }).uid === 'extract') return reply.callNotFound();
        return authorize(request, reply);
      },
      schema: {
        tags: ['bookkeeping'],
        description:
          "Records a payment of the trade bill uid: partial (isPartial true, below the open value) or total (the whole open value). Amounts are JSON numbers with at most two decimal places. Answers 204 with no body; the trade bill's open value and status change (GET /_sandbox/bookkeeping/tenants/{tenantId}/trade-bills/{uid} shows them).",
        summary: 'Declare a partial or total payment of a trade bill',
        params: PaymentParams,
        body: PaymentDeclaration,
        response: { 204: NoBody, ...ERRORS },
        'x-sandbox-assumption': a(
          'bk-payment-no-body',
          'bk-credential-order',
          'bk-unknown-uid',
          'bk-trade-bill-statuses',
          'bk-payment-not-idempotent',
        ),
      },
    },
    async (request, reply) => {
      const { tenantId, uid } = request.params;
      const body = request.body;
      const runtime = runtimeOf(request);
      const now = runtime.clock.now();
      const problems = declarationProblems(body, toIsoDate(now));
      if (problems.length > 0) throw validationError(problems).tag(declarationOutcome(problems));
      const declaration = {
        isPartial: body.isPartial,
        paymentCents: toCents(body.paymentValue),
        remainingCents: body.remainingValue === undefined ? null : toCents(body.remainingValue),
      };
      const effect = runtime.store.bookkeeping.declarePayment(
        tenantId,
        uid,
        {
          userId: userOf(request),
          type: body.type,
          informantId: body.informantId,
          isPartial: body.isPartial,
          paymentCents: declaration.paymentCents,
          remainingCents: declaration.remainingCents,
          beneficiaryDocument: body.beneficiaryDocument ?? null,
          paymentDate: body.paymentDate ?? null,
          recordedAt: now.toISOString(),
        },
        (bill) => decidePayment(bill, declaration),
      );
      if (effect === undefined) {
        throw validationError([
          {
            path: pointer('uid'),
            message: `path parameter uid: tenant ${tenantId} has no trade bill "${uid}"`,
          },
        ]).tag('unknown-uid');
      }
      request.outcome = effect.statusAfter === 'paid' ? 'total-accepted' : 'partial-accepted';
      return reply.code(204).send(null);
    },
  );
};
