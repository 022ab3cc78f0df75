// Where bytes stop being UTF-8 (Unicode, table 3-7: well-formed byte sequences).
import { Buffer, isAscii, isUtf8 } from 'node:buffer';

/** How many bytes the UTF-8 character led by `c` has (0: not a lead byte). */
export function sequenceLength(c: number): number {
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return 2;
  if (c >= 0xe0 && c <= 0xef) return 3;
  if (c >= 0xf0 && c <= 0xf4) return 4;
  return 0;
}

/** The second byte's range after a lead byte (the rest are 80-BF): no overlong forms, no surrogates, nothing above U+10FFFF. */
function secondRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** The offset of the first byte that starts no well-formed UTF-8 character; bytes.length when all do. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(c);
    if (n === 0 || i + n > bytes.length) return i;
    const [lo, hi] = secondRange(c);
    const second = bytes[i + 1] as number;
    if (second < lo || second > hi) return i;
    for (let k = 2; k < n; k++) {
      const b = bytes[i + k] as number;
      if (b < 0x80 || b > 0xbf) return i;
    }
    i += n;
  }
  return bytes.length;
}

/** Where a byte is: offset from 0; line and column from 1, the column in characters. */
export interface Utf8Position {
  offset: number;
  line: number;
  column: number;
}

const LF = 0x0a;
/**
 * Line feeds found one indexOf call each before their spacing is judged: closer than DENSE_SPACING
 * bytes apart on average, the rest of the piece is read byte by byte (MIME base64's, every 77 bytes,
 * stay with indexOf).
 */
const DENSE_LINES = 64;
const DENSE_SPACING = 16;

/** Continuation bytes (10xxxxxx) in b[from, to): four at a time where the bytes are aligned. */
export function continuationBytes(b: Uint8Array, from: number, to: number): number {
  let count = 0;
  let i = from;
  const aligned = Math.min(to, i + ((4 - ((b.byteOffset + i) & 3)) & 3));
  for (; i < aligned; i++) if (((b[i] as number) & 0xc0) === 0x80) count++;
  const words = (to - i) >> 2;
  if (words > 0) {
    const w32 = new Uint32Array(b.buffer, b.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const w = w32[k] as number;
      // Bit 7 of each byte set and bit 6 clear, moved to bit 0 of each byte, then summed in the top byte.
      const x = (w & ~(w << 1) & 0x80808080) >>> 7;
      count += Math.imul(x, 0x01010101) >>> 24;
    }
    i += words * 4;
  }
  for (; i < to; i++) if (((b[i] as number) & 0xc0) === 0x80) count++;
  return count;
}

/**
 * The first byte of a text arriving in pieces that starts no well-formed UTF-8 character, with its
 * line and column, found as firstInvalidUtf8 finds it in the whole text (a character cut between two
 * pieces is judged whole). Holds at most three bytes between pieces.
 */
export class Utf8Check {
  private seen = 0;
  private line = 1;
  private lineStart = 0;
  /** Continuation bytes since the line began: the column counts characters. */
  private lineExtra = 0;
  private carry: Buffer | undefined;

  /** `from`: where the first piece starts in the text, when not at its beginning (a reader's counts there). */
  constructor(from?: { offset: number; line: number; lineStart: number; lineExtra: number }) {
    if (from) {
      this.seen = from.offset;
      this.line = from.line;
      this.lineStart = from.lineStart;
      this.lineExtra = from.lineExtra;
    }
  }
  /**
   * The first byte that starts no UTF-8 character, once found, with the bytes from it on as far as
   * read (up to 4, for utf8Fault): nothing more is read after it.
   */
  invalid: (Utf8Position & { bytes: Uint8Array }) | undefined;

  push(piece: Buffer): void {
    if (this.invalid) {
      // Its bytes completed to four from the next pieces: what is said of them never depends on the cut.
      const have = this.invalid.bytes;
      if (have.length < 4) this.invalid = { ...this.invalid, bytes: Buffer.concat([have, piece.subarray(0, 4 - have.length)]) };
      return;
    }
    const bytes = this.carry ? Buffer.concat([this.carry, piece]) : piece;
    this.carry = undefined;
    const complete = completeEnd(bytes);
    const whole = bytes.subarray(0, complete);
    if (!isUtf8(whole)) {
      const at = firstInvalidUtf8(whole);
      this.advance(whole.subarray(0, at));
      const column = this.seen - this.lineStart - this.lineExtra + 1;
      this.invalid = { bytes: Buffer.from(bytes.subarray(at, at + 4)), offset: this.seen, line: this.line, column };
      return;
    }
    this.advance(whole);
    if (complete < bytes.length) this.carry = Buffer.from(bytes.subarray(complete));
  }

  /** The text ended: a character left unfinished is the first invalid byte. */
  end(): void {
    if (this.invalid || !this.carry) return;
    const carry = this.carry;
    this.carry = undefined;
    this.invalid = { bytes: carry, offset: this.seen, line: this.line, column: this.seen - this.lineStart - this.lineExtra + 1 };
  }

  /**
   * Counts valid bytes: lines, and continuation bytes of the last line. Line feeds are found by
   * indexOf while they are sparse, and counted byte by byte where they are dense (a call each cost
   * about 25 ns: 5.5 s for 200 MB of line feeds); continuation bytes four at a time.
   */
  private advance(bytes: Buffer): void {
    const n = bytes.length;
    let last = -1;
    let found = 0;
    let nl = bytes.indexOf(LF);
    for (; nl !== -1; nl = bytes.indexOf(LF, nl + 1)) {
      found++;
      last = nl;
      if (found >= DENSE_LINES && nl < found * DENSE_SPACING) break;
    }
    if (nl !== -1) {
      for (let i = nl + 1; i < n; i++) {
        if (bytes[i] === LF) {
          found++;
          last = i;
        }
      }
    }
    if (last >= 0) {
      this.line += found;
      this.lineStart = this.seen + last + 1;
      this.lineExtra = 0;
    }
    if (last + 1 < n && !isAscii(bytes.subarray(last + 1))) this.lineExtra += continuationBytes(bytes, last + 1, n);
    this.seen += n;
  }
}

/** Where the bytes stop being whole characters: the start of a sequence cut at the end (else the length). */
function completeEnd(bytes: Buffer): number {
  const to = bytes.length;
  for (let k = to - 1; k >= Math.max(0, to - 3); k--) {
    const c = bytes[k] as number;
    if ((c & 0xc0) === 0x80) continue;
    const need = sequenceLength(c);
    return need > 1 && k + need > to ? k : to;
  }
  return to;
}

const hex = (b: number): string => b.toString(16).toUpperCase().padStart(2, '0');
const isContinuation = (b: number | undefined): boolean => b !== undefined && b >= 0x80 && b <= 0xbf;

/** Why the second byte after a lead byte is out of its range, though a continuation byte. */
const SECOND_BYTE_FAULTS: Record<number, string> = {
  0xe0: 'encodes a character below U+0800 in 3 bytes, an overlong form UTF-8 forbids',
  0xed: 'encodes a UTF-16 surrogate (U+D800 to U+DFFF), which UTF-8 does not carry (CESU-8, or each half of a surrogate pair encoded on its own)',
  0xf0: 'encodes a character below U+10000 in 4 bytes, an overlong form UTF-8 forbids',
  0xf4: 'encodes a code point above U+10FFFF, the last in Unicode',
};

export interface Utf8Fault {
  /** What is wrong, after "the byte 0xE2 <where>": "starts a 3-byte UTF-8 character, but ...". */
  sentence: string;
  /**
   * Whether the byte stands alone as a Latin-1 letter or sign would (A0 to FF, no continuation byte
   * after it): only then is Latin-1 or Windows-1252 text the likely cause.
   */
  looksLatin1: boolean;
}

/**
 * Why the bytes at `at` (where firstInvalidUtf8 stopped) are no UTF-8 character, naming the byte at
 * fault: a byte UTF-8 never uses, a continuation byte without a lead, a character cut short (by a
 * byte that does not continue it, or by the end of `what`), an overlong form, a surrogate, or a code
 * point above U+10FFFF. `where(i)` names the position of bytes[i] ("at byte offset 12").
 */
export function utf8Fault(bytes: Uint8Array, at: number, where: (i: number) => string, what: string): Utf8Fault {
  const lead = bytes[at] as number;
  const looksLatin1 = lead >= 0xa0 && !isContinuation(bytes[at + 1]);
  const n = sequenceLength(lead);
  if (n === 0) {
    const sentence =
      lead <= 0xbf
        ? 'is a continuation byte (80 to BF) with no lead byte before it'
        : lead <= 0xc1
          ? 'never appears in UTF-8 (C0 and C1 could only start an overlong form of an ASCII character)'
          : 'never appears in UTF-8 (F5 to FF would start a character above U+10FFFF)';
    return { sentence, looksLatin1 };
  }
  for (let k = 1; k < n; k++) {
    const b = bytes[at + k];
    if (b === undefined) return { sentence: `starts a ${n}-byte UTF-8 character, but ${what} ends after ${k} of its bytes`, looksLatin1 };
    if (!isContinuation(b))
      return {
        sentence: `starts a ${n}-byte UTF-8 character, but the byte 0x${hex(b)} ${where(at + k)} is not a continuation byte (80 to BF)`,
        looksLatin1,
      };
    if (k === 1) {
      const [lo, hi] = secondRange(lead);
      if (b < lo || b > hi)
        return { sentence: `followed by 0x${hex(b)} ${SECOND_BYTE_FAULTS[lead] ?? 'is no UTF-8 character'}`, looksLatin1 };
    }
  }
  // firstInvalidUtf8 stopped here, so one of the cases above holds; kept for a caller that errs.
  return { sentence: 'starts no UTF-8 character', looksLatin1 };
}

/** The hint for bytes that look like Latin-1 text. */
export const LATIN1_HINT = '(text in Latin-1 or Windows-1252, such as José written with the single byte E9, is not UTF-8)';
