// Loan-bond storage: callers and their products, registrations, their additional documents, and the
// files themselves, each distinct file once (SHA-256 + size).
import type { Db } from './db.js';
import type { DocumentFiles, IncomingFile } from './documents.js';
import { groupKey, type RowCounts } from './row-counts.js';

export type Product = 'electronic-signature' | 'digital-loan-bond';

export interface CallerRow {
  callerId: string;
  products: Product[];
}

export type RegistrationState = 'registered' | 'signatures-pending' | 'signatures-complete';

/** A registration as written; JSON-valued fields are already serialised by the caller. */
export interface NewRegistration {
  codigoIdentificador: string;
  chaveRegistro: string;
  tokenHash: string;
  tokenHint: string;
  callerId: string;
  batch: string;
  position: number;
  versao: string;
  nomeDocumento: string | null;
  assinado: boolean;
  documentId: number;
  registeredAt: string;
  signers: string;
  installments: string;
  emails: string;
  /** null: not imported (rule 7). */
  signatures: string | null;
  signaturesSent: number;
  warnings: string;
}

export interface NewAdditionalDocument {
  codigoIdentificador: string;
  position: number;
  nome: string | null;
  documentId: number;
  signatures: string | null;
  signaturesSent: number;
}

export interface DocumentInfo {
  sha256: string;
  size: number;
}

export interface RegistrationRow {
  codigoIdentificador: string;
  chaveRegistro: string;
  tokenHint: string;
  callerId: string;
  batch: string;
  position: number;
  versao: string;
  nomeDocumento: string | null;
  assinado: number;
  state: RegistrationState;
  registeredAt: string;
  processedAt: string | null;
  notifiedAt: string | null;
  signers: string;
  installments: string;
  emails: string;
  signatures: string | null;
  signaturesSent: number;
  warnings: string;
  sha256: string;
  size: number;
}

export interface AdditionalDocumentRow {
  position: number;
  nome: string | null;
  signatures: string | null;
  signaturesSent: number;
  sha256: string;
  size: number;
}

/** Where a page of registrations starts: after this registeredAt, batch and position. */
export type RegistrationKey = readonly [string, string, number];

const REGISTRATION_COLUMNS = `
  r.codigo_identificador AS codigoIdentificador, r.chave_registro AS chaveRegistro,
  r.token_hint AS tokenHint, r.caller_id AS callerId, r.batch, r.position, r.versao,
  r.nome_documento AS nomeDocumento, r.assinado, r.state, r.registered_at AS registeredAt,
  r.processed_at AS processedAt, r.notified_at AS notifiedAt, r.signers, r.installments, r.emails,
  r.signatures, r.signatures_sent AS signaturesSent, r.warnings, d.sha256, d.size`;

export class LoanbondStore {
  private readonly statements;

  constructor(
    db: Db,
    private readonly counts: RowCounts,
    private readonly files: DocumentFiles,
  ) {
    this.statements = {
      insertCaller: db.prepare('INSERT INTO lb_callers (caller_id, token, products) VALUES (?, ?, ?)'),
      callerExists: db.prepare('SELECT 1 FROM lb_callers WHERE caller_id = ?').pluck(),
      tokenExists: db.prepare('SELECT 1 FROM lb_callers WHERE token = ?').pluck(),
      callerByToken: db.prepare('SELECT caller_id AS callerId, products FROM lb_callers WHERE token = ?'),
      documentId: db.prepare('SELECT id FROM lb_documents WHERE sha256 = :sha256 AND size = :size').pluck(),
      insertDocument: db
        .prepare('INSERT INTO lb_documents (sha256, size) VALUES (:sha256, :size) RETURNING id')
        .pluck(),
      insertRegistration: db.prepare(`
        INSERT INTO lb_registrations (
          codigo_identificador, chave_registro, token_hash, token_hint, caller_id, batch, position,
          versao, nome_documento, assinado, document_id, state, registered_at, signers, installments,
          emails, signatures, signatures_sent, warnings
        ) VALUES (
          :codigoIdentificador, :chaveRegistro, :tokenHash, :tokenHint, :callerId, :batch, :position,
          :versao, :nomeDocumento, :assinado, :documentId, 'registered', :registeredAt, :signers,
          :installments, :emails, :signatures, :signaturesSent, :warnings
        )`),
      insertAdditional: db.prepare(`
        INSERT INTO lb_additional_documents (
          codigo_identificador, position, nome, document_id, signatures, signatures_sent
        ) VALUES (:codigoIdentificador, :position, :nome, :documentId, :signatures, :signaturesSent)`),
      registered: db.prepare(`
        SELECT codigo_identificador AS codigoIdentificador, assinado, emails
        FROM lb_registrations WHERE state = 'registered'
        ORDER BY registered_at, batch, position LIMIT :limit`),
      advance: db.prepare(`
        UPDATE lb_registrations SET state = :state, processed_at = :at, notified_at = :notifiedAt
        WHERE codigo_identificador = :codigoIdentificador AND state = 'registered'`),
      // Pages by the list's own order, (registered_at, batch, position): an index range each.
      byCaller: db.prepare(`
        SELECT ${REGISTRATION_COLUMNS}
        FROM lb_registrations r JOIN lb_documents d ON d.id = r.document_id
        WHERE r.caller_id = :callerId AND (r.registered_at, r.batch, r.position) > (:at, :batch, :position)
        ORDER BY r.registered_at, r.batch, r.position LIMIT :limit`),
      all: db.prepare(`
        SELECT ${REGISTRATION_COLUMNS}
        FROM lb_registrations r JOIN lb_documents d ON d.id = r.document_id
        WHERE (r.registered_at, r.batch, r.position) > (:at, :batch, :position)
        ORDER BY r.registered_at, r.batch, r.position LIMIT :limit`),
      one: db.prepare(`
        SELECT ${REGISTRATION_COLUMNS}
        FROM lb_registrations r JOIN lb_documents d ON d.id = r.document_id
        WHERE r.codigo_identificador = :codigoIdentificador`),
      additional: db.prepare(`
        SELECT a.position, a.nome, a.signatures, a.signatures_sent AS signaturesSent, d.sha256, d.size
        FROM lb_additional_documents a JOIN lb_documents d ON d.id = a.document_id
        WHERE a.codigo_identificador = :codigoIdentificador ORDER BY a.position`),
    };
  }

  insertCaller(callerId: string, token: string, products: readonly Product[]): void {
    this.statements.insertCaller.run(callerId, token, JSON.stringify(products));
    this.counts.add('lb_callers');
  }

  callerExists(callerId: string): boolean {
    return this.statements.callerExists.get(callerId) !== undefined;
  }

  tokenExists(token: string): boolean {
    return this.statements.tokenExists.get(token) !== undefined;
  }

  callerByToken(token: string): CallerRow | undefined {
    const row = this.statements.callerByToken.get(token) as { callerId: string; products: string } | undefined;
    return row && { callerId: row.callerId, products: JSON.parse(row.products) as Product[] };
  }

  /**
   * The id of the stored file with this hash and size. A new one takes `file` (written and closed)
   * as its stored file; call it inside the transaction that refers to it, and sweep the files after
   * a transaction that rolled back (store.documents.sweep()).
   */
  putDocument(info: DocumentInfo, file: IncomingFile): number {
    const key = { sha256: info.sha256, size: info.size };
    const found = this.statements.documentId.get(key) as number | undefined;
    if (found !== undefined) return found;
    const id = this.statements.insertDocument.get(key) as number;
    this.files.adopt(file, key);
    this.counts.add('lb_documents');
    return id;
  }

  insertRegistration(r: NewRegistration): void {
    this.statements.insertRegistration.run({ ...r, assinado: r.assinado ? 1 : 0 });
    this.counts.add('lb_registrations');
    this.counts.add(groupKey('lb_registrations', 'state', 'registered'));
    this.counts.add(groupKey('lb_registrations', 'caller_id', r.callerId));
  }

  insertAdditionalDocument(d: NewAdditionalDocument): void {
    this.statements.insertAdditional.run(d);
    this.counts.add('lb_additional_documents');
  }

  /** Registrations still in the state the request left them in, oldest first. */
  registeredBatch(limit: number): Array<{ codigoIdentificador: string; assinado: number; emails: string }> {
    return this.statements.registered.all({ limit }) as Array<{
      codigoIdentificador: string;
      assinado: number;
      emails: string;
    }>;
  }

  advance(
    codigoIdentificador: string,
    state: RegistrationState,
    at: string,
    notifiedAt: string | null,
  ): void {
    if (this.statements.advance.run({ codigoIdentificador, state, at, notifiedAt }).changes === 1)
      this.counts.move('lb_registrations', 'state', 'registered', state);
  }

  /**
   * `limit` registrations (of `callerId`, or all) after `after` ([registeredAt, batch, position];
   * absent: from the first), oldest first.
   */
  registrations(callerId?: string, after?: RegistrationKey, limit = -1): RegistrationRow[] {
    const [at, batch, position] = after ?? ['', '', -1];
    const key = { at, batch, position, limit };
    return (callerId === undefined ? this.statements.all.all(key) : this.statements.byCaller.all({ ...key, callerId })) as RegistrationRow[];
  }

  /** Registrations of `callerId`, or all (maintained counts). */
  registrationCount(callerId?: string): number {
    return this.counts.get(callerId === undefined ? 'lb_registrations' : groupKey('lb_registrations', 'caller_id', callerId));
  }

  /** Registrations the flow has not processed yet (a maintained count). */
  unprocessedCount(): number {
    return this.counts.get(groupKey('lb_registrations', 'state', 'registered'));
  }

  registration(codigoIdentificador: string): RegistrationRow | undefined {
    return this.statements.one.get({ codigoIdentificador }) as RegistrationRow | undefined;
  }

  additionalDocuments(codigoIdentificador: string): AdditionalDocumentRow[] {
    return this.statements.additional.all({ codigoIdentificador }) as AdditionalDocumentRow[];
  }

  /** Distinct files stored (a maintained count). */
  documentCount(): number {
    return this.counts.get('lb_documents');
  }
}
