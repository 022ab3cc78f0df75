// The distinct answers of the two documented bookkeeping operations (see http/outcomes.ts), each set
// where its rule decides: routes.ts (credentials, tenant, uid, success) and payment.ts (the payment rules).
import { operationOutcomes } from '../http/outcomes.js';
import { PAYABLE } from './payment.js';

const FAULTS = [400, 401, 403, 500] as const;

/** Credentials, tenant and access: the same checks, in the same order, on both operations. */
const ACCESS = {
  'token-missing': [401, 'no Authorization header (or an empty one): the Bearer access token is required'],
  'token-malformed': [401, 'the Authorization header is not "Bearer <accessToken>"'],
  'token-unknown': [401, 'the bearer token is not the access token of any bookkeeping user'],
  'tenant-id-invalid': [400, 'the tenantId in the path is not a valid CPF or CNPJ written in digits'],
  'tenant-forbidden': [403, "the tenantId is not among the user's tenants"],
} as const;

/** Statuses a bill can have that accept no payment (bk-trade-bill-statuses). */
export const NOT_PAYABLE = (['paid', 'cancelled', 'blocked'] as const).filter((s) => !PAYABLE.includes(s));

export const outcomes = [
  ...operationOutcomes(
    'bookkeeping',
    'list-extract-requests',
    {
      listed: [200, 'a page holding extract requests of the tenant'],
      'listed-empty': [200, 'an empty page: the tenant has no extract requests, or the page is past the last one'],
      ...ACCESS,
    },
    { query: true, faults: FAULTS },
  ),
  ...operationOutcomes(
    'bookkeeping',
    'declare-payment',
    {
      'partial-accepted': [204, 'a partial payment below the open value is recorded; the bill becomes partially-paid'],
      'total-accepted': [204, 'a total payment equal to the open value is recorded; the bill becomes paid'],
      'above-open-value': [400, 'the payment exceeds the open value of the bill'],
      'partial-equals-open': [400, 'a partial payment (isPartial true) equals the whole open value'],
      'total-below-open': [400, 'a total payment (isPartial false) is below the open value'],
      'remaining-mismatch': [400, 'remainingValue differs from the open value after the payment'],
      ...Object.fromEntries(
        NOT_PAYABLE.map((s) => [`not-payable-${s}`, [400, `the bill is ${s}: it accepts no payment`] as const]),
      ),
      'unknown-uid': [400, 'the tenant has no trade bill with this uid'],
      'beneficiary-document-invalid': [400, 'beneficiaryDocument is not a valid CPF or CNPJ without punctuation'],
      'payment-date-future': [400, "paymentDate is after the sandbox's date"],
      ...ACCESS,
    },
    { body: true, params: true, faults: FAULTS },
  ),
];
