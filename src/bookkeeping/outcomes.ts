// The distinct answers of the two documented bookkeeping operations (see http/outcomes.ts), each set
// where its rule decides: routes.ts (credentials, tenant, uid, success) and payment.ts (the payment
// rules), through outcome() below, so that a misspelt slug fails to compile.
import type { OperationOutcomes, OwnSlug } from '../http/outcomes.js';
import { NOT_PAYABLE, type TradeBillStatus } from '../store/bookkeeping.js';

/** Credentials, tenant and access: the same checks, in the same order, on both operations. */
const ACCESS = {
  'token-missing': [401, 'no Authorization header (or an empty one): the Bearer access token is required'],
  'token-malformed': [401, 'the Authorization header is not "Bearer <accessToken>"'],
  'token-unknown': [401, 'the bearer token is not the access token of any bookkeeping user'],
  'tenant-id-invalid': [400, 'the tenantId in the path is not a valid CPF or CNPJ written in digits'],
  'tenant-forbidden': [403, "the tenantId is not among the user's tenants"],
} as const;

/** The slug of a payment refused for the bill's status. */
export const notPayable = <S extends TradeBillStatus>(status: S) => `not-payable-${status}` as const;

const NOT_PAYABLE_ENTRIES = Object.fromEntries(
  NOT_PAYABLE.map((s) => [notPayable(s), [400, `the bill is ${s}: it accepts no payment`] as const]),
) as Record<ReturnType<typeof notPayable<(typeof NOT_PAYABLE)[number]>>, readonly [400, string]>;

export const outcomes = {
  'list-extract-requests': {
    own: {
      listed: [200, 'a page holding extract requests of the tenant'],
      'listed-empty': [200, 'an empty page: the tenant has no extract requests, or the page is past the last one'],
      ...ACCESS,
    },
    query: true,
  },
  'declare-payment': {
    own: {
      'partial-accepted': [204, 'a partial payment below the open value is recorded; the bill becomes partially-paid'],
      'total-accepted': [204, 'a total payment equal to the open value is recorded; the bill becomes paid'],
      'above-open-value': [400, 'the payment exceeds the open value of the bill'],
      'partial-equals-open': [400, 'a partial payment (isPartial true) equals the whole open value'],
      'total-below-open': [400, 'a total payment (isPartial false) is below the open value'],
      'remaining-mismatch': [400, 'remainingValue differs from the open value after the payment'],
      ...NOT_PAYABLE_ENTRIES,
      'unknown-uid': [400, 'the tenant has no trade bill with this uid'],
      'beneficiary-document-invalid': [400, 'beneficiaryDocument is not a valid CPF or CNPJ without punctuation'],
      'payment-date-future': [400, "paymentDate is after the sandbox's date"],
      ...ACCESS,
    },
    body: true,
    params: true,
  },
} as const satisfies Readonly<Record<string, OperationOutcomes>>;

export type BookkeepingOutcome = OwnSlug<typeof outcomes>;

/** An outcome slug of this interface, checked against the catalog above when compiled. */
export const outcome = (slug: BookkeepingOutcome): BookkeepingOutcome => slug;
