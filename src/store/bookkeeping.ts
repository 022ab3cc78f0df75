// Bookkeeping storage: users and their tenants, trade bills, extract requests.
import type { Db } from './db.js';

export type TradeBillStatus = 'open' | 'partially-paid' | 'paid' | 'cancelled' | 'blocked';

export interface TradeBillRow {
  id: number;
  tenantId: string;
  uid: string;
  amountCents: number;
  openCents: number;
  status: TradeBillStatus;
}

export interface ExtractRequestRow {
  extractTradeReceivableRequestId: number;
  tenantId: string;
  registeredAt: string;
  registeredByUserId: number;
  protocolNumber: string;
  currentStepType: string;
  generatedAt: string;
}

export class BookkeepingStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
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
      insertExtractRequest: db.prepare(
        `INSERT INTO bk_extract_requests (request_id, tenant_id, registered_at, registered_by_user_id,
           protocol_number, current_step_type, generated_at)
         VALUES (@extractTradeReceivableRequestId, @tenantId, @registeredAt, @registeredByUserId,
           @protocolNumber, @currentStepType, @generatedAt)`,
      ),
      extractRequestExists: db.prepare('SELECT 1 FROM bk_extract_requests WHERE request_id = ?').pluck(),
    };
  }

  insertUser(userId: number, accessToken: string, tenants: readonly string[]): void {
    this.s.insertUser.run(userId, accessToken);
    for (const t of tenants) this.s.insertUserTenant.run(userId, t);
  }

  userExists(userId: number): boolean {
    return this.s.userExists.get(userId) !== undefined;
  }

  /** The user a bearer token belongs to, or undefined. */
  userIdByToken(accessToken: string): number | undefined {
    return this.s.userIdByToken.get(accessToken) as number | undefined;
  }

  userHasTenant(userId: number, tenantId: string): boolean {
    return this.s.userHasTenant.get(userId, tenantId) !== undefined;
  }

  insertTradeBill(bill: Omit<TradeBillRow, 'id'>): void {
    this.s.insertTradeBill.run(bill);
  }

  tradeBill(tenantId: string, uid: string): TradeBillRow | undefined {
    return this.s.tradeBill.get(tenantId, uid) as TradeBillRow | undefined;
  }

  insertExtractRequest(row: ExtractRequestRow): void {
    this.s.insertExtractRequest.run(row);
  }

  extractRequestExists(id: number): boolean {
    return this.s.extractRequestExists.get(id) !== undefined;
  }
}
