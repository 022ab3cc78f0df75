import { defineContract } from '../http/catalog.js';
import { outcomes } from './outcomes.js';

/** Two documented operations and the 9 the specification names without a path. */
export const contract = defineContract({
  id: 'registry',
  prefix: '/api/v1.0/service/dup',
  shape: 'standard',
  statuses: [400, 401, 500],
  operations: [
    ['register-documents', 'register documents', 'POST', '/registrar_documentos'],
    ['reconcile-documents', 'reconcile documents', 'POST', '/conciliar_documentos'],
    ['contractor-authentication', 'contractor authentication', 'POST'],
    ['batch-query', 'batch query', 'GET'],
    ['document-query', 'document query', 'POST'],
    ['change-registrations-per-batch', 'change of registrations per batch', 'POST'],
    ['settlement-status-report', 'settlement-status report', 'POST'],
    ['document-cancellation', 'document cancellation', 'POST'],
    ['reconciliation-query-per-batch', 'reconciliation query per batch', 'GET'],
    ['pre-query-request', 'pre-query request', 'POST'],
    ['pre-query-operation-query', 'pre-query operation query', 'POST'],
  ],
  outcomes,
});
