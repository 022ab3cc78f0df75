// Receivables storage: funds and their management-system tokens.
import type { Db } from './db.js';

export interface FundRow {
  fundCnpj: string;
  token: string | null;
}

export class ReceivablesStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertFund: db.prepare('INSERT INTO rc_funds (fund_cnpj, token) VALUES (?, ?)'),
      fund: db.prepare('SELECT fund_cnpj AS fundCnpj, token FROM rc_funds WHERE fund_cnpj = ?'),
    };
  }

  insertFund(fundCnpj: string, token: string | null): void {
    this.s.insertFund.run(fundCnpj, token);
  }

  fund(fundCnpj: string): FundRow | undefined {
    return this.s.fund.get(fundCnpj) as FundRow | undefined;
  }
}
