// The distinct answers of the documented loan-bond operation (see http/outcomes.ts): rules 1-7 each,
// set where the rule decides (register.ts, and routes.ts for rule 6) through outcome() below, so that
// a misspelt slug fails to compile.
import type { OperationOutcomes, OwnSlug } from '../http/outcomes.js';

export const outcomes = {
  'register-loan-bond': {
    own: {
      'registered-signed': [201, 'registered; at least one record has assinado true, so its signatures are imported'],
      'registered-unsigned': [
        201,
        'registered; no record has assinado true, so no signature data is imported (rule 7)',
      ],
      'token-missing': [401, 'the body has no token'],
      'token-unknown': [401, 'the token is not the token of a known caller'],
      'rule-1-electronic-signature': [401, 'rule 1: the caller has not contracted the electronic-signature product'],
      'rule-2-digital-loan-bond': [401, 'rule 2: the caller has not contracted the digital loan-bond product'],
      'rule-3-encrypted': [400, 'rule 3: a document is encrypted or password-protected'],
      'rule-4-not-pdf': [400, 'rule 4: a document is not a PDF'],
      'rule-5-file-too-large': [400, 'rule 5: a document is larger than 15 MB'],
      'rule-6-too-many-records': [400, 'rule 6: the request holds more than 50 records'],
      'file-not-base64': [400, 'a documento or conteudo is not standard base64'],
      'tax-id-invalid': [400, 'in strict mode, a cpf_cnpj of a signer or signature has wrong check digits'],
      'backlog-full': [400, 'as many registrations as SANDBOX_WORK_BACKLOG wait for their asynchronous step; nothing is stored'],
    },
    body: true,
    query: true,
  },
} as const satisfies Readonly<Record<string, OperationOutcomes>>;

export type LoanbondOutcome = OwnSlug<typeof outcomes>;

/** An outcome slug of this interface, checked against the catalog above when compiled. */
export const outcome = (slug: LoanbondOutcome): LoanbondOutcome => slug;
