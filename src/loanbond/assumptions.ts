import type { Assumption } from '../http/assumption-catalog.js';

/** Decisions of the loanbond interface where the specification is silent (docs/assumptions.md is written from this list). */
export const assumptions = [
  {
    id: 'lb-path',
    interface: 'loanbond',
    topic: 'The path of the registration is written "api/service/document/registrar", without the leading slash every other path has',
    decision:
      "read relative to the root of the base URL, as every other path: POST {base_url}/api/service/document/registrar (in a workspace, /ws/{name}/api/service/document/registrar); the interface's prefix is /api/service/document, so any other path under it is a 501",
    reason:
      'the specification makes every path relative to {base_url}; the missing slash is the only difference from the other paths, and no other reading names a path',
  },
  {
    id: 'lb-required-fields',
    interface: 'loanbond',
    topic: 'Which loan-bond fields are required',
    decision:
      "required: versao, token, registros, each record's documento and each additional document's conteudo; every other field may be left out; no lengths are enforced on strings",
    reason:
      'the tables show no required-ness or lengths; a record without its document or an additional document without content cannot be registered',
  },
  {
    id: 'lb-empty-batch',
    interface: 'loanbond',
    topic: 'Whether registros may be empty',
    decision: 'registros must hold 1 to 50 records; an empty list is a 400',
    reason: 'only the maximum (50) is documented; registering nothing is a client bug',
  },
  {
    id: 'lb-string-formats',
    interface: 'loanbond',
    topic: 'Formats of the loan-bond string fields (versao, dates, e-mails, CEP, telephone, IP)',
    decision:
      'accepted as free text, versao included (versions 1.0 and 2.0 are only named); only uf is checked (two letters A-Z, either case, not matched against the list of states)',
    reason: 'the specification says date and time formats are not shown; uf is documented as two letters',
  },
  {
    id: 'lb-tax-ids',
    interface: 'loanbond',
    topic: 'Whether cpf_cnpj of signers and signatures is checked',
    decision:
      'check digits are checked (CPF or CNPJ, bare or in its mask: tax-id-forms); a bad one is a warning shown by inspection, or a 400 with its pointer when the sandbox runs with --strict or the request sends Sandbox-Strict: true',
    reason: 'the field is documented only as a string; a real registry will hardly accept a wrong CPF',
  },
  {
    id: 'lb-status-products',
    interface: 'loanbond',
    topic: 'The status of a caller lacking the electronic-signature or digital loan-bond product (rules 1-2)',
    decision: '401, with a message naming the missing product and the rule',
    reason: '401 "not authorized" is the only documented refusal besides 400, which is validation',
  },
  {
    id: 'lb-check-order',
    interface: 'loanbond',
    topic: 'The order in which the loan-bond checks run',
    decision:
      'body (JSON, size: read as a stream, so a malformed body is answered once it is read to its end, and one over the limit at once) -> 400; more than 50 records -> 400 naming rule 6 alone; every field type -> 400, one detail per problem (in strict mode with the cpf_cnpj check digits beside them, lb-tax-ids, and, when the token is the token of a known caller holding both products, every bad file beside them, except a file whose own field the schema refused); then the token, missing or unknown -> 401 (a missing token is named in the 400 instead when a field or the Sandbox-Strict header is refused); then products (rules 1-2) -> 401; then every file (base64, rule 5 size, rule 4 PDF, rule 3 encryption) -> 400 with one detail per bad file',
    reason:
      'the token travels inside the body, so the body is read first; files are checked only for a known caller',
  },
  {
    id: 'lb-batch-atomic',
    interface: 'loanbond',
    topic: 'What happens to a batch with one bad record (the 201 answers per record, in registros)',
    decision:
      'a batch is all or nothing: one refused record (a bad file under rules 3-5, a field, a cpf_cnpj in strict mode) refuses the whole request with every problem named, and nothing of it is stored, neither records nor files; a 201 registers every record sent',
    reason:
      'partial acceptance is not shown, and a response item carries no field that could say a record was refused; as the registry (registry-batch-atomic)',
  },
  {
    id: 'lb-file-base64',
    interface: 'loanbond',
    topic: 'How documento and conteudo carry the file',
    decision:
      'standard base64 of the file bytes (padding required, whitespace ignored, URL-safe refused); rules 3-5 apply to the decoded bytes; 15 MB is 15 000 000 bytes; a refusal says what the text was instead when it can tell (the same judgement as import-cnab\'s, domain/sent-as.ts): PDF text rather than its base64, a data: URI (not accepted: only the base64 text after the comma), or a file base64-encoded twice (its decoded bytes are the base64 of a PDF)',
    reason:
      'the specification says "document content" in a JSON string; decimal megabytes are the stricter reading',
  },
  {
    id: 'lb-rule7-scope',
    interface: 'loanbond',
    topic: 'Which signatures rule 7 covers',
    decision:
      'when assinado is not true (false or left out), the assinaturas of the record and of its additional documents are validated but not stored; inspection shows how many were sent and that they were not imported',
    reason:
      'rule 7 says signature data is imported only when assinado is true; additional documents belong to the record',
  },
  {
    id: 'lb-signature-pin',
    interface: 'loanbond',
    topic: 'What is kept of assinatura_eletronica.pin when signatures are imported (rule 7 says they are imported, not how)',
    decision:
      'never the PIN: an imported signature is kept as sent except its pin, stored and shown by inspection as "[not stored]" (the one value inspection shows that the client did not send: it says a PIN was sent); the journal redacts it as every secret (journal-scope); a signature not imported (lb-rule7-scope) keeps nothing',
    reason: "a PIN is the signer's secret; a test needs only to see that one was sent, and a sandbox database is no place for it",
  },
  {
    id: 'lb-response-keys',
    interface: 'loanbond',
    topic: 'The formats of codigo, mensagem, codigo_identificador, chave_registro and token_acesso',
    decision:
      'codigo is the batch key (LBB-...), mensagem says how many records were registered, codigo_identificador LB-..., chave_registro LBK-..., token_acesso 43 random base64url characters; the sandbox keeps only a hash of token_acesso',
    reason: 'the specification shows only that they are strings; token_acesso is a secret',
  },
  {
    id: 'lb-flow-states',
    interface: 'loanbond',
    topic: 'The states of a registration and the end-of-flow notification',
    decision:
      'registered, then (asynchronously) signatures-complete when assinado is true or signatures-pending otherwise; at signatures-complete the emails_final_fluxo addresses are recorded as "would notify", nothing is sent; pending stays pending (signing is not emulated)',
    reason: 'registration is documented as asynchronous; the states and the notification shape are not shown',
  },
  {
    id: 'lb-document-store',
    interface: 'loanbond',
    topic: 'How registered files are kept',
    decision:
      'each distinct file is stored once, by SHA-256 and size, as a file beside the database (<db>-documents/; for :memory:, a folder under the system temp folder, removed when the sandbox or workspace closes, or by the next in-memory sandbox started there if the process was killed); records refer to it; a file goes once no record of the state or of any snapshot refers to it (reset, restore, a snapshot deleted); a workspace removed takes its folder',
    reason:
      'a batch may repeat the same PDF; 750 MB of PDFs belong neither in the JavaScript heap nor in SQLite pages; inspection shows name, size and hash, never the bytes',
  },
  {
    id: 'lb-body-limit',
    interface: 'loanbond',
    topic: 'The largest registration body, and how additional documents count (the specification bounds records, 50, and files, 15 MB, but not documentos_adicionais)',
    decision:
      'SANDBOX_LOANBOND_BODY_LIMIT, default 1 069 408 816 bytes: 50 files of the longest text of a 15 MB file (base64: 4 x 5 000 000 = 20 000 000 characters, plus a MIME line break written \\r\\n every 76 characters, 263 158 x 4 bytes: 21 052 632 bytes) plus 16 MiB (16 777 216 bytes) for every other field; additional documents count against the same 50 files; the fields besides documento and conteudo may take at most 16 MiB (a 400 at once beyond); the body is read as a stream, files decoded and checked as they arrive',
    reason:
      'the documented maximum batch is 50 records of one 15 MB PDF each; a limit must be finite, and counting every file against that batch keeps the largest documented request accepted while a request of more files than that is refused plainly',
  },

  {
    id: 'lb-pdf-detection',
    interface: 'loanbond',
    topic: 'How "PDF only" (rule 4) and "not encrypted or password-protected" (rule 3) are decided',
    decision:
      'a PDF is a file whose %PDF- lies within its first 1024 bytes (starting at byte offset 1019 at the latest, so that it ends by byte 1024, as pdf.js looks for it), followed by a version digit; a refusal says where it looked, or at which offset a later header starts and ends; it is encrypted when a trailer dictionary, or a cross-reference stream dictionary (/Type /XRef), of any revision has an /Encrypt entry whose value is not null (an indirect reference n g R is resolved: to an object defined as null or empty, or to no object defined at the top level of the file, it is null, ISO 32000-1 7.3.10, as qpdf reads it; the encryption dictionary may not sit in an object stream, 7.5.7; the latest definition wins, and where part of the file could not be read as objects a reference counts as a value); names are compared decoded (/Encr#79pt is /Encrypt), and strings, comments and stream data are skipped, so a PDF that only mentions /Encrypt in its text is not encrypted; a damaged file is read as pdf.js and qpdf recover it: a stream whose /Length does not end at endstream ends at the first endstream after its start, and when a string or stream is still open at the end of the file, the dictionaries after the keywords trailer and n g obj inside it count too',
    reason:
      'ISO 32000-1 marks an encrypted file, owner password included, by that entry (7.5.5, 7.5.8, 7.6.1), and neither dictionary may be compressed; any revision counts, because an incremental update of an encrypted file stays encrypted',
  },
  {
    id: 'lb-pdf-damaged-syntax',
    interface: 'loanbond',
    topic: 'How rule 3 reads a PDF whose syntax is damaged (a stray ")", a string, dictionary or array left open)',
    decision:
      'a syntax error before a trailer does not hide it, as it does not from qpdf, which goes to each object and trailer by its offset: a ")" outside a string is a token of its own (ISO 32000-1 7.2.2), read as null as qpdf reads a bad token, never the start of the keyword or object header glued after it; a "]" or ">>" that does not match the innermost open container is such a token too, and the container stays open; endobj, trailer, xref, startxref and an object header n g obj close every dictionary and array left open, each judged as it stands; a hexadecimal string ends at its first byte that is neither a hexadecimal digit nor white space (7.3.4.3); a line inside a literal or hexadecimal string that starts (after white space) with one of those keywords or an object header ends the string there and is read as the structure, as qpdf reads a file it must rebuild by lines, while the same text in the middle of a line stays string text; after a broken hexadecimal string, or a broken literal string that no stray ")" closes further on (a string left open to the end of the file), an /Encrypt reference to an object not known to be defined counts as a value',
    reason:
      'an unbalanced "(" (a ":-(" in a title) or a stray ")" leaves a file that readers open, and that is encrypted if its trailer says so; a reader of the bytes in order has only the keywords that stand between objects to find its way back, and a well-formed file never starts a line inside a string with one of them; where objects may have been read as string text, the file is judged encrypted rather than guessed plain, as for a string left open',
  },
  {
    id: 'lb-pdf-containers',
    interface: 'loanbond',
    topic: 'A file that holds a PDF (a stored ZIP, a CMS / PKCS#7 signed envelope) passes the %PDF- test',
    decision:
      'rule 4 also refuses a file whose bytes before its %PDF- header start with a container signature (ZIP, CMS / PKCS#7 in DER or PEM, OLE, tar, RAR), or that has bytes before the header and no %%EOF in its last 1024 bytes; a PDF whose header is at byte 0 never needs %%EOF, so trailing NULs, incremental updates, linearization and PDF 2.0 pass',
    reason:
      'a signed contract (.p7s) or a zipped PDF is not a PDF to a registry that files PDFs; leading junk a reader skips is still allowed, and real PDFs end with %%EOF',
  },
] as const satisfies readonly Assumption[];
