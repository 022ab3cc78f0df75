// Append-only: a released migration is never edited; the next change is a new entry.
// Table names carry the interface's prefix: bk_ bookkeeping, rg_ registry, rc_ receivables,
// lb_ loan-bond, sb_ the sandbox itself.

import type { Db } from './db.js';
import { moveDocumentBlobs } from './documents.js';

export interface Migration {
  name: string;
  /** Work SQL cannot do, run first in the same transaction (`path`: the database file, or :memory:). */
  before?: (db: Db, path: string) => void;
  sql: string;
}

export const migrations: Migration[] = [
  {
    name: 'fixture-backed tables of the four interfaces',
    sql: `
      CREATE TABLE sb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

      CREATE TABLE bk_users (
        user_id INTEGER PRIMARY KEY,
        access_token TEXT NOT NULL UNIQUE
      );
      CREATE TABLE bk_user_tenants (
        user_id INTEGER NOT NULL REFERENCES bk_users (user_id) ON DELETE CASCADE,
        tenant_id TEXT NOT NULL,
        PRIMARY KEY (user_id, tenant_id)
      ) WITHOUT ROWID;
      CREATE TABLE bk_trade_bills (
        id INTEGER PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        uid TEXT NOT NULL,
        amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
        open_cents INTEGER NOT NULL CHECK (open_cents >= 0 AND open_cents <= amount_cents),
        status TEXT NOT NULL,
        UNIQUE (tenant_id, uid)
      );
      CREATE TABLE bk_extract_requests (
        request_id INTEGER PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        registered_at TEXT NOT NULL,
        registered_by_user_id INTEGER NOT NULL,
        protocol_number TEXT NOT NULL,
        current_step_type TEXT NOT NULL,
        generated_at TEXT NOT NULL
      );
      CREATE INDEX bk_extract_requests_by_tenant ON bk_extract_requests (tenant_id, registered_at, request_id);

      CREATE TABLE rg_participants (
        participant_id TEXT PRIMARY KEY,
        access_token TEXT NOT NULL UNIQUE
      ) WITHOUT ROWID;

      CREATE TABLE rc_funds (
        fund_cnpj TEXT PRIMARY KEY,
        token TEXT
      ) WITHOUT ROWID;

      CREATE TABLE lb_callers (
        caller_id TEXT PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,
        products TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    name: 'bookkeeping: per-tenant counters, one index per sortable extract field, payments',
    sql: `
      -- The extract list reads its totals here instead of counting the tenant's rows on every request.
      -- The store bumps the count in the transaction that inserts (no trigger: a snapshot restore
      -- copies rows back and must not count them twice).
      CREATE TABLE bk_tenant_counters (
        tenant_id TEXT PRIMARY KEY,
        extract_requests INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID;

      -- One covering index per sortable field, ties broken by id: every page is an index range.
      CREATE INDEX bk_extract_requests_by_id ON bk_extract_requests (tenant_id, request_id);
      CREATE INDEX bk_extract_requests_by_user ON bk_extract_requests (tenant_id, registered_by_user_id, request_id);
      CREATE INDEX bk_extract_requests_by_protocol ON bk_extract_requests (tenant_id, protocol_number, request_id);
      CREATE INDEX bk_extract_requests_by_step ON bk_extract_requests (tenant_id, current_step_type, request_id);
      CREATE INDEX bk_extract_requests_by_generated ON bk_extract_requests (tenant_id, generated_at, request_id);

      CREATE TABLE bk_payments (
        id INTEGER PRIMARY KEY,
        bill_id INTEGER NOT NULL REFERENCES bk_trade_bills (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        informant_id TEXT NOT NULL,
        is_partial INTEGER NOT NULL CHECK (is_partial IN (0, 1)),
        payment_cents INTEGER NOT NULL CHECK (payment_cents > 0),
        remaining_cents INTEGER,
        beneficiary_document TEXT,
        payment_date TEXT,
        open_before_cents INTEGER NOT NULL,
        open_after_cents INTEGER NOT NULL CHECK (open_after_cents >= 0),
        status_after TEXT NOT NULL,
        recorded_at TEXT NOT NULL
      );
      CREATE INDEX bk_payments_by_bill ON bk_payments (bill_id, id);
    `,
  },
  {
    name: 'registry: batches, documents, reconciliations',
    sql: `
      CREATE TABLE rg_batches (
        batch_key TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL REFERENCES rg_participants (participant_id) ON DELETE CASCADE,
        registered_at TEXT NOT NULL,
        registration_date TEXT NOT NULL,
        document_count INTEGER NOT NULL,
        warnings TEXT NOT NULL
      );
      CREATE INDEX rg_batches_by_participant ON rg_batches (participant_id, registered_at);

      -- fields: the document as sent, amounts in integer cents, documento as {size, sha256}.
      CREATE TABLE rg_documents (
        registry_key TEXT PRIMARY KEY,
        batch_key TEXT NOT NULL REFERENCES rg_batches (batch_key) ON DELETE CASCADE,
        item_index INTEGER NOT NULL,
        participant_id TEXT NOT NULL,
        registered_at TEXT NOT NULL,
        registration_date TEXT NOT NULL,
        fields TEXT NOT NULL,
        UNIQUE (batch_key, item_index)
      );
      CREATE INDEX rg_documents_by_participant ON rg_documents (participant_id, registered_at);

      CREATE TABLE rg_reconciliations (
        reconciliation_key TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL REFERENCES rg_participants (participant_id) ON DELETE CASCADE,
        reconciled_at TEXT NOT NULL,
        item_count INTEGER NOT NULL,
        matched INTEGER NOT NULL,
        diverging INTEGER NOT NULL,
        unknown INTEGER NOT NULL,
        warnings TEXT NOT NULL
      );
      CREATE INDEX rg_reconciliations_by_participant ON rg_reconciliations (participant_id, reconciled_at);

      CREATE TABLE rg_reconciliation_items (
        reconciliation_key TEXT NOT NULL
          REFERENCES rg_reconciliations (reconciliation_key) ON DELETE CASCADE,
        item_index INTEGER NOT NULL,
        registry_key TEXT,
        result TEXT NOT NULL CHECK (result IN ('matched', 'diverging', 'unknown')),
        message TEXT NOT NULL,
        divergences TEXT NOT NULL,
        reported TEXT NOT NULL,
        PRIMARY KEY (reconciliation_key, item_index)
      ) WITHOUT ROWID;
    `,
  },
  {
    name: 'receivables: CNAB imports (file bytes, outcome) and their line-level diagnostics',
    sql: `
      CREATE TABLE rc_imports (
        import_id TEXT PRIMARY KEY,
        fund_cnpj TEXT NOT NULL REFERENCES rc_funds (fund_cnpj) ON DELETE CASCADE,
        file_name TEXT NOT NULL,
        additive_number REAL NOT NULL,
        received_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'processed', 'rejected')),
        file BLOB NOT NULL,
        byte_length INTEGER NOT NULL,
        line_count INTEGER NOT NULL,
        processed_at TEXT,
        strict INTEGER,
        layout TEXT,
        file_date TEXT,
        title_count INTEGER,
        other_record_count INTEGER,
        total_face_value_cents INTEGER,
        error_count INTEGER,
        warning_count INTEGER
      );
      CREATE INDEX rc_imports_by_fund ON rc_imports (fund_cnpj);
      CREATE INDEX rc_imports_pending ON rc_imports (status) WHERE status = 'pending';
      CREATE TABLE rc_diagnostics (
        import_id TEXT NOT NULL REFERENCES rc_imports (import_id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        line INTEGER,
        columns TEXT,
        rule TEXT NOT NULL,
        severity TEXT NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (import_id, ordinal)
      ) WITHOUT ROWID;
    `,
  },
  {
    name: 'loan-bond registrations, their additional documents and the deduplicated files',
    sql: `
      CREATE TABLE lb_documents (
        id INTEGER PRIMARY KEY,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        UNIQUE (sha256, size)
      );

      CREATE TABLE lb_registrations (
        codigo_identificador TEXT PRIMARY KEY,
        chave_registro TEXT NOT NULL UNIQUE,
        token_hash TEXT NOT NULL,
        token_hint TEXT NOT NULL,
        caller_id TEXT NOT NULL REFERENCES lb_callers (caller_id) ON DELETE CASCADE,
        batch TEXT NOT NULL,
        position INTEGER NOT NULL,
        versao TEXT NOT NULL,
        nome_documento TEXT,
        assinado INTEGER NOT NULL,
        document_id INTEGER NOT NULL REFERENCES lb_documents (id),
        state TEXT NOT NULL,
        registered_at TEXT NOT NULL,
        processed_at TEXT,
        signers TEXT NOT NULL,
        installments TEXT NOT NULL,
        emails TEXT NOT NULL,
        signatures TEXT,
        signatures_sent INTEGER NOT NULL,
        warnings TEXT NOT NULL,
        notified_at TEXT,
        UNIQUE (batch, position)
      );
      CREATE INDEX lb_registrations_by_caller ON lb_registrations (caller_id, registered_at, batch, position);
      CREATE INDEX lb_registrations_by_state ON lb_registrations (state);

      CREATE TABLE lb_additional_documents (
        codigo_identificador TEXT NOT NULL REFERENCES lb_registrations (codigo_identificador) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        nome TEXT,
        document_id INTEGER NOT NULL REFERENCES lb_documents (id),
        signatures TEXT,
        signatures_sent INTEGER NOT NULL,
        PRIMARY KEY (codigo_identificador, position)
      ) WITHOUT ROWID;
    `,
  },
  {
    name: 'loan-bond registrations in time order: the control plane pages through them by that key',
    sql: `
      CREATE INDEX lb_registrations_by_time ON lb_registrations (registered_at, batch, position);
    `,
  },
  {
    name: 'loan-bond files kept as files beside the database (documents.ts), not as BLOBs',
    before: moveDocumentBlobs,
    sql: 'ALTER TABLE lb_documents DROP COLUMN bytes;',
  },
  {
    name: 'user-defined operations: stub mappings added at run time and scenario states',
    sql: `
      CREATE TABLE sb_stub_mappings (
        id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,
        mapping TEXT NOT NULL
      );
      CREATE TABLE sb_stub_scenarios (name TEXT PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID;
    `,
  },
  {
    // SQLite rewrites a whole row when any of its columns changes: with the file in the import's row,
    // marking a 44 MB import processed copied its 44 MB again (about a second holding the event loop).
    name: "CNAB files in a table of their own: an import's status changes without rewriting its bytes",
    sql: `
      CREATE TABLE rc_import_files (
        import_id TEXT PRIMARY KEY REFERENCES rc_imports (import_id) ON DELETE CASCADE,
        file BLOB NOT NULL
      );
      INSERT INTO rc_import_files (import_id, file) SELECT import_id, file FROM rc_imports ORDER BY rowid;
      ALTER TABLE rc_imports DROP COLUMN file;
    `,
  },
  {
    // One statement writing a file near the body limit (70 MB) into SQLite held the event loop for
    // about a second; in parts of 1 MiB the submission writes one part per turn (receivables/submit.ts).
    // No reference to rc_imports: the parts are written before the import's row, in one transaction.
    name: 'CNAB files in parts: a large submission is written a part per turn of the event loop',
    sql: `
      CREATE TABLE rc_import_file_parts (
        import_id TEXT NOT NULL,
        part INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (import_id, part)
      );
      INSERT INTO rc_import_file_parts (import_id, part, bytes) SELECT import_id, 0, file FROM rc_import_files ORDER BY rowid;
      DROP TABLE rc_import_files;
    `,
  },
  {
    // A fixture's timestamp is kept as written (0 to 9 fractional digits), which does not sort as
    // text; the pages walk a key of it padded to 9 digits (domain/dates.ts, timestampSortKey).
    name: 'extract requests: timestamps kept as written, sorted by a nanosecond key',
    sql: `
      ALTER TABLE bk_extract_requests ADD COLUMN registered_key TEXT NOT NULL DEFAULT '';
      ALTER TABLE bk_extract_requests ADD COLUMN generated_key TEXT NOT NULL DEFAULT '';
      UPDATE bk_extract_requests SET
        registered_key = substr(registered_at, 1, 19) || '.' || substr(CASE WHEN substr(registered_at, 20, 1) = '.'
          THEN substr(registered_at, 21, length(registered_at) - 21) ELSE '' END || '000000000', 1, 9) || 'Z',
        generated_key = substr(generated_at, 1, 19) || '.' || substr(CASE WHEN substr(generated_at, 20, 1) = '.'
          THEN substr(generated_at, 21, length(generated_at) - 21) ELSE '' END || '000000000', 1, 9) || 'Z';
      DROP INDEX bk_extract_requests_by_tenant;
      DROP INDEX bk_extract_requests_by_generated;
      CREATE INDEX bk_extract_requests_by_registered ON bk_extract_requests (tenant_id, registered_key, request_id);
      CREATE INDEX bk_extract_requests_by_generated ON bk_extract_requests (tenant_id, generated_key, request_id);
    `,
  },
  {
    // A payment is shown as sent: an amount's text is kept where a double writes it otherwise
    // (1E+1, 0.10000, -0); null for the others, whose text is their number's.
    name: 'bookkeeping payments: amounts kept as written',
    sql: `
      ALTER TABLE bk_payments ADD COLUMN payment_text TEXT;
      ALTER TABLE bk_payments ADD COLUMN remaining_text TEXT;
    `,
  },
  {
    // A large file's parts are written while it arrives, before the import is accepted and given its
    // id (rc-import-order): they are stored under a key of their own, which the import's row names.
    // Null: the parts are under the import's id (a file of one part, and every import before this).
    name: 'CNAB imports: the key of the file parts written before the import was accepted',
    sql: `
      ALTER TABLE rc_imports ADD COLUMN file_key TEXT;
    `,
  },
];
