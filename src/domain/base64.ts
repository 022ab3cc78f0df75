// The platform's files travel as base64 text inside JSON, often tens of megabytes. Canonical text
// (no whitespace) is validated by one anchored character-class regex, which V8 runs natively and
// linearly (about 1 GB/s, twenty times a charCodeAt loop); anything else takes the exact scan, which
// also names the offending offset. Decoding is left to Buffer.

import { Buffer } from 'node:buffer';

export type Base64Decode = { ok: true; bytes: Buffer } | { ok: false; reason: string };

const INVALID = 0;
const DATA = 1;
const PAD = 2;
const SPACE = 3;

// Character classes for codes 0-127; anything above is invalid.
const CLASS = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') {
  CLASS[ch.charCodeAt(0)] = DATA;
}
CLASS['='.charCodeAt(0)] = PAD;
// ASCII whitespace is ignored anywhere, as .NET's Convert.FromBase64String does.
for (const ch of ' \t\r\n') CLASS[ch.charCodeAt(0)] = SPACE;

type Scan = { ok: true; decodedLength: number } | { ok: false; reason: string };

/** The common case: unbroken standard base64 with its padding. No backtracking beyond the last two. */
const CANONICAL = /^[A-Za-z0-9+/]*={0,2}$/;

function scan(text: string): Scan {
  if (text.length % 4 === 0 && CANONICAL.test(text)) {
    const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    return { ok: true, decodedLength: (text.length / 4) * 3 - pad };
  }
  return slowScan(text);
}

function slowScan(text: string): Scan {
  let count = 0;
  let pad = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? (CLASS[c] ?? INVALID) : INVALID;
    if (kind === SPACE) continue;
    if (kind === DATA) {
      if (pad > 0) return { ok: false, reason: problems.dataAfterPadding(i) };
      count++;
    } else if (kind === PAD) {
      if (++pad > 2) return { ok: false, reason: problems.tooMuchPadding(i) };
      count++;
    } else {
      return { ok: false, reason: problems.invalidCharacter(String.fromCodePoint(text.codePointAt(i) ?? c), i) };
    }
  }
  if (count % 4 !== 0) return { ok: false, reason: problems.length(count) };
  return { ok: true, decodedLength: (count / 4) * 3 - pad };
}

/** What is wrong with base64 text, said the same way whether it arrived whole or in pieces. */
const problems = {
  dataAfterPadding: (offset: number) => `base64 data after padding "=" at offset ${offset}`,
  tooMuchPadding: (offset: number) => `too much base64 padding "=" at offset ${offset}`,
  invalidCharacter: (ch: string, offset: number) =>
    `invalid base64 character ${JSON.stringify(ch)} at offset ${offset}${ch === '-' || ch === '_' ? ' (URL-safe base64 is not accepted)' : ''}`,
  length: (count: number) =>
    `base64 length without whitespace must be a multiple of 4 (padding with "=" is required); got ${count}`,
};

/**
 * Decodes standard base64 (A-Z a-z 0-9 + /, '=' padding required, ASCII whitespace ignored).
 * Empty text decodes to zero bytes; callers decide whether empty is allowed. Pass the length
 * base64DecodedLength returned for the same text to skip validating it a second time.
 */
export function decodeBase64(text: string, validatedLength?: number): Base64Decode {
  // A length from base64DecodedLength means the text was validated already: do not scan it twice.
  const checked: Scan = validatedLength === undefined ? scan(text) : { ok: true, decodedLength: validatedLength };
  if (!checked.ok) return checked;
  // Buffer skips whitespace itself, so no stripped copy of the text is ever made.
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== checked.decodedLength) {
    // Unreachable if scan and Buffer agree; refuse rather than return truncated bytes.
    return { ok: false, reason: 'base64 text could not be decoded' };
  }
  return { ok: true, bytes };
}

/** The exact decoded size without decoding, for size limits before allocation; undefined if invalid. */
export function base64DecodedLength(text: string): number | undefined {
  const checked = scan(text);
  return checked.ok ? checked.decodedLength : undefined;
}

const DATA_ONLY = /^[A-Za-z0-9+/]*$/;
/** The URL-safe alphabet's "-" and "_", which Buffer's decoder also accepts (for 62 and 63). */
const URL_SAFE_62 = 0x2d;
const URL_SAFE_63 = 0x5f;
const PAD_BYTE = 0x3d;

/**
 * Standard base64 that arrives in pieces (the content of a JSON string read as a stream), decoded as
 * it comes with the rules and messages of decodeBase64: offsets count UTF-16 code units of the whole
 * text, as they would in the string. Holds at most three characters between pieces. After `failed`
 * is set nothing more is decoded; `countOnly()` stops decoding but keeps checking and counting (the
 * caller knows enough of the bytes, yet the answer names the exact size or the first bad character).
 */
export class Base64Stream {
  private carry = '';
  private offset = 0;
  private count = 0;
  private pad = 0;
  private decoding = true;
  private problem: string | undefined;

  constructor(private readonly onBytes: (bytes: Buffer) => void) {}

  /** The first problem found so far, if any. */
  get failed(): string | undefined {
    return this.problem;
  }

  countOnly(): void {
    this.decoding = false;
  }

  /** Bytes of the text as UTF-8 (whole characters): `fast`, or else `slow`. */
  pushBytes(bytes: Buffer): void {
    if (!this.fast(bytes)) this.slow(bytes);
  }

  /**
   * The common case: bytes that are all base64 data characters (the last one or two may be the
   * text's padding), decoded at once. False when they are not (whitespace, padding elsewhere, another
   * character, or after a problem): hand them to `slow`.
   * Checked by what Buffer's decoder does with anything else: it skips a character outside its
   * alphabet and stops at "=", so the text gives fewer than three bytes per four characters; its
   * alphabet is the standard one plus the URL-safe "-" and "_", which are looked for in the bytes
   * (memchr). About a tenth of the decoding's cost, where encoding again to compare cost as much as
   * the decoding and a regular expression over the text ten times more (test/domain/base64.test.ts
   * tries every byte value in every position of a quad).
   */
  fast(bytes: Buffer): boolean {
    if (this.problem !== undefined || this.pad > 0) return false;
    if (bytes.length === 0) return true;
    if (bytes[bytes.length - 1] === PAD_BYTE) return this.fastPadded(bytes);
    if (bytes.indexOf(URL_SAFE_62) !== -1 || bytes.indexOf(URL_SAFE_63) !== -1) return false;
    // The characters carried from the last piece (at most three, all data) are completed into one quad
    // by the first bytes; the rest of the bytes' whole quads are read as one string of their own, so
    // that no copy of the piece joined to the carry is ever made.
    const lead = this.carry.length === 0 ? 0 : Math.min(bytes.length, 4 - this.carry.length);
    const head = lead === 0 ? '' : this.carry + bytes.toString('latin1', 0, lead);
    if (head.length > 0 && head.length < 4) {
      if (!DATA_ONLY.test(head)) return false;
      this.take(bytes.length, head);
      return true;
    }
    const whole = lead + (bytes.length - lead - ((bytes.length - lead) % 4));
    const body = bytes.toString('latin1', lead, whole);
    const size = (head.length / 4) * 3 + (body.length / 4) * 3;
    const decoded = Buffer.allocUnsafe(size);
    let written = head.length > 0 ? decoded.write(head, 0, 'base64') : 0;
    if (written * 4 !== head.length * 3) return false;
    written += decoded.write(body, written, 'base64');
    if (written !== size) return false;
    const rest = bytes.toString('latin1', whole);
    // The characters carried to the next piece (at most three) must be data characters too.
    if (rest.length > 0 && !DATA_ONLY.test(rest)) return false;
    this.take(bytes.length, rest);
    this.emit(decoded);
    return true;
  }

  /**
   * Bytes that end the text with its padding: the data characters before the last one or two "="
   * by `fast`, the padding by `slow` (nothing of it needs the JSON reader's checks). The last piece
   * of a file, up to a slice of the request (128 KiB), was otherwise read character by character:
   * 11 ms of a 50 x 1 MiB registration.
   */
  private fastPadded(bytes: Buffer): boolean {
    const last = bytes.length - 1;
    const data = last > 0 && bytes[last - 1] === PAD_BYTE ? last - 1 : last;
    // A third "=" is too much padding: the exact scan names it (checking it here by recursion
    // overflowed the stack on a slice of thousands of "=").
    if (data > 0 && bytes[data - 1] === PAD_BYTE) return false;
    if (!this.fast(bytes.subarray(0, data))) return false;
    this.slow(bytes.subarray(data));
    return true;
  }

  /** `length` bytes of data characters read, `carry` kept for the next piece. */
  private take(length: number, carry: string): void {
    this.offset += length;
    this.count += length;
    this.carry = carry;
  }

  /** Bytes `fast` refused, read character by character with the exact messages. */
  slow(bytes: Buffer): void {
    if (this.problem !== undefined || bytes.length === 0) return;
    this.chars(bytes.toString('utf8'));
  }

  /** Characters that came from a JSON escape sequence (\n, \u0041...). */
  pushText(text: string): void {
    if (this.problem !== undefined || text.length === 0) return;
    this.chars(text);
  }

  /** The decoded length, or the problem, once the text is complete. */
  end(): { ok: true; decodedLength: number } | { ok: false; reason: string } {
    if (this.problem === undefined && this.count % 4 !== 0) this.problem = problems.length(this.count);
    if (this.problem !== undefined) return { ok: false, reason: this.problem };
    if (this.pad > 0 && this.decoding) this.emit(Buffer.from(`${this.carry}${'='.repeat(this.pad)}`, 'base64'));
    this.carry = '';
    return { ok: true, decodedLength: (this.count / 4) * 3 - this.pad };
  }

  private chars(text: string): void {
    // Data characters are handed on in runs (slices), not one by one.
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const kind = c < 128 ? (CLASS[c] ?? INVALID) : INVALID;
      if (kind === DATA) {
        if (this.pad > 0) return this.fail(text.slice(start, i), problems.dataAfterPadding(this.offset));
        this.count++;
        this.offset++;
        continue;
      }
      this.data(text.slice(start, i));
      start = i + 1;
      if (kind === SPACE) {
        this.offset++;
      } else if (kind === PAD) {
        if (++this.pad > 2) return this.fail('', problems.tooMuchPadding(this.offset));
        this.count++;
        this.offset++;
      } else {
        return this.fail('', problems.invalidCharacter(String.fromCodePoint(text.codePointAt(i) ?? c), this.offset));
      }
    }
    this.data(text.slice(start));
  }

  private fail(run: string, reason: string): void {
    this.data(run);
    this.problem = reason;
  }

  /** Data characters, in order: decoded four at a time. */
  private data(text: string): void {
    if (!this.decoding) return;
    const all = this.carry + text;
    const whole = all.length - (all.length % 4);
    this.carry = all.slice(whole);
    if (whole > 0) this.emit(Buffer.from(whole === all.length ? all : all.slice(0, whole), 'base64'));
  }

  private emit(bytes: Buffer): void {
    if (this.decoding && bytes.length > 0) this.onBytes(bytes);
  }
}
