// Append-only: a released migration is never edited; the next change is a new entry.
// Table names carry the interface's prefix: bk_ bookkeeping, rg_ registry, rc_ receivables,
// lb_ loan-bond, sb_ the sandbox itself.

export interface Migration {
  name: string;
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
];
