import { defineContract } from '../http/catalog.js';
import { outcomes } from './outcomes.js';

/** One documented operation, the 2 named loan-bond operations and the platform's 13 named families. */
export const contract = defineContract({
  id: 'loanbond',
  prefix: '/api/service/document',
  shape: 'standard',
  statuses: [400, 401],
  operations: [
    ['register-loan-bond', 'register loan-bond', 'POST', '/registrar'],
    ['cancel-loan-bond', 'cancel loan-bond', 'POST'],
    ['validate-loan-bond-holder', 'validate loan-bond holder', 'GET'],
    ['automatic-signing', 'platform family: automatic signing', null],
    ['invoice-lookup-batch-import', 'platform family: invoice lookup and batch import', null],
    ['document-download', 'platform family: document download', null],
    ['invoice-event-monitoring', 'platform family: invoice event monitoring', null],
    ['credit-operations', 'platform family: credit operations', null],
    ['contracts-and-letters', 'platform family: contracts and letters', null],
    ['secure-email', 'platform family: secure e-mail', null],
    ['merchant-trade-bill-registry', 'platform family: merchant trade-bill registry', null],
    ['uniqueness-check', 'platform family: uniqueness check', null],
    ['assignor-exposure-query', 'platform family: assignor exposure query', null],
    ['signature-file-webhook', 'platform family: signature file webhook', null],
    ['notifications', 'platform family: notifications', null],
    ['custodian-web-services', 'platform family: custodian web services', null],
  ],
  outcomes,
});
