// The events of the receivables interface (docs/events.md): an import received, then processed or
// rejected by the asynchronous processing, each reported once committed.
import { centsToNumber } from '../domain/money.js';
import type { EventSink, EventType } from '../runtime/events.js';
import type { DiagnosticRow, ImportRow } from '../store/receivables.js';

/** Diagnostics an event carries; the inspection view has them all. */
export const EVENT_DIAGNOSTICS = 10;

const SUBJECT = 'receivables/imports/{importId}';
const SUMMARY = ['layout', 'lineCount', 'titleCount', 'otherRecordCount', 'totalFaceValue', 'errorCount', 'warningCount'];

export const IMPORT_RECEIVED: EventType = {
  type: 'sandbox.receivables.import.received',
  subject: SUBJECT,
  when: 'an operation file was accepted and stored pending (POST /v1/import-cnab answered 200)',
  data: ['importId', 'fundCnpj', 'fileName', 'additiveNumber', 'lineCount', 'status'],
};

export const IMPORT_PROCESSED: EventType = {
  type: 'sandbox.receivables.import.processed',
  subject: SUBJECT,
  when: 'processing of an import ended with no error',
  data: ['importId', 'fundCnpj', 'status', 'processedAt', ...SUMMARY, 'diagnostics'],
};

export const IMPORT_REJECTED: EventType = {
  type: 'sandbox.receivables.import.rejected',
  subject: SUBJECT,
  when: 'processing of an import ended with at least one error',
  data: ['importId', 'fundCnpj', 'status', 'processedAt', ...SUMMARY, 'diagnostics'],
};

export const EVENT_TYPES: readonly EventType[] = [IMPORT_RECEIVED, IMPORT_PROCESSED, IMPORT_REJECTED];

const subject = (importId: string) => `receivables/imports/${importId}`;

export function importReceived(
  events: EventSink,
  row: Pick<ImportRow, 'importId' | 'fundCnpj' | 'fileName' | 'additiveNumber' | 'lineCount'>,
): void {
  events.emit(IMPORT_RECEIVED.type, subject(row.importId), {
    importId: row.importId,
    fundCnpj: row.fundCnpj,
    fileName: row.fileName,
    additiveNumber: row.additiveNumber,
    lineCount: row.lineCount,
    status: 'pending',
  });
}

/** The end of processing: processed or rejected by the import's status, with its first diagnostics. */
export function importFinished(events: EventSink, row: ImportRow, diagnostics: readonly DiagnosticRow[]): void {
  const type = row.status === 'rejected' ? IMPORT_REJECTED.type : IMPORT_PROCESSED.type;
  events.emit(type, subject(row.importId), {
    importId: row.importId,
    fundCnpj: row.fundCnpj,
    status: row.status,
    processedAt: row.processedAt,
    layout: row.layout,
    lineCount: row.lineCount,
    titleCount: row.titleCount,
    otherRecordCount: row.otherRecordCount,
    totalFaceValue: row.totalFaceValueCents === null ? null : centsToNumber(row.totalFaceValueCents),
    errorCount: row.errorCount,
    warningCount: row.warningCount,
    diagnostics: diagnostics.slice(0, EVENT_DIAGNOSTICS),
  });
}
