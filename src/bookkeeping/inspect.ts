// Inspection of the bookkeeping interface's state, mounted under /_sandbox/bookkeeping (admin-token rule applies).
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { centsToNumber, DecimalText } from '../domain/money.js';
import { SandboxError, validationError } from '../http/errors.js';
import { afterKey, decodeCursor, NextCursor, pageByKey, pageOf, pageQuery } from '../http/paging.js';
import { AmountOut, StandardError, Strict } from '../http/schema.js';
import type { PaymentRow, TradeBillRow } from '../store/bookkeeping.js';
import { TradeBillStatusSchema } from './schemas.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import type { FastifyRequest } from 'fastify';

const TAG = [CONTROL_TAG.name];
/** Items per page of a bookkeeping view: each is well under 1 kB. */
const PAGE = 100;
const PAGE_MAX = 1000;
const Amount = () => AmountOut();

const TenantSummary = Strict({
  tenantId: Type.String(),
  userIds: Type.Array(Type.Integer(), { description: 'fixture users with access to the tenant' }),
  extractRequests: Type.Integer(),
  tradeBills: Type.Integer(),
});

const TradeBillSummary = Strict({
  uid: Type.String(),
  amount: Amount(),
  openValue: Amount(),
  status: TradeBillStatusSchema,
  payments: Type.Integer({ description: 'number of payments recorded' }),
});

const PaymentRecord = Strict({
  declaration: Strict(
    {
      type: Type.String(),
      informantId: Type.String(),
      isPartial: Type.Boolean(),
      paymentValue: Amount(),
      remainingValue: Type.Optional(Amount()),
      beneficiaryDocument: Type.Optional(Type.String()),
      paymentDate: Type.Optional(Type.String()),
    },
    { description: 'every field the client sent, as sent (fields it left out are absent)' },
  ),
  declaredByUserId: Type.Integer(),
  recordedAt: Type.String({ description: "the sandbox clock's time when the payment was accepted" }),
  openValueBefore: Amount(),
  openValueAfter: Amount(),
  statusAfter: TradeBillStatusSchema,
});

const TradeBillDetail = Strict({
  tenantId: Type.String(),
  uid: Type.String(),
  amount: Amount(),
  openValue: Amount(),
  status: TradeBillStatusSchema,
  paymentCount: Type.Integer({ description: 'accepted payments in all' }),
  payments: Type.Array(PaymentRecord, { description: 'a page of the accepted payments, oldest first' }),
  nextCursor: NextCursor,
});

/** An amount of a declaration as it was written: its kept text, else its number (whose text it was). */
function asSent(text: string | null, cents: number): number | DecimalText {
  return text === null ? centsToNumber(cents) : new DecimalText(text);
}

function paymentRecord(p: PaymentRow) {
  return {
    declaration: {
      type: p.type,
      informantId: p.informantId,
      isPartial: p.isPartial,
      paymentValue: asSent(p.paymentText, p.paymentCents),
      ...(p.remainingCents === null ? {} : { remainingValue: asSent(p.remainingText, p.remainingCents) }),
      ...(p.beneficiaryDocument === null ? {} : { beneficiaryDocument: p.beneficiaryDocument }),
      ...(p.paymentDate === null ? {} : { paymentDate: p.paymentDate }),
    },
    declaredByUserId: p.userId,
    recordedAt: p.recordedAt,
    openValueBefore: centsToNumber(p.openBeforeCents),
    openValueAfter: centsToNumber(p.openAfterCents),
    statusAfter: p.statusAfter,
  };
}

function billAmounts(b: Pick<TradeBillRow, 'amountCents' | 'openCents'>) {
  return { amount: centsToNumber(b.amountCents), openValue: centsToNumber(b.openCents) };
}

const storeOf = (request: FastifyRequest) => runtimeOf(request).store.bookkeeping;

export const bookkeepingInspection: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tenants',
    {
      schema: {
        operationId: 'inspectBookkeepingTenants',
        description:
          'Every bookkeeping tenant as the sandbox holds it: its users (never their tokens), its extract requests and its trade bills, to check what a client changed.',
        tags: TAG,
        summary: 'Bookkeeping: every tenant with its users, extract requests and trade bills',
        querystring: Strict(pageQuery(PAGE, PAGE_MAX)),
        response: {
          200: Strict({
            total: Type.Integer({ description: 'tenants in all' }),
            tenants: Type.Array(TenantSummary, { description: 'a page of them, by tenantId' }),
            nextCursor: NextCursor,
          }),
          400: StandardError,
          401: StandardError,
        },
      },
    },
    // Synchronous: templates read it through the inspect helper.
    (request) => {
      const store = storeOf(request);
      const page = pageByKey(request.query, PAGE, (after, rows) => store.tenants(after, rows), (t) => t.tenantId);
      return { total: store.tenantCount(), tenants: page.items, nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/tenants/:tenantId/trade-bills',
    {
      schema: {
        description:
          'Each trade bill of the tenant with its amount, its open value and its status (open, partially-paid, paid, cancelled, blocked): what declarePayment acts on.',
        operationId: 'inspectBookkeepingTradeBills',
        tags: TAG,
        summary: "Bookkeeping: a tenant's trade bills with amount, open value and status",
        params: Strict({ tenantId: Type.String() }),
        querystring: Strict({
          offset: Type.Optional(
            Type.Integer({ minimum: 0, description: 'skip this many bills (by uid); instead of cursor' }),
          ),
          ...pageQuery(PAGE, PAGE_MAX),
        }),
        response: {
          200: Strict({
            tenantId: Type.String(),
            tradeBills: Type.Array(TradeBillSummary, { description: 'a page of them, by uid' }),
            total: Type.Integer({ description: 'how many bills the tenant has' }),
            nextCursor: NextCursor,
          }),
          400: StandardError,
          401: StandardError,
        },
      },
    },
    (request) => {
      const { tenantId } = request.params;
      const { offset, limit = PAGE, cursor } = request.query;
      if (offset !== undefined && cursor !== undefined)
        throw validationError([{ path: '/offset', message: 'query parameter offset and cursor do not go together: give one' }]);
      const store = storeOf(request);
      const after = afterKey(cursor);
      const rows = store.tradeBills(tenantId, { ...(after === undefined ? {} : { after }), ...(offset === undefined ? {} : { offset }), limit: limit + 1 });
      const page = pageOf(rows, limit, (b) => [b.uid], (b) => ({
        uid: b.uid,
        ...billAmounts(b),
        status: b.status,
        payments: b.payments,
      }));
      return { tenantId, tradeBills: page.items, total: store.tradeBillCount(tenantId), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/tenants/:tenantId/trade-bills/:uid',
    {
      schema: {
        operationId: 'inspectBookkeepingTradeBill',
        description:
          'One trade bill of the tenant with every payment declared on it, in order, and the open value after each.',
        tags: TAG,
        summary: 'Bookkeeping: one trade bill with its payment history',
        params: Strict({ tenantId: Type.String(), uid: Type.String() }),
        querystring: Strict(pageQuery(PAGE, PAGE_MAX)),
        response: { 200: TradeBillDetail, 400: StandardError, 401: StandardError, 404: StandardError },
      },
    },
    (request) => {
      const { tenantId, uid } = request.params;
      const store = storeOf(request);
      const bill = store.tradeBill(tenantId, uid);
      if (!bill) throw new SandboxError(404, `tenant ${tenantId} has no trade bill ${JSON.stringify(uid)}`);
      const { limit = PAGE, cursor } = request.query;
      const after = cursor === undefined ? 0 : Number(decodeCursor(cursor, ['number'])[0]);
      const page = pageOf(store.payments(bill.id, after, limit + 1), limit, (p) => [p.id], paymentRecord);
      return {
        tenantId,
        uid,
        ...billAmounts(bill),
        status: bill.status,
        paymentCount: store.paymentCount(bill.id),
        payments: page.items,
        nextCursor: page.nextCursor,
      };
    },
  );
};

/** What the inspector's overview shows of bookkeeping. */
export const bookkeepingOverview = {
  tables: {
    bk_users: 'users',
    bk_trade_bills: 'trade bills',
    bk_extract_requests: 'extract requests',
    bk_payments: 'payments',
  },
  counts: (runtime: Runtime) => ({ tenants: runtime.store.bookkeeping.tenantCount() }),
  warnings: (): string[] => [],
};
