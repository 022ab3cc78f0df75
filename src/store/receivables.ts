// Receivables storage: funds and their management-system tokens; CNAB imports (the status and the
// outcome; the file's bytes in parts in rc_import_file_parts, so that a change of status never copies
// them again, and a large file is written, and read back, a part per turn of the event loop; a
// large file's parts are written under a key of their own before its import is accepted and given
// its id, which its row names in file_key)
// and their line-level diagnostics. Titles are not copied into rows: they are a
// pure function of the stored bytes, read again when inspected (CnabFile in receivables/cnab-record.ts).
import type { Steps } from '../domain/steps.js';
import type { Db } from './db.js';
import { groupKey, type RowCounts } from './row-counts.js';

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

/** A diagnostic of an import as stored (receivables/cnab-checks.ts finds them). */
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

/** What processing found, as stored on the import (receivables/cnab-checks.ts summarises a file so). */
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

/** Bytes of a stored file's part: one part is written per turn of the event loop. */
export const FILE_PART_BYTES = 1024 * 1024;

export class ReceivablesStore {
  private readonly statements;

  constructor(
    db: Db,
    private readonly counts: RowCounts,
  ) {
    this.statements = {
      insertFund: db.prepare('INSERT INTO rc_funds (fund_cnpj, token) VALUES (?, ?)'),
      fund: db.prepare('SELECT fund_cnpj AS fundCnpj, token FROM rc_funds WHERE fund_cnpj = ?'),
      funds: db.prepare(
        `SELECT fund_cnpj AS fundCnpj, token IS NOT NULL AS hasToken
         FROM rc_funds WHERE fund_cnpj > ? ORDER BY fund_cnpj LIMIT ?`,
      ),
      insertImport: db.prepare(
        `INSERT INTO rc_imports (import_id, fund_cnpj, file_name, additive_number, received_at, status,
           byte_length, line_count, strict, file_key)
         VALUES (@importId, @fundCnpj, @fileName, @additiveNumber, @receivedAt, 'pending',
           @byteLength, @lineCount, @strict, @fileKey)`,
      ),
      fileKey: db.prepare('SELECT coalesce(file_key, import_id) FROM rc_imports WHERE import_id = ?').pluck(),
      insertPart: db.prepare('INSERT INTO rc_import_file_parts (import_id, part, bytes) VALUES (?, ?, ?)'),
      deleteParts: db.prepare('DELETE FROM rc_import_file_parts WHERE import_id = ?'),
      partsOf: db.prepare(
        'SELECT count(*) AS parts, coalesce(sum(length(bytes)), 0) AS size FROM rc_import_file_parts WHERE import_id = ?',
      ),
      nextPending: db
        .prepare(`SELECT import_id FROM rc_imports WHERE status = 'pending' ORDER BY rowid LIMIT 1`)
        .pluck(),
      status: db.prepare('SELECT status FROM rc_imports WHERE import_id = ?').pluck(),
      file: db.prepare('SELECT bytes FROM rc_import_file_parts WHERE import_id = ? ORDER BY part').pluck(),
      filePart: db.prepare('SELECT bytes FROM rc_import_file_parts WHERE import_id = ? AND part = ?').pluck(),
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
        `SELECT rowid AS seq, ${IMPORT_COLUMNS} FROM rc_imports WHERE fund_cnpj = ? AND rowid > ? ORDER BY rowid LIMIT ?`,
      ),
      diagnostics: db.prepare(
        `SELECT line, columns, rule, severity, message FROM rc_diagnostics WHERE import_id = ? ORDER BY ordinal`,
      ),
    };
    // Parts of a submission the process stopped in the middle of writing (no import row came).
    db.prepare(
      'DELETE FROM rc_import_file_parts WHERE import_id NOT IN (SELECT coalesce(file_key, import_id) FROM rc_imports)',
    ).run();
  }

  insertFund(fundCnpj: string, token: string | null): void {
    this.statements.insertFund.run(fundCnpj, token);
    this.counts.add('rc_funds');
  }

  fund(fundCnpj: string): FundRow | undefined {
    return this.statements.fund.get(fundCnpj) as FundRow | undefined;
  }

  /** `limit` funds after `after` ('' from the first), in order, with how many imports each received. */
  funds(after = '', limit = -1): Array<{ fundCnpj: string; hasToken: number; imports: number }> {
    return (this.statements.funds.all(after, limit) as Array<{ fundCnpj: string; hasToken: number }>).map((f) => ({
      ...f,
      imports: this.importCount(f.fundCnpj),
    }));
  }

  fundCount(): number {
    return this.counts.get('rc_funds');
  }

  /** Imports the fund received (a maintained count). */
  importCount(fundCnpj: string): number {
    return this.counts.get(groupKey('rc_imports', 'fund_cnpj', fundCnpj));
  }

  /** Imports waiting for processing, and rejected (maintained counts). */
  importStates(): { pending: number; rejected: number } {
    return {
      pending: this.counts.get(groupKey('rc_imports', 'status', 'pending')),
      rejected: this.counts.get(groupKey('rc_imports', 'status', 'rejected')),
    };
  }

  /** The import's row and its file's parts under its id (callers wrap them in one transaction). */
  insertImport(i: NewImport): void {
    const { file, ...row } = i;
    this.writeFile(i.importId, file);
    this.insertImportRow(row, file.length);
  }

  /**
   * The import's row, once its file's parts are written (insertFilePart, writeFile) under `fileKey`
   * (null: under its id); callers wrap it with the last of them in one transaction.
   */
  insertImportRow(row: Omit<NewImport, 'file'>, byteLength: number, fileKey: string | null = null): void {
    this.statements.insertImport.run({ ...row, byteLength, strict: row.strict ? 1 : 0, fileKey: fileKey === row.importId ? null : fileKey });
    this.counts.add('rc_imports');
    this.counts.add(groupKey('rc_imports', 'status', 'pending'));
    this.counts.add(groupKey('rc_imports', 'fund_cnpj', row.fundCnpj));
  }

  /**
   * One part of a file under `key` (an import's id, or the key its parts are written under while it
   * arrives), numbered from 0 (FILE_PART_BYTES each but the last).
   */
  insertFilePart(key: string, part: number, bytes: Buffer): void {
    this.statements.insertPart.run(key, part, bytes);
    this.counts.add('rc_import_file_parts');
  }

  /** The whole file in parts, replacing any part stored under the key. */
  writeFile(key: string, file: Buffer): void {
    this.deleteFile(key);
    for (let part = 0; part * FILE_PART_BYTES < file.length || part === 0; part++)
      this.insertFilePart(key, part, file.subarray(part * FILE_PART_BYTES, (part + 1) * FILE_PART_BYTES));
  }

  /** Removes the parts stored under the key (a submission that could not finish). */
  deleteFile(key: string): void {
    this.counts.add('rc_import_file_parts', -this.statements.deleteParts.run(key).changes);
  }

  /** How many parts, and bytes in all, are stored under the key. */
  fileParts(key: string): { parts: number; size: number } {
    return this.statements.partsOf.get(key) as { parts: number; size: number };
  }

  /** The key the import's file parts are stored under; undefined when there is no such import. */
  fileKey(importId: string): string | undefined {
    return this.statements.fileKey.get(importId) as string | undefined;
  }

  /** The id of the oldest import still waiting for processing. */
  nextPending(): string | undefined {
    return this.statements.nextPending.get() as string | undefined;
  }

  status(importId: string): ImportStatus | undefined {
    return this.statements.status.get(importId) as ImportStatus | undefined;
  }

  /** The import's file, read whole; undefined when there is no such import or file. */
  file(importId: string): Buffer | undefined {
    const key = this.fileKey(importId);
    if (key === undefined) return undefined;
    const parts = this.statements.file.all(key) as Buffer[];
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  /**
   * file() a part per step (FILE_PART_BYTES each), copied into one buffer of the file's size: a file
   * near the body limit is read back over many turns of the event loop, never in one. Undefined when
   * nothing is stored under the id, or when its parts changed between two steps (the caller, who
   * knows whether the state was replaced meanwhile, reads again).
   */
  *fileSteps(importId: string): Steps<Buffer | undefined> {
    const key = this.fileKey(importId);
    if (key === undefined) return undefined;
    const { parts, size } = this.fileParts(key);
    if (parts <= 1) return parts === 0 ? undefined : (this.statements.filePart.get(key, 0) as Buffer | undefined);
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let part = 0; part < parts; part++) {
      if (part > 0) yield;
      const bytes = this.statements.filePart.get(key, part) as Buffer | undefined;
      if (bytes === undefined || at + bytes.length > size) return undefined;
      bytes.copy(out, at);
      at += bytes.length;
    }
    return at === size ? out : undefined;
  }

  /** Forgets the diagnostics an interrupted run of this import wrote, so processing can start over. */
  clearDiagnostics(importId: string): void {
    this.counts.add('rc_diagnostics', -this.statements.clearDiagnostics.run(importId).changes);
  }

  /** Diagnostics numbered from `ordinal`; callers wrap a slice in one transaction. */
  addDiagnostics(importId: string, diagnostics: readonly DiagnosticRow[], ordinal: number): void {
    let o = ordinal;
    for (const d of diagnostics) this.statements.insertDiagnostic.run({ importId, ordinal: o++, ...d });
    this.counts.add('rc_diagnostics', diagnostics.length);
  }

  finish(importId: string, outcome: ImportOutcome): void {
    const { lineCount: _lineCount, ...rest } = outcome;
    if (this.statements.finish.run({ importId, ...rest, strict: outcome.strict ? 1 : 0 }).changes === 1)
      this.counts.move('rc_imports', 'status', 'pending', outcome.status);
  }

  import(importId: string): ImportRow | undefined {
    return this.statements.importById.get(importId) as ImportRow | undefined;
  }

  /** `limit` imports of the fund received after the one numbered `after` (0: from the first), oldest first. */
  importsOfFund(fundCnpj: string, after = 0, limit = -1): Array<ImportRow & { seq: number }> {
    return this.statements.importsOfFund.all(fundCnpj, after, limit) as Array<ImportRow & { seq: number }>;
  }

  diagnostics(importId: string): DiagnosticRow[] {
    return this.statements.diagnostics.all(importId) as DiagnosticRow[];
  }
}
