import { catalog } from '../http/catalog.js';
import type { InterfaceContract } from '../http/interface-module.js';
import { outcomes } from './outcomes.js';

export const PREFIX = '/api/v1.0/service/dup';

/** Two documented operations and the 9 the specification names without a path. */
export const operations = catalog('registry', [
  ['register-documents', 'register documents', 'POST', `${PREFIX}/registrar_documentos`],
  ['reconcile-documents', 'reconcile documents', 'POST', `${PREFIX}/conciliar_documentos`],
  ['contractor-authentication', 'contractor authentication', 'POST'],
  ['batch-query', 'batch query', 'GET'],
  ['document-query', 'document query', 'POST'],
  ['change-registrations-per-batch', 'change of registrations per batch', 'POST'],
  ['settlement-status-report', 'settlement-status report', 'POST'],
  ['document-cancellation', 'document cancellation', 'POST'],
  ['reconciliation-query-per-batch', 'reconciliation query per batch', 'GET'],
  ['pre-query-request', 'pre-query request', 'POST'],
  ['pre-query-operation-query', 'pre-query operation query', 'POST'],
]);

/** What the shared HTTP layer, the journal, fault rules and coverage need to know of this interface. */
export const contract: InterfaceContract<'registry'> = {
  id: 'registry',
  prefix: PREFIX,
  shape: 'standard',
  statuses: [400, 401, 500],
  operations,
  outcomes,
};
