import { defineContract } from '../http/catalog.js';
import { outcomes } from './outcomes.js';

const TRB = '/integration/v1/{tenantId}/trade-receivable-certificates';

/** Two documented operations and the 24 the specification names without a path. */
export const contract = defineContract({
  id: 'bookkeeping',
  prefix: '/api/bookkeeping',
  shape: 'standard',
  statuses: [400, 401, 403, 500],
  operations: [
    ['list-extract-requests', 'list extract requests', 'GET', `${TRB}/extract`],
    ['declare-payment', 'declare payment', 'PUT', `${TRB}/{uid}/payment`],
    ['trade-bill-info', 'trade-bill info', 'GET'],
    ['list-trade-bills', 'list trade bills', 'GET'],
    ['download-extract', 'download extract', 'GET'],
    ['request-extract', 'request extract', 'POST'],
    ['cancel-trade-bill', 'cancel trade bill', 'PUT'],
    ['block-trade-bill', 'block trade bill', 'PATCH'],
    ['update-trade-bill', 'update trade bill', 'PATCH'],
    ['login', 'login', null],
    ['register-master-user', 'master-user registration', null],
    ['import-fiscal-document-xml', 'import of fiscal-document XML', null],
    ['list-imported-fiscal-documents', 'list of imported fiscal documents', null],
    ['issue-trade-bills-without-fiscal-document', 'issue of trade bills without fiscal document', null],
    ['query-issued-trade-bills-protocol', 'protocol query of issued trade bills', null],
    ['associate-fiscal-document', 'association of a fiscal document to a trade bill', null],
    ['opt-in-query-request-detail', 'opt-in: query request detail', null],
    ['opt-in-list-requests', 'opt-in: list requests', null],
    ['opt-in-register-reply', 'opt-in: register reply', null],
    ['negotiation-cancel-act', 'negotiation effect: cancel act', null],
    ['negotiation-cancel-trade-bill', 'negotiation effect: cancel trade bill in one operation', null],
    ['negotiation-endorsement', 'negotiation effect: endorsement', null],
    ['negotiation-endorsement-pledge', 'negotiation effect: endorsement-pledge', null],
    ['negotiation-guarantee', 'negotiation effect: guarantee', null],
    ['negotiation-endorsement-mandate', 'negotiation effect: endorsement-mandate', null],
    ['negotiation-endorsement-substitution', 'negotiation effect: endorsement-substitution', null],
  ],
  outcomes,
});
