import type { Assumption } from '../http/assumption-catalog.js';

/** Decisions of the bookkeeping interface where the specification is silent (docs/assumptions.md is written from this list). */
export const assumptions = [
  {
    id: 'bk-credential-order',
    interface: 'bookkeeping',
    topic: 'Which check wins when a request has several credential problems',
    decision:
      'the bearer token is checked first (missing, not "Bearer <token>", or unknown: 401), before anything else of the request is read; then access (a tenantId among the user\'s tenants, else 403), then the query or body (400); a tenantId that is not a CPF/CNPJ is a 400 that names it first, together with every problem of the query (extract) or of the body (payment: its schema problems, a body that is not JSON, and the checks that need no trade bill), since only the access check and the comparisons with a bill need a tenant',
    reason:
      'a caller without a valid token learns nothing about tenants; a malformed tenantId is a client bug worth naming before "access denied"',
  },
  {
    id: 'bk-tenant-id',
    interface: 'bookkeeping',
    topic: 'How tenantId is checked beyond "CPF or CNPJ, digits only"',
    decision:
      'exactly 11 or 14 digits with valid CPF/CNPJ check digits; anything else (punctuation, letters, a wrong check digit) is a 400 naming the path parameter',
    reason: 'a mistyped tenant would otherwise look like a permission problem (403)',
  },
  {
    id: 'bk-page-base',
    interface: 'bookkeeping',
    topic: 'Base of the extract list page number',
    decision: 'page starts at 1 and defaults to 1; page 0 or below, or above 2147483647, is a 400',
    reason: 'the sandbox contract fixes page 1 as the first page (docs/errors.md)',
  },
  {
    id: 'bk-page-size',
    interface: 'bookkeeping',
    topic: 'Default and maximum pageSize of the extract list',
    decision:
      'pageSize defaults to 10 and must be 1 to 100; outside that range is a 400 that states the range',
    reason:
      "the default of 10 is the sandbox contract's; the maximum bounds the cost of one request and is stated rather than silently clamped",
  },
  {
    id: 'bk-sort',
    interface: 'bookkeeping',
    topic: 'Sortable fields and default order of the extract list',
    decision:
      'sortBy is any of the six item fields (default registeredAt), desc defaults to false; equal values are ordered by extractTradeReceivableRequestId in the same direction, so pages never overlap; another sortBy is a 400 listing the fields',
    reason: 'registeredAt is the value in use; a stable tie-break is what makes paging correct',
  },
  {
    id: 'bk-extract-timestamps',
    interface: 'bookkeeping',
    topic: 'How the extract list writes and sorts registeredAt and generatedAt',
    decision:
      'a fixture\'s timestamp (ISO 8601 UTC with Z, no fraction or 1 to 9 fractional digits) is answered exactly as written and sorted by its instant to the nanosecond (04:00:00Z < 04:00:00.1Z < 04:00:00.123456789Z < 04:00:00.123457Z); instants written differently but equal are ties, broken by extractTradeReceivableRequestId; a timestamp the sandbox sets itself (registeredAt left to the sandbox clock) is written with milliseconds, as every timestamp the sandbox writes (2026-11-01T10:00:00.000Z)',
    reason:
      'the specification says only "ISO 8601 UTC timestamp"; a fixture\'s own text rewritten (:00Z as :00.000Z, nanoseconds cut to milliseconds) is a silent change a client comparing with its fixture would trip on, and the written forms do not sort as text',
  },
  {
    id: 'bk-unknown-query',
    interface: 'bookkeeping',
    topic: 'Query parameters other than page, pageSize, sortBy and desc',
    decision:
      'an unknown query parameter is a 400 naming it (page-size typos such as size= or pagesize= surface)',
    reason: 'a silently ignored parameter gives a client a default page it did not ask for',
  },
  {
    id: 'bk-page-past-end',
    interface: 'bookkeeping',
    topic: 'A page beyond the last one',
    decision:
      'an empty extractTradeReceivables with the same pagination totals; totalPages is 0 when the tenant has no requests',
    reason: 'totalPages = ceil(totalItems / size) tells the client it went too far',
  },
  {
    id: 'bk-trade-bill-statuses',
    interface: 'bookkeeping',
    topic: 'Statuses of a trade bill (the specification lists none)',
    decision:
      'open, partially-paid, paid, cancelled, blocked (sandbox names, seen only through fixtures and inspection); payments are accepted on open and partially-paid bills only, any other status is a 400 naming it',
    reason: 'a payment must change the status and the open balance; cancel and block are named operations',
  },
  {
    id: 'bk-unknown-uid',
    interface: 'bookkeeping',
    topic: 'A payment for a uid the tenant does not have',
    decision:
      'a 400 naming the path parameter uid; a bill of another tenant is reported the same way, never as 403; the literal segment "extract" is never read as a uid (PUT .../extract/payment is a 501)',
    reason:
      "404 is not among the documented statuses; the same answer for both keeps other tenants' bills invisible",
  },
  {
    id: 'bk-payment-text-fields',
    interface: 'bookkeeping',
    topic: 'Allowed values of type and informantId',
    decision:
      'any non-empty string of at most 100 characters (values in use include bankSlip and directByDrawerHolder)',
    reason: 'the full lists are not shown; an empty value is surely a client bug',
  },
  {
    id: 'bk-partial-equal-open',
    interface: 'bookkeeping',
    topic: 'A partial payment (isPartial true) equal to the open value',
    decision:
      'a 400: a partial payment must be below the open value; settling the rest is a total payment (isPartial false)',
    reason:
      'the declaration says partial while the bill would be settled; the client is told which flag to send',
  },
  {
    id: 'bk-total-below-open',
    interface: 'bookkeeping',
    topic: 'A total payment (isPartial false) below the open value',
    decision: 'a 400: a total payment must equal the open value; less is a partial payment',
    reason:
      'the declaration has no discount or write-off field, so a settlement for less would leave an amount nothing explains',
  },
  {
    id: 'bk-remaining-value',
    interface: 'bookkeeping',
    topic: 'When remainingValue applies and what it must be',
    decision:
      'optional for both kinds; when sent it must equal the open value after this payment (0 for a total payment), else a 400 stating the expected value',
    reason:
      "it is documented as the amount still open; a mismatch means the client's ledger and the bill disagree",
  },
  {
    id: 'bk-beneficiary-document',
    interface: 'bookkeeping',
    topic: 'Format of beneficiaryDocument',
    decision:
      'optional; when sent, a CPF (11 digits) or CNPJ (14 characters, alphanumeric allowed, letters in upper case) without punctuation and with valid check digits',
    reason: 'a document of a Brazilian beneficiary is a CPF or CNPJ; tenant ids travel in the same bare form',
  },
  {
    id: 'bk-payment-date',
    interface: 'bookkeeping',
    topic: 'Limits of paymentDate',
    decision:
      "optional; a real calendar date no later than the sandbox clock's current UTC date (a future date is a 400); when omitted, nothing is assumed and the payment is recorded without it",
    reason:
      'it is the date the payment actually happened; UTC is ahead of Brazil, so a Brazilian "today" is never refused',
  },
  {
    id: 'bk-payment-no-body',
    interface: 'bookkeeping',
    topic: 'Body of a successful payment ("204, empty JSON object")',
    decision: '204 with no body at all',
    reason: 'a 204 cannot carry a body in HTTP; the sandbox contract fixes no body (docs/errors.md)',
  },
  {
    id: 'bk-payment-not-idempotent',
    interface: 'bookkeeping',
    topic: 'Repeating the same payment PUT',
    decision: 'every accepted PUT records one more payment; sending the same declaration twice pays twice',
    reason: 'the declaration carries no idempotency key, and two equal instalments are legitimate',
  },
  {
    id: 'bk-concurrent-payments',
    interface: 'bookkeeping',
    topic: 'Concurrent payments of the same trade bill',
    decision:
      'payments are applied one after another in the order they arrive, each against the open value the previous ones left; a 204 is sent only once the payment is stored, so a read after it sees it (payments arriving together share one commit)',
    reason:
      'a client paying in parallel must get the answers a sequence of payments would give: never two accepted payments of the same open value',
  },
  {
    id: 'bk-extract-steps',
    interface: 'bookkeeping',
    topic: 'Values of currentStepType',
    decision:
      'stored and returned as the fixtures give them (default executed); the demo fixtures also use requested and processing, which are sandbox names',
    reason:
      'executed is the only value shown in use; extract requests are created by fixtures, not by an emulated operation',
  },
  {
    id: 'bk-payment-positive',
    interface: 'bookkeeping',
    topic: 'Range of paymentValue and remainingValue',
    decision: 'paymentValue must be above 0 and remainingValue at least 0 (a 400 naming the field otherwise)',
    reason: 'a payment of nothing, or a negative open balance, cannot be recorded against a trade bill',
  },
] as const satisfies readonly Assumption[];
