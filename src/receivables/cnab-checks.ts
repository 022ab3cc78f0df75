// The checks of a CNAB 400 / CNAB 444 operation (remessa) file: CnabReader checks every record of a
// CnabFile in slices, allocating nothing per record but its diagnostics, so a 100 000-title file is
// checked in about the time it takes to split it into lines. Each rule has a name (CNAB_RULES), which
// the receivables outcomes turn into `rejected-<rule>`; a rule is typed from that list, so a
// misspelt one fails to compile.
import { isCnabDateAt, parseCnabDateAt } from '../domain/dates.js';
import { checkNfeKey, isValidNfeKeyAt } from '../domain/nfe-key.js';
import { checkTaxId, isValidCnpjAt, isValidCpfAt } from '../domain/tax-id.js';
import { type Columns, columnsLabel, HEADER_COLUMNS, knownBanks, TITLE_COLUMNS } from './cnab-layouts.js';
import {
  CnabFile,
  type CnabLayout,
  type CnabTitle,
  CPF_START,
  HEADER,
  NFE_KEY_LENGTH,
  SEQUENCE_LENGTH,
  TITLE,
  TYPE_HEADER,
  TYPE_TRAILER,
} from './cnab-record.js';
import { digitsAt, isBlankText, isMissing, type LineIndex, pad6, readInt } from './cnab-scan.js';
import { plural } from '../domain/plural.js';

/**
 * Every rule a file is checked against, with what breaking it means: structural faults are errors;
 * domain checks (drawee check digits, NF-e key, dates, unknown bank) warn, and are errors in strict
 * mode. Either way an error rejects the file.
 */
export const CNAB_RULES = {
  header: 'the first line is not a header (record type 0)',
  'header-operation': 'the header is not a remessa (operation 1)',
  'return-file': 'the file is a return file (retorno: operation 2 or RETORNO), not a remessa',
  trailer: 'the last line is not a trailer (record type 9), or the file has a single line',
  'trailer-count': "the trailer's sequence is not the file's record count",
  sequence: 'sequence numbers are not consecutive from 000001',
  'record-type': 'a record between header and trailer has type 0, 9 or a non-digit',
  'line-length':
    'a line is not as wide as the titles (the first title\'s width: a 400-byte title among 444-byte ones or the reverse), ' +
    'except a 400-byte header, trailer or other record beside 444-byte titles ("400 + 44")',
  'no-titles': 'the file has no title records (type 1 or 7)',
  'document-number': "a title's document number is blank",
  occurrence: "a title's occurrence code is blank or not digits",
  kind: "a title's kind is blank",
  'due-date': "a title's due date is not a real date",
  'face-value': "a title's face value is not digits, or is zero",
  'drawee-tax-id': "a drawee's CPF or CNPJ is missing, or (strict mode) has wrong check digits",
  'drawee-type': 'a drawee id type is blank, or (strict mode) neither 01 (CPF) nor 02 (CNPJ)',
  'nfe-key': 'in strict mode, an NF-e key is not a valid access key',
  'issue-date': "in strict mode, a title's issue date is not a real date",
  'file-date': "in strict mode, the header's file date is not a real date",
  'bank-layout': 'in strict mode, the header names a bank whose CNAB 400 layout the sandbox does not know',
  'layout-mix': 'a record is numbered where the other CNAB 444 layout puts the sequence (FIDC 444 at 439-444, "400 + 44" at 395-400)',
  'file-encoding': 'in strict mode, the file is UTF-8 text (its non-ASCII bytes are well-formed UTF-8), where CNAB columns count single bytes',
  'control-character': 'in strict mode, a record holds a control character (NUL, TAB...), where CNAB text is printable',
  'header-label': 'in strict mode, the header\'s labels are not REMESSA at 3-9, 01 at 10-11 and COBRANCA at 12-26, in upper case',
  'after-trailer': 'in strict mode, a line of spaces as wide as a record follows the trailer (it is not read)',
} as const;

export type CnabRule = keyof typeof CNAB_RULES;

export type Severity = 'error' | 'warning';

export interface CnabDiagnostic {
  /** 1-based line number; null for a fault of the whole file. */
  line: number | null;
  /** 1-based inclusive columns, e.g. "439-444"; null when the rule is about the whole line or file. */
  columns: string | null;
  rule: CnabRule;
  severity: Severity;
  message: string;
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
const TYPE_1 = 0x31;
const TYPE_8 = 0x38;
// Kind 41 (digital CCB) carries an IPOC, not an NF-e key, in the key columns.
const KIND_CCB_1 = 0x34;
const KIND_CCB_2 = 0x31;

const { fileDate: FILE_DATE, bankName: BANK_NAME, operationWord: OPERATION_WORD } = HEADER;
const { operationLabel: OPERATION_LABEL, serviceCode: SERVICE_CODE, serviceLabel: SERVICE_LABEL } = HEADER;
/** The cobrança header's labels (3-26), as the layouts here write them; Sicoob's manual spells COBRANÇA. */
const HEADER_LABELS: ReadonlyArray<{ span: { start: number; end: number }; columns: string; allowed: readonly string[]; what: string }> = [
  { span: OPERATION_LABEL, columns: columnsLabel(HEADER_COLUMNS.operationLabel), allowed: ['REMESSA'], what: 'the operation label' },
  { span: SERVICE_CODE, columns: columnsLabel(HEADER_COLUMNS.serviceCode), allowed: ['01'], what: 'the service code (01 cobrança)' },
  { span: SERVICE_LABEL, columns: columnsLabel(HEADER_COLUMNS.serviceLabel), allowed: ['COBRANCA', 'COBRANÇA'], what: 'the service label' },
];
/** Names of control characters a generator leaves in a record. */
const CONTROL_NAMES: Readonly<Record<number, string>> = { 0x00: 'NUL', 0x09: 'TAB', 0x0d: 'CR', 0x1a: 'EOF (SUB)', 0x7f: 'DEL' };
const SEQUENCE_AT = { fidc: 438, plus44: 394 } as const;
const { occurrence: OCCURRENCE, documentNumber: DOCUMENT_NUMBER, dueDate: DUE_DATE, faceValue: FACE_VALUE, kind: KIND } = TITLE;
const { issueDate: ISSUE_DATE, draweeType: DRAWEE_TYPE, draweeTaxId: DRAWEE_TAX_ID } = TITLE;
/** Columns as the diagnostics name them: "109-110". */
const label = { ...labels(HEADER_COLUMNS), ...labels(TITLE_COLUMNS) };

function labels<K extends string>(columns: Readonly<Record<K, Columns>>): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const key of Object.keys(columns) as K[]) out[key] = columnsLabel(columns[key]);
  return out;
}

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

/**
 * Checks every record of a CnabFile. Call read() over consecutive ranges of lines, from the first
 * to the last; the sequence check carries over between calls. summary() is final once done.
 */
export class CnabReader {
  readonly layout: CnabLayout;
  private readonly file: CnabFile;
  private readonly text: string;
  private readonly lines: LineIndex;
  /** Where the sequence is in the line being read (cnab-record.ts, seqStartOf). */
  private seqStart: number;
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
    const out: CnabDiagnostic[] = [];
    if (this.file.returnFile) {
      // One diagnostic says what the file is; its records are not a remessa's, so none is checked.
      if (from === 0 && end > 0) this.refuseReturnFile(out);
      this.next = end;
      return out;
    }
    if (from === 0 && this.lines.count < 2) {
      const message =
        'the file has a single line: a header (type 0) and a trailer (type 9) are both required';
      this.report(out, null, null, 'trailer', 'error', message);
    }
    for (let index = from; index < end; index++) this.readLine(index, out);
    this.next = end;
    if (end === this.lines.count && this.lines.count >= 2 && this.titleCount === 0) {
      const message = `the file has no title records (type ${this.file.titleTypes()} in the ${this.file.records.name} layout) between header and trailer`;
      this.report(out, null, null, 'no-titles', 'error', message);
    }
    const blank = this.file.blankAfterTrailer;
    if (end === this.lines.count && blank !== null) {
      const message =
        `line ${blank.line}, after the trailer, is ${plural(blank.length, 'space')}, as wide as a record: it is not read, ` +
        'since the trailer ends the records (a record blanked out?); remove it, or restore the record before the trailer';
      this.report(out, blank.line, null, 'after-trailer', 'warning', message);
    }
    return out;
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

  private refuseReturnFile(out: CnabDiagnostic[]): void {
    const start = this.lines.starts[0] ?? 0;
    this.fileDate = parseCnabDateAt(this.text, start + FILE_DATE.start) ?? null;
    const found = JSON.stringify(this.text.slice(start + OPERATION_WORD.start, start + OPERATION_WORD.end));
    const message =
      `this is a return file (retorno), not an operation file (remessa): the header's operation is ${found} at ${label.operationWord}, ` +
      'where a remessa has "1REMESSA". A return file is what the bank sends back; submit the remessa you generated';
    this.report(out, 1, label.operationWord, 'return-file', 'error', message);
  }

  private readLine(index: number, out: CnabDiagnostic[]): void {
    const text = this.text;
    const start = this.lines.starts[index] ?? 0;
    const length = this.lines.lengths[index] ?? 0;
    const lineNumber = index + 1;
    const type = text.charCodeAt(start);
    if (this.file.firstMultiByte?.index === index) this.reportEncoding(out);
    if (this.file.hasControls) this.checkControls(lineNumber, start, length, index, type, out);

    const width = this.widthProblem(index, length, type);
    if (width !== null) {
      this.report(out, lineNumber, null, 'line-length', 'error', width);
      this.previousSeq++;
      return;
    }
    this.seqStart = this.file.seqStartOf(length);
    const mixed = index > 0 && length === 444 && this.otherLayout(lineNumber, start, index === this.last, out);
    if (index === this.last && index > 0) {
      this.checkTrailer(lineNumber, start, type, out, mixed);
      return;
    }
    if (!mixed) this.checkSequence(lineNumber, start, out);
    if (index === 0) {
      this.checkHeader(lineNumber, start, type, out);
    } else if (type >= TYPE_1 && type <= TYPE_8) {
      if (this.file.isTitleType(type)) this.checkTitle(lineNumber, start, length, out, mixed);
      else this.otherRecordCount++;
    } else if (type === TYPE_HEADER || type === TYPE_TRAILER) {
      const which = type === TYPE_HEADER ? '0 (header) may only be the first' : '9 (trailer) may only be the last';
      this.report(out, lineNumber, '1', 'record-type', 'error', `record type ${which} line`);
    } else {
      const message = `record type must be a digit, found ${JSON.stringify(text.charAt(start))}`;
      this.report(out, lineNumber, '1', 'record-type', 'error', message);
    }
  }

  /**
   * What is wrong with a line's width, or null: one rule whichever layout the header names. Every
   * title has the width of the file's first title; a header, trailer or other record has it too, or
   * 400 beside 444-byte titles (the "400 + 44" form real generators write, as Itaú's in brcobranca).
   */
  private widthProblem(index: number, length: number, type: number): string | null {
    const titles = this.file.titleWidth;
    if (length === titles) return null;
    const first = this.file.firstTitle;
    const base = `line has ${plural(length, 'byte')}, but the titles of this file have ${titles}`;
    const where = first === null ? ' (it has none; the header has that width)' : ` (the first at line ${first + 1})`;
    const isTitle = index > 0 && index < this.last && this.file.isTitleType(type);
    if (isTitle) return `${base}${where}: every title has the same width`;
    if (length === 400 && titles === 444) return null;
    return `${base}${where}: a header, trailer or other record has the width of the titles, or 400 beside 444-byte titles ("400 + 44")`;
  }

  private checkHeader(lineNumber: number, start: number, type: number, out: CnabDiagnostic[]): void {
    const text = this.text;
    if (type !== TYPE_HEADER) {
      const message = `the first line must be the header (record type 0), found ${JSON.stringify(text.charAt(start))}`;
      this.report(out, lineNumber, '1', 'header', 'error', message);
      return;
    }
    if (text.charCodeAt(start + 1) !== TYPE_1) {
      const found = text.charAt(start + 1);
      const message = `header operation must be 1 (remessa), found ${JSON.stringify(found)}`;
      this.report(out, lineNumber, label.operation, 'header-operation', 'error', message);
    }
    for (const l of HEADER_LABELS) {
      const found = text.slice(start + l.span.start, start + l.span.end).trimEnd();
      if (l.allowed.includes(found)) continue;
      const upper = l.allowed.includes(found.toUpperCase()) ? ', in upper case' : '';
      const message = `header ${l.what} at ${l.columns} must be ${l.allowed.map((a) => JSON.stringify(a)).join(' or ')}${upper}, found ${JSON.stringify(found)}`;
      this.report(out, lineNumber, l.columns, 'header-label', 'warning', message);
    }
    this.fileDate = parseCnabDateAt(text, start + FILE_DATE.start) ?? null;
    if (this.fileDate === null) {
      const message = `header file date must be a real date DDMMAA, found ${JSON.stringify(text.slice(start + FILE_DATE.start, start + FILE_DATE.end))}`;
      this.report(out, lineNumber, label.fileDate, 'file-date', 'warning', message);
    }
    if (!this.file.records.known) {
      const bank = JSON.stringify(this.file.bankCode);
      const name = JSON.stringify(text.slice(start + BANK_NAME.start, start + BANK_NAME.end).trim());
      const message =
        `the header names bank ${bank} (${name}), whose CNAB 400 layout this sandbox does not know: ` +
        `its titles are read with the Bradesco base columns (occurrence ${label.occurrence}, due date ${label.dueDate}, value ${label.faceValue}, ` +
        `drawee ${TITLE_COLUMNS.draweeType.from}-${TITLE_COLUMNS.draweeName.to}), which may not be where this bank puts them; layouts known: ${knownBanks()}`;
      this.report(out, lineNumber, label.bankCode, 'bank-layout', 'warning', message);
    }
  }

  private checkTrailer(lineNumber: number, start: number, type: number, out: CnabDiagnostic[], mixed: boolean): void {
    if (type !== TYPE_TRAILER) {
      const message = `the last line must be the trailer (record type 9), found ${JSON.stringify(this.text.charAt(start))}`;
      this.report(out, lineNumber, '1', 'trailer', 'error', message);
      return;
    }
    if (mixed) return;
    // Trailers may carry totals (line count, value) before the sequence; only the sequence is checked.
    const at = start + this.seqStart;
    const seq = readInt(this.text, at, at + SEQUENCE_LENGTH);
    if (seq !== this.lines.count) {
      const found = seq < 0 ? JSON.stringify(this.text.slice(at, at + SEQUENCE_LENGTH)) : String(seq);
      const message = `trailer sequence must equal the file's record count ${this.lines.count}, found ${found}`;
      this.report(out, lineNumber, this.seqColumns(), 'trailer-count', 'error', message);
    }
  }

  private checkSequence(lineNumber: number, start: number, out: CnabDiagnostic[]): void {
    const at = start + this.seqStart;
    const seq = readInt(this.text, at, at + SEQUENCE_LENGTH);
    const expected = this.previousSeq + 1;
    if (seq < 0) {
      const message = `sequence number must be 6 digits, found ${JSON.stringify(this.text.slice(at, at + SEQUENCE_LENGTH))} (expected ${pad6(lineNumber)})`;
      this.report(out, lineNumber, this.seqColumns(), 'sequence', 'error', message);
      this.previousSeq = lineNumber;
      return;
    }
    // Wrong only when it is neither the line's own number nor the one after the line before: one
    // wrong number flags its line alone, and a shift (a line missing or added) flags where it starts.
    if (seq !== lineNumber && seq !== expected) {
      const wanted =
        expected === lineNumber ? pad6(lineNumber) : `${pad6(lineNumber)} (its line) or ${pad6(expected)} (after the line before)`;
      const message = `sequence numbers must be consecutive from 000001: expected ${wanted}, found ${pad6(seq)}`;
      this.report(out, lineNumber, this.seqColumns(), 'sequence', 'error', message);
    }
    this.previousSeq = seq;
  }

  private checkTitle(lineNumber: number, start: number, length: number, out: CnabDiagnostic[], mixed = false): void {
    const text = this.text;
    this.titleCount++;
    // Fields every layout here requires on a title: a missing one refuses the file.
    if (!digitsAt(text, start + OCCURRENCE.start, 2)) {
      const found = text.slice(start + OCCURRENCE.start, start + OCCURRENCE.end);
      const message = isBlankText(text, start + OCCURRENCE.start, start + OCCURRENCE.end)
        ? 'occurrence code is blank: the layout requires it (01 = remessa, entry of the title)'
        : `occurrence code must be 2 digits, found ${JSON.stringify(found)}`;
      this.reportField(out, lineNumber, label.occurrence, 'occurrence', 'error', message);
    }
    if (isBlankText(text, start + DOCUMENT_NUMBER.start, start + DOCUMENT_NUMBER.end)) {
      this.reportField(out, lineNumber, label.documentNumber, 'document-number', 'error', 'document number is blank');
    }
    if (!isCnabDateAt(text, start + DUE_DATE.start)) {
      const message = `due date must be a real date DDMMAA, found ${JSON.stringify(text.slice(start + DUE_DATE.start, start + DUE_DATE.end))}`;
      this.reportField(out, lineNumber, label.dueDate, 'due-date', 'error', message);
    }
    const cents = readInt(text, start + FACE_VALUE.start, start + FACE_VALUE.end);
    if (cents < 0) {
      const message = `face value must be 13 digits with 2 implied decimals, found ${JSON.stringify(text.slice(start + FACE_VALUE.start, start + FACE_VALUE.end))}`;
      this.reportField(out, lineNumber, label.faceValue, 'face-value', 'error', message);
    } else if (cents === 0) {
      this.reportField(out, lineNumber, label.faceValue, 'face-value', 'error', 'face value must be greater than zero');
    } else {
      this.totalCents += cents;
    }
    if (!digitsAt(text, start + KIND.start, 2)) {
      const found = JSON.stringify(text.slice(start + KIND.start, start + KIND.end));
      if (isBlankText(text, start + KIND.start, start + KIND.end)) {
        const message = 'kind of title is blank: the layout requires it (01 duplicata, 41 digital CCB...)';
        this.reportField(out, lineNumber, label.kind, 'kind', 'error', message);
      } else {
        this.reportField(out, lineNumber, label.kind, 'kind', 'warning', `kind of title must be 2 digits, found ${found}`);
      }
    }
    if (!isCnabDateAt(text, start + ISSUE_DATE.start)) {
      const message = `issue date must be a real date DDMMAA, found ${JSON.stringify(text.slice(start + ISSUE_DATE.start, start + ISSUE_DATE.end))}`;
      this.reportField(out, lineNumber, label.issueDate, 'issue-date', 'warning', message);
    }
    this.checkDrawee(lineNumber, start, out);

    const keyStart = this.keyStart;
    // A record in the other 444 layout has something else in these columns (layout-mix says so).
    if (keyStart === null || mixed || length < keyStart + NFE_KEY_LENGTH) return;
    const keyColumns = `${keyStart + 1}-${keyStart + NFE_KEY_LENGTH}`;
    const ccb = text.charCodeAt(start + KIND.start) === KIND_CCB_1 && text.charCodeAt(start + KIND.start + 1) === KIND_CCB_2;
    if (isBlankText(text, start + keyStart, start + keyStart + NFE_KEY_LENGTH)) {
      if (text.charCodeAt(start + KIND.start) === ZERO && text.charCodeAt(start + KIND.start + 1) === TYPE_1) {
        const message =
          `the NF-e key columns ${keyColumns} are blank, but the title is a duplicata (kind 01): a duplicata is drawn on an invoice, ` +
          'and a CNAB 444 file carries its NF-e access key there';
        this.reportField(out, lineNumber, keyColumns, 'nfe-key', 'warning', message);
      }
      return;
    }
    if (!ccb) {
      if (!isValidNfeKeyAt(text, start + keyStart)) {
        const check = checkNfeKey(text.slice(start + keyStart, start + keyStart + NFE_KEY_LENGTH));
        const reason = check.ok ? 'is not a valid NF-e access key' : check.reason;
        this.reportField(out, lineNumber, keyColumns, 'nfe-key', 'warning', reason);
      }
    }
  }

  /** Drawee id type and CPF/CNPJ: required; check digits warn. */
  private checkDrawee(lineNumber: number, start: number, out: CnabDiagnostic[]): void {
    const text = this.text;
    const typeStart = start + DRAWEE_TYPE.start;
    const idStart = start + DRAWEE_TAX_ID.start;
    const idEnd = start + DRAWEE_TAX_ID.end;
    // The fast checks decide; the slow ones only run to explain a failure.
    const code1 = text.charCodeAt(typeStart);
    const code2 = text.charCodeAt(typeStart + 1);
    if (code1 === ZERO && code2 === ZERO + 1) {
      const zeros = readInt(text, idStart, start + CPF_START) === 0;
      if (!zeros || !isValidCpfAt(text, start + CPF_START)) this.badDraweeId(lineNumber, start, 'CPF', zeros, out);
    } else if (code1 === ZERO && code2 === ZERO + 2) {
      if (!isValidCnpjAt(text, idStart)) this.badDraweeId(lineNumber, start, 'CNPJ', true, out);
    } else if (isBlankText(text, typeStart, start + DRAWEE_TYPE.end)) {
      const message = 'drawee id type is blank: the layout requires 01 (CPF) or 02 (CNPJ)';
      this.reportField(out, lineNumber, label.draweeType, 'drawee-type', 'error', message);
    } else {
      const found = JSON.stringify(text.slice(typeStart, start + DRAWEE_TYPE.end));
      const missingId = isMissing(text, idStart, idEnd);
      const check = missingId ? '' : '; the drawee id is not checked';
      const message = `drawee id type must be 01 (CPF) or 02 (CNPJ), found ${found}${check}`;
      this.reportField(out, lineNumber, label.draweeType, 'drawee-type', 'warning', message);
      if (missingId) {
        const missing = `drawee CPF/CNPJ is missing (${JSON.stringify(text.slice(idStart, idEnd))}): the layout requires it`;
        this.reportField(out, lineNumber, label.draweeTaxId, 'drawee-tax-id', 'error', missing);
      }
    }
  }

  /** Explains a drawee CPF/CNPJ that failed the fast check: missing (an error) or wrong (a warning). */
  private badDraweeId(lineNumber: number, start: number, which: 'CPF' | 'CNPJ', zeros: boolean, out: CnabDiagnostic[]): void {
    const text = this.text;
    const idStart = start + DRAWEE_TAX_ID.start;
    const idEnd = start + DRAWEE_TAX_ID.end;
    if (isMissing(text, idStart, idEnd)) {
      const message = `drawee ${which} is missing (${JSON.stringify(text.slice(idStart, idEnd))}): the layout requires it`;
      this.reportField(out, lineNumber, label.draweeTaxId, 'drawee-tax-id', 'error', message);
      return;
    }
    // A CPF is read from its 11 columns when the 3 before are zeros.
    const id = which === 'CPF' && zeros ? text.slice(start + CPF_START, idEnd) : text.slice(idStart, idEnd);
    const check = checkTaxId(id, { kinds: [which === 'CPF' ? 'cpf' : 'cnpj'], punctuation: false });
    const fallback = which === 'CPF' ? 'must be zero-filled to 14 columns' : 'letters must be upper case in a CNAB file';
    const message = `drawee ${which} ${JSON.stringify(id)}: ${check.ok ? fallback : check.reason}`;
    this.reportField(out, lineNumber, label.draweeTaxId, 'drawee-tax-id', 'warning', message);
  }

  /**
   * Whether a 444-byte record (not the header) is numbered where the other CNAB 444 layout puts the
   * sequence, and not where the header's layout does: then it says so once (layout-mix, an error),
   * and the sequence carries on from the number found there, so neither the sequence nor the key of
   * a record misread by a layout it does not follow is reported.
   */
  private otherLayout(lineNumber: number, start: number, trailer: boolean, out: CnabDiagnostic[]): boolean {
    const wanted = trailer ? [this.lines.count] : [lineNumber, this.previousSeq + 1];
    const own = readInt(this.text, start + this.seqStart, start + this.seqStart + SEQUENCE_LENGTH);
    if (wanted.includes(own)) return false;
    const fidc = this.seqStart === SEQUENCE_AT.fidc;
    const otherStart = fidc ? SEQUENCE_AT.plus44 : SEQUENCE_AT.fidc;
    const other = readInt(this.text, start + otherStart, start + otherStart + SEQUENCE_LENGTH);
    if (!wanted.includes(other)) return false;
    const columns = `${otherStart + 1}-${otherStart + SEQUENCE_LENGTH}`;
    const plus44 = '"400 + 44" (sequence at 395-400, NF-e key at 401-444)';
    const fidcLayout = 'FIDC 444 (NF-e key at 395-438, sequence at 439-444)';
    const message =
      `this record is numbered ${pad6(other)} at ${columns}: it is in the ${fidc ? plus44 : fidcLayout} layout, ` +
      `but the header's is ${fidc ? fidcLayout : plus44}; every record of a file follows the header's layout, ` +
      'so its sequence and NF-e key are not read';
    this.report(out, lineNumber, columns, 'layout-mix', 'error', message);
    this.previousSeq = other;
    return true;
  }

  /** The file's UTF-8 judgement (cnab-record.ts), said once at its first multi-byte character. */
  private reportEncoding(out: CnabDiagnostic[]): void {
    const first = this.file.firstMultiByte;
    if (first === null) return;
    const hex = first.bytes.map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
    const message =
      `the file seems to be UTF-8, not single-byte text: ${JSON.stringify(first.character)} (bytes ${hex}) is a well-formed UTF-8 character, ` +
      'as is every other non-ASCII byte sequence of the file, so its text is read as UTF-8; CNAB columns count bytes, ' +
      'so each such character takes more than one column: save the file as ASCII or Latin-1 (ISO-8859-1)';
    this.report(out, first.index + 1, String(first.column), 'file-encoding', 'warning', message);
  }

  /** The first control character of a line, named with its column (and field on a title). */
  private checkControls(lineNumber: number, start: number, length: number, index: number, type: number, out: CnabDiagnostic[]): void {
    const text = this.text;
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(start + i);
      if (c >= 0x20 && c !== 0x7f) continue;
      const column = i + 1;
      const field = index > 0 && index < this.last && this.file.isTitleType(type) ? titleFieldAt(column) : undefined;
      const name = `${CONTROL_NAMES[c] ?? 'control character'} (0x${c.toString(16).toUpperCase().padStart(2, '0')})`;
      const where = field === undefined ? `column ${column}` : `column ${column} (${field})`;
      const message = `${name} at ${where}: CNAB text is printable, padded with spaces; a generator wrote a control character where text belongs`;
      this.report(out, lineNumber, String(column), 'control-character', 'warning', message);
      return;
    }
  }

  private seqColumns(): string {
    return `${this.seqStart + 1}-${this.seqStart + SEQUENCE_LENGTH}`;
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
    rule: CnabRule,
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
    rule: CnabRule,
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

/** The name of the title field (TITLE_COLUMNS) that holds a 1-based column, if any. */
function titleFieldAt(column: number): string | undefined {
  for (const [name, c] of Object.entries(TITLE_COLUMNS) as Array<[string, Columns]>) {
    if (column >= c.from && column <= c.to) return `${name} ${columnsLabel(c)}`;
  }
  return undefined;
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
  const titles = file.titleIndexes().map((index) => file.title(index));
  return { ok: true, summary: reader.summary(), titles, diagnostics };
}
