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
];
