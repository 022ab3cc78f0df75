// Loan-bond storage: callers and the products they contracted.
import type { Db } from './db.js';

export type Product = 'electronic-signature' | 'digital-loan-bond';

export interface CallerRow {
  callerId: string;
  products: Product[];
}

export class LoanbondStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertCaller: db.prepare('INSERT INTO lb_callers (caller_id, token, products) VALUES (?, ?, ?)'),
      callerExists: db.prepare('SELECT 1 FROM lb_callers WHERE caller_id = ?').pluck(),
      tokenExists: db.prepare('SELECT 1 FROM lb_callers WHERE token = ?').pluck(),
      callerByToken: db.prepare('SELECT caller_id AS callerId, products FROM lb_callers WHERE token = ?'),
    };
  }

  insertCaller(callerId: string, token: string, products: readonly Product[]): void {
    this.s.insertCaller.run(callerId, token, JSON.stringify(products));
  }

  callerExists(callerId: string): boolean {
    return this.s.callerExists.get(callerId) !== undefined;
  }

  tokenExists(token: string): boolean {
    return this.s.tokenExists.get(token) !== undefined;
  }

  callerByToken(token: string): CallerRow | undefined {
    const row = this.s.callerByToken.get(token) as { callerId: string; products: string } | undefined;
    return row && { callerId: row.callerId, products: JSON.parse(row.products) as Product[] };
  }
}
