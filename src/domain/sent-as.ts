// What a file that travels as base64 text inside JSON was sent as, when it was not the base64 of the
// file: the file's own text (PDF or CNAB), a data: URI, or the base64 of the base64 of the file. One
// judgement for every interface whose refusal explains it (loan-bond documento, receivables
// operationFile).
import { Buffer } from 'node:buffer';
import { isPdf } from './pdf.js';

const DATA_URI = /^\s*data:[^,]{0,200},/i;

/**
 * Whether text is a CNAB file itself rather than its base64: a first line 400 or 444 characters
 * long, or the header record's start ("0", a digit, "REMESSA"). Asked only once the text failed as
 * base64 or as the file it decodes to (CNAB text of letters, digits and spaces can pass for base64,
 * whose whitespace is ignored).
 */
export function looksLikeCnabText(text: string): boolean {
  if (/^0\dREMESSA/i.test(text)) return true;
  const end = text.slice(0, 446).search(/[\r\n]/);
  const first = end === -1 ? Math.min(text.length, 446) : end;
  return first === 400 || first === 444;
}

/** Whether text is a PDF itself: "%PDF-" and a version digit within its first 1024 characters. */
function looksLikePdfText(text: string): boolean {
  return isPdf(Buffer.from(text.slice(0, 1030), 'latin1'));
}

export type SentAs = 'pdf-text' | 'cnab-text' | 'data-uri';

/** What text refused as base64 is instead, when it can tell from its first characters. */
export function sentAs(text: string): SentAs | undefined {
  if (DATA_URI.test(text)) return 'data-uri';
  if (looksLikePdfText(text)) return 'pdf-text';
  if (looksLikeCnabText(text)) return 'cnab-text';
  return undefined;
}

/** The sentence a refusal adds for text that is not base64 (sentAs). */
export function sentAsHint(kind: SentAs): string {
  switch (kind) {
    case 'data-uri':
      return 'a data: URI is not accepted: send only the base64 text (what follows the comma)';
    case 'pdf-text':
      return 'this looks like PDF text, not base64; send the bytes of the file encoded as base64';
    case 'cnab-text':
      return 'this looks like CNAB text, not base64; send the bytes of the file encoded as base64';
  }
}

const BASE64_RUN = /^[A-Za-z0-9+/]+={0,2}/;

/**
 * When the first decoded bytes of a file are base64 text again, of a PDF or a CNAB file, the
 * sentence that says the file was base64-encoded twice; undefined otherwise. `head`: the first
 * decoded bytes (a kilobyte is plenty).
 */
export function encodedTwiceHint(head: Uint8Array): string | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1').replace(/[\r\n\t ]+/g, '');
  const run = BASE64_RUN.exec(text)?.[0] ?? '';
  const whole = run.slice(0, run.length - (run.length % 4));
  if (whole.length < 8) return undefined;
  const inner = Buffer.from(whole, 'base64');
  const kind = isPdf(inner) ? 'a PDF' : looksLikeCnabText(inner.toString('latin1')) ? 'a CNAB file' : undefined;
  if (kind === undefined) return undefined;
  return `the file is base64-encoded twice: its decoded bytes are base64 text again, which decodes to ${kind}; encode the file once`;
}
