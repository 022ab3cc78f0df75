// Receivables storage: funds and their management-system tokens; CNAB imports (the file bytes, the
// status, the outcome) and their line-level diagnostics. Titles are not copied into rows: they are a
// pure function of the stored bytes, read again when inspected (receivables/cnab.ts, CnabFile).
import type { Db } from './db.js';

export interface FundRow {
  fundCnpj: string;
  token: string | null;
}

export type ImportStatus = 'pending' | 'processed' | 'rejected';

export interface NewImport {
  importId: string;
  fundCnpj: string;
  fileName: string;
  additiveNumber: number;
  receivedAt: string;
  file: Buffer;
  lineCount: number;
  /** Strict mode asked for at submission; processing honours it. */
  strict: boolean;
}

/** A diagnostic of an import as stored (receivables/cnab.ts finds them). */
export interface DiagnosticRow {
  /** 1-based line number; null for a fault of the whole file. */
  line: number | null;
  /** 1-based inclusive columns, e.g. "439-444"; null when about the whole line or file. */
  columns: string | null;
  rule: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface ImportRow {
  importId: string;
  fundCnpj: string;
  fileName: string;
  additiveNumber: number;
  receivedAt: string;
  status: ImportStatus;
  byteLength: number;
  lineCount: number;
  processedAt: string | null;
  strict: number | null;
  layout: string | null;
  fileDate: string | null;
  titleCount: number | null;
  otherRecordCount: number | null;
  totalFaceValueCents: number | null;
  errorCount: number | null;
  warningCount: number | null;
}

/** What processing found, as stored on the import (receivables/cnab.ts summarises a file so). */
export type ImportOutcome = {
  [K in 'layout' | 'lineCount' | 'titleCount' | 'otherRecordCount' | 'totalFaceValueCents' | 'errorCount' | 'warningCount']: NonNullable<
    ImportRow[K]
  >;
} & { fileDate: string | null; status: 'processed' | 'rejected'; processedAt: string; strict: boolean };

const IMPORT_COLUMNS = `import_id AS importId, fund_cnpj AS fundCnpj, file_name AS fileName,
  additive_number AS additiveNumber, received_at AS receivedAt, status, byte_length AS byteLength,
  line_count AS lineCount, processed_at AS processedAt, strict, layout, file_date AS fileDate,
  title_count AS titleCount, other_record_count AS otherRecordCount,
  total_face_value_cents AS totalFaceValueCents, error_count AS errorCount, warning_count AS warningCount`;

export class ReceivablesStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertFund: db.prepare('INSERT INTO rc_funds (fund_cnpj, token) VALUES (?, ?)'),
      fund: db.prepare('SELECT fund_cnpj AS fundCnpj, token FROM rc_funds WHERE fund_cnpj = ?'),
      funds: db.prepare(
        `SELECT f.fund_cnpj AS fundCnpj, f.token IS NOT NULL AS hasToken,
           (SELECT count(*) FROM rc_imports i WHERE i.fund_cnpj = f.fund_cnpj) AS imports
         FROM rc_funds f ORDER BY f.fund_cnpj`,
      ),
      insertImport: db.prepare(
        `INSERT INTO rc_imports (import_id, fund_cnpj, file_name, additive_number, received_at, status, file,
           byte_length, line_count, strict)
         VALUES (@importId, @fundCnpj, @fileName, @additiveNumber, @receivedAt, 'pending', @file,
           @byteLength, @lineCount, @strict)`,
      ),
      nextPending: db
        .prepare(`SELECT import_id FROM rc_imports WHERE status = 'pending' ORDER BY rowid LIMIT 1`)
        .pluck(),
      pendingCount: db
        .prepare(`SELECT count(*) FROM (SELECT 1 FROM rc_imports WHERE status = 'pending' LIMIT ?)`)
        .pluck(),
      status: db.prepare('SELECT status FROM rc_imports WHERE import_id = ?').pluck(),
      file: db.prepare('SELECT file FROM rc_imports WHERE import_id = ?').pluck(),
      clearDiagnostics: db.prepare('DELETE FROM rc_diagnostics WHERE import_id = ?'),
      insertDiagnostic: db.prepare(
        `INSERT INTO rc_diagnostics (import_id, ordinal, line, columns, rule, severity, message)
         VALUES (@importId, @ordinal, @line, @columns, @rule, @severity, @message)`,
      ),
      finish: db.prepare(
        `UPDATE rc_imports SET status = @status, processed_at = @processedAt, strict = @strict, layout = @layout,
           file_date = @fileDate, title_count = @titleCount, other_record_count = @otherRecordCount,
           total_face_value_cents = @totalFaceValueCents, error_count = @errorCount, warning_count = @warningCount
         WHERE import_id = @importId AND status = 'pending'`,
      ),
      importById: db.prepare(`SELECT ${IMPORT_COLUMNS} FROM rc_imports WHERE import_id = ?`),
      importsOfFund: db.prepare(
        `SELECT ${IMPORT_COLUMNS} FROM rc_imports WHERE fund_cnpj = ? ORDER BY rowid`,
      ),
      diagnostics: db.prepare(
        `SELECT line, columns, rule, severity, message FROM rc_diagnostics WHERE import_id = ? ORDER BY ordinal`,
      ),
    };
  }

  insertFund(fundCnpj: string, token: string | null): void {
    this.s.insertFund.run(fundCnpj, token);
  }

  fund(fundCnpj: string): FundRow | undefined {
    return this.s.fund.get(fundCnpj) as FundRow | undefined;
  }

  funds(): Array<{ fundCnpj: string; hasToken: number; imports: number }> {
    return this.s.funds.all() as Array<{ fundCnpj: string; hasToken: number; imports: number }>;
  }

  insertImport(i: NewImport): void {
    this.s.insertImport.run({ ...i, byteLength: i.file.length, strict: i.strict ? 1 : 0 });
  }

  /** The id of the oldest import still waiting for processing. */
  nextPending(): string | undefined {
    return this.s.nextPending.get() as string | undefined;
  }

  /** Imports waiting for processing, counted up to `upTo` (the partial index keeps it cheap). */
  pendingCount(upTo: number): number {
    return Number(this.s.pendingCount.get(upTo));
  }

  status(importId: string): ImportStatus | undefined {
    return this.s.status.get(importId) as ImportStatus | undefined;
  }

  file(importId: string): Buffer | undefined {
    return this.s.file.get(importId) as Buffer | undefined;
  }

  /** Forgets the diagnostics an interrupted run of this import wrote, so processing can start over. */
  clearDiagnostics(importId: string): void {
    this.s.clearDiagnostics.run(importId);
  }

  /** Diagnostics numbered from `ordinal`; callers wrap a slice in one transaction. */
  addDiagnostics(importId: string, diagnostics: readonly DiagnosticRow[], ordinal: number): void {
    let o = ordinal;
    for (const d of diagnostics) this.s.insertDiagnostic.run({ importId, ordinal: o++, ...d });
  }

  finish(importId: string, outcome: ImportOutcome): void {
    const { lineCount: _lineCount, ...rest } = outcome;
    this.s.finish.run({ importId, ...rest, strict: outcome.strict ? 1 : 0 });
  }

  import(importId: string): ImportRow | undefined {
    return this.s.importById.get(importId) as ImportRow | undefined;
  }

  importsOfFund(fundCnpj: string): ImportRow[] {
    return this.s.importsOfFund.all(fundCnpj) as ImportRow[];
  }

  diagnostics(importId: string): DiagnosticRow[] {
    return this.s.diagnostics.all(importId) as DiagnosticRow[];
  }
}
