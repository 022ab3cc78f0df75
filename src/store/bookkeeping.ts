// Bookkeeping storage: users and their tenants, trade bills and their payments, extract requests.
import type { Statement } from 'better-sqlite3';
import { timestampSortKey } from '../domain/dates.js';
import type { Db } from './db.js';
import type { ReadCache } from './read-cache.js';
import { groupKey, type RowCounts } from './row-counts.js';

/** Every status a trade bill can have (assumption bk-trade-bill-statuses). */
export const TRADE_BILL_STATUSES = ['open', 'partially-paid', 'paid', 'cancelled', 'blocked'] as const;
export type TradeBillStatus = (typeof TRADE_BILL_STATUSES)[number];

/** The statuses in which a bill accepts a payment; the others refuse one. */
export const PAYABLE = ['open', 'partially-paid'] as const satisfies readonly TradeBillStatus[];
export type NotPayable = Exclude<TradeBillStatus, (typeof PAYABLE)[number]>;
export const NOT_PAYABLE = TRADE_BILL_STATUSES.filter(
  (s): s is NotPayable => !(PAYABLE as readonly TradeBillStatus[]).includes(s),
);

export interface TradeBillRow {
  id: number;
  tenantId: string;
  uid: string;
  amountCents: number;
  openCents: number;
  status: TradeBillStatus;
}

export interface TradeBillSummary extends Omit<TradeBillRow, 'id'> {
  payments: number;
}

export interface ExtractRequestRow {
  extractTradeReceivableRequestId: number;
  tenantId: string;
  /** ISO 8601 UTC timestamps as written (isUtcTimestamp), each stored with its sort key. */
  registeredAt: string;
  registeredByUserId: number;
  protocolNumber: string;
  currentStepType: string;
  generatedAt: string;
}

export type ExtractItem = Omit<ExtractRequestRow, 'tenantId'>;

/** The fields of an extract item a page can be sorted by, and the column (and index) behind each. */
export const EXTRACT_SORT_COLUMNS = {
  extractTradeReceivableRequestId: 'request_id',
  // The timestamps are kept as written: each sorts by its nanosecond key (timestampSortKey).
  registeredAt: 'registered_key',
  registeredByUserId: 'registered_by_user_id',
  protocolNumber: 'protocol_number',
  currentStepType: 'current_step_type',
  generatedAt: 'generated_key',
} as const;
export type ExtractSortField = keyof typeof EXTRACT_SORT_COLUMNS;

export interface ExtractPageQuery {
  tenantId: string;
  sortBy: ExtractSortField;
  desc: boolean;
  /** Rows to skip from the start of the requested order. */
  offset: number;
  limit: number;
}

export interface PaymentRow {
  id: number;
  userId: number;
  type: string;
  informantId: string;
  isPartial: boolean;
  paymentCents: number;
  remainingCents: number | null;
  /** The amounts' texts as sent where a double writes them otherwise (1E+1, 0.10000, -0), else null. */
  paymentText: string | null;
  remainingText: string | null;
  beneficiaryDocument: string | null;
  paymentDate: string | null;
  openBeforeCents: number;
  openAfterCents: number;
  statusAfter: TradeBillStatus;
  recordedAt: string;
}

/** A payment as declared, plus who declared it and when (the sandbox clock). */
export type NewPayment = Omit<PaymentRow, 'id' | 'openBeforeCents' | 'openAfterCents' | 'statusAfter'>;

/** What a payment does to a bill, decided from the bill as read inside the transaction. */
export interface PaymentEffect {
  openAfterCents: number;
  statusAfter: TradeBillStatus;
}

/** Who a bearer token is and whether they may act for a tenant, as authorization needs it. */
export interface Access {
  /** Undefined: the token is no user's. */
  userId: number | undefined;
  hasTenant: boolean;
}

export interface TenantSummary {
  tenantId: string;
  userIds: number[];
  extractRequests: number;
  tradeBills: number;
}

const EXTRACT_COLUMNS = `request_id AS extractTradeReceivableRequestId, registered_at AS registeredAt,
  registered_by_user_id AS registeredByUserId, protocol_number AS protocolNumber,
  current_step_type AS currentStepType, generated_at AS generatedAt`;

const PAYMENT_COLUMNS = `id, user_id AS userId, type, informant_id AS informantId, is_partial AS isPartial,
  payment_cents AS paymentCents, remaining_cents AS remainingCents,
  payment_text AS paymentText, remaining_text AS remainingText,
  beneficiary_document AS beneficiaryDocument, payment_date AS paymentDate,
  open_before_cents AS openBeforeCents, open_after_cents AS openAfterCents,
  status_after AS statusAfter, recorded_at AS recordedAt`;

type Direction = 'ASC' | 'DESC';

/** An extract row as SQLite returns it raw, in the order of EXTRACT_COLUMNS. */
type ExtractRow = [number, string, number, string, string, string];

function toExtractItem(r: ExtractRow): ExtractItem {
  return {
    extractTradeReceivableRequestId: r[0],
    registeredAt: r[1],
    registeredByUserId: r[2],
    protocolNumber: r[3],
    currentStepType: r[4],
    generatedAt: r[5],
  };
}

export class BookkeepingStore {
  private readonly statements;
  /** One statement per sort field and direction, each an index range of (tenant_id, field, request_id). */
  private readonly pages: Record<ExtractSortField, Record<Direction, Statement>>;

  constructor(
    db: Db,
    private readonly readCache: ReadCache,
    private readonly counts: RowCounts,
  ) {
    this.statements = {
      insertUser: db.prepare('INSERT INTO bk_users (user_id, access_token) VALUES (?, ?)'),
      insertUserTenant: db.prepare(
        'INSERT OR IGNORE INTO bk_user_tenants (user_id, tenant_id) VALUES (?, ?)',
      ),
      userExists: db.prepare('SELECT 1 FROM bk_users WHERE user_id = ?').pluck(),
      userIdByToken: db.prepare('SELECT user_id FROM bk_users WHERE access_token = ?').pluck(),
      userHasTenant: db.prepare('SELECT 1 FROM bk_user_tenants WHERE user_id = ? AND tenant_id = ?').pluck(),
      insertTradeBill: db.prepare(
        `INSERT INTO bk_trade_bills (tenant_id, uid, amount_cents, open_cents, status)
         VALUES (@tenantId, @uid, @amountCents, @openCents, @status)`,
      ),
      tradeBill: db.prepare(
        `SELECT id, tenant_id AS tenantId, uid, amount_cents AS amountCents, open_cents AS openCents, status
         FROM bk_trade_bills WHERE tenant_id = ? AND uid = ?`,
      ),
      // A page by uid after a cursor (an index range), or at an offset (the inspector's pages).
      tradeBills: db.prepare(
        `SELECT b.tenant_id AS tenantId, b.uid, b.amount_cents AS amountCents, b.open_cents AS openCents,
           b.status, (SELECT count(*) FROM bk_payments p WHERE p.bill_id = b.id) AS payments
         FROM bk_trade_bills b WHERE b.tenant_id = ? AND b.uid > ? ORDER BY b.uid LIMIT ? OFFSET ?`,
      ),
      insertExtractRequest: db.prepare(
        `INSERT INTO bk_extract_requests (request_id, tenant_id, registered_at, registered_by_user_id,
           protocol_number, current_step_type, generated_at, registered_key, generated_key)
         VALUES (@extractTradeReceivableRequestId, @tenantId, @registeredAt, @registeredByUserId,
           @protocolNumber, @currentStepType, @generatedAt, @registeredKey, @generatedKey)`,
      ),
      countExtractRequest: db
        .prepare(
          `INSERT INTO bk_tenant_counters (tenant_id, extract_requests) VALUES (?, 1)
           ON CONFLICT (tenant_id) DO UPDATE SET extract_requests = extract_requests + 1
           RETURNING extract_requests`,
        )
        .pluck(),
      extractRequestExists: db.prepare('SELECT 1 FROM bk_extract_requests WHERE request_id = ?').pluck(),
      extractCount: db.prepare('SELECT extract_requests FROM bk_tenant_counters WHERE tenant_id = ?').pluck(),
      // The last write must still see the bill as it was read: a guard should another process share the file.
      updateBill: db.prepare(
        `UPDATE bk_trade_bills SET open_cents = @openAfterCents, status = @statusAfter
         WHERE id = @id AND open_cents = @openBeforeCents AND status = @statusBefore`,
      ),
      insertPayment: db.prepare(
        `INSERT INTO bk_payments (bill_id, user_id, type, informant_id, is_partial, payment_cents,
           remaining_cents, beneficiary_document, payment_date, open_before_cents, open_after_cents,
           status_after, recorded_at, payment_text, remaining_text)
         VALUES (@billId, @userId, @type, @informantId, @isPartial, @paymentCents, @remainingCents,
           @beneficiaryDocument, @paymentDate, @openBeforeCents, @openAfterCents, @statusAfter, @recordedAt,
           @paymentText, @remainingText)`,
      ),
      payments: db.prepare(`SELECT ${PAYMENT_COLUMNS} FROM bk_payments WHERE bill_id = ? AND id > ? ORDER BY id LIMIT ?`),
      paymentCount: db.prepare('SELECT count(*) FROM bk_payments WHERE bill_id = ?').pluck(),
      tenants: db.prepare(
        `SELECT t.tenant_id AS tenantId,
           (SELECT group_concat(user_id) FROM bk_user_tenants u WHERE u.tenant_id = t.tenant_id) AS userIds,
           coalesce((SELECT extract_requests FROM bk_tenant_counters c WHERE c.tenant_id = t.tenant_id), 0)
             AS extractRequests
         FROM (SELECT tenant_id FROM bk_user_tenants UNION SELECT tenant_id FROM bk_tenant_counters
               UNION SELECT tenant_id FROM bk_trade_bills) t
         WHERE t.tenant_id > ? ORDER BY t.tenant_id LIMIT ?`,
      ),
      tenantCount: db
        .prepare(
          `SELECT count(*) FROM (SELECT tenant_id FROM bk_user_tenants UNION SELECT tenant_id FROM bk_tenant_counters
             UNION SELECT tenant_id FROM bk_trade_bills)`,
        )
        .pluck(),
    };

    const page = (column: string, dir: Direction) =>
      // The inner query walks only the covering index; the table is read for the page's rows alone.
      // Raw rows (arrays) and objects built by hand: they cost less than named-column rows per row read.
      db
        .prepare(
        `SELECT ${EXTRACT_COLUMNS} FROM bk_extract_requests
         WHERE request_id IN (
           SELECT request_id FROM bk_extract_requests WHERE tenant_id = @tenantId
           ORDER BY ${column} ${dir}, request_id ${dir} LIMIT @limit OFFSET @offset)
         ORDER BY ${column} ${dir}, request_id ${dir}`,
        )
        .raw(true);
    const pages = {} as Record<ExtractSortField, Record<Direction, Statement>>;
    for (const [field, column] of Object.entries(EXTRACT_SORT_COLUMNS) as [ExtractSortField, string][]) {
      pages[field] = { ASC: page(column, 'ASC'), DESC: page(column, 'DESC') };
    }
    this.pages = pages;
  }

  insertUser(userId: number, accessToken: string, tenants: readonly string[]): void {
    this.statements.insertUser.run(userId, accessToken);
    this.counts.add('bk_users');
    for (const t of tenants) this.counts.add('bk_user_tenants', this.statements.insertUserTenant.run(userId, t).changes);
  }

  userExists(userId: number): boolean {
    return this.statements.userExists.get(userId) !== undefined;
  }

  /** The user a bearer token belongs to, or undefined. */
  userIdByToken(accessToken: string): number | undefined {
    return this.statements.userIdByToken.get(accessToken) as number | undefined;
  }

  userHasTenant(userId: number, tenantId: string): boolean {
    return this.statements.userHasTenant.get(userId, tenantId) !== undefined;
  }

  /**
   * The token's user and their access to the tenant in one lookup, answered from the read cache
   * until any row changes (every request of a client carries the same token and tenant). `request`:
   * see ReadCache.get.
   */
  access(accessToken: string, tenantId: string, request?: object): Access {
    // The tenant's length makes the key unambiguous whatever characters either holds.
    return this.readCache.get(`bk-access|${tenantId.length}|${tenantId}|${accessToken}`, () => {
      const userId = this.userIdByToken(accessToken);
      return { userId, hasTenant: userId !== undefined && this.userHasTenant(userId, tenantId) };
    }, request);
  }

  insertTradeBill(bill: Omit<TradeBillRow, 'id'>): void {
    this.statements.insertTradeBill.run(bill);
    this.counts.add('bk_trade_bills');
    this.counts.add(groupKey('bk_trade_bills', 'tenant_id', bill.tenantId));
  }

  tradeBill(tenantId: string, uid: string): TradeBillRow | undefined {
    return this.statements.tradeBill.get(tenantId, uid) as TradeBillRow | undefined;
  }

  /** `limit` bills of the tenant by uid: after the uid `after`, or from `offset`. */
  tradeBills(tenantId: string, page: { after?: string; offset?: number; limit?: number } = {}): TradeBillSummary[] {
    return this.statements.tradeBills.all(tenantId, page.after ?? '', page.limit ?? -1, page.offset ?? 0) as TradeBillSummary[];
  }

  /** The tenant's bills (a maintained count). */
  tradeBillCount(tenantId: string): number {
    return this.counts.get(groupKey('bk_trade_bills', 'tenant_id', tenantId));
  }

  /** `limit` payments of the bill after the payment `after` (0: from the first), oldest first. */
  payments(billId: number, after = 0, limit = -1): PaymentRow[] {
    return (this.statements.payments.all(billId, after, limit) as Array<Omit<PaymentRow, 'isPartial'> & { isPartial: number }>).map(
      (p) => ({ ...p, isPartial: p.isPartial === 1 }),
    );
  }

  /** The bill's payments, counted on its index (a bill's own payments, not the table's). */
  paymentCount(billId: number): number {
    return this.statements.paymentCount.get(billId) as number;
  }

  /**
   * Applies a payment decided from `bill` as read in the caller's transaction: updates the bill only
   * if it is still as read, and records the payment.
   */
  applyPayment(bill: TradeBillRow, effect: PaymentEffect, payment: NewPayment): void {
    const changed = this.statements.updateBill.run({
      id: bill.id,
      openBeforeCents: bill.openCents,
      statusBefore: bill.status,
      ...effect,
    }).changes;
    if (changed !== 1) throw new Error(`trade bill ${bill.id} changed under a payment transaction`);
    this.statements.insertPayment.run({
      ...payment,
      isPartial: payment.isPartial ? 1 : 0,
      billId: bill.id,
      openBeforeCents: bill.openCents,
      ...effect,
    });
    this.counts.add('bk_payments');
  }

  /** Inserts one extract request and counts it for its tenant; call inside the caller's transaction. */
  insertExtractRequest(row: ExtractRequestRow): void {
    this.statements.insertExtractRequest.run({
      ...row,
      registeredKey: timestampSortKey(row.registeredAt),
      generatedKey: timestampSortKey(row.generatedAt),
    });
    this.counts.add('bk_extract_requests');
    // The tenant's counter row is new when it counts its first request.
    if (this.statements.countExtractRequest.get(row.tenantId) === 1) this.counts.add('bk_tenant_counters');
  }

  extractRequestExists(id: number): boolean {
    return this.statements.extractRequestExists.get(id) !== undefined;
  }

  /** The tenant's number of extract requests, from the counter kept by insertExtractRequest. */
  extractRequestCount(tenantId: string): number {
    return (this.statements.extractCount.get(tenantId) as number | undefined) ?? 0;
  }

  /**
   * One page of the tenant's extract requests. OFFSET walks the index from its start, so a page in
   * the far half is read from the other end in the opposite order and turned back: the last page
   * costs what the first does. `total` is the tenant's count, read by the caller.
   */
  extractPage(q: ExtractPageQuery, total: number): ExtractItem[] {
    const end = Math.min(q.offset + q.limit, total);
    if (q.offset >= end) return [];
    const forward: Direction = q.desc ? 'DESC' : 'ASC';
    const backward: Direction = q.desc ? 'ASC' : 'DESC';
    const fromEnd = total - end;
    if (fromEnd < q.offset) {
      const rows = this.pages[q.sortBy][backward].all({
        tenantId: q.tenantId,
        limit: end - q.offset,
        offset: fromEnd,
      }) as ExtractRow[];
      return rows.reverse().map(toExtractItem);
    }
    return (
      this.pages[q.sortBy][forward].all({
        tenantId: q.tenantId,
        limit: end - q.offset,
        offset: q.offset,
      }) as ExtractRow[]
    ).map(toExtractItem);
  }

  /**
   * How many tenants there are (the users', the extract requests' and the bills'): counted again only
   * when one of those tables gained or lost rows since the last count.
   */
  tenantCount(): number {
    const key = ['bk_user_tenants', 'bk_tenant_counters', 'bk_trade_bills'].map((t) => this.counts.get(t)).join('|');
    if (this.tenants$?.key !== `${this.counts.recounts}|${key}`)
      this.tenants$ = { key: `${this.counts.recounts}|${key}`, count: this.statements.tenantCount.get() as number };
    return this.tenants$.count;
  }
  private tenants$: { key: string; count: number } | undefined;

  /** `limit` tenants after `after` ('' from the first), in order. */
  tenants(after = '', limit = -1): TenantSummary[] {
    return (this.statements.tenants.all(after, limit) as Array<Omit<TenantSummary, 'userIds' | 'tradeBills'> & { userIds: string | null }>).map(
      (t) => ({
        ...t,
        tradeBills: this.tradeBillCount(t.tenantId),
        userIds:
          t.userIds === null
            ? []
            : t.userIds
                .split(',')
                .map(Number)
                .sort((a, b) => a - b),
      }),
    );
  }
}
