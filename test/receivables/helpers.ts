// Builds CNAB 400 / 444 files for the tests, column by column (1-based, inclusive, as the manuals):
// remessas of the Bradesco base, Banco do Brasil's record-7 titles, a cooperative bank's own columns,
// the optional records that follow a title, and return files (retorno).
import { readCnab } from '../../src/receivables/cnab-checks.js';
import type { CnabLayout } from '../../src/receivables/cnab-record.js';

export const VALID_NFE_KEY = '35260722333444000181550010001234561123456787';

/** A bank as the header names it: number at 077-079, name at 080-094. */
export interface Bank {
  code: string;
  name: string;
}
export const BRADESCO: Bank = { code: '237', name: 'BRADESCO' };
export const BANCO_DO_BRASIL: Bank = { code: '001', name: 'BANCODOBRASIL' };
export const SICOOB: Bank = { code: '756', name: 'BANCOOBCED' };
export const SICREDI: Bank = { code: '748', name: 'SICREDI' };
/** A FIDC custodian's bank number in a FIDC 444 header. */
export const PAULISTA: Bank = { code: '611', name: 'PAULISTA S.A.' };

export interface TitleSpec {
  type?: string;
  titleId?: string;
  /** Column where the control number starts: 38 on the base, 39 in Banco do Brasil's record 7. */
  titleIdColumn?: number;
  occurrence?: string;
  documentNumber?: string;
  /** DDMMAA */
  due?: string;
  valueCents?: number;
  kind?: string;
  /** DDMMAA */
  issue?: string;
  draweeCode?: string;
  /** Written right-aligned, zero-filled to 14. */
  draweeId?: string;
  draweeName?: string;
  /** null: blank key columns. */
  nfeKey?: string | null;
  /** Finished lines (recordLine and its helpers) placed right after this title: its optional records. */
  after?: string[];
}

export interface FileOptions {
  /** The bank the header names (default Bradesco). */
  bank?: Bank;
  eol?: string;
  /** Appended after the last line end (an EOF byte, a blank line...). */
  tail?: string;
  /** Records of other types placed after the titles (type digit, e.g. '2'). */
  others?: string[];
  /** Overrides the sequence written on a line (1-based line number -> sequence). */
  sequence?: Record<number, number>;
  /** Trailer content before the sequence (totals), written from column 2. */
  trailerTotals?: string;
}

function put(line: string[], column: number, text: string): void {
  for (let i = 0; i < text.length; i++) line[column - 1 + i] = text.charAt(i);
}

function blank(width: number): string[] {
  return Array.from({ length: width }, () => ' ');
}

export function seqColumn(layout: CnabLayout): number {
  return layout === 'cnab444-fidc' ? 439 : 395;
}

function widths(layout: CnabLayout): { header: number; detail: number } {
  if (layout === 'cnab400') return { header: 400, detail: 400 };
  if (layout === 'cnab444-fidc') return { header: 444, detail: 444 };
  return { header: 400, detail: 444 };
}

export function headerLine(layout: CnabLayout, fileDate = '201126', bank: Bank = BRADESCO): string {
  const line = blank(widths(layout).header);
  put(line, 1, '01REMESSA01COBRANCA       ');
  put(line, 27, '00000000000000012345');
  put(line, 47, 'FUNDO DEMO FIDC'.padEnd(30));
  put(line, 77, bank.code);
  put(line, 80, bank.name.padEnd(15));
  put(line, 95, fileDate);
  return line.join('');
}

export function detailLine(layout: CnabLayout, t: TitleSpec = {}): string {
  const line = blank(widths(layout).detail);
  put(line, 1, t.type ?? '1');
  put(line, 21, '01');
  put(line, t.titleIdColumn ?? 38, (t.titleId ?? 'TIT-1').padEnd(25));
  put(line, 109, t.occurrence ?? '01');
  put(line, 111, (t.documentNumber ?? 'DOC-1').padEnd(10));
  put(line, 121, t.due ?? '151226');
  put(line, 127, String(t.valueCents ?? 247056).padStart(13, '0'));
  put(line, 148, t.kind ?? '01');
  put(line, 151, t.issue ?? '201126');
  put(line, 219, t.draweeCode ?? '01');
  put(line, 221, (t.draweeId ?? '52998224725').padStart(14, '0'));
  put(line, 235, (t.draweeName ?? 'JOSE DA SILVA').padEnd(40));
  put(line, 275, 'RUA DAS FLORES 100'.padEnd(40));
  put(line, 327, '01310100');
  const key = t.nfeKey === undefined ? VALID_NFE_KEY : t.nfeKey;
  if (key !== null && layout !== 'cnab400') put(line, layout === 'cnab444-fidc' ? 395 : 401, key);
  return line.join('');
}

export function otherLine(layout: CnabLayout, type: string): string {
  return recordLine(layout, type, [[2, 'MENSAGEM']]);
}

/** An optional record of `type` with texts at 1-based columns (sequence written by cnabText). */
export function recordLine(layout: CnabLayout, type: string, fields: Array<[number, string]>): string {
  // In the "400 + 44" layout the optional records keep 400 bytes, as in brcobranca's Itau file.
  const line = blank(widths(layout).header === 400 ? 400 : 444);
  put(line, 1, type);
  for (const [column, text] of fields) put(line, column, text);
  return line.join('');
}

/** Bradesco's record 7, Pagador Avalista: address 002-046, CEP 047-054, city 055-074, state 075-076. */
export function bradescoGuarantor(
  layout: CnabLayout,
  g: { address: string; cep: string; city: string; state: string },
): string {
  return recordLine(layout, '7', [
    [2, g.address.padEnd(45)],
    [47, g.cep],
    [55, g.city.padEnd(20)],
    [75, g.state],
    // 367-394: carteira, agency, account and "nosso número" of the title it belongs to.
    [367, '009'],
    [370, '01234'],
    [375, '0012345'],
    [382, '6'],
    [383, '00000000123'],
    [394, 'P'],
  ]);
}

/** Bradesco's record 2: messages at 002-081 and 082-161, a 2nd discount at 322-340. */
export function bradescoMessages(layout: CnabLayout, first: string, second = ''): string {
  return recordLine(layout, '2', [
    [2, first.padEnd(80)],
    [82, second.padEnd(80)],
    [322, '101226'],
    [328, '0000000001000'],
    [367, '009012340012345600000000123P'],
  ]);
}

/** Bradesco's record 3, credit split: first beneficiary's bank 044-046, value 066-080, name 081-120. */
export function bradescoSplit(layout: CnabLayout, name: string, valueCents: number): string {
  return recordLine(layout, '3', [
    [44, '237'],
    [47, '01234'],
    [53, '000000012345'],
    [66, String(valueCents).padStart(15, '0')],
    [81, name.padEnd(40)],
  ]);
}

/** A FIDC 444 payment record (type 2): payee 002-020, its CPF/CNPJ 021-036, name, account, value 105-117. */
export function fidcPayment(payee: { name: string; cnpj: string; valueCents: number }): string {
  return recordLine('cnab444-fidc', '2', [
    [2, 'CEDENTE'.padEnd(19)],
    [21, '02'],
    [23, payee.cnpj],
    [37, payee.name.padEnd(46)],
    [83, '237'],
    [86, '01234'],
    [92, '000000012345'],
    [105, String(payee.valueCents).padStart(13, '0')],
  ]);
}

export function trailerLine(layout: CnabLayout, totals = ''): string {
  const line = blank(widths(layout).header);
  put(line, 1, '9');
  put(line, 2, totals);
  return line.join('');
}

function withSequence(layout: CnabLayout, line: string, seq: number): string {
  const at = seqColumn(layout) - 1;
  return line.slice(0, at) + String(seq).padStart(6, '0') + line.slice(at + 6);
}

/** A whole file as Latin-1 text. */
export function cnabText(layout: CnabLayout, titles: TitleSpec[], options: FileOptions = {}): string {
  const lines = [
    headerLine(layout, undefined, options.bank),
    ...titles.flatMap((t) => [detailLine(layout, t), ...(t.after ?? [])]),
    ...(options.others ?? []).map((type) => otherLine(layout, type)),
    trailerLine(layout, options.trailerTotals),
  ];
  return numbered(layout, lines, options);
}

/** Numbers the lines (sequence column of the layout) and joins them with the line end. */
function numbered(layout: CnabLayout, lines: string[], options: FileOptions = {}): string {
  const eol = options.eol ?? '\r\n';
  return (
    lines.map((l, i) => withSequence(layout, l, options.sequence?.[i + 1] ?? i + 1)).join(eol) +
    eol +
    (options.tail ?? '')
  );
}

export function cnabBytes(layout: CnabLayout, titles: TitleSpec[], options: FileOptions = {}): Buffer {
  return Buffer.from(cnabText(layout, titles, options), 'latin1');
}

/** A large FIDC CNAB 444 file built from one detail template (fast: no per-column work per line). */
export function bigCnab444(details: number): Buffer {
  const layout: CnabLayout = 'cnab444-fidc';
  const template = detailLine(layout).slice(0, 438);
  const parts: string[] = [withSequence(layout, headerLine(layout), 1)];
  for (let i = 0; i < details; i++) parts.push(template + String(i + 2).padStart(6, '0'));
  parts.push(withSequence(layout, trailerLine(layout), details + 2));
  return Buffer.from(`${parts.join('\r\n')}\r\n`, 'latin1');
}

/**
 * A Banco do Brasil CNAB 400 remessa (CBR641, convênio of 7 digits): the titles are record 7, with
 * the control number at 039-063, the "nosso número" at 064-080, the command at 109-110 and the
 * drawee's name in 37 columns (235-271), as the bank's layout has them.
 */
export function bbRemessa(titles: TitleSpec[]): Buffer {
  const header = blank(400);
  put(header, 1, '01REMESSA01COBRANCA');
  put(header, 27, '12345'); // agency and check digit
  put(header, 32, '000123456'); // account and check digit
  put(header, 47, 'FUNDO DEMO FIDC'.padEnd(30));
  put(header, 77, '001BANCODOBRASIL');
  put(header, 95, '201126');
  put(header, 101, '0000001'); // remessa number
  const details = titles.map((t, i) => {
    const base = detailLine('cnab400', { type: '7', titleIdColumn: 39, ...t }).split('');
    put(base, 2, '02'); // company tax id type, then its CNPJ
    put(base, 4, '11222333000181');
    put(base, 32, '1234567'); // convênio
    put(base, 64, `1234567${String(i + 1).padStart(10, '0')}`);
    put(base, 107, '17'); // carteira
    put(base, 140, '001');
    put(base, 235, (t.draweeName ?? 'JOSE DA SILVA').slice(0, 37).padEnd(40));
    return base.join('');
  });
  return Buffer.from(numbered('cnab400', [header.join(''), ...details, trailerLine('cnab400')]), 'latin1');
}

/**
 * A cooperative bank's CNAB 400 remessa in its own columns (Sicredi, bank 748): one-letter codes at
 * 002-004 and 017-019, "nosso número" at 048-056, the instruction at 109-110, the document kind as a
 * letter at 149 (148 blank), the drawee's person type at 219 ('1' person, '2' company) then '0', the
 * header date as AAAAMMDD at 095-102. `blanks` leaves required fields blank, as a model file does.
 */
export function cooperativeRemessa(
  titles: Array<{ document: string; due: string; valueCents: number; draweeId: string; name: string }>,
  blanks: { instruction?: boolean; kind?: boolean; draweeId?: boolean } = {},
): Buffer {
  const header = blank(400);
  put(header, 1, '01REMESSA01COBRANCA');
  put(header, 27, '12345'); // beneficiary code
  put(header, 32, '11222333000181');
  put(header, 77, '748SICREDI');
  put(header, 95, '20261120');
  put(header, 111, '0000001');
  put(header, 391, '2.00');
  const details = titles.map((t, i) => {
    const line = blank(400);
    put(line, 1, '1AAA');
    put(line, 17, 'AAA');
    put(line, 48, `26${String(200000 + i).padStart(6, '0')}1`);
    if (!blanks.instruction) put(line, 109, '01');
    put(line, 111, t.document.padEnd(10));
    put(line, 121, t.due);
    put(line, 127, String(t.valueCents).padStart(13, '0'));
    if (!blanks.kind) put(line, 149, 'A');
    put(line, 150, 'S');
    put(line, 151, '201126');
    put(line, 219, t.draweeId.length === 11 ? '10' : '20');
    if (!blanks.draweeId) put(line, 221, t.draweeId.padStart(14, '0'));
    put(line, 235, t.name.padEnd(40));
    put(line, 275, 'RUA DAS FLORES 100'.padEnd(40));
    put(line, 327, '01310100');
    return line.join('');
  });
  return Buffer.from(numbered('cnab400', [header.join(''), ...details, trailerLine('cnab400')]), 'latin1');
}

/**
 * A return file (retorno) as a bank writes it, Bradesco's columns: header "02RETORNO01COBRANCA",
 * details with the occurrence at 109-110, its date at 111-116, the document number at 117-126, the
 * due date at 147-152, the value at 153-165 and the amount paid at 254-266; the trailer "9201" + bank
 * with the count at 018-025 and the total at 026-039. In FIDC 444 the sequence is at 439-444.
 */
export function returnFile(layout: 'cnab400' | 'cnab444-fidc', bank: Bank, count: number): Buffer {
  const width = layout === 'cnab400' ? 400 : 444;
  const header = blank(width);
  put(header, 1, '02RETORNO01COBRANCA');
  put(header, 27, '00000000000000012345');
  put(header, 47, 'FUNDO DEMO FIDC'.padEnd(30));
  put(header, 77, bank.code);
  put(header, 80, bank.name.padEnd(15));
  put(header, 95, '251126');
  put(header, 101, '01600000');
  put(header, 109, '00042');
  put(header, 380, '261126');
  const details = Array.from({ length: count }, (_, i) => {
    const line = blank(width);
    put(line, 1, '102');
    put(line, 4, '11222333000181');
    put(line, 18, '000');
    put(line, 21, '00090123400123456');
    put(line, 38, `TIT-${i + 1}`.padEnd(25));
    put(line, 63, '00000000');
    put(line, 71, `${String(i + 1).padStart(11, '0')}P`);
    put(line, 108, '9');
    put(line, 109, i % 2 === 0 ? '02' : '06');
    put(line, 111, '251126');
    put(line, 117, `DOC-${i + 1}`.padEnd(10));
    put(line, 127, `${String(i + 1).padStart(11, '0')}P`.padEnd(20));
    put(line, 147, '151226');
    put(line, 153, '0000000247056');
    put(line, 166, '23701234');
    put(line, 254, i % 2 === 0 ? '0000000000000' : '0000000247056');
    put(line, 296, i % 2 === 0 ? '      ' : '261126');
    return line.join('');
  });
  const trailer = blank(width);
  put(trailer, 1, `9201${bank.code}`);
  put(trailer, 18, String(count).padStart(8, '0'));
  put(trailer, 26, String(count * 247056).padStart(14, '0'));
  return Buffer.from(numbered(layout, [header.join(''), ...details, trailer.join('')]), 'latin1');
}

/**
 * A FEBRABAN CNAB 240 cobrança remessa: file header (type 0, bank at 001-003, "1" remessa at 143),
 * batch header (type 1), segments P and Q (type 3), batch trailer (5) and file trailer (9), each
 * 240 bytes: what a client configured for CNAB 240 sends.
 */
export function cnab240Bytes(bank: Bank = BRADESCO): Buffer {
  const line = (fields: Array<[number, string]>) => {
    const l = blank(240);
    for (const [column, text] of fields) put(l, column, text);
    return l.join('');
  };
  const lines = [
    line([[1, `${bank.code}00000`], [18, '211222333000181'], [73, 'FUNDO DEMO FIDC'], [103, bank.name], [143, '120112026'], [164, '089']]),
    line([[1, `${bank.code}00011R01  040`], [18, '2011222333000181']]),
    line([[1, `${bank.code}00013`], [9, '00001P 01'], [63, 'DOC-1'], [78, '15122026'], [86, '000000000247056']]),
    line([[1, `${bank.code}00013`], [9, '00002Q 01'], [18, '2011222333000181'], [34, 'ACME COMERCIO LTDA']]),
    line([[1, `${bank.code}00015`], [18, '000004']]),
    line([[1, `${bank.code}99999`], [18, '000001000006']]),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');
}

/** Reads a whole file (it must open); throws with the reason when its lines cannot be read. */
export function read(bytes: Buffer, strict = false) {
  const result = readCnab(bytes, { strict });
  if (!result.ok) throw new Error(result.reason);
  return result;
}

/** The diagnostics of a file as "line:columns:rule:severity". */
export function rules(bytes: Buffer, strict = false): string[] {
  return read(bytes, strict).diagnostics.map((d) => `${d.line}:${d.columns}:${d.rule}:${d.severity}`);
}
