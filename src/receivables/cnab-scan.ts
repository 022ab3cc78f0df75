// The byte scanner of CNAB 400 / CNAB 444 files: finding the lines of the bytes a client sent (each
// 400 or 444 bytes long), and reading columns of a line. Pure code, no Fastify, no SQL. Hot loops use
// charCodeAt and slice only: no per-line regex, no per-line split.
import { isAscii } from 'node:buffer';
import { plural } from '../domain/plural.js';
import { inTurns, type Steps, whole } from '../domain/steps.js';

/** Line positions in the file (byte offsets; the file is read as Latin-1, one character per byte). */
export interface LineIndex {
  count: number;
  starts: number[];
  /** Length without the line end (CR LF or LF). */
  lengths: number[];
}

export type LineScan = { ok: true; lines: LineIndex } | { ok: false; line: number | null; reason: string };

const LF = 0x0a;
const CR = 0x0d;
const EOF = 0x1a;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Finds the lines of a CNAB file and checks each is 400 or 444 bytes long. Line ends may be CR LF or
 * LF; a trailing EOF byte (0x1A), line ends and whitespace-only lines after the last record are
 * tolerated, as real generators leave them. A refusal names what the file is when it can tell:
 * UTF-16 text, a CNAB 240 file, UTF-8 text whose accented letters take two bytes.
 */
export function scanLines(bytes: Buffer): LineScan {
  return whole(lineScan(bytes, Number.POSITIVE_INFINITY));
}

/**
 * Lines checked between two turns of the event loop by scanLinesInTurns: a few milliseconds of
 * work, where the 150 000 lines of a file near the body limit take a few hundred under load.
 */
export const LINES_PER_TURN = 16_384;

/**
 * scanLines for a submission: the same answer, found `linesPerTurn` lines at a time, awaiting
 * `turn()` between them so that other requests are served meanwhile.
 */
export async function scanLinesInTurns(
  bytes: Buffer,
  turn: () => Promise<void>,
  linesPerTurn: number = LINES_PER_TURN,
): Promise<LineScan> {
  return inTurns(lineScan(bytes, linesPerTurn), turn);
}

/** The scan, pausing (a `yield`) after every `linesPerStep` lines. */
export function* lineScan(bytes: Buffer, linesPerStep: number = LINES_PER_TURN): Steps<LineScan> {
  const utf16 = utf16Reason(bytes);
  if (utf16 !== null) return { ok: false, line: 1, reason: utf16 };
  let end = bytes.length;
  for (;;) {
    while (end > 0) {
      const byte = bytes[end - 1];
      if (byte !== LF && byte !== CR && byte !== EOF) break;
      end--;
    }
    const start = end === 0 ? 0 : bytes.lastIndexOf(LF, end - 1) + 1;
    if (end > start && isBlank(bytes, start, end)) {
      end = start;
      continue;
    }
    break;
  }
  if (end === 0) return { ok: false, line: null, reason: 'the file has no records (it is empty or blank)' };

  const starts: number[] = [];
  const lengths: number[] = [];
  let pos = 0;
  while (pos < end) {
    const nl = bytes.indexOf(LF, pos);
    const lineEnd = nl === -1 || nl > end ? end : nl;
    let length = lineEnd - pos;
    if (length > 0 && bytes[lineEnd - 1] === CR) length--;
    if (length !== 400 && length !== 444) {
      return { ok: false, line: starts.length + 1, reason: lengthReason(bytes, starts.length + 1, length) };
    }
    starts.push(pos);
    lengths.push(length);
    pos = lineEnd + 1;
    if (starts.length % linesPerStep === 0 && pos < end) yield;
  }
  return { ok: true, lines: { count: starts.length, starts, lengths } };
}

function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte !== SPACE && byte !== TAB && byte !== EOF && byte !== CR) return false;
  }
  return true;
}

const SINGLE_BYTE = 'CNAB files are single-byte text: save it as ASCII or Latin-1 (ISO-8859-1)';

/** Why a file is UTF-16 text (a byte-order mark, or NUL bytes between its first characters), or null. */
function utf16Reason(bytes: Buffer): string | null {
  const [b0, b1, b2, b3] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff)) {
    const mark = b0 === 0xff ? 'FF FE' : 'FE FF';
    return `the file is UTF-16 text (it starts with the byte-order mark ${mark}); ${SINGLE_BYTE}`;
  }
  // Without a mark, ASCII in UTF-16 puts a NUL before (big-endian) or after (little-endian) each letter.
  if (bytes.length >= 4 && ((b1 === 0 && b3 === 0 && b0 !== 0) || (b0 === 0 && b2 === 0 && b1 !== 0))) {
    return `the file is UTF-16 text (a NUL byte between its first characters); ${SINGLE_BYTE}`;
  }
  return null;
}

/** The refusal of line n, whose length is neither 400 nor 444. */
function lengthReason(bytes: Buffer, lineNumber: number, length: number): string {
  const base = `line ${lineNumber} has ${plural(length, 'byte')}; every line of a CNAB file must have 400 or 444 (line ends CR LF or LF)`;
  if (lineNumber === 1 && length === 240) {
    return `CNAB 240 is not supported: use CNAB 400 or 444 (line 1 has 240 bytes, the CNAB 240 width)`;
  }
  const utf8 = firstUtf8Character(bytes);
  if (utf8 === null) return base;
  const where = `line ${utf8.line}, column ${utf8.column}`;
  const hex = utf8.bytes.map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
  return (
    `${base}: the file must be ASCII or Latin-1 (one byte per character), but it is UTF-8, where an ` +
    `accented letter takes two bytes; the first multi-byte character is ${JSON.stringify(utf8.character)} ` +
    `(bytes ${hex}) at ${where}`
  );
}

/**
 * The first non-ASCII character of the file when it is a well-formed UTF-8 sequence (so the file is
 * most likely UTF-8, not Latin-1), with its 1-based line and column; null otherwise. Only called to
 * explain a refusal, so it may scan the whole file.
 */
function firstUtf8Character(
  bytes: Buffer,
): { line: number; column: number; character: string; bytes: number[] } | null {
  let at = -1;
  // Blocks of ASCII are passed over natively: this runs on files near the body limit too.
  const BLOCK = 65_536;
  for (let from = 0; from < bytes.length && at < 0; from += BLOCK) {
    const to = Math.min(bytes.length, from + BLOCK);
    if (isAscii(bytes.subarray(from, to))) continue;
    for (let i = from; i < to; i++) {
      if ((bytes[i] ?? 0) >= 0x80) {
        at = i;
        break;
      }
    }
  }
  if (at < 0) return null;
  const lead = bytes[at] ?? 0;
  const size = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (size === 0 || at + size > bytes.length) return null;
  for (let k = 1; k < size; k++) {
    const c = bytes[at + k] ?? 0;
    if (c < 0x80 || c > 0xbf) return null;
  }
  const lineStart = at === 0 ? 0 : bytes.lastIndexOf(LF, at - 1) + 1;
  let line = 1;
  for (let i = bytes.indexOf(LF); i >= 0 && i < lineStart; i = bytes.indexOf(LF, i + 1)) line++;
  const slice = bytes.subarray(at, at + size);
  return { line, column: at - lineStart + 1, character: slice.toString('utf8'), bytes: [...slice] };
}

// ---- reading the columns of a line (the file is read as Latin-1: one character per byte) ----

/** The integer in text[start, end) when it is all ASCII digits, else -1. */
export function readInt(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return end > start ? value : -1;
}

/** text[start, end) without the spaces around it, sliced once. */
export function trimmed(text: string, start: number, end: number): string {
  let first = start;
  let last = end;
  while (first < last && text.charCodeAt(first) === SPACE) first++;
  while (last > first && text.charCodeAt(last - 1) === SPACE) last--;
  return text.slice(first, last);
}

export function digitsAt(text: string, start: number, length: number): boolean {
  return readInt(text, start, start + length) >= 0;
}

export function isBlankText(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) !== SPACE) return false;
  return true;
}

/** Blank, or zero-filled: a numeric field left empty. */
export function isMissing(text: string, start: number, end: number): boolean {
  return isBlankText(text, start, end) || readInt(text, start, end) === 0;
}

export function pad6(value: number): string {
  return String(value).padStart(6, '0');
}

/** Where columns sit in a line: 0-based [start, end) of 1-based inclusive columns. */
export interface Span {
  start: number;
  end: number;
}

export function span(columns: { from: number; to: number }): Span {
  return { start: columns.from - 1, end: columns.to };
}

/** The span of each named set of columns. */
export function spans<K extends string>(columns: Readonly<Record<K, { from: number; to: number }>>): Record<K, Span> {
  const out = {} as Record<K, Span>;
  for (const key of Object.keys(columns) as K[]) out[key] = span(columns[key]);
  return out;
}
