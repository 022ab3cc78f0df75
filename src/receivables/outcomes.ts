// The distinct answers of import-cnab (see http/outcomes.ts): the synchronous answer, set where its
// rule decides in routes.ts, and the result of the asynchronous processing that follows an accepted
// file, counted by runner.ts when the import ends (the client got its 200 before).
import { operationOutcomes } from '../http/outcomes.js';

/** Rules of cnab.ts that reject a file whatever the mode: each is an outcome of its own. */
export const STRUCTURAL_RULES: Readonly<Record<string, string>> = {
  header: 'the first line is not a header (record type 0)',
  'header-operation': 'the header is not a remessa (operation 1)',
  trailer: 'the last line is not a trailer (record type 9), or the file has a single line',
  'trailer-count': "the trailer's sequence is not the file's record count",
  sequence: 'sequence numbers are not consecutive from 000001',
  'record-type': 'a record between header and trailer has type 0, 9 or a non-digit',
  'line-length': 'a FIDC CNAB 444 file has a line that is not 444 bytes',
  'no-titles': 'the file has no title records (type 1 or 7)',
  'document-number': "a title's document number is blank",
  'due-date': "a title's due date is not a real date",
  'face-value': "a title's face value is not digits, or is zero",
};

/** The outcome slug of an import that ended with `firstErrorRule` (null: processed, no error). */
export function importResultSlug(firstErrorRule: string | null): string {
  if (firstErrorRule === null) return 'processed';
  return firstErrorRule in STRUCTURAL_RULES ? `rejected-${firstErrorRule}` : 'rejected-strict';
}

export const outcomes = operationOutcomes(
  'receivables',
  'import-cnab',
  {
    accepted: [200, 'the file is accepted for asynchronous processing (the Sandbox-Import-Id header names the import)'],
    processed: [200, 'an accepted file was then processed without error'],
    ...Object.fromEntries(
      Object.entries(STRUCTURAL_RULES).map(([rule, sentence]) => [
        `rejected-${rule}`,
        [200, `an accepted file was then rejected: ${sentence}`] as const,
      ]),
    ),
    'rejected-strict': [
      200,
      'an accepted file was then rejected in strict mode by a domain check (drawee CPF/CNPJ or type, NF-e key, dates)',
    ],
    'fund-cnpj-invalid': [400, 'fundCnpj is not a valid CNPJ (ValidationError, target fundCnpj)'],
    'token-unknown-fund': [400, 'InvalidToken: no fund with this CNPJ is known'],
    'token-not-issued': [400, 'InvalidToken: the fund has no token (generate one in the management system)'],
    'token-mismatch': [400, "InvalidToken: the token is not the fund's token"],
    'file-not-base64': [400, 'operationFile is not base64 text (ValidationError, target operationFile)'],
    'file-empty': [400, 'operationFile is empty (ValidationError, target operationFile)'],
    'file-not-cnab': [400, 'a line of operationFile is neither 400 nor 444 bytes long (ValidationError, target operationFile)'],
  },
  {
    body: true,
    fields: ['token', 'fundCnpj', 'operationFile', 'fileName', 'additiveNumber'],
    faults: [400],
  },
);
