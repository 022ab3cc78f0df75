import type { Assumption } from '../http/assumptions.js';

/** Decisions of the receivables interface where the specification is silent (README, assumptions table). */
export const assumptions: Assumption[] = [
  {
    id: 'rc-file-base64',
    interface: 'receivables',
    topic: 'operationFile is typed "bytes" inside a JSON body',
    decision:
      'it is the base64 text (standard alphabet, "=" padding, whitespace ignored) of the file bytes; not base64, empty, or a line that is neither 400 nor 444 bytes is a 400 at once',
    reason: 'JSON has no bytes type; base64 is how bytes travel in JSON bodies',
  },
  {
    id: 'rc-validation-error',
    interface: 'receivables',
    topic: 'error codes other than InvalidToken',
    decision:
      'every other bad field is code ValidationError with target the top-level field name (unknown fields, wrong types, over-long values, missing fields; fileName must not be empty); malformed JSON and a wrong Content-Type also answer the envelope, target null',
    reason: 'the envelope follows the Microsoft REST guidelines, where target names the offending field',
  },
  {
    id: 'rc-error-precedence',
    interface: 'receivables',
    topic: 'which error wins when several apply',
    decision:
      'first the body shape (missing, wrong type, too long, unknown field) and a fundCnpj that is not a valid CNPJ: ValidationError; then the credential: InvalidToken when the fund is unknown, has no token, or the token differs; then the file content: ValidationError target operationFile',
    reason:
      'a body that cannot name a fund cannot be authenticated; the file is decoded only for an authenticated caller',
  },
  {
    id: 'rc-import-id-header',
    interface: 'receivables',
    topic: 'how a caller finds the import it just submitted',
    decision:
      "the 200 has no body, as documented, but carries the header Sandbox-Import-Id; /_sandbox/receivables shows the import under that id and in its fund's list",
    reason: 'a test needs to find its import; a header does not change what a client reads from the body',
  },
  {
    id: 'rc-statuses',
    interface: 'receivables',
    topic: 'the outcome of asynchronous processing',
    decision:
      'an import is pending until processed, then processed (no error) or rejected (at least one error), with line-level diagnostics (line, columns, rule, severity, message); the titles read are kept either way, for inspection',
    reason: 'the specification shows neither the statuses nor the result of processing',
  },
  {
    id: 'rc-layouts',
    interface: 'receivables',
    topic: 'which CNAB layout a file is in',
    decision:
      'lengths count bytes (files are single-byte ASCII/Latin-1); all lines 400: CNAB 400; 444-byte header numbered at 439-444: FIDC 444 (key 395-438); 400-byte header with 444-byte details, or a 444-byte header numbered at 395-400: "400 + 44" (key 401-444)',
    reason: 'CNAB 444 has no FEBRABAN standard; both variants are in use and real generators mix widths',
  },
  {
    id: 'rc-record-types',
    interface: 'receivables',
    topic: 'record types between header and trailer',
    decision:
      'types 1 and 7 (Banco do Brasil) are titles; 2-8 are optional records, counted and not read; 0 or 9 in the middle and non-digits are errors; trailer content other than its sequence (totals) is not checked',
    reason:
      'real files use other detail digits and trailers with totals; they must be processed, not rejected',
  },
  {
    id: 'rc-cnab-rules',
    interface: 'receivables',
    topic: 'which faults reject a file',
    decision:
      'always: header not first, trailer not last, header operation not 1 (remessa), sequence not consecutive from 000001, trailer sequence not the line count, no title, blank document number, impossible due date, face value not digits or zero. Warnings, errors in strict mode: drawee CPF/CNPJ check digits, drawee type not 01/02, NF-e key (not for kind 41, whose columns hold an IPOC), issue and file dates',
    reason:
      "structure and the title's amount and due date are needed to import it; real sample files carry wrong check digits, so those warn unless SANDBOX_STRICT",
  },
  {
    id: 'rc-no-webhook',
    interface: 'receivables',
    topic: 'the operation-notification webhook payload is not shown',
    decision: 'nothing is sent when processing ends; the outcome is visible under /_sandbox/receivables',
    reason: 'inventing a payload would mislead clients built against the sandbox',
  },
];
