// The distinct answers of import-cnab (see http/outcomes.ts): the synchronous answer, set where its
// rule decides (routes.ts, submit.ts) through outcome() below, and the result of the asynchronous
// processing that follows an accepted file, counted by runner.ts when the import ends (the client got
// its 200 before): processed, or rejected by the first error's rule (cnab-checks.ts, CNAB_RULES).
import type { OperationOutcomes, OwnSlug } from '../http/outcomes.js';
import { CNAB_RULES, type CnabRule } from './cnab-checks.js';

const rejected = <R extends CnabRule>(rule: R) => `rejected-${rule}` as const;

const REJECTED = Object.fromEntries(
  (Object.entries(CNAB_RULES) as Array<[CnabRule, string]>).map(([rule, sentence]) => [
    rejected(rule),
    [200, `an accepted file was then rejected: ${sentence}`] as const,
  ]),
) as Record<ReturnType<typeof rejected<CnabRule>>, readonly [200, string]>;

export const outcomes = {
  'import-cnab': {
    own: {
      accepted: [200, 'the file is accepted for asynchronous processing (the Sandbox-Import-Id header names the import)'],
      processed: [200, 'an accepted file was then processed without error'],
      ...REJECTED,
      'fund-cnpj-invalid': [400, 'fundCnpj is not a valid CNPJ (ValidationError, target fundCnpj)'],
      'token-unknown-fund': [400, 'InvalidToken: no fund with this CNPJ is known'],
      'token-not-issued': [400, 'InvalidToken: the fund has no token (generate one in the management system)'],
      'token-mismatch': [400, "InvalidToken: the token is not the fund's token"],
      'file-not-base64': [400, 'operationFile is not base64 text (ValidationError, target operationFile)'],
      'file-empty': [400, 'operationFile is empty (ValidationError, target operationFile)'],
      'file-not-cnab': [400, 'a line of operationFile is neither 400 nor 444 bytes long (ValidationError, target operationFile)'],
      'backlog-full': [400, 'SandboxBusy: as many imports as SANDBOX_WORK_BACKLOG wait for processing; the file is not stored'],
    },
    body: true,
    query: true,
    fields: ['token', 'fundCnpj', 'operationFile', 'fileName', 'additiveNumber'],
  },
} as const satisfies Readonly<Record<string, OperationOutcomes>>;

export type ReceivablesOutcome = OwnSlug<typeof outcomes>;

/** An outcome slug of this interface, checked against the catalog above when compiled. */
export const outcome = (slug: ReceivablesOutcome): ReceivablesOutcome => slug;

/** The outcome of an import that ended with its first error's rule (null: processed without error). */
export function importResultSlug(firstErrorRule: CnabRule | null): ReceivablesOutcome {
  return firstErrorRule === null ? 'processed' : rejected(firstErrorRule);
}
