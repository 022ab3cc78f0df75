import { catalog } from '../http/catalog.js';
import type { InterfaceContract } from '../http/interface-module.js';
import { outcomes } from './outcomes.js';

export const PREFIX = '/v1';

/** One documented operation and the 6 the specification names without a path. */
export const operations = catalog('receivables', [
  ['import-cnab', 'submit operation file', 'POST', `${PREFIX}/import-cnab`],
  ['import-person-credit-limit', 'import person/credit limit', 'POST'],
  ['validate-operation-batch', 'validate operation batch', 'POST'],
  ['send-supporting-documents', 'send supporting-document files', 'POST'],
  ['operation-notification-webhook', 'receive operation notification (webhook)', 'POST'],
  ['import-assignor-credit-limit', 'import assignor/credit limit', 'POST'],
  ['cancel-operation', 'cancel operation (reversal and rejection)', null],
]);

/** What the shared HTTP layer, the journal, fault rules and coverage need to know of this interface. */
export const contract: InterfaceContract<'receivables'> = {
  id: 'receivables',
  prefix: PREFIX,
  shape: 'envelope',
  statuses: [400],
  operations,
  outcomes,
};
