// Builds CNAB 400 / 444 files for the tests, column by column (1-based, inclusive, as the manuals).
import type { CnabLayout } from '../../src/receivables/cnab.js';

export const VALID_NFE_KEY = '35260722333444000181550010001234561123456787';

export interface TitleSpec {
  type?: string;
  titleId?: string;
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
}

export interface FileOptions {
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

export function headerLine(layout: CnabLayout, fileDate = '201126'): string {
  const line = blank(widths(layout).header);
  put(line, 1, '01REMESSA01COBRANCA       ');
  put(line, 27, '00000000000000012345');
  put(line, 47, 'FUNDO DEMO FIDC'.padEnd(30));
  put(line, 77, '237BRADESCO');
  put(line, 95, fileDate);
  return line.join('');
}

export function detailLine(layout: CnabLayout, t: TitleSpec = {}): string {
  const line = blank(widths(layout).detail);
  put(line, 1, t.type ?? '1');
  put(line, 21, '01');
  put(line, 38, (t.titleId ?? 'TIT-1').padEnd(25));
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
  // In the "400 + 44" layout the optional records keep 400 bytes, as in brcobranca's Itau file.
  const line = blank(widths(layout).header === 400 ? 400 : 444);
  put(line, 1, type);
  put(line, 2, 'MENSAGEM');
  return line.join('');
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
    headerLine(layout),
    ...titles.map((t) => detailLine(layout, t)),
    ...(options.others ?? []).map((type) => otherLine(layout, type)),
    trailerLine(layout, options.trailerTotals),
  ];
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
