// The record model of CNAB 400 / CNAB 444 operation (remessa) files: which layout a scanned file is,
// what each record type means in it, and a title or an attached record read on demand from the
// stored bytes (a title is a pure function of them, read again when shown, so nothing is kept per
// record). Columns come from the column model of cnab-layouts.ts; the checks are cnab-checks.ts'.
import { Buffer } from 'node:buffer';
import { parseCnabDateAt } from '../domain/dates.js';
import { firstInvalidUtf8 } from '../domain/utf8.js';
import {
  FIDC_444,
  HEADER_COLUMNS,
  layoutForBank,
  RECORD_DIGITS,
  type RecordLayout,
  type RecordMeaning,
  TITLE_COLUMNS,
} from './cnab-layouts.js';
import { type Steps, whole } from '../domain/steps.js';
import {
  digitsAt,
  isBlankText,
  type LineIndex,
  LINES_PER_TURN,
  lineScan,
  readInt,
  span,
  spans,
  trimmed,
} from './cnab-scan.js';

export type CnabLayout = 'cnab400' | 'cnab444-fidc' | 'cnab444-400+44';

/** An NF-e access key: 44 digits. */
export const NFE_KEY_LENGTH = 44;
/** A record's sequence number: 6 digits. */
export const SEQUENCE_LENGTH = 6;

export interface CnabTitle {
  line: number;
  /** Column 1: 1, or 7 in Banco do Brasil's CNAB 400 (and in files of a bank without a layout here). */
  recordType: string;
  /** TITLE_COLUMNS.titleId (one column later in Banco do Brasil's record 7). */
  titleId: string;
  /** 01 remessa / acquisition. */
  occurrence: string;
  documentNumber: string;
  /** As YYYY-MM-DD; null when not a date. */
  dueDate: string | null;
  /** Two implied decimals. */
  faceValueCents: number;
  /** Kind of title (01 duplicata, 41 digital CCB...). */
  kind: string;
  /** As YYYY-MM-DD; null when not a date. */
  issueDate: string | null;
  draweeType: 'cpf' | 'cnpj' | null;
  /** The bare CPF (11) or CNPJ (14) as read, checked or not. */
  draweeTaxId: string;
  draweeName: string;
  /** 395-438 (FIDC 444) or 401-444 ("400 + 44"); null in CNAB 400 or when blank. */
  nfeKey: string | null;
}

/** A record that belongs to the title before it (a guarantor, messages, a payment...). */
export interface CnabRecord {
  line: number;
  recordType: string;
  /** What the file's layout says this record is. */
  meaning: string;
  /** The fields the layout describes, trimmed; empty when the record is not read. */
  fields: Record<string, string>;
}

const ZERO = 0x30;
export const TYPE_HEADER = ZERO;
export const TYPE_TRAILER = 0x39;
const TYPE_1 = 0x31;
const TYPE_8 = 0x38;
// Roles of record types 0-9, as codes in a Uint8Array: the hot loop does one lookup per line.
export const ROLE_NONE = 0;
export const ROLE_TITLE = 1;
export const ROLE_ATTACHED = 2;

/** Where the title's columns sit in a line (the checks read the same ones). */
export const TITLE = spans(TITLE_COLUMNS);
/** Where the header's columns sit in a line. */
export const HEADER = spans(HEADER_COLUMNS);
const { occurrence: OCCURRENCE, documentNumber: DOCUMENT_NUMBER, dueDate: DUE_DATE, faceValue: FACE_VALUE, kind: KIND } = TITLE;
const { issueDate: ISSUE_DATE, draweeType: DRAWEE_TYPE, draweeTaxId: DRAWEE_TAX_ID, draweeName: DRAWEE_NAME } = TITLE;
/** A CPF is right-aligned and zero-filled in the drawee's 14 columns: 3 zeros, then its 11 digits. */
export const CPF_START = DRAWEE_TAX_ID.start + 3;
const { bankCode: BANK_CODE, returnWord: RETURN_WORD } = HEADER;

/** 0-based start of the sequence (395-400) in a CNAB 400 line, and in the first 400 columns of "400 + 44". */
const CNAB400_SEQ_START = 394;

const NON_ASCII = /[\x80-\xff]/;
/** C0 controls and DEL, but not the line ends (CR LF, LF) between records: what a record must not hold. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)/g;

/** The first multi-byte character of a file judged UTF-8: 0-based line index, 1-based column. */
export interface MultiByteCharacter {
  index: number;
  column: number;
  character: string;
  bytes: number[];
}

/** A line of spaces as wide as a record after the trailer (not read: the trailer ends the records). */
export interface BlankAfterTrailer {
  /** 1-based line number. */
  line: number;
  length: number;
}

/** A file opened (CnabFile.open), or why its bytes are no CNAB 400/444 file. */
export type CnabOpened = { ok: true; file: CnabFile } | { ok: false; reason: string };

/** A scanned file, its layout, and its titles read on demand. */
export class CnabFile {
  readonly layout: CnabLayout;
  /** 0-based start of the sequence number in a line. */
  readonly seqStart: number;
  /** 0-based start of the NF-e key in a 444-byte line; null in CNAB 400. */
  readonly keyStart: number | null;
  /** Header 077-079 as written. */
  readonly bankCode: string;
  /** What each record type means in this file (by the layout, and for CNAB 400 by the bank). */
  readonly records: RecordLayout;
  /** The header says this is a return file (operation 2 at column 2, or RETORNO at 3-9). */
  readonly returnFile: boolean;
  /** Role of record types '0'-'9' (index = digit). */
  private readonly roles: Uint8Array;
  /**
   * The width of the file's titles: that of its first title (0-based index `firstTitle`), or of the
   * header when it has none. Every line's width is judged against it (cnab-checks.ts, line-length).
   */
  readonly titleWidth: number;
  readonly firstTitle: number | null;
  /**
   * The file's text encoding, judged once (rc-file-encoding): 'utf8' when it has non-ASCII bytes and
   * every one of them belongs to a well-formed UTF-8 sequence (Latin-1 text of accented letters
   * between ASCII ones never is), then its text fields are read as UTF-8; else Latin-1.
   */
  readonly encoding: 'latin1' | 'utf8';
  /** Where the first multi-byte character of a UTF-8 file is; null in a Latin-1 one. */
  readonly firstMultiByte: MultiByteCharacter | null;
  /** Some record holds a control character (NUL, TAB...): each line is then looked at for one. */
  readonly hasControls: boolean;
  readonly blankAfterTrailer: BlankAfterTrailer | null;

  /**
   * `facts`: what the file's whole text says (wholeFileSteps), when found beforehand in steps
   * (openSteps); found here otherwise.
   */
  constructor(
    readonly text: string,
    readonly lines: LineIndex,
    facts?: WholeFileFacts,
  ) {
    const headerLength = lines.lengths[0] ?? 0;
    const headerStart = lines.starts[0] ?? 0;
    let wide = false;
    for (let i = 0; i < lines.count; i++) if (lines.lengths[i] === 444) wide = true;
    if (headerLength === 400) {
      this.layout = wide ? 'cnab444-400+44' : 'cnab400';
      this.seqStart = CNAB400_SEQ_START;
      this.keyStart = wide ? 400 : null;
    } else if (!digitsAt(text, headerStart + 438, SEQUENCE_LENGTH) && digitsAt(text, headerStart + 394, SEQUENCE_LENGTH)) {
      // A 444-byte header numbered at 395-400: the "400 + 44" layout with the header padded to 444.
      this.layout = 'cnab444-400+44';
      this.seqStart = CNAB400_SEQ_START;
      this.keyStart = 400;
    } else {
      this.layout = 'cnab444-fidc';
      this.seqStart = 438;
      this.keyStart = 394;
    }
    this.bankCode = text.slice(headerStart + BANK_CODE.start, headerStart + BANK_CODE.end);
    // FIDC 444 is the custodian's layout; the "400 + 44" columns 1-400 are the bank's CNAB 400.
    this.records = this.layout === 'cnab444-fidc' ? FIDC_444 : layoutForBank(this.bankCode);
    this.returnFile =
      text.charCodeAt(headerStart) === TYPE_HEADER &&
      (text.charAt(headerStart + 1) === '2' ||
        text.slice(headerStart + RETURN_WORD.start, headerStart + RETURN_WORD.end) === 'RETORNO');
    this.roles = new Uint8Array(10);
    for (const digit of RECORD_DIGITS) {
      this.roles[Number(digit)] = this.records.records[digit].role === 'title' ? ROLE_TITLE : ROLE_ATTACHED;
    }
    let first: number | null = null;
    for (let index = 1; index < lines.count - 1 && first === null; index++) if (this.isTitle(index)) first = index;
    this.firstTitle = first;
    this.titleWidth = lines.lengths[first ?? 0] ?? headerLength;
    const { firstMultiByte, hasControls } =
      facts ?? whole(wholeFileSteps(text, lines, () => Buffer.from(text, 'latin1'), Number.POSITIVE_INFINITY));
    this.firstMultiByte = firstMultiByte;
    this.encoding = this.firstMultiByte === null ? 'latin1' : 'utf8';
    this.hasControls = hasControls;
    this.blankAfterTrailer = blankAfterTrailer(text, recordsEnd(lines), lines.count);
  }

  /** A text field of a line, trimmed, as the file's encoding reads it. */
  textAt(start: number, end: number): string {
    const raw = trimmed(this.text, start, end);
    return this.encoding === 'utf8' && NON_ASCII.test(raw) ? Buffer.from(raw, 'latin1').toString('utf8') : raw;
  }

  /**
   * 0-based start of the sequence number in a line of `width` bytes: a 400-byte line has it at 395-400
   * in every layout (the "400 + 44" header and trailer beside 444-byte titles), a 444-byte line where
   * the layout puts it.
   */
  seqStartOf(width: number): number {
    return width === 400 ? CNAB400_SEQ_START : this.seqStart;
  }

  /** Scans and opens a file's bytes (read as Latin-1: one character per byte). */
  static open(bytes: Buffer): CnabOpened {
    return whole(CnabFile.openSteps(bytes));
  }

  /**
   * open() in steps of bounded work (a file near the body limit is opened over many turns of the
   * event loop): the scan LINES_PER_TURN lines at a time (skipped when `lines`, the index found at
   * submission, is given), the text in one copy of the bytes, then the whole-file passes `step`
   * characters at a time. A file of one step's size or less is opened in one step.
   */
  static *openSteps(bytes: Buffer, lines?: LineIndex, step: number = TEXT_STEP): Steps<CnabOpened> {
    let index = lines;
    if (index === undefined) {
      const scan = yield* lineScan(bytes);
      if (!scan.ok) return { ok: false, reason: scan.reason };
      index = scan.lines;
    }
    // The one step that grows with the file: the text every check reads is one string.
    const text = bytes.toString('latin1');
    if (bytes.length > step) yield;
    const facts = yield* wholeFileSteps(text, index, () => bytes, step);
    return { ok: true, file: new CnabFile(text, index, facts) };
  }

  /** The record types read as titles in this file, e.g. "1" or "1 and 7". */
  titleTypes(): string {
    const digits = RECORD_DIGITS.filter((digit) => this.records.records[digit].role === 'title');
    return digits.length === 1 ? (digits[0] ?? '1') : `${digits.slice(0, -1).join(', ')} and ${digits.at(-1)}`;
  }

  /** ROLE_NONE, ROLE_TITLE or ROLE_ATTACHED: the role of a line (0-based index) between header and trailer. */
  roleAt(index: number): number {
    if (index <= 0 || index >= this.lines.count - 1 || this.returnFile) return ROLE_NONE;
    const type = this.text.charCodeAt(this.lines.starts[index] ?? 0);
    return type >= TYPE_1 && type <= TYPE_8 ? (this.roles[type - ZERO] ?? ROLE_NONE) : ROLE_NONE;
  }

  /** Whether a line (0-based index) is a title record of this file's layout, between header and trailer. */
  isTitle(index: number): boolean {
    return this.roleAt(index) === ROLE_TITLE;
  }

  /** Whether record type `type` (a character code) is a title in this file's layout. */
  isTitleType(type: number): boolean {
    return type >= TYPE_1 && type <= TYPE_8 && this.roles[type - ZERO] === ROLE_TITLE;
  }

  /** The 0-based indexes of the title lines, in file order (none in a return file). */
  titleIndexes(): number[] {
    return whole(this.titleIndexSteps());
  }

  /** titleIndexes() in steps of `linesPerStep` lines. */
  *titleIndexSteps(linesPerStep: number = LINES_PER_TURN): Steps<number[]> {
    const out: number[] = [];
    for (let index = 1; index < this.lines.count - 1; index++) {
      if (this.isTitle(index)) out.push(index);
      if (index % linesPerStep === 0) yield;
    }
    return out;
  }

  /** The fields of the title at a line (0-based index), as read; checks are cnab-checks.ts'. */
  title(index: number): CnabTitle {
    const text = this.text;
    const start = this.lines.starts[index] ?? 0;
    const length = this.lines.lengths[index] ?? 0;
    const code = text.slice(start + DRAWEE_TYPE.start, start + DRAWEE_TYPE.end);
    const draweeType = code === '01' ? 'cpf' : code === '02' ? 'cnpj' : null;
    const cpf = draweeType === 'cpf' && readInt(text, start + DRAWEE_TAX_ID.start, start + CPF_START) === 0;
    const keyStart = this.keyStart;
    const nfeKey =
      keyStart !== null &&
      length >= keyStart + NFE_KEY_LENGTH &&
      !isBlankText(text, start + keyStart, start + keyStart + NFE_KEY_LENGTH)
        ? text.slice(start + keyStart, start + keyStart + NFE_KEY_LENGTH)
        : null;
    const value = readInt(text, start + FACE_VALUE.start, start + FACE_VALUE.end);
    const id = span(this.meaningAt(index)?.titleId ?? TITLE_COLUMNS.titleId);
    return {
      line: index + 1,
      recordType: text.charAt(start),
      titleId: this.textAt(start + id.start, start + id.end),
      occurrence: text.slice(start + OCCURRENCE.start, start + OCCURRENCE.end),
      documentNumber: this.textAt(start + DOCUMENT_NUMBER.start, start + DOCUMENT_NUMBER.end),
      dueDate: parseCnabDateAt(text, start + DUE_DATE.start) ?? null,
      faceValueCents: Math.max(value, 0),
      kind: text.slice(start + KIND.start, start + KIND.end),
      issueDate: parseCnabDateAt(text, start + ISSUE_DATE.start) ?? null,
      draweeType,
      draweeTaxId: cpf ? text.slice(start + CPF_START, start + DRAWEE_TAX_ID.end) : trimmed(text, start + DRAWEE_TAX_ID.start, start + DRAWEE_TAX_ID.end),
      draweeName: this.textAt(start + DRAWEE_NAME.start, start + DRAWEE_NAME.end),
      nfeKey,
    };
  }

  /** The records that belong to the title at a line (0-based index): those after it, up to the next title. */
  attachedTo(index: number): CnabRecord[] {
    const out: CnabRecord[] = [];
    for (let next = index + 1; this.roleAt(next) === ROLE_ATTACHED; next++) {
      const meaning = this.meaningAt(next);
      if (meaning) out.push(this.record(next, meaning));
    }
    return out;
  }

  /** The record of the title at a line that carries its guarantor (Bradesco's record 7), if any. */
  guarantorOf(index: number): CnabRecord | null {
    for (let next = index + 1; this.roleAt(next) === ROLE_ATTACHED; next++) {
      const meaning = this.meaningAt(next);
      if (meaning?.guarantor) return this.record(next, meaning);
    }
    return null;
  }

  private meaningAt(index: number): RecordMeaning | undefined {
    const digit = this.text.charAt(this.lines.starts[index] ?? 0);
    return (this.records.records as Record<string, RecordMeaning | undefined>)[digit];
  }

  private record(index: number, meaning: RecordMeaning): CnabRecord {
    const start = this.lines.starts[index] ?? 0;
    const fields: Record<string, string> = {};
    for (const field of meaning.fields) fields[field.name] = this.textAt(start + field.from - 1, start + field.to);
    return { line: index + 1, recordType: this.text.charAt(start), meaning: meaning.meaning, fields };
  }
}

/**
 * The first multi-byte character when the file is UTF-8 (it has non-ASCII bytes, all in well-formed
 * UTF-8 sequences), else null. A pure-ASCII file costs one native regular-expression search.
 */
/** Characters of text each step of the whole-file passes searches (CnabFile.openSteps). */
export const TEXT_STEP = 1024 * 1024;

/** What the constructor of CnabFile reads of the whole text (not line by line). */
export interface WholeFileFacts {
  firstMultiByte: MultiByteCharacter | null;
  hasControls: boolean;
}

/** Where the last record ends (the 0-based offset after it, its line end excluded). */
function recordsEnd(lines: LineIndex): number {
  const last = lines.count - 1;
  return (lines.starts[last] ?? 0) + (lines.lengths[last] ?? 0);
}

/**
 * The file's encoding and whether a record holds a control character, searched `step` characters
 * at a time (a pause between two): the same answer whatever the step. `bytesOf`: the file's bytes
 * (the text is their Latin-1 reading, one character per byte).
 */
function* wholeFileSteps(text: string, lines: LineIndex, bytesOf: () => Buffer, step: number): Steps<WholeFileFacts> {
  const firstMultiByte = yield* utf8Judgement(text, lines, bytesOf, step);
  const end = recordsEnd(lines);
  let hasControls = false;
  for (let from = 0; from < end && !hasControls; from += step) {
    if (from > 0) yield;
    const to = Math.min(end, from + step);
    // A character more than the step: a CR at its end is judged by what follows it (\r(?!\n)).
    const slice = text.slice(from, to + 1);
    CONTROL.lastIndex = 0;
    const control = CONTROL.exec(slice);
    hasControls = control !== null && control.index < to - from;
  }
  return { firstMultiByte, hasControls };
}

function* utf8Judgement(text: string, lines: LineIndex, bytesOf: () => Buffer, step: number): Steps<MultiByteCharacter | null> {
  let at = -1;
  for (let from = 0; from < text.length && at < 0; from += step) {
    if (from > 0) yield;
    const found = text.slice(from, from + step).search(NON_ASCII);
    if (found >= 0) at = from + found;
  }
  if (at < 0) return null;
  const bytes = bytesOf();
  // Every byte from the first non-ASCII one on starts a well-formed UTF-8 character: judged a step at
  // a time, a step that ends inside a character going on from that character's first byte.
  for (let from = at; from < bytes.length; ) {
    if (from > at) yield;
    const to = Math.min(bytes.length, from + step);
    const valid = firstInvalidUtf8(bytes.subarray(from, to));
    if (valid === to - from) from = to;
    else if (to < bytes.length && valid > to - from - 4) from += valid;
    else return null;
  }
  let low = 0;
  let high = lines.count - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lines.starts[mid] ?? 0) <= at) low = mid;
    else high = mid - 1;
  }
  let size = 1;
  while (at + size < bytes.length && ((bytes[at + size] ?? 0) & 0xc0) === 0x80) size++;
  const slice = bytes.subarray(at, at + size);
  return { index: low, column: at - (lines.starts[low] ?? 0) + 1, character: slice.toString('utf8'), bytes: [...slice] };
}

/** The first line of spaces (or tabs) at least 400 bytes wide after the last record, if any. */
function blankAfterTrailer(text: string, from: number, count: number): BlankAfterTrailer | null {
  const rest = text.slice(from).split('\n');
  // rest[0] is the end of the last record's line (its CR, or nothing).
  for (let k = 1; k < rest.length; k++) {
    let end = (rest[k] ?? '').length;
    while (end > 0 && (rest[k]?.charCodeAt(end - 1) === 0x0d || rest[k]?.charCodeAt(end - 1) === 0x1a)) end--;
    const line = (rest[k] ?? '').slice(0, end);
    if (line.length >= 400 && /^[ \t]+$/.test(line)) return { line: count + k, length: line.length };
  }
  return null;
}
