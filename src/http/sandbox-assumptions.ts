import { WORKSPACE_NAME_RULE } from '../runtime/workspaces.js';
import type { Assumption } from './assumption-catalog.js';

/** Decisions that apply to every interface or to the sandbox as a whole. */
export const assumptions = [
  {
    id: 'error-body',
    interface: 'sandbox',
    topic: 'Error bodies of bookkeeping, registry and loan-bond are not shown',
    decision:
      'they answer {"statusCode","error","message","details":[{"path","message"}]}, one detail per problem, path a JSON pointer into the request; every check of a request is reported in the same answer (schema, domain, cross-field and against the stored state; the problems of every part of the request, though Fastify stops validating at the first part it refuses: a path parameter, the body, the query string and the headers are each judged, and named in the order of Fastify (the other checks of the body right after those of its schema), each part with the details it gets alone; so a Sandbox-Strict header the sandbox does not take comes after the problems of the body, and a malformed bookkeeping tenantId before those of the query or body), at most 100 details while the message counts them all, one per problem (of a union such as string-or-null, the problems of the branch of the type of the value); a check is skipped only where an earlier problem makes it meaningless: a field of the wrong type is not also judged by its domain rule, a bill that takes no payment (unknown, paid, cancelled) or an amount above its open value is not compared further, a malformed tenantId is not judged for access nor compared with a bill (bk-credential-order), strict mode is not applied from a Sandbox-Strict value it refuses, a receivables file is read only for a caller the body authenticates (rc-error-precedence), and loan-bond files only for a caller whose token passes rules 1-2 (lb-check-order)',
    reason:
      "a client needs to know which field broke which rule; the shape is Fastify's, extended with details",
  },
  {
    id: 'strict-fields',
    interface: 'sandbox',
    topic: 'Whether unknown fields and wrong JSON types are refused is not shown',
    decision: 'unknown fields are a 400, and types are never coerced (a number sent as a string is a 400)',
    reason: 'a sandbox that silently drops or converts fields hides client bugs the real service may refuse',
  },
  {
    id: 'malformed-body',
    interface: 'sandbox',
    topic: 'Answers to malformed JSON, an empty body or a Content-Type other than JSON are not shown',
    decision:
      "each is a 400 in the interface's error shape, with a message that says which; judged in one order, a byte-order mark, then the first byte that is not UTF-8 anywhere in the body, then the first problem of JSON syntax with its byte offset, line and column; a body read as a stream (the loan-bond registration, the receivables submission) gets the same answer whatever pieces it arrives in; a request outside every prefix with a JSON Content-Type is read the same way (a malformed body is that 400, in the standard shape, before the 404 of its path) unless the workspace has mappings, which read bodies as they come (stub-unmatched)",
    reason: '400 is the documented validation status of every interface; one answer for one body, whichever route reads it and however it is cut, or a client fixing its encoder chases the sandbox instead',
  },
  {
    id: 'body-depth',
    interface: 'sandbox',
    topic: 'How deep a request body may nest arrays and objects is not shown',
    decision:
      'at most 64 levels, the body itself the first ({"a":[1]} is 2 deep): an array or object that opens a 65th level is a 400 naming its JSON pointer, its byte offset, line and column and the limit, judged in order with the problems of JSON syntax (the first of either is the answer; before both, as for malformed-body, a byte-order mark and any byte that is not UTF-8); a body read as a stream (the loan-bond registration, the receivables submission) is refused at that byte, whatever pieces it arrives in; the control plane\'s bodies too, so a mapping nesting deeper is refused by its pointer (the same limit stubs read mappings and client bodies by)',
    reason:
      "no documented request nests deeper than 5 levels; RFC 8259, section 9, lets a reader limit the nesting it accepts, and 64 is the default limit of .NET's System.Text.Json; read without a limit, 20 MB of \"[\" held the sandbox's event loop for 4 s and 450 MB of memory (every other client waiting), a body of the default limit several times that",
  },
  {
    id: 'malformed-http',
    interface: 'sandbox',
    topic: 'Answers to requests malformed at the HTTP level, and to a GET that carries a body, are not shown',
    decision:
      "a 400 in the interface's error shape naming the fault (Content-Length not one decimal length or sent twice; Content-Length and Transfer-Encoding together, RFC 9112 section 6.3; a Transfer-Encoding other than chunked alone, such as gzip, chunked, whose body is refused unread; a bad chunk size; a malformed header line; an unknown HTTP version); a GET with a body is refused; an Expect header other than 100-continue is a 400 (where Node would answer a bare 417), journalled like any request; a CONNECT is answered like any other method its path does not serve (a 501 under an interface's prefix, else a 404) and the connection closes; a body shorter than its Content-Length or an unterminated chunked body is waited for, as by any HTTP server; a request without Host gets Node's bare 400; refused bytes after requests accepted on the same connection (pipelined, or a body longer than its Content-Length) are answered after those requests' answers, in order, then the connection closes",
    reason: '400 is every interface\'s documented validation status; a GET body the server ignored would hide a client bug',
  },
  {
    id: 'repeated-headers',
    interface: 'sandbox',
    topic: 'A single-valued header sent twice is not shown',
    decision:
      "a 400 in the interface's (or the control plane's) error shape naming the header, journalled like any request, before anything is read: Content-Type, Authorization, Host and every Sandbox-* header (Sandbox-Strict, Sandbox-Admin-Token) sent on two header lines, whatever their values (which are not echoed), and a Content-Type that gives one parameter twice (charset=utf-8; charset=latin1); Content-Length sent twice is refused by Node's parser (assumption malformed-http); a list-valued header (Accept, Content-Encoding, Transfer-Encoding, Expect) may come on several lines and is read as one comma-separated list",
    reason:
      'a field that is not a list is sent once (RFC 9110, section 5.3; RFC 9112, section 3.2 requires the 400 for Host; RFC 6838, section 4.3 for a media-type parameter); Node keeps the first Content-Type, Authorization or Host and joins a Sandbox-* header\'s values, so the sandbox would otherwise act on a value the client may not have meant, and which one differs between servers',
  },
  {
    id: 'body-limit',
    interface: 'sandbox',
    topic: 'The largest request body is not shown',
    decision:
      'SANDBOX_BODY_LIMIT, default 100mb (104857600 bytes), for every route but the loan-bond registration (its own limit: lb-body-limit); a larger body is a 400 that states the limit and the setting that raises it',
    reason:
      'no other route documents a size: 100 MiB holds the base64 of a 78 643 200-byte CNAB file (about 176 000 lines of 444 characters and CRLF) or a registry batch of thousands of documents, and a body read whole is held in memory',
  },
  {
    id: 'named-only-501',
    interface: 'sandbox',
    topic: 'Operations named without method, path or payload',
    decision:
      'any request under an interface prefix that matches no documented method and path is a 501 naming the interface and its named-only operations; outside the prefixes, 404',
    reason: 'inventing those operations would mislead; a 501 tells the client exactly what is not emulated',
  },
  {
    id: 'head-like-get',
    interface: 'sandbox',
    topic: 'HEAD requests (the specification documents GET only)',
    decision:
      'HEAD answers as GET would on every path GET serves (documented operations, health, control-plane GETs, the OpenAPI document and docs), with the same status and headers and no body, as HTTP requires (RFC 9110, section 9.3.2); OpenAPI lists the GET only; on a path no GET serves, HEAD is the 501 of any undocumented method',
    reason: 'health checks, proxies and link checkers send HEAD; a 501 or 404 there would make a served path look missing',
  },
  {
    id: 'money-cents',
    interface: 'sandbox',
    topic: 'Precision of decimal amounts',
    decision:
      'amounts are kept as integer cents, read exactly from the number\'s text up to 90071992547409.91 (2^53 - 1 cents) and written back the same way in inspection, the journal and the events (the feed, the waits and the CloudEvent a subscription is sent); more than two decimal places is a 400 saying so, a larger amount a 400 naming the largest',
    reason:
      'Brazilian amounts are in centavos; a third decimal would be rounded silently by a lax service, and above about 2^51 cents a double no longer tells neighbouring cents apart',
  },
  {
    id: 'exact-numbers',
    interface: 'sandbox',
    topic: 'JSON numbers a double would change, or write otherwise than they were sent',
    decision:
      'an amount is read from its text (money-cents); any other number whose text a double would change (more than 15 significant digits that do not read back as the same decimal, such as an additiveNumber of 20 digits; or out of a double\'s range: 1e-400 would be read as 0, 1e400 as Infinity) is a 400 naming it and what it would become; an amount out of a double\'s range is told its decimals (1e-400) or its magnitude (1e400), never a comparison with the 0 or Infinity a double would make of it. ' +
      'A number a double holds exactly but writes otherwise (1E+1, 0.10000, 3550308.0, -0) is read by its value (-0 is zero: refused where an amount must be above 0, accepted where it may be 0, as remainingValue), and echoed as written wherever the sandbox echoes what was sent: the journal\'s requestBody, the payments of a trade bill, the registry\'s documents and reported reconciliation fields, and a loan-bond registration\'s signers, signatures and installments (numero, and valor: an amount nothing compares) in inspection, a user-defined operation\'s mapping (its jsonBody answered and shown as written: 1.10, 1E+2, whether posted or read from a --stubs file, and compared by value in equalToJson), and messages that quote a value ("got 1e1"). ' +
      'What the sandbox holds as a value is answered as the number it is: a bill\'s amount and open value, an import\'s additiveNumber, registry amounts (held in cents and compared in reconciliation), the fixtures\' ids and amounts, the control plane\'s settings (fault statuses and counts, limits), events, and a number a template reads from a client\'s body that a double holds exactly (jsonPath renders a 1E+2 sent as 100: the helpers compare values; one a double would change is rendered as written, stub-format)',
    reason:
      'what the client sent is kept exactly or refused, never silently changed; -0 is zero in JSON and in the decimal types a real service reads amounts into (a Python client rounding a tiny negative float sends -0.0), so refusing it would be stricter than the service without evidence',
  },
  {
    id: 'json-utf8',
    interface: 'sandbox',
    topic: 'The character encoding of JSON bodies is not shown',
    decision:
      'a body must be UTF-8: bytes that are not (Latin-1 "José" sends E9 for é) are a 400 naming the first bad byte by offset, line and column, and what is wrong there (a byte UTF-8 never uses, a continuation byte without a lead, a character cut short by the byte named or by the end of the body, an overlong form, a surrogate, a code point above U+10FFFF), with a hint at Latin-1 only where the byte stands alone as a Latin-1 letter would; a path whose percent-escapes are well formed but encode bytes that are not UTF-8 (%E9) is a 400 saying so, naming the escape and its offset; a Content-Type charset other than UTF-8 (any of its labels, any case) is a 400 naming it even when the bytes are plain ASCII; a UTF-8 byte-order mark is a 400 naming it; a \\u escape that leaves half of a surrogate pair (\\uD800 alone), in any key or value of any body, is a 400 naming the field, the escape and its byte offset (a loan-bond registration, read as a stream, names no offset); nothing is ever decoded or stored with replacement characters',
    reason:
      'JSON exchanged between systems is UTF-8 without a byte-order mark (RFC 8259, section 8.1); decoding by a declared charset would hide from a client that it does not send UTF-8, and replacement characters would change what it sent',
  },
  {
    id: 'compressed-bodies',
    interface: 'sandbox',
    topic: 'Whether a request body may be compressed (Content-Encoding) is not shown',
    decision:
      'a body with a Content-Encoding other than identity (gzip, deflate, br, any other) is a 400 naming the header before a byte of it is read, on every route; the sandbox does not decompress',
    reason:
      'no interface documents compressed requests; read as JSON the compressed bytes would only be called "not UTF-8" at their first byte, which says nothing of what the client did',
  },
  {
    id: 'journal-scope',
    interface: 'sandbox',
    topic: 'A record of the requests clients sent (the real services show none)',
    decision:
      'GET /_sandbox/requests keeps every request under an interface prefix (501s, refused bodies and refused request targets included: a target with bytes a URL cannot hold, such as raw UTF-8 in the query, which Node\'s parser refuses, is answered with a 400 in the interface\'s shape naming the byte and its offset, its body unread, then the connection closes) and every 404 outside them, not control-plane or documentation calls; the last SANDBOX_JOURNAL_SIZE (default 1000), newest first; secrets redacted by one name rule for headers, query parameters, body keys at any depth and the fields of a form body (application/x-www-form-urlencoded, shown as its text) (a name containing token, secret, password, pwd, bearer, credential, authorization, apikey, private, signature, session, cookie or senha, or with the word key, pass, pin or auth, in any case and with any separators; not one ending in the word type), document bytes (documento, conteudo, operationFile) too; query pairs split at ; as well as & for redaction only (the sandbox parses a query as URLSearchParams does); each secret value the request carried (a secret header\'s credentials, Basic ones also decoded, each cookie, secret query and form fields, strings and numbers under a secret\'s key) replaced in the query and bodies wherever they echo it, as sent, HTML-escaped as Handlebars escapes, JSON-escaped or percent-encoded: one of 6 characters or more anywhere, a shorter one where it stands whole (a whole string, key or number, or a run touching no letter, digit, _ or -), strings over 512 characters and bodies over about 16 KB cut with "[truncated: ...]"; beside the parsed query, the request line, query string and headers as sent, credentials redacted by the same rule (Authorization keeps its scheme); a target\'s bytes that are UTF-8 show as the characters they encode (a raw é as é; an é the client percent-encoded stays %C3%A9, as sent), other bytes one Latin-1 character each, as Node reads header values',
    reason:
      'a user sees what the client sent wrongly, memory stays flat under any load, and no secret or document leaves the sandbox',
  },
  {
    id: 'control-pages',
    interface: 'sandbox',
    topic: 'How large an answer of a control-plane list may be (the sandbox\'s own views)',
    decision:
      'a page of a control list (the journal and its unmatched requests, the event feed, workspaces, the stub mappings, and the inspection lists of each interface) holds up to limit items and up to 1 000 000 bytes of items as JSON, whichever comes first; a page holds one item at least, however large; its cursor (next, for the event feed) points after the last item given, so following it gives every item once',
    reason:
      'an item can be tens of kilobytes (a journal entry with its bodies, a registry document with long text fields): counted in items alone, a page at the largest limit ran to megabytes, too much for a browser or a test log',
  },
  {
    id: 'token-lifetime',
    interface: 'sandbox',
    topic: 'Lifetime and refresh of tokens (bookkeeping and loan-bond: "not shown"; registry and receivables say nothing)',
    decision:
      "a token of the fixtures (a bookkeeping user's or registry participant's accessToken, a receivables fund's token, a loan-bond caller's token) is valid from when its fixture is loaded until a reset that does not load it again: it never expires and is never refreshed (login and contractor authentication are named only, a 501); a client's path for a token that stopped working is exercised by a reset with other fixtures, or by a fault rule answering the interface's refusal for the next N requests (401; receivables a 400 with code InvalidToken)",
    reason:
      'the specification shows no lifetime or refresh; an invented expiry would fail a client at times the real service may not, while a test can end a token exactly when it chooses',
  },
  {
    id: 'no-rate-limit',
    interface: 'sandbox',
    topic: 'Rate limits ("not shown")',
    decision:
      "nothing is rate-limited: no request is refused or slowed for coming too often, and no 429 or Retry-After is ever answered (no interface documents a 429, so no fault rule answers one either: fault-rules); a client's back-off and timeout paths are exercised by fault rules: a documented status (bookkeeping and registry 500, receivables and loan-bond 400) for the next N requests (times), or an answer held back by delayMs",
    reason:
      'limits are not shown; an invented one would refuse calls the real service may take, and would make a test suite fail by its own speed',
  },
  {
    id: 'fault-rules',
    interface: 'sandbox',
    topic: 'Injected failures (the real services fail on their own)',
    decision:
      "POST /_sandbox/faults answers only a status the interface documents, in that interface's error body, or delays; in the path pattern * stands for any characters; the first matching rule in the order added applies, before anything else the service checks (credentials, body: the request body is not read, the journal shows it as null); an undocumented status is a 400 naming /status",
    reason: 'a client must never see from the sandbox a status the real interface cannot send',
  },
  {
    id: 'clock-durations',
    interface: 'sandbox',
    topic: 'Moving time (the monthly reconciliation rule, timestamps)',
    decision:
      'POST /_sandbox/clock takes now (ISO UTC) or advance (ISO 8601 duration); years and months move on the UTC calendar (January 31 plus P1M is the last day of February), weeks, days, hours, minutes and seconds are fixed lengths; every target, by now or by advance, lies between 0001-01-01T00:00:00.000Z and 9998-12-31T23:59:59.999Z (else a 400 naming the field and the range); reset and DELETE /_sandbox/clock return to real time',
    reason: 'P1M must mean "the same day next month" for a monthly rule; UTC has no daylight saving; dates are written YYYY-MM-DD and compared as text, which holds for four-digit years only, and a running clock needs a year to leave the range',
  },
  {
    id: 'snapshot-scope',
    interface: 'sandbox',
    topic: 'What a snapshot holds',
    decision:
      'every table, the clock setting and the position of the key sequence, as they are when the save answers (a large state is copied over many turns of the event loop, other requests answered meanwhile, and what they wrote in the workspace by then is in the snapshot; a restore or reset meanwhile starts the copy over); not the journal nor the fault rules; kept in memory (gone on restart), kept across reset; saving a name again replaces it; how many and how large: snapshot-limits. A restore is one step: no request of the workspace sees it half done',
    reason:
      'a test that restores a baseline gets the same answers, generated keys included, as the test before it',
  },
  {
    id: 'snapshot-limits',
    interface: 'sandbox',
    topic: 'How many snapshots the sandbox keeps, and how much memory they take',
    decision:
      'a workspace keeps at most SANDBOX_MAX_SNAPSHOTS snapshots (default 100): saving a new name past them is a 409; the snapshots of every workspace together take at most SANDBOX_SNAPSHOTS_SIZE bytes (default 256mb; at least 1mb), counted as the bytes of the pages their copies take in memory (GET /_sandbox/snapshots shows each one\'s bytes), a database file\'s workspaces as much as :memory: ones: a save that would take them past it is a 429; both name the limit, the setting and how to free room, and the refused save changes nothing (the snapshot of that name, if any, is kept as it was). A save over a name it holds replaces it and needs room only for what it adds; the bytes are known once the copy is made, so a save first copies, then is refused and its copy dropped (memory peaks at the limit plus that one copy); a delete, or removing a workspace, gives its snapshots\' room back at once and their memory to the system over the next turns of the event loop (a few megabytes a turn, other requests answered meanwhile)',
    reason:
      'every snapshot is a whole copy of its workspace held in memory (a 20 000-document state takes about 20 MB): a suite saving one per test under new names, or many workspaces keeping a few each, would grow the sandbox until it died and every snapshot with it; the count is per workspace as stubs are (stub-limits, a 409), the bytes are the sandbox\'s as its workspaces are (workspace-limit, a 429), and 256mb fits beside the state in the 512Mi the Kubernetes manifests give',
  },
  {
    id: 'seeded-secrets',
    interface: 'sandbox',
    topic: 'Reproducible keys and secrets',
    decision:
      'with a seed (SANDBOX_SEED, --seed, reset {"seed"}) every generated key repeats run to run; secrets such as token_acesso stay random unless asked too: reset {"seed","seedSecrets":true} or SANDBOX_SEED_SECRETS=true',
    reason: 'a token must stay unguessable unless a user explicitly wants it reproducible',
  },
  {
    id: 'reset-scope',
    interface: 'sandbox',
    topic: 'What POST /_sandbox/reset clears besides the data',
    decision:
      'it also clears the journal, the fault rules and the coverage counts, returns the clock to real time, and releases held asynchronous processing with the start-up backlog bound (POST /_sandbox/work); snapshots stay',
    reason: 'a test that resets starts clean, and can still restore a baseline saved once',
  },
  {
    id: 'restart-settings',
    interface: 'sandbox',
    topic: 'What a restart on the same database keeps besides the data',
    decision:
      'the clock\'s setting (moved: its offset from real time, so it ran on meanwhile; frozen: the same instant) and the asynchronous processing\'s settings (held, and a backlog bound set with POST /_sandbox/work) are kept in the database of each workspace with its rows, so a restart on the same --db (or a file-backed workspace opened again) finds them as they were left, and its log says so when the clock is not on real time or processing is held; a reset returns them to real time, released and the start-up bound; in memory (:memory:) nothing outlives the process; the journal, the fault rules, the coverage counts, snapshots and subscriptions are in memory and start empty',
    reason:
      'the data a held import or a frozen month was set up around survives a restart, so its time and its hold must too: a test suite that restarts the container mid-run would otherwise see time jump back behind its own data and held work processed, with nothing said',
  },
  {
    id: 'sandbox-fault-status',
    interface: 'sandbox',
    topic: 'What an interface without a documented 5xx answers when the sandbox itself fails',
    decision:
      'receivables and loan-bond answer a 400 in their own error shape whose message says it is a fault of the sandbox, not of the request (receivables code SandboxFault); bookkeeping and registry answer their documented 500',
    reason: 'an emulated interface answers only with its documented statuses, and the caller must not debug the sandbox\'s fault as its own',
  },
  {
    id: 'work-backlog',
    interface: 'sandbox',
    topic: 'How much asynchronous work may wait (the specification says processing is asynchronous, not how much it queues)',
    decision:
      'at most SANDBOX_WORK_BACKLOG (default 1000; per workspace with POST /_sandbox/work) CNAB imports, and as many loan-bond registrations (one per record), wait for asynchronous processing per workspace; a submission that passes every check but would make more than that many wait is refused whole and nothing of it is stored: receivables a 400 envelope with code SandboxBusy, loan-bond a 400 in its body, both naming the limit; a failed processing step is retried after a backoff (100 ms doubling to 30 s) and shown on the import or registration and by POST /_sandbox/work/run',
    reason:
      'a client streaming submissions faster than they are processed must learn it at once, instead of the sandbox holding them in memory until it stalls',
  },
  {
    id: 'duplicate-keys',
    interface: 'sandbox',
    topic: 'A JSON body with the same key twice in one object (the receivables table documents each field exactly once; the others say nothing)',
    decision: 'a 400 naming the repeated key by its JSON pointer, in every interface and the control plane',
    reason: 'JSON parsers disagree on which occurrence wins, so a client that sends a key twice has a bug the real service may read differently',
  },
  {
    id: 'query-on-body-operations',
    interface: 'sandbox',
    topic: 'Query parameters on the registry, receivables and loan-bond operations, which document none',
    decision:
      "any query parameter is a 400 in the interface's error shape naming it by its JSON pointer (/name: the registry's and loan-bond's details, the receivables envelope's ValidationError with target the parameter), listed after the body's problems (error-body); credentials checked before anything is read come first (the registry's bearer token)",
    reason:
      'as strict-fields and bk-unknown-query: a parameter silently ignored hides a client bug (a setting the client believes it sent) the real service may refuse',
  },
  {
    id: 'query-numbers',
    interface: 'sandbox',
    topic: 'How numeric query and path values are written (the specification says "integer")',
    decision:
      'decimal digits only, with an optional sign (no 0x, exponent, fraction or spaces), given once; a value out of the parameter\'s range, however many digits it has, is a 400 that states the range',
    reason: 'a lax reading turns 0x10 into 16 and 1e400 into Infinity; the client is told the exact rule instead',
  },
  {
    id: 'query-booleans',
    interface: 'sandbox',
    topic: 'How boolean query values are written (the specification says "boolean")',
    decision:
      'true or false in any case (True, FALSE), or 1 or 0, given once; anything else (yes, on, an empty value) is a 400 naming the parameter and the words it takes; the Sandbox-Strict header is read the same way (one reading, http/validation.ts readBoolean), and a value it refuses never turns strict mode on',
    reason:
      'Python and .NET write a boolean as True or False and some clients send 1 or 0: each means one thing, while yes or on would be a guess',
  },
  {
    id: 'money-sign',
    interface: 'sandbox',
    topic: 'The sign of amounts where the specification shows no range',
    decision:
      'not checked: a negative valorDuplicata, valorOperacao or installment valor is accepted as sent (bookkeeping payments must be positive: bk-payment-positive)',
    reason: 'the specification shows no range, and a sandbox must not refuse what the real service may accept',
  },
  {
    id: 'tax-id-letters',
    interface: 'sandbox',
    topic: 'Whether the letters of an alphanumeric CNPJ may be sent in lower case is not shown',
    decision:
      'no, by one rule wherever a CNPJ is read (body and path fields, fixtures, NF-e keys, CNAB files): its letters are A-Z, and a lower-case one is a CNPJ problem naming the letter and its position, with whatever weight a bad CNPJ has there (a 400 where the field is checked, a warning where check digits warn); it is never upper-cased silently',
    reason:
      'IN RFB 2.229/2024 writes the alphanumeric CNPJ in upper case, an NF-e key allows only upper-case letters, and a value a client sent is not changed silently',
  },
  {
    id: 'cnpj-all-equal',
    interface: 'sandbox',
    topic: 'Whether a CNPJ of 14 equal digits is valid (the reference rules out the ten all-equal CPFs only)',
    decision:
      'no, wherever a CNPJ is checked: of the ten, only 00000000000000 passes the check-digit arithmetic, and it is refused like a CNPJ whose check digits fail, with the weight a bad CNPJ has there (bookkeeping tenantId and beneficiaryDocument: a 400; receivables fundCnpj: ValidationError; registry, loan-bond and CNAB drawees: a warning, an error in strict mode)',
    reason: 'the Receita issues no all-equal CNPJ, as no all-equal CPF; a zero CNPJ is a placeholder a client left unfilled',
  },
  {
    id: 'tax-id-forms',
    interface: 'sandbox',
    topic: 'What "with or without punctuation" admits in a CPF or CNPJ (fundCnpj, cpfCnpjTitular)',
    decision:
      'exactly two forms, wherever a tax id may be punctuated (receivables fundCnpj, its fixtures and inspection path; the registry\'s cpfCnpj fields; loan-bond cpf_cnpj): the bare characters, or the whole mask, NNN.NNN.NNN-NN for a CPF and NN.NNN.NNN/NNNN-NN for a CNPJ (alphanumeric too); whitespace (around the value included) and punctuation anywhere else are a problem of that field, with the weight a bad tax id has there (receivables: ValidationError, target fundCnpj; registry and loan-bond: a warning, a 400 in strict mode), naming the position and the two forms; the value is kept as sent (a receivables import is filed under its fund, whose CNPJ is bare)',
    reason:
      'the mask is how a CPF or CNPJ is printed; a padded value or punctuation elsewhere is a client bug (an untrimmed field, a mangled mask) that stripping it would hide',
  },
  {
    id: 'fixture-open-value',
    interface: 'sandbox',
    topic: 'A fixture trade bill\'s openValue (docs/fixtures.md: defaults to amount)',
    decision:
      'defaults to amount, except for a paid bill where it defaults to 0; it must agree with the status (open: equal to amount; partially-paid: between 0 and amount; paid: 0), else a 400 naming it',
    reason: 'a fixture that contradicts itself would make every later payment answer surprise the user',
  },
  {
    id: 'inspector-token',
    interface: 'sandbox',
    topic: 'How the inspector page (GET /_sandbox/ui) follows the admin-token rule',
    decision:
      'the page and its static files (no state in them) are served without the token; every call the page makes for data needs it: the page asks for it, or takes it from #adminToken=... in the address, keeps it in the tab\'s sessionStorage and sends the Sandbox-Admin-Token header',
    reason: 'a browser cannot send a header when it opens a page, and a token in a query string would reach logs',
  },
  {
    id: 'coverage-outcomes',
    interface: 'sandbox',
    topic: 'Which answers of an operation count as distinct behaviours (the real services report none)',
    decision:
      'each documented status split by the rule that decides it, with a stable id <operation>.<outcome> and a sentence (GET /_sandbox/coverage lists them all); every answer of a documented operation carries its id in the Sandbox-Outcome response header and in the journal\'s outcome field; a body the framework refuses is body-malformed or body-invalid (receivables: invalid-<field> per target), an answer of a fault rule fault-<status>; the result of an accepted CNAB file (processed, or rejected-<rule> by the first error in file order: a structural fault, or a domain check in strict mode) is counted when its processing ends; a 501 or 404 carries none',
    reason:
      'an integrator preparing homologation needs to know which answers the client has met, in any language; the sandbox sees which rule decided each answer',
  },
  {
    id: 'coverage-scope',
    interface: 'sandbox',
    topic: 'What the coverage counters hold and when they start again',
    decision:
      'per sandbox state, in memory: hits per outcome with first and last time on the sandbox clock, since the start, the last POST /_sandbox/reset or DELETE /_sandbox/coverage; not in snapshots (a restore keeps the counts); control-plane calls are not counted',
    reason: 'a CI run resets once and reads the report at the end; restoring a baseline between tests must not forget what was exercised',
  },
  {
    id: 'coverage-junit',
    interface: 'sandbox',
    topic: 'How coverage reads as JUnit XML (no standard for behaviour coverage)',
    decision:
      'testsuites > one testsuite per documented operation (properties interface, operation, since, hits) > one testcase per outcome, classname <interface>.<operation>, name "<id> (<status>): <sentence>"; an outcome never answered is skipped, an answered one passes with its hits in system-out; never failures or errors; timestamps UTC without zone, as the common schema writes them',
    reason: 'CI dashboards show skipped tests as to-do, which is what an uncovered behaviour is; a red build for missing coverage is the user\'s choice, not the sandbox\'s',
  },
  {
    id: 'near-miss',
    interface: 'sandbox',
    topic: 'What a request that reaches no documented operation is told (the real services answer their own 404s)',
    decision:
      'a 501 under an interface prefix names, in its message and in a nearest field {operation, method, path, differences}, the documented operation of that interface nearest by edit distance over path segments (a {parameter} takes any non-empty segment, a literal costs its character distance, a different method half a segment) and each difference; a 404 outside the prefixes does the same when some documented operation is within 1.5 segments (a version or prefix typo); the journal keeps the body. A 401 or 403 names the credential looked for and where (the Authorization header, the body field token) and the fixture it is checked against, never the value sent',
    reason: 'a client author fixes "payments" for "payment" or v1 for v1.0 in seconds when told; a value echoed back could be a secret',
  },
  {
    id: 'workspace-prefix',
    interface: 'sandbox',
    topic: 'Several isolated sandboxes in one process, for parallel test workers (the real services have one)',
    decision:
      'a base URL ending in /ws/{name} reaches workspace {name}: every interface path and the whole control plane (/_sandbox/reset, clock, faults, requests, snapshots, inspection, ui) act on it alone; its journal paths, fault path patterns and error messages are relative to that base URL (no /ws/{name} in them); paths without the prefix reach the workspace "default", as does /ws/default; prefixes do not nest (a 404); /_sandbox/workspaces itself is server-wide and answers only without a prefix',
    reason: 'every interface path of the specification is relative to {base_url}, so a client needs only another base URL, and its assertions hold unchanged in any workspace',
  },
  {
    id: 'workspace-names',
    interface: 'sandbox',
    topic: 'What a workspace may be called',
    decision: `${WORKSPACE_NAME_RULE}; anything else after /ws/ is a 400 naming the rule (in the interface's error shape when the rest of the path is under an interface prefix)`,
    reason: 'names become file names and path segments; a worker id (w3, gw0, worker-12) always fits',
  },
  {
    id: 'workspace-lifecycle',
    interface: 'sandbox',
    topic: 'When a workspace exists',
    decision:
      'created on first use by any call that reads its state (an interface call or a control call; not /docs, /openapi.json or the inspector\'s static files) with the start-up fixtures, or by POST /_sandbox/workspaces {"name","fixtures"} (201; an existing name is a 409); under SANDBOX_ADMIN_TOKEN only a request carrying the key creates one (workspace-locked); reset with "default" in a workspace loads the fixtures it was created with (kept, with its creation time, through resets and restarts); DELETE /_sandbox/workspaces/{name} drops it with its snapshots and file (workspace-removal); "default" cannot be deleted (a 400: reset it)',
    reason: 'a worker only picks its name; a suite that wants its own fixtures creates the workspace with them once and resets back to them',
  },
  {
    id: 'workspace-created-header',
    interface: 'sandbox',
    topic: 'How a client notices that its request created a workspace (a mistyped name)',
    decision:
      'an answer from a workspace that this very request created on first use carries Sandbox-Workspace-Created: {name}, whatever its status, and the sandbox logs "workspace \'{name}\' created by {method} {path}" (info; no query string); when an existing workspace\'s name is near the new one (edit distance 1 for names of 3 or 4 characters, up to 2 from 5 characters; names that differ only in their digits, such as w1 and w2 or gw0 and gw1, are a series of workers, never near), the answer also carries Sandbox-Workspace-Similar: {near name} and a warning is logged ("did you mean ...?"); POST /_sandbox/workspaces answers 201 and carries only Sandbox-Workspace-Similar; a workspace a file-backed sandbox kept from an earlier run but did not open at start (over the limit then) is not created by the request that opens it: its answer carries neither header, the log says "workspace \'{name}\' reopened from its file by {method} {path}", and POST /_sandbox/workspaces for it is the 409 of an existing workspace (its data kept, the fixtures sent not loaded); a proxied answer (proxy-scope) passes unchanged, without either; neither changes the answer otherwise',
    reason:
      'a mistyped workspace name otherwise silently creates a new, empty (and, file-backed, permanent) workspace whose empty answers look like a sandbox bug; a header is seen by the client and its logs without changing what the interface answers',
  },
  {
    id: 'workspace-locked',
    interface: 'sandbox',
    topic: 'Who may create a workspace when the control plane is locked (SANDBOX_ADMIN_TOKEN set)',
    decision:
      'only a request carrying Sandbox-Admin-Token: POST /_sandbox/workspaces, or any call under /ws/{name} that sends the header; without it, a base URL /ws/{name} of a workspace that does not exist reaches nothing: under an interface path that interface\'s documented 400 in its error shape (receivables code WorkspaceNotFound) saying how to create it, as for workspace-limit, since an interface answers only the statuses it documents; under /_sandbox the control plane\'s 401; elsewhere a 404. A workspace that exists answers its interfaces to anyone, as "default" does',
    reason:
      'a locked sandbox must not let an anonymous client fill it up to SANDBOX_MAX_WORKSPACES and lock its users out with 429s; no interface documents an answer for a base URL that is not one',
  },
  {
    id: 'workspace-removal',
    interface: 'sandbox',
    topic: 'Requests to a workspace while DELETE /_sandbox/workspaces/{name} removes it',
    decision:
      'the removal waits for the requests in flight in that workspace (at most 5 s, then closes it under them) and answers once its state and files are gone; its waits and long polls (POST /_sandbox/wait, GET /_sandbox/events?wait=) are answered at once with the 409 below instead of holding the removal; a mapping\'s answer still in its fixedDelayMilliseconds is woken as the removal starts and refused as below (what it rendered is not sent); a request that reaches it meanwhile, or one still in flight after the wait, is refused: under an interface path with that interface\'s 400 in its error shape (receivables code WorkspaceRemoved), on the control plane with a 409, outside every prefix (where mappings answer) with a 400 in the standard shape, each saying the workspace is being removed; a request after the removal answered starts a new workspace of that name, whose files the removal never touches (they are renamed away before being deleted, and the name is free only after)',
    reason: 'an acknowledged write must never vanish with a workspace created after it, and a request must be refused, never failed, when its state goes away',
  },
  {
    id: 'control-plane-key',
    interface: 'sandbox',
    topic: 'Who may use the control plane, and what an empty setting means',
    decision:
      'unset SANDBOX_ADMIN_TOKEN: the control plane is open to whoever reaches the port (the image listens on every interface); set: every /_sandbox call but the inspector\'s static files needs the Sandbox-Admin-Token header (401, whose message tells a missing header from an empty one and from another value, never echoing it) and only a request carrying it creates a workspace; SANDBOX_ADMIN_TOKEN, HOST, PORT, SANDBOX_DB or SANDBOX_FIXTURES set but empty (or blank) is refused at start with a message saying what it would have meant (exit 2), as are --host \'\', --port \'\', --db \'\', --fixtures \'\' and buildApp({ adminToken: \'\' }); no fixtures is written --fixtures none',
    reason: 'an empty variable (a compose file\'s unset ${TOKEN}) would otherwise silently mean an open control plane, listening on every interface or on a random port, a temporary database whose data is gone at restart, or a start without the demo fixtures',
  },
  {
    id: 'workspace-isolation',
    interface: 'sandbox',
    topic: 'What workspaces share',
    decision:
      'nothing of their state: each has its own data (tokens of one are unknown in another), journal, clock, fault rules, key sequence, snapshots and client coverage (GET /ws/{name}/_sandbox/coverage counts that workspace\'s answers only); a new workspace starts its key sequence from the sandbox\'s seed as a new sandbox does; the sandbox\'s settings (strict mode, journal size, body limit, admin token) hold for all',
    reason: 'each worker must get exactly what a sandbox of its own would answer',
  },
  {
    id: 'workspace-limit',
    interface: 'sandbox',
    topic: 'How many workspaces one sandbox holds',
    decision:
      'SANDBOX_MAX_WORKSPACES (default 256) besides "default"; creating one more is a 429 on the control plane, and under an interface path (where 429 is not documented) that interface\'s 400, both naming the limit and how to free one',
    reason: 'memory stays bounded, and the caller learns why instead of seeing the sandbox slow down',
  },
  {
    id: 'workspace-eviction',
    interface: 'sandbox',
    topic: 'Abandoned workspaces',
    decision:
      'with an in-memory database, a workspace unused for SANDBOX_WORKSPACE_IDLE (default 60m; 0 never) and answering no request is removed, with a log line; its next use creates it again with the start-up fixtures; "default" and workspaces in database files are never evicted',
    reason: 'a crashed CI worker must not hold memory forever, and an hour idle is longer than any test run',
  },
  {
    id: 'workspace-storage',
    interface: 'sandbox',
    topic: 'Where a workspace keeps its state',
    decision:
      'with a database file, workspace {name} is the SQLite file {file without extension}.ws-{name}.db beside it, reopened at start (up to the limit; one over it is opened, with its data, by its first use once a place is free); with :memory:, in memory; a database file is served by one process at a time: a second server started on it refuses to start (exit 1), naming the file and its lock {file}.lock, which the first holds while it runs',
    reason: 'a persisted sandbox keeps every workspace across restarts, and deleting one file removes one workspace; two processes on one file would each answer from their own view of it (caches, snapshots, the work runner)',
  },
  {
    id: 'event-feed',
    interface: 'sandbox',
    topic: 'Notifications: the specification says results come "by queries or notifications" and shows no notification',
    decision:
      'the sandbox sends its own events, not the platform\'s: every state change that committed (a payment, each registered or reconciled registry document, an import received, processed or rejected, each loan-bond record registered and processed, a reset, fixtures loaded, a clock move, a snapshot restored) is one CloudEvents 1.0 event of its workspace (source /ws/{name}, time on the sandbox clock, types in docs/events.md); a refused request emits nothing; GET /_sandbox/events is a long poll (wait up to 120s, answered in the turn the event is emitted); the feed keeps SANDBOX_EVENTS_SIZE events (default 1000) in memory, is emptied by a reset (whose own event comes first after it) and starts again from id 1 with the process; an `after` never issued is a 400; a type filter (the feed\'s, a wait\'s, a subscription\'s) takes by one rule a type, or its beginning followed by one * (* alone: every type), and refuses any other pattern with a 400 naming the field',
    reason: 'a test waits on results without sleeping, and no payload is invented for the real service: a user who knows it shapes one with a subscription\'s template',
  },
  {
    id: 'waits',
    interface: 'sandbox',
    topic: 'Waiting for an asynchronous result (the specification leaves clients to poll)',
    decision:
      'POST /_sandbox/wait holds on an event filter or on an inspection view (a GET path under /_sandbox, a JSONPath and optionally the value it must select), read again after every event of the workspace; the timeout (default 5s, at most 120s, real time) answers 200 with held false, a sentence of what it saw instead, and the events that came or the view as last read; when the sandbox stops (SIGTERM, SIGINT, close()), every open wait and long poll (GET /_sandbox/events?wait=) is answered at once with a 503 saying the sandbox is closing, and kept-alive connections are closed once their answers are sent, so the process exits 0 in well under its one second for requests in flight',
    reason: 'a wait that fails must say why, and a wait that holds must answer at once, not on the next tick of a poll',
  },
  {
    id: 'verifications',
    interface: 'sandbox',
    topic: 'Checking what a client sent',
    decision:
      'GET /_sandbox/requests/count counts the journal\'s entries by its filters, the method and a JSONPath condition on the journaled (redacted) body, checked for syntax first (a 400 naming /jsonpath and the problem, at most 1000 characters; jsonpath-plus reads $[ as the root) and evaluated by jsonpath-plus; a filter at the root applies to the body itself, as WireMock reads it; equals is JSON when it parses as JSON, else text, and compares JSON numbers by their exact decimal value, here and in a wait (10.00 equals 10 and 1E+1; 12345678901234567890 is not 12345678901234567891, though a wait\'s JSON body refuses a number a double would change, as exact-numbers says), a miss quoting the values as sent (selects [10.00], not 10.5); a filter\'s =~ reads a number as stub-format says; closest=N adds the nearest misses with what each missed; counts see only what the journal holds (dropped says how much it overwrote); an operation filter that is no id of GET /_sandbox/operations (documented or named only), here and in GET /_sandbox/requests, or a method that is no HTTP method Node reads (any case), is a 400 naming /operation or /method with the nearest valid value, never a count of 0 that a check of none would pass',
    reason: 'a test asserts on its client\'s requests with the same filters it reads the journal with, and a redacted secret can never be probed by a condition',
  },
  {
    id: 'webhook-deliveries',
    interface: 'sandbox',
    topic: 'How notifications would be delivered (not shown)',
    decision:
      'per the Standard Webhooks specification: a POST of the CloudEvent in structured mode (application/cloudevents+json), or of what the subscription\'s template renders (webhook-template), headers webhook-id (msg_{subscription}_{event}, the same on every attempt), webhook-timestamp (real time, so a receiver\'s replay window holds when the sandbox clock is moved) and webhook-signature (v1, HMAC-SHA256 by the standardwebhooks library); a 2xx whose status comes within the timeout (default 5s) is delivered, its body read for the delivery log until it ends or the timeout cuts it off (responseCutOff: true, the start kept), anything else fails and is retried on the sandbox clock after 5s, 5m, 30m, 2h, 5h, 10h, 10h (configurable); redirects are not followed; one request at a time per subscription, in event order; a manual redelivery is not retried; subscriptions and their logs (last 1000 messages) live in memory, outlive a reset and go with the workspace; at most 100 per workspace; the URL is called as written, so one the URL parser would mend (a space, CR or LF, a non-ASCII character, a backslash, a bad percent escape) is a 400 naming /url; a secret is never shown back, logged or journaled (a generated one is answered once, at creation)',
    reason: 'receivers built on a Standard Webhooks library verify the sandbox\'s messages as they would any provider\'s, and a test drives retries by moving the clock instead of waiting hours',
  },
  {
    id: 'webhook-template',
    interface: 'sandbox',
    topic: 'The payload of a notification shaped by its subscription (the platform\'s payloads are not in the specification)',
    decision:
      'a subscription\'s template is a Handlebars template rendered over {event} (the CloudEvent) with the helpers of the user-defined operations, inspect included, when the event is emitted (inspect reads the state the event left); {{ }} escapes HTML as WireMock\'s does, toJson writes a value as JSON; the result must be JSON and is sent as rendered, as application/json, signed like any message; a template that does not parse is a 400 at /template; one that fails on an event, or renders no JSON, fails that delivery at once, without an attempt, with its error, and it cannot be redelivered (409)',
    reason: 'a user who knows the real payload tests the receiver they will run in production; a failure named on the delivery is found where the receiver\'s messages are looked for',
  },
  {
    id: 'webhook-faults',
    interface: 'sandbox',
    topic: 'Delivery faults a receiver must survive',
    decision:
      'per subscription, all off by default: duplicate (every message sent twice, same webhook-id), delay (a wait on the sandbox clock before the first attempt), outOfOrder (messages that come due together, the events of one request or those held by a delay, go out newest first), failFirst N (the first N attempts of every message are sent and then counted failed whatever the answer, so the retries come); PUT /_sandbox/subscriptions/{id}/faults switches them for messages that come due later',
    reason: 'these are what real providers do to receivers; a failed attempt that still reached the receiver is the case an idempotent receiver exists for',
  },
  {
    id: 'work-delay',
    interface: 'sandbox',
    topic: 'How long asynchronous processing takes (CNAB imports, loan-bond batches: "processed asynchronously", no time given)',
    decision:
      'it starts once the sandbox clock has moved SANDBOX_WORK_DELAY (default 1s; 0: on the next turn of the event loop) past the request that stored it: by itself on a running clock, on the clock move that gets there on a frozen one; work stored in the meantime runs in the same run; POST /_sandbox/work/run runs everything pending at once; work a restart or a restored snapshot finds pending runs at once; held processing (POST /_sandbox/work) runs nothing, and its release runs what came due meanwhile, while work not yet due waits for its delay as if never held',
    reason: 'a client that reads a result right after submitting must see it pending, as it would in production, and a test waits for the result (events, waits) or moves the clock instead of sleeping',
  },
  {
    id: 'stub-format',
    interface: 'sandbox',
    topic: 'User-defined operations: how the operations the specification names only can be given a contract (the real service has its own)',
    decision:
      "WireMock's JSON mapping format, the subset listed in docs/stubs.md: request method, url, urlPath, urlPattern, urlPathPattern, urlPathTemplate with pathParameters, queryParameters, headers and bodyPatterns (equalTo, contains, doesNotContain, matches, doesNotMatch, absent, equalToJson with ignoreArrayOrder, ignoreExtraElements and JsonUnit placeholders, matchesJsonPath, and, or, not, hasExactly, includes), priority, scenarios; response status (a final one, 200 to 599: a 1xx is an interim answer after which the client would wait forever, and is refused), statusMessage and header values holding only what RFC 9112 lets a head carry (HTAB, SP, visible ASCII and obs-text U+0080 to U+00FF, sent as Latin-1 bytes; a control character or a character above U+00FF is refused, and an empty Content-Type), body, jsonBody (sent as compact JSON), base64Body, bodyFileName (folder mappings), fixedDelayMilliseconds, and Handlebars templates with the response-template transformer and WireMock's request model and helpers; regular expressions match the whole value and are read by RE2 (re2js: time linear in the input, so that no pattern can hold the sandbox; Java's syntax for classes, groups, quantifiers, anchors and inline flags such as (?i), without backreferences or lookaround, which are refused with RE2's reason), in matchers, JsonUnit's regex placeholder and the regexExtract and matches helpers alike; JSONPath is read by jsonpath-plus with its safe evaluator, with Jayway's .size() translated and =~ matched as Jayway matches it (the whole value; a boolean as its text; a number as the text Java gives the value Jayway read from what the client wrote, json-smart reading an integer as its digits, a decimal of at most 18 characters as a double and a longer one as a BigDecimal: 10.00 as 10.0, 1500.50 as 1500.5, 10 as 10, 1E+1 as 10.0, 1e7 as 1.0E+7, in a mapping, a count and a wait alike; flags i, m and s) by RE2; a name jsonpath-plus would read as one of its own operators (after a dot, one holding @ ^ ~ ` $ , ; % or *; quoted, one holding @ ^ ` , ; % ] or a quote, or that is $, *, .. or ~) is refused with its reason, here and in a count or a wait, since it would select something else than Jayway selects; a filter script that could hold the sandbox (a JavaScript regular expression literal, a call of match, matchAll, search, repeat, padStart or padEnd, or of a method named by a computed value) is refused with its reason; a url, urlPath or urlPathTemplate holding a space, a control character, \"#\" or a character outside ASCII is refused with its percent-encoded form (it is compared with the URL as clients send it, which never holds one, so it could never match); the answer carries the mapping's headers only, plus Matched-Stub-Id and Matched-Stub-Name as WireMock sends them (the name as Jetty writes it: a Latin-1 character as its byte, any other character a head cannot carry as a space); a --stubs file may start with a UTF-8 byte order mark, as WireMock reads it, and one that is not JSON names its line and column; a header the server writes from the body and the connection (Content-Length, Transfer-Encoding, and the hop-by-hop Connection, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade) is refused, since a second framing makes clients refuse the answer; a feature outside the subset, or any other problem, is a 400 naming each by its JSON pointer",
    reason:
      'integrators already write WireMock mappings and many tools export them; refusing what is not read says so instead of answering otherwise than WireMock would',
  },
  {
    id: 'stub-ownership',
    interface: 'sandbox',
    topic: 'Which requests a user-defined operation may answer',
    decision:
      'only requests no documented operation owns (its method and path template, where a {parameter} never takes a word another documented path has at that place, as ".../extract"); a mapping whose method and URL can match only a documented operation is a 400 naming that operation; one that could also match other requests (another method, a template or a regular expression that is not a literal path) is accepted and gets only those; outside every prefix a mapping answers what would be a 404',
    reason: 'the sandbox keeps emulating what the specification documents; a mapping that never answered would mislead its author',
  },
  {
    id: 'stub-scope',
    interface: 'sandbox',
    topic: 'Where user-defined operations live and how long',
    decision:
      'the mappings of --stubs DIR (SANDBOX_STUBS; WireMock\'s mappings/ and __files/ layout, or a folder of mapping files) answer in every workspace and are kept by reset; mappings added by POST /_sandbox/stubs belong to their workspace, are held in its database (so snapshots hold them and a database file keeps them) and are removed by reset; they are tried by priority (1 first, default 5), then the one added last first, folder mappings being older than any added; adding a mapping with an id already added replaces it',
    reason: 'a suite loads its contract once from files and adds per-test variations; the order is WireMock\'s',
  },
  {
    id: 'stub-scenarios',
    interface: 'sandbox',
    topic: 'The state of WireMock scenarios',
    decision:
      'per workspace, in its database: every scenario starts in "Started" and moves when a mapping with newScenarioState answers; reset puts every scenario back, a snapshot holds and restores their states; GET /_sandbox/scenarios, PUT /_sandbox/scenarios/{name}/state and POST /_sandbox/scenarios/reset as WireMock\'s admin calls',
    reason: 'scenarios are how WireMock users model simple state, and a workspace must not see another\'s',
  },
  {
    id: 'stub-unmatched',
    interface: 'sandbox',
    topic: 'A request no documented operation owns and no mapping matches',
    decision:
      'the usual 501 under an interface prefix (404 outside), plus nearestStub {id, name, differences}: the mapping closest to the request (method, URL, each query parameter, header and body pattern, scenario state) and every reason it did not match; a reason never quotes a body or a value selected in one, nor the value, sent or the mapping\'s, of a query parameter, header, path parameter or JSON field named like a secret (the journal\'s name rule): only the matcher\'s operator ("equalTo [redacted]")',
    reason: 'the author of a mapping fixes a typo in seconds when told which part did not match',
  },
  {
    id: 'stub-template-error',
    interface: 'sandbox',
    topic: 'A response template that fails while rendering (a helper given a bad value)',
    decision:
      "a 500 in the interface's error shape (the standard body outside the prefixes) naming the mapping and the failure: the helper, which argument and what is wrong with it, never the value it failed on (a template renders what a client sent: a password in a form, an API key in a header), or the header whose rendered value a head cannot carry (a character above U+00FF or a control character a client sent; the value is not quoted), or the render limit passed; the documented statuses of an interface bind its documented operations, not the answers a user defines",
    reason: 'a mapping is the user\'s own contract; hiding its fault behind another status would mislead',
  },
  {
    id: 'stub-records',
    interface: 'sandbox',
    topic: 'How the answers of user-defined operations are counted and shown',
    decision:
      'an answer given by a mapping is journaled with the mapping\'s id (journal field mapping) and, when the mapping implements a named-only operation (metadata.sandbox.operation), that operation\'s id; coverage lists every mapping as a user-defined operation with its hits; GET /_sandbox/operations shows a named-only operation with mappings as "stubbed", with them; answers of mappings carry no Sandbox-Outcome',
    reason: 'a user sees which of the operations their client crosses were answered by their own contract',
  },
  {
    id: 'template-render-limits',
    interface: 'sandbox',
    topic: 'How much work one render of a template may do (response templates and subscription payloads alike)',
    decision:
      'at most 100000 block iterations (#each, a list used as a block, arrayJoin as a block, over the whole render) and 16777216 characters (the text of each iteration as it ends, nested blocks counted at each level, the text join, arrayJoin and concat build, counted before they build it, and the whole text), counted as it renders, so it stops at the limit; passing either fails the render as every template error does, naming the limit (a mapping answers its 500, a subscription fails that delivery)',
    reason:
      'templates render on the event loop that serves every workspace: nested blocks within every other limit (range 0 10000 inside range 0 3000) would hold it for seconds and take a gigabyte; a real answer or payload is far below both',
  },
  {
    id: 'stub-limits',
    interface: 'sandbox',
    topic: 'How many user-defined operations a workspace holds, how deep their JSON is read, and how far the nearest one is looked for',
    decision:
      'a workspace holds at most 2000 mappings, the --stubs folder\'s included (POST /_sandbox/stubs adds at most 1000 at a time; one that would take the workspace past 2000 is a 409 naming the limit, a mapping replacing one of the same id adds none; a folder of more stops the start); a mapping nesting arrays and objects deeper than 64 levels, the mapping itself the first (in jsonBody, equalToJson, its text, or anywhere else), is a 400 naming the pointer of the first value too deep and the limit, and stops the start in a folder, naming the file; a client\'s body nested deeper than 64 levels is not read as JSON by equalToJson and matchesJsonPath (they do not match it, and the nearest mapping\'s reasons say so); the nearest mapping of a request none matches is looked for among the 50 nearest by method and URL, compared in full; GET /_sandbox/stubs answers pages (control-pages)',
    reason:
      'every request no mapping answers is compared with each mapping, which a workspace of thousands made a second\'s work that held every other request; recursive readers of JSON run out of stack a few thousand levels down, and no real mapping or body nests near 64',
  },
  {
    id: 'inspect-helper',
    interface: 'sandbox',
    topic: 'How a template reads the sandbox state',
    decision:
      'the helper inspect returns, as an object, what GET /_sandbox{path} answers in the same workspace (the path as after /_sandbox, query string allowed), null where that call answers 404; a path that is no inspection call, or a refused query, fails the template',
    reason: 'a user-defined query operation answers in the real shape, filled from what the client really did',
  },
  {
    id: 'proxy-scope',
    interface: 'sandbox',
    topic: 'Proxy mode: what goes to the real service',
    decision:
      '--upstream URL (SANDBOX_UPSTREAM) sends every request of every interface, and every request outside the prefixes that would be a 404, to URL + the path and query relative to the workspace\'s base URL; --upstream IFACE=URL (repeatable) one interface; documented and named-only operations alike, bypassing the emulation and the mappings of that interface; fault rules still apply first; hop-by-hop headers (RFC 9110) and the sandbox\'s own Sandbox-* headers are not forwarded, Host is the upstream\'s; the answer comes back unchanged (status, reason phrase, end-to-end headers in order and case, body bytes), with no Date of the sandbox\'s own (a full recording adds Sandbox-Recording, record-limit); only what Node cannot write is left out, and logged as a warning: a reason phrase with a control character (the status line then has none), a header Node would refuse, and a body on a 204, which HTTP does not allow (the client gets the 204 without it and without a Content-Length; the journal keeps the body, and the conformance report counts it against bk-payment-no-body)',
    reason: 'the client must see exactly what the real service answers, and the admin key must never reach it',
  },
  {
    id: 'proxy-upstream-failure',
    interface: 'sandbox',
    topic: 'An upstream that gives no answer (unreachable, refused, silent for 30 seconds), or one that cannot be passed on',
    decision:
      'the sandbox answers, naming the upstream and the cause: bookkeeping and registry their documented 500, receivables and loan-bond (no documented 5xx) a 400 in their error shape (receivables code UpstreamUnavailable), 502 outside the prefixes; so it answers too an upstream whose answer cannot be passed on (not HTTP, or a status under 100); an answer cut off midway cuts the client\'s connection, is journaled with the status sent and the body so far ending in "[truncated: the upstream\'s answer broke off after N bytes of its body; ...]", and logged as a warning; an upstream that answers, whatever its status (100 to 999), is passed through',
    reason: 'a client must never see from the sandbox a status the interface cannot send, nor mistake the upstream\'s silence for its own fault',
  },
  {
    id: 'record-format',
    interface: 'sandbox',
    topic: 'What --record DIR writes',
    decision:
      'each proxied exchange of a request no documented operation owns becomes a WireMock mapping in DIR/mappings/ (served again by --stubs DIR); request headers are not recorded; the URL is matched exactly, query parameters named like a secret by any value; a JSON body by equalToJson ignoring array order and extra elements, secrets (token, token_acesso, password, documento, conteudo, ...) replaced by ${json-unit.any-string}; a form by its other fields; any other body (it may be a document) is not matched; in the answer, secrets under those keys, headers named like a secret (Set-Cookie), secret query values of Location, Content-Location and Link, and secret fields of a form-encoded answer read "[redacted]"; each secret of the exchange (the request\'s and the answer\'s) is replaced wherever else it appears, as the journal replaces echoes, and a query value holding one is matched by a pattern; a compressed body is stored decompressed; identical requests with different answers become a scenario replaying them in order',
    reason: 'a recorded folder can be shared and committed with no secret in it, and replays what the homologation environment answered',
  },
  {
    id: 'record-limit',
    interface: 'sandbox',
    topic: 'How many mappings a recording holds',
    decision:
      'at most 2000, the most a workspace holds (stub-limits), counted as --stubs DIR counts them, an earlier session\'s in the folder included: a recording that reaches them records no new answer (a new request is not recorded, a recorded one keeps its last answer, repeating), and the proxy goes on answering; a warning is logged once, when the folder fills or at start when it is full already (naming how many must go when it holds more), and each later answer the recorder would have recorded carries Sandbox-Recording: full... after the upstream\'s headers; scenario states count one mapping each; a replay of a full folder leaves no room for POST /_sandbox/stubs',
    reason:
      'the documented replay (--stubs DIR) refuses a folder of more than 2000 mappings, so a recording that outgrew them could not be served; stopping keeps what was recorded servable, the proxy keeps the client\'s run going, and the header reaches a client that reads no server log',
  },
  {
    id: 'conformance-checks',
    interface: 'sandbox',
    topic: 'How the answers of the real service are judged (proxy mode)',
    decision:
      'each answer to a documented operation is checked, and each divergence cites what it contradicts: the status among the documented ones (specification; 404 on a payment also bk-unknown-uid, 403 on a loan-bond also lb-status-products), a JSON Content-Type (specification), the success body against the OpenAPI response schema (specification, or the assumption a field carries; a body on a payment: bk-payment-no-body), the error body (error-body; receivables: the documented envelope, and a code other than InvalidToken and ValidationError: rc-validation-error), the extract\'s default page and size (bk-page-base, bk-page-size), queries and bodies the sandbox refuses but the service accepted (bk-unknown-query, strict-fields, money-cents, registry-non-empty, lb-empty-batch, lb-required-fields, or the assumption the schema node carries), and the registry\'s bearer challenge (registry-bearer); the list is in docs/stubs.md',
    reason: 'a finding against an assumption tells the user which row of the table to distrust, and the sandbox which guess to revisit',
  },
  {
    id: 'conformance-scope',
    interface: 'sandbox',
    topic: 'What the conformance report holds and for how long',
    decision:
      'per workspace, in memory: per documented operation the exchanges proxied, how many conformed, and each distinct finding with its count, first and last time (sandbox clock) and one redacted example (secrets by name, and each secret of the exchange wherever the answer echoes it, as in the journal); a compressed answer is judged decoded; kept across reset and snapshot restore (the real service did answer so); DELETE /_sandbox/conformance starts it again',
    reason: 'a CI run resets between tests and reads the report at the end',
  },
] as const satisfies readonly Assumption[];
