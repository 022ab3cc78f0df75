import type { Assumption } from '../http/assumption-catalog.js';

/** Decisions of the receivables interface where the specification is silent (docs/assumptions.md is written from this list). */
export const assumptions = [
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
      'first the body shape (missing, wrong type, too long, unknown field, an operationFile sent empty) and a fundCnpj that is not a valid CNPJ, all named together: ValidationError; then the credential: InvalidToken when the fund is unknown, has no token, or the token differs; then the file content: ValidationError target operationFile; the first that applies is the code and target, and every other ValidationError found is listed in the message after it, a Sandbox-Strict header the sandbox does not take last (error-body: the body before the headers); a file is read only when the fund and token authenticate',
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
    id: 'rc-import-order',
    interface: 'receivables',
    topic: 'which import comes first when submissions overlap (a small file sent while a large one uploads)',
    decision:
      'an import is accepted when its file is stored whole, in the transaction that answers its 200; that moment gives it its Sandbox-Import-Id (the next key of the sequence, so a seeded sandbox gives the n-th accepted import the n-th key), its receivedAt and its received event, and its place in the fund\'s list and in processing, which follow the order of acceptance: a small file sent during a large upload is accepted first and comes first everywhere. A submission refused, or still being read or stored, has no id and takes no key',
    reason:
      'the 200 is where a client learns the import exists; one order for ids, lists, events and processing lets a test predict each from the order of its answers, and a list that only grows at its end keeps its cursors valid',
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
      'lengths count bytes (files are single-byte ASCII/Latin-1); all lines 400: CNAB 400; 444-byte header numbered at 439-444: FIDC 444 (key 395-438); 400-byte header with 444-byte details, or a 444-byte header numbered at 395-400: "400 + 44" (key 401-444); a 444-byte record numbered where the other 444 layout puts the sequence (and not where the header\'s layout does) is a layout-mix error naming both layouts, and its sequence and key are not read; mixed widths by one rule in every layout (line-length, an error): every title is as wide as the first title, and a header, trailer or other record is too, or is 400 bytes beside 444-byte titles (its sequence then at 395-400)',
    reason: 'CNAB 444 has no FEBRABAN standard; both variants are in use and real generators mix widths',
  },
  {
    id: 'rc-record-types',
    interface: 'receivables',
    topic: 'record types between header and trailer',
    decision:
      'what a digit means comes from the layout (docs/receivables.md, Layouts): titles are 1 everywhere and 7 in Banco do Brasil\'s CNAB 400; every other digit 2-8 is a record of the title before it (Bradesco\'s 7 is its guarantor, shown by inspection), counted and, where the layout describes it, read for inspection; 0 or 9 in the middle and non-digits are errors; trailer content other than its sequence (totals) is not checked',
    reason:
      'Bradesco\'s record 7 is the Pagador Avalista, BB\'s is the title; real files use other detail digits and trailers with totals, which must be processed, not rejected',
  },
  {
    id: 'rc-bank-layouts',
    interface: 'receivables',
    topic: 'which bank\'s CNAB 400 layout a file follows',
    decision:
      'the bank number in the header (077-079) picks the layout of a CNAB 400 or "400 + 44" file: 237 Bradesco, 001 Banco do Brasil, 341 Itaú, 033 Santander and 756 Sicoob are known; any other bank is read on the Bradesco base (1 and 7 titles) with a bank-layout diagnostic on the header, a warning or an error in strict mode',
    reason:
      'each bank owns its CNAB 400 detail layout; reading another bank\'s columns silently would say green where the bank says no',
  },
  {
    id: 'rc-fidc-records',
    interface: 'receivables',
    topic: 'the records FIDC 444 generators write after a title',
    decision:
      'FIDC 444 follows the custodians\' layout whatever bank its header names: 2 is the payment record of the title before it, 3 and 7 are read as in the Bradesco base those layouts extend (credit split, Pagador Avalista); other digits are counted',
    reason: 'CNAB 444 has no FEBRABAN standard; FIDC generators emit 2, 3 and 7 after a title',
  },
  {
    id: 'rc-return-file',
    interface: 'receivables',
    topic: 'a return file (retorno) submitted as an operation file',
    decision:
      'a header with operation 2 at column 2 or RETORNO at 3-9 makes the import rejected with exactly one diagnostic (rule return-file, line 1, columns 2-9); none of its records is checked',
    reason: 'the 15-45 follow-on errors of reading a retorno as a remessa hide the one real cause',
  },
  {
    id: 'rc-file-encoding',
    interface: 'receivables',
    topic: 'files that are not single-byte CNAB 400/444 text',
    decision:
      'refused at once (400, target operationFile) with a message naming what the file is: UTF-16 (a byte-order mark, or a NUL byte between the first characters), CNAB 240 (a first line of 240 bytes), or UTF-8 (a line of the wrong length whose first non-ASCII bytes are a well-formed UTF-8 sequence: line and column named). A file whose every line has the right byte length is judged once: when it has non-ASCII bytes and all of them form well-formed UTF-8 sequences it is UTF-8 (a file-encoding diagnostic at the first multi-byte character names its line, column and bytes: a warning, an error in strict mode) and its text fields are read as UTF-8, so "JOSÉ" sent as C3 89 is stored as JOSÉ; otherwise it is Latin-1, one character per byte (Latin-1 accented letters between ASCII ones are never well-formed UTF-8). Control characters in a record (NUL, TAB, DEL...) are named by a control-character diagnostic with their line, column and field (a warning, an error in strict mode)',
    reason:
      'lengths count bytes; a client saving the file in the wrong encoding needs to be told which, and text is never stored garbled: it is read as what it is, and flagged',
  },
  {
    id: 'rc-cnab-rules',
    interface: 'receivables',
    topic: 'which faults reject a file',
    decision:
      'always: header not first, trailer not last, header operation not 1 (remessa), sequence not consecutive from 000001, trailer sequence not the line count, no title, and on every title a blank occurrence code, blank document number, impossible due date, face value not digits or zero, blank kind, blank drawee id type, or a missing drawee CPF/CNPJ. Warnings, errors in strict mode: drawee CPF/CNPJ check digits, drawee type not 01/02, kind not 2 digits, NF-e key (not for kind 41, whose columns hold an IPOC), a duplicata (kind 01) of a CNAB 444 file whose key columns are blank (the 444 layouts exist to carry the key of the invoice a duplicata is drawn on; other kinds may have none), issue and file dates, the header labels (REMESSA at 3-9, 01 at 10-11, COBRANCA or COBRANÇA at 12-26, upper case: every layout here writes them, and real files deviate, so a wrong one warns), a line of spaces at least 400 bytes wide after the trailer (it is not read: a record blanked out; shorter blank lines, line ends and an EOF byte are tolerated silently), a bank without a layout here, and every title finding of such a bank (its columns are the Bradesco base\'s guess; the message says so). A sequence number is wrong when it is neither its line\'s number nor the one after the previous line\'s: one wrong number flags its line alone',
    reason:
      "structure and the title's required fields are needed to import it; real sample files carry wrong check digits, so those warn unless SANDBOX_STRICT",
  },
  {
    id: 'rc-no-webhook',
    interface: 'receivables',
    topic: 'the operation-notification webhook payload is not shown',
    decision:
      "the platform's notification is not sent; the sandbox's own events (sandbox.receivables.import.processed or .rejected) go to the event feed and to subscriptions (Standard Webhooks), whose template shapes the payload when the user knows the real one; the outcome is visible under /_sandbox/receivables",
    reason: 'inventing the platform\'s payload would mislead clients built against the sandbox; its own events, in a standard envelope, claim nothing about it',
  },
] as const satisfies readonly Assumption[];
