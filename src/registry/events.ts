// The events of the registry interface (docs/events.md): one per document of a committed batch, one
// per item of a committed reconciliation.
import type { EventSink, EventType } from '../runtime/events.js';
import type { DocumentRow, ReconciliationItemRow } from '../store/registry.js';

export const DOCUMENT_REGISTERED: EventType = {
  type: 'sandbox.registry.document.registered',
  subject: 'registry/documents/{chaveRegistro}',
  when: 'each document of a batch registered (POST .../registrar_documentos answered 200)',
  data: ['chaveRegistro', 'chaveRemessa', 'participantId', 'itemIndex', 'registeredAt'],
};

export const DOCUMENT_RECONCILED: EventType = {
  type: 'sandbox.registry.document.reconciled',
  subject: 'registry/documents/{chaveRegistro} (an item with no registration: registry/reconciliations/{chaveConciliacao}/items/{itemIndex})',
  when: 'each item of a reconciliation recorded (POST .../conciliar_documentos answered 200)',
  data: ['chaveConciliacao', 'chaveRegistro', 'participantId', 'itemIndex', 'result', 'divergingFields'],
};

export const EVENT_TYPES: readonly EventType[] = [DOCUMENT_REGISTERED, DOCUMENT_RECONCILED];

export function documentsRegistered(events: EventSink, documents: readonly DocumentRow[]): void {
  for (const d of documents) {
    events.emit(DOCUMENT_REGISTERED.type, `registry/documents/${d.registryKey}`, {
      chaveRegistro: d.registryKey,
      chaveRemessa: d.batchKey,
      participantId: d.participantId,
      itemIndex: d.itemIndex,
      registeredAt: d.registeredAt,
    });
  }
}

export function documentsReconciled(events: EventSink, participantId: string, items: readonly ReconciliationItemRow[]): void {
  for (const item of items) {
    const divergences = JSON.parse(item.divergences) as Array<{ field: string }>;
    events.emit(
      DOCUMENT_RECONCILED.type,
      item.result === 'unknown' || item.registryKey === null
        ? `registry/reconciliations/${item.reconciliationKey}/items/${item.itemIndex}`
        : `registry/documents/${item.registryKey}`,
      {
        chaveConciliacao: item.reconciliationKey,
        chaveRegistro: item.registryKey,
        participantId,
        itemIndex: item.itemIndex,
        result: item.result,
        divergingFields: divergences.map((d) => d.field),
      },
    );
  }
}
