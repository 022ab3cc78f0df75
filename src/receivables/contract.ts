import { defineContract } from '../http/catalog.js';
import { outcomes } from './outcomes.js';

/** One documented operation and the 6 the specification names without a path. */
export const contract = defineContract({
  id: 'receivables',
  prefix: '/v1',
  shape: 'envelope',
  statuses: [400],
  operations: [
    ['import-cnab', 'submit operation file', 'POST', '/import-cnab'],
    ['import-person-credit-limit', 'import person/credit limit', 'POST'],
    ['validate-operation-batch', 'validate operation batch', 'POST'],
    ['send-supporting-documents', 'send supporting-document files', 'POST'],
    ['operation-notification-webhook', 'receive operation notification (webhook)', 'POST'],
    ['import-assignor-credit-limit', 'import assignor/credit limit', 'POST'],
    ['cancel-operation', 'cancel operation (reversal and rejection)', null],
  ],
  outcomes,
});
