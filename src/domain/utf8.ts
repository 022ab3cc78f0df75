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
  /** The first byte that starts no UTF-8 character, once found: nothing more is read after it. */
  invalid: (Utf8Position & { byte: number }) | undefined;

  push(piece: Buffer): void {
    if (this.invalid) return;
    const bytes = this.carry ? Buffer.concat([this.carry, piece]) : piece;
    this.carry = undefined;
    const complete = completeEnd(bytes);
    const whole = bytes.subarray(0, complete);
    if (!isUtf8(whole)) {
      const at = firstInvalidUtf8(whole);
      this.advance(whole.subarray(0, at));
      const column = this.seen - this.lineStart - this.lineExtra + 1;
      this.invalid = { byte: whole[at] as number, offset: this.seen, line: this.line, column };
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
    this.invalid = { byte: carry[0] as number, offset: this.seen, line: this.line, column: this.seen - this.lineStart - this.lineExtra + 1 };
  }

  /** Counts valid bytes: lines, and continuation bytes of the last line. */
  private advance(bytes: Buffer): void {
    let from = 0;
    for (let nl = bytes.indexOf(LF); nl !== -1; nl = bytes.indexOf(LF, nl + 1)) {
      this.line++;
      this.lineStart = this.seen + nl + 1;
      this.lineExtra = 0;
      from = nl + 1;
    }
    const rest = bytes.subarray(from);
    if (!isAscii(rest)) for (const c of rest) if ((c & 0xc0) === 0x80) this.lineExtra++;
    this.seen += bytes.length;
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
