// Registry storage: participants, registered batches and their documents, reconciliations and their
// per-item results. Structured parts (document fields, warnings, divergences) are JSON text: the
// sandbox reads them back whole and never queries inside them.
import type { Db } from './db.js';
import { groupKey, type RowCounts } from './row-counts.js';

/** Where a page of a participant's batches or reconciliations starts: after this time and row. */
export type Keyset = readonly [string, number];
/** Before every row: times are never empty. */
const FIRST: Keyset = ['', 0];

export interface BatchRow {
  batchKey: string;
  participantId: string;
  registeredAt: string;
  registrationDate: string;
  documentCount: number;
  warnings: string;
}

export interface DocumentRow {
  registryKey: string;
  batchKey: string;
  itemIndex: number;
  participantId: string;
  registeredAt: string;
  registrationDate: string;
  fields: string;
}

export interface ReconciliationRow {
  reconciliationKey: string;
  participantId: string;
  reconciledAt: string;
  itemCount: number;
  matched: number;
  diverging: number;
  unknown: number;
  warnings: string;
}

export interface ReconciliationItemRow {
  reconciliationKey: string;
  itemIndex: number;
  registryKey: string | null;
  result: 'matched' | 'diverging' | 'unknown';
  message: string;
  divergences: string;
  reported: string;
}

export interface ParticipantActivity {
  documentCount: number;
  firstRegistrationAt: string | null;
}

export class RegistryStore {
  private readonly statements;

  constructor(
    db: Db,
    private readonly counts: RowCounts,
  ) {
    this.statements = {
      insertParticipant: db.prepare(
        'INSERT INTO rg_participants (participant_id, access_token) VALUES (?, ?)',
      ),
      participantExists: db.prepare('SELECT 1 FROM rg_participants WHERE participant_id = ?').pluck(),
      participantIds: db.prepare('SELECT participant_id FROM rg_participants ORDER BY participant_id').pluck(),
      participantIdsAfter: db
        .prepare('SELECT participant_id FROM rg_participants WHERE participant_id > ? ORDER BY participant_id LIMIT ?')
        .pluck(),
      participantByToken: db
        .prepare('SELECT participant_id FROM rg_participants WHERE access_token = ?')
        .pluck(),

      insertBatch: db.prepare(
        `INSERT INTO rg_batches (batch_key, participant_id, registered_at, registration_date, document_count, warnings)
         VALUES (@batchKey, @participantId, @registeredAt, @registrationDate, @documentCount, @warnings)`,
      ),
      insertDocument: db.prepare(
        `INSERT INTO rg_documents (registry_key, batch_key, item_index, participant_id, registered_at, registration_date, fields)
         VALUES (@registryKey, @batchKey, @itemIndex, @participantId, @registeredAt, @registrationDate, @fields)`,
      ),
      batch: db.prepare(
        `SELECT batch_key AS batchKey, participant_id AS participantId, registered_at AS registeredAt,
                registration_date AS registrationDate, document_count AS documentCount, warnings
         FROM rg_batches WHERE batch_key = ?`,
      ),
      batchDocuments: db.prepare(
        `SELECT registry_key AS registryKey, batch_key AS batchKey, item_index AS itemIndex,
                participant_id AS participantId, registered_at AS registeredAt,
                registration_date AS registrationDate, fields
         FROM rg_documents WHERE batch_key = ? AND item_index > ? ORDER BY item_index LIMIT ?`,
      ),
      participantDocument: db.prepare(
        `SELECT registry_key AS registryKey, batch_key AS batchKey, item_index AS itemIndex,
                participant_id AS participantId, registered_at AS registeredAt,
                registration_date AS registrationDate, fields
         FROM rg_documents WHERE registry_key = ? AND participant_id = ?`,
      ),
      participantBatches: db.prepare(
        `SELECT rowid AS seq, batch_key AS batchKey, participant_id AS participantId, registered_at AS registeredAt,
                registration_date AS registrationDate, document_count AS documentCount, warnings
         FROM rg_batches WHERE participant_id = ? AND (registered_at, rowid) > (?, ?)
         ORDER BY registered_at, rowid LIMIT ?`,
      ),
      firstRegistrationAt: db
        .prepare('SELECT min(registered_at) FROM rg_documents WHERE participant_id = ?')
        .pluck(),

      insertReconciliation: db.prepare(
        `INSERT INTO rg_reconciliations
           (reconciliation_key, participant_id, reconciled_at, item_count, matched, diverging, unknown, warnings)
         VALUES (@reconciliationKey, @participantId, @reconciledAt, @itemCount, @matched, @diverging, @unknown, @warnings)`,
      ),
      insertReconciliationItem: db.prepare(
        `INSERT INTO rg_reconciliation_items
           (reconciliation_key, item_index, registry_key, result, message, divergences, reported)
         VALUES (@reconciliationKey, @itemIndex, @registryKey, @result, @message, @divergences, @reported)`,
      ),
      reconciliation: db.prepare(
        `SELECT reconciliation_key AS reconciliationKey, participant_id AS participantId,
                reconciled_at AS reconciledAt, item_count AS itemCount, matched, diverging, unknown, warnings
         FROM rg_reconciliations WHERE reconciliation_key = ?`,
      ),
      reconciliationItems: db.prepare(
        `SELECT reconciliation_key AS reconciliationKey, item_index AS itemIndex, registry_key AS registryKey,
                result, message, divergences, reported
         FROM rg_reconciliation_items WHERE reconciliation_key = ? AND item_index > ? ORDER BY item_index LIMIT ?`,
      ),
      participantReconciliations: db.prepare(
        `SELECT rowid AS seq, reconciliation_key AS reconciliationKey, participant_id AS participantId,
                reconciled_at AS reconciledAt, item_count AS itemCount, matched, diverging, unknown, warnings
         FROM rg_reconciliations WHERE participant_id = ? AND (reconciled_at, rowid) > (?, ?)
         ORDER BY reconciled_at, rowid LIMIT ?`,
      ),
      lastReconciliation: db.prepare(
        `SELECT reconciliation_key AS reconciliationKey, participant_id AS participantId,
                reconciled_at AS reconciledAt, item_count AS itemCount, matched, diverging, unknown, warnings
         FROM rg_reconciliations WHERE participant_id = ? ORDER BY reconciled_at DESC, rowid DESC LIMIT 1`,
      ),
    };
  }

  insertParticipant(participantId: string, accessToken: string): void {
    this.statements.insertParticipant.run(participantId, accessToken);
    this.counts.add('rg_participants');
  }

  /** Every participant's id, in order (never its token). */
  participantIds(): string[] {
    return this.statements.participantIds.all() as string[];
  }

  /** `limit` participant ids after `after`, in order. */
  participantIdsAfter(after: string, limit: number): string[] {
    return this.statements.participantIdsAfter.all(after, limit) as string[];
  }

  participantCount(): number {
    return this.counts.get('rg_participants');
  }

  participantExists(participantId: string): boolean {
    return this.statements.participantExists.get(participantId) !== undefined;
  }

  participantByToken(accessToken: string): string | undefined {
    return this.statements.participantByToken.get(accessToken) as string | undefined;
  }

  /** A batch and its documents; the caller wraps it in a transaction with anything else it writes. */
  insertBatch(batch: BatchRow, documents: readonly DocumentRow[]): void {
    this.statements.insertBatch.run(batch);
    for (const d of documents) this.statements.insertDocument.run(d);
    this.counts.add('rg_batches');
    this.counts.add(groupKey('rg_batches', 'participant_id', batch.participantId));
    this.counts.add('rg_documents', documents.length);
    this.counts.add(groupKey('rg_documents', 'participant_id', batch.participantId), documents.length);
  }

  batch(batchKey: string): BatchRow | undefined {
    return this.statements.batch.get(batchKey) as BatchRow | undefined;
  }

  /** `limit` documents of the batch after the item index `after` (-1: from the first), in order. */
  batchDocuments(batchKey: string, after: number, limit: number): DocumentRow[] {
    return this.statements.batchDocuments.all(batchKey, after, limit) as DocumentRow[];
  }

  /** A registration of this participant; another participant's key is as unknown as a wrong one. */
  participantDocument(registryKey: string, participantId: string): DocumentRow | undefined {
    return this.statements.participantDocument.get(registryKey, participantId) as DocumentRow | undefined;
  }

  /** `limit` batches of the participant after `after` ([registeredAt, seq]; absent: from the first), oldest first. */
  participantBatches(participantId: string, after: Keyset | undefined, limit: number): Array<BatchRow & { seq: number }> {
    return this.statements.participantBatches.all(participantId, ...(after ?? FIRST), limit) as Array<BatchRow & { seq: number }>;
  }

  /** Batches and reconciliations of the participant (maintained counts). */
  participantTotals(participantId: string): { batches: number; reconciliations: number } {
    return {
      batches: this.counts.get(groupKey('rg_batches', 'participant_id', participantId)),
      reconciliations: this.counts.get(groupKey('rg_reconciliations', 'participant_id', participantId)),
    };
  }

  /** Documents registered (a maintained count) and the first registration's time (an index lookup). */
  activity(participantId: string): ParticipantActivity {
    return {
      documentCount: this.counts.get(groupKey('rg_documents', 'participant_id', participantId)),
      firstRegistrationAt: (this.statements.firstRegistrationAt.get(participantId) as string | null) ?? null,
    };
  }

  insertReconciliation(reconciliation: ReconciliationRow, items: readonly ReconciliationItemRow[]): void {
    this.statements.insertReconciliation.run(reconciliation);
    for (const item of items) this.statements.insertReconciliationItem.run(item);
    this.counts.add('rg_reconciliations');
    this.counts.add(groupKey('rg_reconciliations', 'participant_id', reconciliation.participantId));
    this.counts.add('rg_reconciliation_items', items.length);
  }

  reconciliation(reconciliationKey: string): ReconciliationRow | undefined {
    return this.statements.reconciliation.get(reconciliationKey) as ReconciliationRow | undefined;
  }

  /** `limit` items after the item index `after` (-1: from the first), in order. */
  reconciliationItems(reconciliationKey: string, after: number, limit: number): ReconciliationItemRow[] {
    return this.statements.reconciliationItems.all(reconciliationKey, after, limit) as ReconciliationItemRow[];
  }

  /** `limit` reconciliations after `after` ([reconciledAt, seq]; absent: from the first), oldest first. */
  participantReconciliations(
    participantId: string,
    after: Keyset | undefined,
    limit: number,
  ): Array<ReconciliationRow & { seq: number }> {
    return this.statements.participantReconciliations.all(participantId, ...(after ?? FIRST), limit) as Array<
      ReconciliationRow & { seq: number }
    >;
  }

  lastReconciliation(participantId: string): ReconciliationRow | undefined {
    return this.statements.lastReconciliation.get(participantId) as ReconciliationRow | undefined;
  }
}
