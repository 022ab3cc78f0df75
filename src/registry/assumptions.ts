import type { Assumption } from '../http/assumption-catalog.js';

/** Decisions of the registry interface where the specification is silent (docs/assumptions.md is written from this list). */
export const assumptions = [
  {
    id: 'registry-bearer',
    interface: 'registry',
    topic: 'How registry credentials travel (the contractor authentication operation is named only)',
    decision:
      'Authorization: Bearer <accessToken> of a fixture participant; missing, malformed or unknown is a 401 with a WWW-Authenticate: Bearer header',
    reason: 'bearer tokens are what the sibling bookkeeping interface documents; the fixtures hand them out',
  },
  {
    id: 'registry-optional-fields',
    interface: 'registry',
    topic: 'Required-ness, lengths and formats of the registry document fields',
    decision:
      'every field of a document is optional and only its documented type is enforced: dates are real YYYY-MM-DD, amounts have at most two decimals, codigoIBGEPracaPagamento, tipoGarantia and statusPagamento are integers, documento is standard base64; no lengths',
    reason:
      'the specification shows types but no required-ness or lengths; inventing them would refuse valid calls',
  },
  {
    id: 'registry-tipo-operacao',
    interface: 'registry',
    topic: 'The form of tipoOperacao ("string, one-letter code"; values not listed)',
    decision: 'exactly one letter A-Z or a-z; any letter is accepted',
    reason: 'the table states a one-letter code; the allowed letters are not shown (C is seen in use)',
  },
  {
    id: 'registry-non-empty',
    interface: 'registry',
    topic: 'Whether an empty registros array is accepted',
    decision:
      'registros must hold at least one document (400 otherwise); no upper bound besides the body limit',
    reason:
      'an empty batch registers or reconciles nothing and is almost surely a client bug; batch size limits are not shown',
  },
  {
    id: 'registry-batch-atomic',
    interface: 'registry',
    topic: 'What happens to a batch with one bad document',
    decision:
      'a batch is all or nothing: one refused document refuses the whole request and nothing is stored',
    reason: 'partial acceptance is not shown, and the 200 body carries one key for the whole batch',
  },
  {
    id: 'registry-domain-warnings',
    interface: 'registry',
    topic:
      'Whether the registry refuses bad CPF/CNPJ check digits, NF-e keys, IBGE codes or a due date before the issue date',
    decision:
      'by default they are warnings: the request succeeds, the Sandbox-Warnings response header counts them and inspection lists each with its JSON pointer and rule; strict mode (SANDBOX_STRICT=true or the request header Sandbox-Strict: true) makes them a 400 with one detail per problem',
    reason:
      'the specification does not say the real registry checks them; a client should hear about them without being blocked',
  },
  {
    id: 'registry-keys',
    interface: 'registry',
    topic: 'The form of chaveRemessa, chaveRegistro and chaveConciliacao, and of dataRegistro',
    decision:
      'keys are RM, RG and CC followed by 24 base-32 characters (reproducible with a seed); dataRegistro is the UTC calendar day of the sandbox clock when the batch was accepted',
    reason: 'their formats are not shown; the sandbox clock can be moved to test dates',
  },
  {
    id: 'registry-mensagem',
    interface: 'registry',
    topic: 'The text of mensagem',
    decision:
      'an English sentence stating how many documents were registered, or reconciled and with which results',
    reason: 'the specification shows the field, not its text; clients should not parse it',
  },
  {
    id: 'registry-documento-digest',
    interface: 'registry',
    topic: 'What the registry keeps of an attached documento',
    decision:
      'the sandbox keeps its decoded size and SHA-256, never the bytes; reconciliation compares the digests',
    reason:
      'inspection and comparison need no more, and document contents are kept out of the sandbox database',
  },
  {
    id: 'registry-reconcile-compare',
    interface: 'registry',
    topic: 'How a reconciliation item is compared with the registration',
    decision:
      "each item is looked up by chaveRegistro among the caller's registrations: unknown (or missing) key, matched, or diverging with each field named; only fields the item sends are compared (a field the registration lacks diverges), tax ids without punctuation, amounts in cents, avalistas in order; cancelado, dataCancelamento, motivoCancelamento and statusPagamento are recorded, not compared",
    reason:
      'the comparison rules are not shown; the sandbox emulates no cancellation or settlement, so it holds nothing to compare those four with',
  },
  {
    id: 'registry-overdue',
    interface: 'registry',
    topic: 'When a participant breaks "reconcile at least once a month"',
    decision:
      'a participant with registrations is overdue once the sandbox clock passes one calendar month (addMonthsUtc) after the later of its first registration and its last accepted reconciliation; any accepted reconciliation counts, whatever its results',
    reason:
      'the specification states the frequency, not how it is measured or enforced; nothing is refused, inspection shows it',
  },
  {
    id: 'registry-nfe-alphanumeric',
    interface: 'registry',
    topic: 'chaveNFe is shown as "digits"',
    decision:
      'a 44-character key whose issuer CNPJ slot (positions 7-20) may hold letters A-Z in its first 12 characters (positions 7-18), the alphanumeric CNPJ in force since July 2026, each valued ASCII - 48 in the check digit; the CNPJ\'s own check digits (positions 19-20) and every other position are digits; anything else warns',
    reason: 'keys of documents issued by an alphanumeric CNPJ carry it in the issuer slot, and an alphanumeric CNPJ keeps numeric check digits (IN RFB 2.229/2024); refusing them would reject real documents',
  },
] as const satisfies readonly Assumption[];
