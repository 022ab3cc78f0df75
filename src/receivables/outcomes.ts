// The distinct answers of import-cnab (see http/outcomes.ts): the synchronous answer, set where its
// rule decides in routes.ts, and the result of the asynchronous processing that follows an accepted
// file, counted by runner.ts when the import ends (the client got its 200 before).
import { operationOutcomes } from '../http/outcomes.js';

/**
 * Rules of cnab.ts that can reject a file, each an outcome of its own (`rejected-<rule>`): structural
 * faults always, domain checks when the import runs in strict mode. A rule cnab.ts adds belongs here.
 */
export const REJECTING_RULES: Readonly<Record<string, string>> = {
  header: 'the first line is not a header (record type 0)',
  'header-operation': 'the header is not a remessa (operation 1)',
  'return-file': 'the file is a return file (retorno: operation 2 or RETORNO), not a remessa',
  trailer: 'the last line is not a trailer (record type 9), or the file has a single line',
  'trailer-count': "the trailer's sequence is not the file's record count",
  sequence: 'sequence numbers are not consecutive from 000001',
  'record-type': 'a record between header and trailer has type 0, 9 or a non-digit',
  'line-length': 'a FIDC CNAB 444 file has a line that is not 444 bytes',
  'no-titles': 'the file has no title records (type 1 or 7)',
  'document-number': "a title's document number is blank",
  occurrence: "a title's occurrence code is blank or not digits",
  kind: "a title's kind is blank",
  'due-date': "a title's due date is not a real date",
  'face-value': "a title's face value is not digits, or is zero",
  'drawee-tax-id': "a drawee's CPF or CNPJ is missing, or (strict mode) has wrong check digits",
  'drawee-type': 'a drawee id type is blank, or (strict mode) neither 01 (CPF) nor 02 (CNPJ)',
  'nfe-key': 'in strict mode, an NF-e key is not a valid access key',
  'issue-date': "in strict mode, a title's issue date is not a real date",
  'file-date': "in strict mode, the header's file date is not a real date",
  'bank-layout': 'in strict mode, the header names a bank whose CNAB 400 layout the sandbox does not know',
};

/** The outcome slug of an import that ended with `firstErrorRule` (null: processed); null when the rule has none. */
export function importResultSlug(firstErrorRule: string | null): string | null {
  if (firstErrorRule === null) return 'processed';
  return firstErrorRule in REJECTING_RULES ? `rejected-${firstErrorRule}` : null;
}

export const outcomes = operationOutcomes(
  'receivables',
  'import-cnab',
  {
    accepted: [200, 'the file is accepted for asynchronous processing (the Sandbox-Import-Id header names the import)'],
    processed: [200, 'an accepted file was then processed without error'],
    ...Object.fromEntries(
      Object.entries(REJECTING_RULES).map(([rule, sentence]) => [
        `rejected-${rule}`,
        [200, `an accepted file was then rejected: ${sentence}`] as const,
      ]),
    ),
    'fund-cnpj-invalid': [400, 'fundCnpj is not a valid CNPJ (ValidationError, target fundCnpj)'],
    'token-unknown-fund': [400, 'InvalidToken: no fund with this CNPJ is known'],
    'token-not-issued': [400, 'InvalidToken: the fund has no token (generate one in the management system)'],
    'token-mismatch': [400, "InvalidToken: the token is not the fund's token"],
    'file-not-base64': [400, 'operationFile is not base64 text (ValidationError, target operationFile)'],
    'file-empty': [400, 'operationFile is empty (ValidationError, target operationFile)'],
    'file-not-cnab': [400, 'a line of operationFile is neither 400 nor 444 bytes long (ValidationError, target operationFile)'],
    'backlog-full': [400, 'SandboxBusy: as many imports as SANDBOX_WORK_BACKLOG wait for processing; the file is not stored'],
  },
  {
    body: true,
    fields: ['token', 'fundCnpj', 'operationFile', 'fileName', 'additiveNumber'],
    faults: [400],
  },
);
