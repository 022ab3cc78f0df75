// CNAB 400 / CNAB 444 operation (remessa) files: pure code, no Fastify, no SQL.
// scanLines is the synchronous check of a submission (every line 400 or 444 bytes); CnabFile finds
// the layout and reads one title on demand; CnabReader checks every record in slices, allocating
// nothing per record (a title is a pure function of the stored bytes, read again when shown), so a
// 100 000-title file is checked in about the time it takes to split it into lines.
// Title columns follow the Bradesco CNAB 400 base (FIDC 444 and "400 + 44" keep them); what each
// record type means comes from the header's bank and the layout (cnab-layouts.ts; docs/receivables.md, Layouts).
// Hot loops use charCodeAt and slice only: no per-line regex, no per-line split.
import { isCnabDateAt, parseCnabDateAt } from '../domain/dates.js';
import { checkNfeKey, isValidNfeKeyAt } from '../domain/nfe-key.js';
import { checkTaxId, isValidCnpjAt, isValidCpfAt } from '../domain/tax-id.js';
import {
  FIDC_444,
  knownBanks,
  layoutForBank,
  RECORD_DIGITS,
  type RecordLayout,
  type RecordMeaning,
} from './cnab-layouts.js';

export type CnabLayout = 'cnab400' | 'cnab444-fidc' | 'cnab444-400+44';

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
  const utf16 = utf16Reason(bytes);
  if (utf16 !== null) return { ok: false, line: 1, reason: utf16 };
  let end = bytes.length;
  for (;;) {
    while (end > 0) {
      const b = bytes[end - 1];
      if (b !== LF && b !== CR && b !== EOF) break;
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
  }
  return { ok: true, lines: { count: starts.length, starts, lengths } };
}

function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== SPACE && b !== TAB && b !== EOF && b !== CR) return false;
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
function lengthReason(bytes: Buffer, n: number, length: number): string {
  const base = `line ${n} has ${length} bytes; every line of a CNAB file must have 400 or 444 (line ends CR LF or LF)`;
  if (n === 1 && length === 240) {
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
  for (let i = 0; i < bytes.length; i++) {
    if ((bytes[i] ?? 0) >= 0x80) {
      at = i;
      break;
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

export type Severity = 'error' | 'warning';

export interface CnabDiagnostic {
  /** 1-based line number; null for a fault of the whole file. */
  line: number | null;
  /** 1-based inclusive columns, e.g. "439-444"; null when the rule is about the whole line or file. */
  columns: string | null;
  rule: string;
  severity: Severity;
  message: string;
}

export interface CnabTitle {
  line: number;
  /** Column 1: 1, or 7 in Banco do Brasil's CNAB 400 (and in files of a bank without a layout here). */
  recordType: string;
  /** 038-062 (039-063 in Banco do Brasil's record 7): the participant's (or FIDC's) control number. */
  titleId: string;
  /** 109-110: occurrence code (01 remessa / acquisition). */
  occurrence: string;
  /** 111-120. */
  documentNumber: string;
  /** 121-126, as YYYY-MM-DD. */
  dueDate: string | null;
  /** 127-139, two implied decimals. */
  faceValueCents: number;
  /** 148-149: kind of title (01 duplicata, 41 digital CCB...). */
  kind: string;
  /** 151-156, as YYYY-MM-DD; null when not a date. */
  issueDate: string | null;
  /** 219-220: 01 CPF, 02 CNPJ. */
  draweeType: 'cpf' | 'cnpj' | null;
  /** 221-234, the bare CPF (11) or CNPJ (14) as read, checked or not. */
  draweeTaxId: string;
  /** 235-274. */
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

export interface CnabSummary {
  layout: CnabLayout;
  lineCount: number;
  /** Header 95-100 as YYYY-MM-DD; null when not a date. */
  fileDate: string | null;
  titleCount: number;
  /** Records between header and trailer that are not titles (type 2 payment or message records...). */
  otherRecordCount: number;
  totalFaceValueCents: number;
  errorCount: number;
  warningCount: number;
}

export interface CnabOptions {
  /** Domain-check warnings (drawee check digits, NF-e key, dates, unknown bank) become errors. */
  strict: boolean;
  /** At most this many diagnostics are kept; the counts stay exact. Default 1000. */
  maxDiagnostics?: number;
}

const ZERO = 0x30;
const TYPE_0 = ZERO;
const TYPE_1 = 0x31;
const TYPE_8 = 0x38;
const TYPE_9 = 0x39;
// Roles of record types 0-9, as codes in a Uint8Array: the hot loop does one lookup per line.
const ROLE_NONE = 0;
const ROLE_TITLE = 1;
const ROLE_ATTACHED = 2;
// Kind 41 (digital CCB) carries an IPOC, not an NF-e key, in the key columns.
const KIND_CCB_1 = 0x34;
const KIND_CCB_2 = 0x31;

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

  constructor(
    readonly text: string,
    readonly lines: LineIndex,
  ) {
    const headerLength = lines.lengths[0] ?? 0;
    const headerStart = lines.starts[0] ?? 0;
    let wide = false;
    for (let i = 0; i < lines.count; i++) if (lines.lengths[i] === 444) wide = true;
    if (headerLength === 400) {
      this.layout = wide ? 'cnab444-400+44' : 'cnab400';
      this.seqStart = 394;
      this.keyStart = wide ? 400 : null;
    } else if (!digitsAt(text, headerStart + 438, 6) && digitsAt(text, headerStart + 394, 6)) {
      // A 444-byte header numbered at 395-400: the "400 + 44" layout with the header padded to 444.
      this.layout = 'cnab444-400+44';
      this.seqStart = 394;
      this.keyStart = 400;
    } else {
      this.layout = 'cnab444-fidc';
      this.seqStart = 438;
      this.keyStart = 394;
    }
    this.bankCode = text.slice(headerStart + 76, headerStart + 79);
    // FIDC 444 is the custodian's layout; the "400 + 44" columns 1-400 are the bank's CNAB 400.
    this.records = this.layout === 'cnab444-fidc' ? FIDC_444 : layoutForBank(this.bankCode);
    this.returnFile =
      text.charCodeAt(headerStart) === TYPE_0 &&
      (text.charAt(headerStart + 1) === '2' || text.slice(headerStart + 2, headerStart + 9) === 'RETORNO');
    this.roles = new Uint8Array(10);
    for (const digit of RECORD_DIGITS) {
      this.roles[Number(digit)] = this.records.records[digit].role === 'title' ? ROLE_TITLE : ROLE_ATTACHED;
    }
  }

  /** Scans and opens a file's bytes (read as Latin-1: one character per byte). */
  static open(bytes: Buffer): { ok: true; file: CnabFile } | { ok: false; reason: string } {
    const scan = scanLines(bytes);
    if (!scan.ok) return { ok: false, reason: scan.reason };
    return { ok: true, file: new CnabFile(bytes.toString('latin1'), scan.lines) };
  }

  /** The record types read as titles in this file, e.g. "1" or "1 and 7". */
  titleTypes(): string {
    const digits = RECORD_DIGITS.filter((d) => this.records.records[d].role === 'title');
    return digits.length === 1 ? (digits[0] ?? '1') : `${digits.slice(0, -1).join(', ')} and ${digits.at(-1)}`;
  }

  /** 0 none, 1 title, 2 attached: the role of line i (0-based) between header and trailer. */
  private roleAt(i: number): number {
    if (i <= 0 || i >= this.lines.count - 1 || this.returnFile) return ROLE_NONE;
    const type = this.text.charCodeAt(this.lines.starts[i] ?? 0);
    return type >= TYPE_1 && type <= TYPE_8 ? (this.roles[type - ZERO] ?? ROLE_NONE) : ROLE_NONE;
  }

  /** Whether line i (0-based) is a title record of this file's layout, between header and trailer. */
  isTitle(i: number): boolean {
    return this.roleAt(i) === ROLE_TITLE;
  }

  /** The 0-based indexes of the title lines, in file order (none in a return file). */
  titleIndexes(): number[] {
    const out: number[] = [];
    for (let i = 1; i < this.lines.count - 1; i++) if (this.isTitle(i)) out.push(i);
    return out;
  }

  /** The fields of the title at line i (0-based), as read; checks are CnabReader's. */
  title(i: number): CnabTitle {
    const text = this.text;
    const s = this.lines.starts[i] ?? 0;
    const length = this.lines.lengths[i] ?? 0;
    const code = text.slice(s + 218, s + 220);
    const draweeType = code === '01' ? 'cpf' : code === '02' ? 'cnpj' : null;
    // A CPF is right-aligned and zero-filled in the 14 columns.
    const cpf = draweeType === 'cpf' && readInt(text, s + 220, s + 223) === 0;
    const k = this.keyStart;
    const hasKey = k !== null && length >= k + 44 && !isBlankText(text, s + k, s + k + 44);
    const value = readInt(text, s + 126, s + 139);
    const id = this.meaningAt(i)?.titleId ?? { from: 38, to: 62 };
    return {
      line: i + 1,
      recordType: text.charAt(s),
      titleId: trimmed(text, s + id.from - 1, s + id.to),
      occurrence: text.slice(s + 108, s + 110),
      documentNumber: trimmed(text, s + 110, s + 120),
      dueDate: parseCnabDateAt(text, s + 120) ?? null,
      faceValueCents: Math.max(value, 0),
      kind: text.slice(s + 147, s + 149),
      issueDate: parseCnabDateAt(text, s + 150) ?? null,
      draweeType,
      draweeTaxId: cpf ? text.slice(s + 223, s + 234) : trimmed(text, s + 220, s + 234),
      draweeName: trimmed(text, s + 234, s + 274),
      nfeKey: hasKey && k !== null ? text.slice(s + k, s + k + 44) : null,
    };
  }

  /** The records that belong to the title at line i (0-based): those after it, up to the next title. */
  attachedTo(i: number): CnabRecord[] {
    const out: CnabRecord[] = [];
    for (let j = i + 1; this.roleAt(j) === ROLE_ATTACHED; j++) {
      const meaning = this.meaningAt(j);
      if (meaning) out.push(this.record(j, meaning));
    }
    return out;
  }

  /** The record of the title at line i that carries its guarantor (Bradesco's record 7), if any. */
  guarantorOf(i: number): CnabRecord | null {
    for (let j = i + 1; this.roleAt(j) === ROLE_ATTACHED; j++) {
      const meaning = this.meaningAt(j);
      if (meaning?.guarantor) return this.record(j, meaning);
    }
    return null;
  }

  private meaningAt(i: number): RecordMeaning | undefined {
    const digit = this.text.charAt(this.lines.starts[i] ?? 0);
    return (this.records.records as Record<string, RecordMeaning | undefined>)[digit];
  }

  private record(i: number, meaning: RecordMeaning): CnabRecord {
    const s = this.lines.starts[i] ?? 0;
    const fields: Record<string, string> = {};
    for (const f of meaning.fields) fields[f.name] = trimmed(this.text, s + f.from - 1, s + f.to);
    return { line: i + 1, recordType: this.text.charAt(s), meaning: meaning.meaning, fields };
  }
}

/**
 * Checks every record of a CnabFile. Call read() over consecutive ranges of lines, from the first
 * to the last; the sequence check carries over between calls. summary() is final once done.
 * Nothing is allocated per record except diagnostics.
 */
/** A CnabReader's position and counts (mark, rewind). */
export interface ReaderMark {
  readonly next: number;
  readonly previousSeq: number;
  readonly kept: number;
  readonly fileDate: string | null;
  readonly titleCount: number;
  readonly otherRecordCount: number;
  readonly totalCents: number;
  readonly errors: number;
  readonly warnings: number;
}

export class CnabReader {
  readonly layout: CnabLayout;
  private readonly file: CnabFile;
  /** 1 at index d when record type d is a title in this file's layout (one lookup per line). */
  private readonly titleType = new Uint8Array(10);
  private readonly text: string;
  private readonly lines: LineIndex;
  private readonly seqStart: number;
  private readonly keyStart: number | null;
  private readonly strict: boolean;
  private readonly maxDiagnostics: number;
  private readonly last: number;
  private next = 0;
  private previousSeq = 0;
  private kept = 0;
  private fileDate: string | null = null;
  private titleCount = 0;
  private otherRecordCount = 0;
  private totalCents = 0;
  private errors = 0;
  private warnings = 0;

  constructor(file: CnabFile, options: CnabOptions) {
    this.file = file;
    for (const digit of RECORD_DIGITS) {
      if (file.records.records[digit].role === 'title') this.titleType[Number(digit)] = 1;
    }
    this.text = file.text;
    this.lines = file.lines;
    this.layout = file.layout;
    this.seqStart = file.seqStart;
    this.keyStart = file.keyStart;
    this.strict = options.strict;
    this.maxDiagnostics = options.maxDiagnostics ?? 1000;
    this.last = file.lines.count - 1;
  }

  /** Checks lines [from, to) (0-based), which must continue where the previous call stopped. */
  read(from: number, to: number): CnabDiagnostic[] {
    if (from !== this.next) {
      throw new RangeError(`CnabReader reads in order: expected line ${this.next}, got ${from}`);
    }
    const end = Math.min(to, this.lines.count);
    const d: CnabDiagnostic[] = [];
    if (this.file.returnFile) {
      // One diagnostic says what the file is; its records are not a remessa's, so none is checked.
      if (from === 0 && end > 0) this.refuseReturnFile(d);
      this.next = end;
      return d;
    }
    if (from === 0 && this.lines.count < 2) {
      const message =
        'the file has a single line: a header (type 0) and a trailer (type 9) are both required';
      this.report(d, null, null, 'trailer', 'error', message);
    }
    for (let i = from; i < end; i++) this.readLine(i, d);
    this.next = end;
    if (end === this.lines.count && this.lines.count >= 2 && this.titleCount === 0) {
      const message = `the file has no title records (type ${this.file.titleTypes()} in the ${this.file.records.name} layout) between header and trailer`;
      this.report(d, null, null, 'no-titles', 'error', message);
    }
    return d;
  }

  get done(): boolean {
    return this.next >= this.lines.count;
  }

  /** Where the reader stands, to come back to with rewind() when what it read could not be stored. */
  mark(): ReaderMark {
    const { next, previousSeq, kept, fileDate, titleCount, otherRecordCount, totalCents, errors, warnings } = this;
    return { next, previousSeq, kept, fileDate, titleCount, otherRecordCount, totalCents, errors, warnings };
  }

  rewind(mark: ReaderMark): void {
    Object.assign(this, mark);
  }

  summary(): CnabSummary {
    return {
      layout: this.layout,
      lineCount: this.lines.count,
      fileDate: this.fileDate,
      titleCount: this.titleCount,
      otherRecordCount: this.otherRecordCount,
      totalFaceValueCents: this.totalCents,
      errorCount: this.errors,
      warningCount: this.warnings,
    };
  }

  private refuseReturnFile(d: CnabDiagnostic[]): void {
    const s = this.lines.starts[0] ?? 0;
    this.fileDate = parseCnabDateAt(this.text, s + 94) ?? null;
    const found = JSON.stringify(this.text.slice(s + 1, s + 9));
    const message =
      `this is a return file (retorno), not an operation file (remessa): the header's operation is ${found} at 2-9, ` +
      'where a remessa has "1REMESSA". A return file is what the bank sends back; submit the remessa you generated';
    this.report(d, 1, '2-9', 'return-file', 'error', message);
  }

  private readLine(i: number, d: CnabDiagnostic[]): void {
    const text = this.text;
    const s = this.lines.starts[i] ?? 0;
    const length = this.lines.lengths[i] ?? 0;
    const n = i + 1;
    const type = text.charCodeAt(s);

    if (this.layout === 'cnab444-fidc' && length !== 444) {
      const message = `line has ${length} bytes, but this is a FIDC CNAB 444 file (444-byte header numbered at 439-444): every line has 444`;
      this.report(d, n, null, 'line-length', 'error', message);
      this.previousSeq++;
      return;
    }
    if (i === this.last && i > 0) {
      this.checkTrailer(n, s, type, d);
      return;
    }
    this.checkSequence(n, s, d);
    if (i === 0) {
      this.checkHeader(n, s, type, d);
    } else if (type >= TYPE_1 && type <= TYPE_8) {
      if (this.titleType[type - ZERO] === 1) this.checkTitle(n, s, length, d);
      else this.otherRecordCount++;
    } else if (type === TYPE_0 || type === TYPE_9) {
      const which = type === TYPE_0 ? '0 (header) may only be the first' : '9 (trailer) may only be the last';
      this.report(d, n, '1', 'record-type', 'error', `record type ${which} line`);
    } else {
      const message = `record type must be a digit, found ${JSON.stringify(text.charAt(s))}`;
      this.report(d, n, '1', 'record-type', 'error', message);
    }
  }

  private checkHeader(n: number, s: number, type: number, d: CnabDiagnostic[]): void {
    const text = this.text;
    if (type !== TYPE_0) {
      const message = `the first line must be the header (record type 0), found ${JSON.stringify(text.charAt(s))}`;
      this.report(d, n, '1', 'header', 'error', message);
      return;
    }
    if (text.charCodeAt(s + 1) !== TYPE_1) {
      const found = text.charAt(s + 1);
      const message = `header operation must be 1 (remessa), found ${JSON.stringify(found)}`;
      this.report(d, n, '2', 'header-operation', 'error', message);
    }
    this.fileDate = parseCnabDateAt(text, s + 94) ?? null;
    if (this.fileDate === null) {
      const message = `header file date must be a real date DDMMAA, found ${JSON.stringify(text.slice(s + 94, s + 100))}`;
      this.report(d, n, '95-100', 'file-date', 'warning', message);
    }
    if (!this.file.records.known) {
      const bank = JSON.stringify(this.file.bankCode);
      const name = JSON.stringify(text.slice(s + 79, s + 94).trim());
      const message =
        `the header names bank ${bank} (${name}), whose CNAB 400 layout this sandbox does not know: ` +
        `its titles are read with the Bradesco base columns (occurrence 109-110, due date 121-126, value 127-139, ` +
        `drawee 219-274), which may not be where this bank puts them; layouts known: ${knownBanks()}`;
      this.report(d, n, '77-79', 'bank-layout', 'warning', message);
    }
  }

  private checkTrailer(n: number, s: number, type: number, d: CnabDiagnostic[]): void {
    if (type !== TYPE_9) {
      const message = `the last line must be the trailer (record type 9), found ${JSON.stringify(this.text.charAt(s))}`;
      this.report(d, n, '1', 'trailer', 'error', message);
      return;
    }
    // Trailers may carry totals (line count, value) before the sequence; only the sequence is checked.
    const at = s + this.seqStart;
    const seq = readInt(this.text, at, at + 6);
    if (seq !== this.lines.count) {
      const found = seq < 0 ? JSON.stringify(this.text.slice(at, at + 6)) : String(seq);
      const message = `trailer sequence must equal the file's record count ${this.lines.count}, found ${found}`;
      this.report(d, n, this.seqColumns(), 'trailer-count', 'error', message);
    }
  }

  private checkSequence(n: number, s: number, d: CnabDiagnostic[]): void {
    const at = s + this.seqStart;
    const seq = readInt(this.text, at, at + 6);
    const expected = this.previousSeq + 1;
    if (seq < 0) {
      const message = `sequence number must be 6 digits, found ${JSON.stringify(this.text.slice(at, at + 6))} (expected ${pad6(n)})`;
      this.report(d, n, this.seqColumns(), 'sequence', 'error', message);
      this.previousSeq = n;
      return;
    }
    // Wrong only when it is neither the line's own number nor the one after the line before: one
    // wrong number flags its line alone, and a shift (a line missing or added) flags where it starts.
    if (seq !== n && seq !== expected) {
      const wanted = expected === n ? pad6(n) : `${pad6(n)} (its line) or ${pad6(expected)} (after the line before)`;
      const message = `sequence numbers must be consecutive from 000001: expected ${wanted}, found ${pad6(seq)}`;
      this.report(d, n, this.seqColumns(), 'sequence', 'error', message);
    }
    this.previousSeq = seq;
  }

  private checkTitle(n: number, s: number, length: number, d: CnabDiagnostic[]): void {
    const text = this.text;
    this.titleCount++;
    // Fields every layout here requires on a title: a missing one refuses the file.
    if (!digitsAt(text, s + 108, 2)) {
      const found = text.slice(s + 108, s + 110);
      const message = isBlankText(text, s + 108, s + 110)
        ? 'occurrence code is blank: the layout requires it (01 = remessa, entry of the title)'
        : `occurrence code must be 2 digits, found ${JSON.stringify(found)}`;
      this.reportField(d, n, '109-110', 'occurrence', 'error', message);
    }
    if (isBlankText(text, s + 110, s + 120)) {
      this.reportField(d, n, '111-120', 'document-number', 'error', 'document number is blank');
    }
    if (!isCnabDateAt(text, s + 120)) {
      const message = `due date must be a real date DDMMAA, found ${JSON.stringify(text.slice(s + 120, s + 126))}`;
      this.reportField(d, n, '121-126', 'due-date', 'error', message);
    }
    const cents = readInt(text, s + 126, s + 139);
    if (cents < 0) {
      const message = `face value must be 13 digits with 2 implied decimals, found ${JSON.stringify(text.slice(s + 126, s + 139))}`;
      this.reportField(d, n, '127-139', 'face-value', 'error', message);
    } else if (cents === 0) {
      this.reportField(d, n, '127-139', 'face-value', 'error', 'face value must be greater than zero');
    } else {
      this.totalCents += cents;
    }
    if (!digitsAt(text, s + 147, 2)) {
      const found = JSON.stringify(text.slice(s + 147, s + 149));
      if (isBlankText(text, s + 147, s + 149)) {
        const message = 'kind of title is blank: the layout requires it (01 duplicata, 41 digital CCB...)';
        this.reportField(d, n, '148-149', 'kind', 'error', message);
      } else {
        this.reportField(d, n, '148-149', 'kind', 'warning', `kind of title must be 2 digits, found ${found}`);
      }
    }
    if (!isCnabDateAt(text, s + 150)) {
      const message = `issue date must be a real date DDMMAA, found ${JSON.stringify(text.slice(s + 150, s + 156))}`;
      this.reportField(d, n, '151-156', 'issue-date', 'warning', message);
    }
    this.checkDrawee(n, s, d);

    const k = this.keyStart;
    const ccb = text.charCodeAt(s + 147) === KIND_CCB_1 && text.charCodeAt(s + 148) === KIND_CCB_2;
    if (k !== null && !ccb && length >= k + 44 && !isBlankText(text, s + k, s + k + 44)) {
      if (!isValidNfeKeyAt(text, s + k)) {
        const check = checkNfeKey(text.slice(s + k, s + k + 44));
        const reason = check.ok ? 'is not a valid NF-e access key' : check.reason;
        this.reportField(d, n, `${k + 1}-${k + 44}`, 'nfe-key', 'warning', reason);
      }
    }
  }

  /** Drawee id type (219-220) and CPF/CNPJ (221-234): required; check digits warn. */
  private checkDrawee(n: number, s: number, d: CnabDiagnostic[]): void {
    const text = this.text;
    // The fast checks decide; the slow ones only run to explain a failure.
    const code1 = text.charCodeAt(s + 218);
    const code2 = text.charCodeAt(s + 219);
    if (code1 === ZERO && code2 === ZERO + 1) {
      // A CPF is right-aligned and zero-filled in the 14 columns.
      const zeros = readInt(text, s + 220, s + 223) === 0;
      if (!zeros || !isValidCpfAt(text, s + 223)) this.badDraweeId(n, s, 'CPF', zeros, d);
    } else if (code1 === ZERO && code2 === ZERO + 2) {
      if (!isValidCnpjAt(text, s + 220)) this.badDraweeId(n, s, 'CNPJ', true, d);
    } else if (isBlankText(text, s + 218, s + 220)) {
      const message = 'drawee id type is blank: the layout requires 01 (CPF) or 02 (CNPJ)';
      this.reportField(d, n, '219-220', 'drawee-type', 'error', message);
    } else {
      const found = JSON.stringify(text.slice(s + 218, s + 220));
      const missingId = isMissing(text, s + 220, s + 234);
      const check = missingId ? '' : '; the drawee id is not checked';
      const message = `drawee id type must be 01 (CPF) or 02 (CNPJ), found ${found}${check}`;
      this.reportField(d, n, '219-220', 'drawee-type', 'warning', message);
      if (missingId) {
        const missing = `drawee CPF/CNPJ is missing (${JSON.stringify(text.slice(s + 220, s + 234))}): the layout requires it`;
        this.reportField(d, n, '221-234', 'drawee-tax-id', 'error', missing);
      }
    }
  }

  /** Explains a drawee CPF/CNPJ that failed the fast check: missing (an error) or wrong (a warning). */
  private badDraweeId(n: number, s: number, which: 'CPF' | 'CNPJ', zeros: boolean, d: CnabDiagnostic[]): void {
    const text = this.text;
    if (isMissing(text, s + 220, s + 234)) {
      const message = `drawee ${which} is missing (${JSON.stringify(text.slice(s + 220, s + 234))}): the layout requires it`;
      this.reportField(d, n, '221-234', 'drawee-tax-id', 'error', message);
      return;
    }
    // A CPF is read from its 11 columns when the 3 before are zeros.
    const id = which === 'CPF' && zeros ? text.slice(s + 223, s + 234) : text.slice(s + 220, s + 234);
    const check = checkTaxId(id, { kinds: [which === 'CPF' ? 'cpf' : 'cnpj'], punctuation: false });
    const fallback = which === 'CPF' ? 'must be zero-filled to 14 columns' : 'letters must be upper case in a CNAB file';
    const message = `drawee ${which} ${JSON.stringify(id)}: ${check.ok ? fallback : check.reason}`;
    this.reportField(d, n, '221-234', 'drawee-tax-id', 'warning', message);
  }

  private seqColumns(): string {
    return `${this.seqStart + 1}-${this.seqStart + 6}`;
  }

  /**
   * A finding read from a title's columns. In a file of a bank whose layout the sandbox does not know,
   * the columns are the Bradesco base's guess, so what they show is a warning that says so: the file
   * is processed, and the header's bank-layout warning names the layout guessed.
   */
  private reportField(
    out: CnabDiagnostic[],
    line: number,
    columns: string,
    rule: string,
    severity: Severity,
    message: string,
  ): void {
    if (this.file.records.known) return this.report(out, line, columns, rule, severity, message);
    const guessed = `${message} (read from the guessed ${this.file.records.name} columns, which bank ${this.file.bankCode} may not use)`;
    this.report(out, line, columns, rule, 'warning', guessed);
  }

  private report(
    out: CnabDiagnostic[],
    line: number | null,
    columns: string | null,
    rule: string,
    severity: Severity,
    message: string,
  ): void {
    // Strict mode: a failed domain check refuses the file instead of warning.
    const final: Severity = this.strict ? 'error' : severity;
    if (final === 'error') this.errors++;
    else this.warnings++;
    if (this.kept >= this.maxDiagnostics) return;
    this.kept++;
    out.push({ line, columns, rule, severity: final, message });
  }
}

/** The whole file at once, titles included: for tests, fixtures and small files. */
export function readCnab(
  bytes: Buffer,
  options: CnabOptions,
):
  | { ok: true; summary: CnabSummary; titles: CnabTitle[]; diagnostics: CnabDiagnostic[] }
  | { ok: false; reason: string } {
  const opened = CnabFile.open(bytes);
  if (!opened.ok) return opened;
  const file = opened.file;
  const reader = new CnabReader(file, options);
  const diagnostics = reader.read(0, file.lines.count);
  const titles = file.titleIndexes().map((i) => file.title(i));
  return { ok: true, summary: reader.summary(), titles, diagnostics };
}

/** The integer in text[start, end) when it is all ASCII digits, else -1. */
function readInt(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return end > start ? value : -1;
}

/** text[start, end) without the spaces around it, sliced once. */
function trimmed(text: string, start: number, end: number): string {
  let a = start;
  let b = end;
  while (a < b && text.charCodeAt(a) === SPACE) a++;
  while (b > a && text.charCodeAt(b - 1) === SPACE) b--;
  return text.slice(a, b);
}

function digitsAt(text: string, start: number, length: number): boolean {
  return readInt(text, start, start + length) >= 0;
}

function isBlankText(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) !== SPACE) return false;
  return true;
}

/** Blank, or zero-filled: a numeric field left empty. */
function isMissing(text: string, start: number, end: number): boolean {
  return isBlankText(text, start, end) || readInt(text, start, end) === 0;
}

function pad6(n: number): string {
  return String(n).padStart(6, '0');
}
