// The column model of CNAB 400/444 files and what each record type means, per layout and bank: pure
// data, read by cnab-record.ts and cnab-checks.ts and shown by the layouts table of docs/receivables.md. A CNAB 400
// detail layout is the bank's own, so a record's meaning comes from the header's bank number
// (077-079); the FIDC 444 layout belongs to the custodian, whatever bank the header names. Positions
// are 1-based and inclusive, as in the banks' manuals.

/** Columns of a record, 1-based and inclusive. */
export interface Columns {
  from: number;
  to: number;
}

/** The header (record type 0) columns the sandbox reads. */
export const HEADER_COLUMNS = {
  operation: { from: 2, to: 2 },
  /** The operation and its word: "1REMESSA" in a remessa, "2RETORNO" in a return file. */
  operationWord: { from: 2, to: 9 },
  returnWord: { from: 3, to: 9 },
  /** The literal labels of the cobrança header, as every layout here writes them. */
  operationLabel: { from: 3, to: 9 },
  serviceCode: { from: 10, to: 11 },
  serviceLabel: { from: 12, to: 26 },
  bankCode: { from: 77, to: 79 },
  bankName: { from: 80, to: 94 },
  fileDate: { from: 95, to: 100 },
} as const satisfies Readonly<Record<string, Columns>>;

/**
 * The columns of a title record: the Bradesco CNAB 400 base, which FIDC 444 and "400 + 44" keep and
 * the other known banks follow (a layout may move the control number: RecordMeaning.titleId). The
 * NF-e key and the sequence number sit where the file's width puts them (cnab-record.ts).
 */
export const TITLE_COLUMNS = {
  /** The participant's (or FIDC's) control number. */
  titleId: { from: 38, to: 62 },
  /** 01 remessa (entry of the title). */
  occurrence: { from: 109, to: 110 },
  documentNumber: { from: 111, to: 120 },
  /** DDMMAA. */
  dueDate: { from: 121, to: 126 },
  /** 13 digits, 2 implied decimals. */
  faceValue: { from: 127, to: 139 },
  /** 01 duplicata, 41 digital CCB... */
  kind: { from: 148, to: 149 },
  /** DDMMAA. */
  issueDate: { from: 151, to: 156 },
  /** 01 CPF, 02 CNPJ. */
  draweeType: { from: 219, to: 220 },
  /** A CNPJ, or a CPF right-aligned and zero-filled. */
  draweeTaxId: { from: 221, to: 234 },
  draweeName: { from: 235, to: 274 },
} as const satisfies Readonly<Record<string, Columns>>;

/** Columns as diagnostics name them: "109-110", or "2" for one column. */
export function columnsLabel(columns: Columns): string {
  return columns.from === columns.to ? String(columns.from) : `${columns.from}-${columns.to}`;
}

/** title: a receivable; attached: an optional record that belongs to the title before it. */
export type RecordRole = 'title' | 'attached';

export interface RecordField extends Columns {
  /** Name shown by inspection. */
  name: string;
}

export interface RecordMeaning {
  role: RecordRole;
  /** What the layout says the record is. */
  meaning: string;
  /** Fields read for inspection; empty: the record is kept and counted, its columns are not read. */
  fields: readonly RecordField[];
  /** Set on the record that carries the title's guarantor (Bradesco's Pagador Avalista). */
  guarantor?: true;
  /** Columns of the title's control number when they differ from TITLE_COLUMNS.titleId. */
  titleId?: Columns;
}

export interface RecordLayout {
  /** Short id, e.g. 'bradesco-400'. */
  id: string;
  /** Human name, e.g. 'Bradesco CNAB 400'. */
  name: string;
  /** Which files it is used for (docs/receivables.md, Layouts). */
  appliesTo: string;
  /** Whether the sandbox knows this layout; false: the Bradesco base columns are read, with a diagnostic. */
  known: boolean;
  /** Meaning of record types 1-8, by digit; 0 (header) and 9 (trailer) are structural everywhere. */
  records: Readonly<Record<RecordDigit, RecordMeaning>>;
}

export type RecordDigit = '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8';
export const RECORD_DIGITS: readonly RecordDigit[] = ['1', '2', '3', '4', '5', '6', '7', '8'];

const TITLE: RecordMeaning = { role: 'title', meaning: 'title (detail record)', fields: [] };
const NOT_READ: RecordMeaning = {
  role: 'attached',
  meaning: 'optional record of the title before it (not described by this layout; counted, not read)',
  fields: [],
};

function optional(meaning: string, fields: readonly RecordField[] = []): RecordMeaning {
  return { role: 'attached', meaning, fields };
}

function layoutOf(
  id: string,
  name: string,
  appliesTo: string,
  known: boolean,
  records: Partial<Record<RecordDigit, RecordMeaning>>,
): RecordLayout {
  const all = {} as Record<RecordDigit, RecordMeaning>;
  for (const digit of RECORD_DIGITS) all[digit] = records[digit] ?? NOT_READ;
  return { id, name, appliesTo, known, records: all };
}

/** Whether `digit` is described by `layout` (the others are optional records, counted, not read). */
export function describes(layout: RecordLayout, digit: RecordDigit): boolean {
  return layout.records[digit] !== NOT_READ;
}

const BRADESCO_MESSAGES = optional(
  'messages and 2nd/3rd discounts of the title before it',
  [
    { name: 'message1', from: 2, to: 81 },
    { name: 'message2', from: 82, to: 161 },
    { name: 'message3', from: 162, to: 241 },
    { name: 'message4', from: 242, to: 321 },
    { name: 'discount2Date', from: 322, to: 327 },
    { name: 'discount2Value', from: 328, to: 340 },
    { name: 'discount3Date', from: 341, to: 346 },
    { name: 'discount3Value', from: 347, to: 359 },
  ],
);

const BRADESCO_SPLIT = optional('credit split (rateio de crédito) of the title before it', [
  { name: 'beneficiary1Bank', from: 44, to: 46 },
  { name: 'beneficiary1Value', from: 66, to: 80 },
  { name: 'beneficiary1Name', from: 81, to: 120 },
]);

const BRADESCO_GUARANTOR: RecordMeaning = {
  ...optional('Pagador Avalista (guarantor) of the title before it', [
    { name: 'address', from: 2, to: 46 },
    { name: 'cep', from: 47, to: 54 },
    { name: 'city', from: 55, to: 74 },
    { name: 'state', from: 75, to: 76 },
  ]),
  guarantor: true,
};

/** Bradesco's CNAB 400 ("Cobrança Bradesco", remessa): the base most banks follow. */
export const BRADESCO_400 = layoutOf('bradesco-400', 'Bradesco CNAB 400', 'CNAB 400 and "400 + 44" files whose header names bank 237', true, {
  '1': TITLE,
  '2': BRADESCO_MESSAGES,
  '3': BRADESCO_SPLIT,
  '7': BRADESCO_GUARANTOR,
});

/** Banco do Brasil's CNAB 400 (CBR641, convênio of 7 digits): the title is record 7. */
export const BB_400 = layoutOf('bb-400', 'Banco do Brasil CNAB 400', 'CNAB 400 and "400 + 44" files whose header names bank 001', true, {
  '1': TITLE,
  '5': optional(
    'optional record of the title before it: service 002-003 is 01 e-mail, 03 15-character document number, 07 2nd/3rd discounts, 08 credit bureau, 99 fine',
    [{ name: 'service', from: 2, to: 3 }],
  ),
  // Same title columns as the base, except the control number one column later.
  '7': { ...TITLE, meaning: 'title (detail record, convênio of 7 digits)', titleId: { from: 39, to: 63 } },
});

/** Banks whose CNAB 400 title columns are the Bradesco base's (109-156, 219-274). */
export const BASE_400 = layoutOf(
  'bradesco-base-400',
  'CNAB 400 on the Bradesco base',
  'CNAB 400 and "400 + 44" files whose header names bank 341 (Itaú), 033 (Santander) or 756 (Sicoob)',
  true, {
  '1': TITLE,
});

/** The custodians' FIDC CNAB 444 (key 395-438, sequence 439-444), whatever bank the header names. */
export const FIDC_444 = layoutOf('fidc-444', 'FIDC CNAB 444', 'FIDC 444 files (sequence at 439-444), whatever bank the header names', true, {
  '1': TITLE,
  '2': optional('payment record of the title before it (to the assignor or as a fee)', [
    { name: 'paymentType', from: 2, to: 20 },
    { name: 'payeeType', from: 21, to: 22 },
    { name: 'payeeTaxId', from: 23, to: 36 },
    { name: 'payeeName', from: 37, to: 82 },
    { name: 'bank', from: 83, to: 85 },
    { name: 'agency', from: 86, to: 90 },
    { name: 'account', from: 92, to: 103 },
    { name: 'value', from: 105, to: 117 },
  ]),
  // The custodians' layouts extend the Bradesco cobrança base, whose 3 and 7 these are
  // (assumption rc-fidc-records): generators emit them after a title.
  '3': BRADESCO_SPLIT,
  '7': BRADESCO_GUARANTOR,
});

/** A bank the sandbox has no layout for: read as before (1 and 7 titles, base columns), with a diagnostic. */
export const UNKNOWN_400 = layoutOf(
  'unknown-400',
  'CNAB 400 of a bank without a layout here',
  'CNAB 400 and "400 + 44" files whose header names any other bank (a bank-layout diagnostic says so)',
  false, {
  '1': TITLE,
  '7': { ...TITLE, meaning: 'title (read with the Bradesco base columns)' },
});

/** CNAB 400 layouts by the header's bank number (077-079). */
export const BANK_LAYOUTS: ReadonlyMap<string, { bank: string; layout: RecordLayout }> = new Map([
  ['237', { bank: 'Bradesco', layout: BRADESCO_400 }],
  ['001', { bank: 'Banco do Brasil', layout: BB_400 }],
  ['341', { bank: 'Itaú', layout: BASE_400 }],
  ['033', { bank: 'Santander', layout: BASE_400 }],
  ['756', { bank: 'Sicoob', layout: BASE_400 }],
]);

/** The record layout of a CNAB 400 (or "400 + 44") file whose header names `bankCode`. */
export function layoutForBank(bankCode: string): RecordLayout {
  return BANK_LAYOUTS.get(bankCode)?.layout ?? UNKNOWN_400;
}

/** "237 Bradesco, 001 Banco do Brasil, ...": the banks whose CNAB 400 the sandbox knows. */
export function knownBanks(): string {
  return [...BANK_LAYOUTS].map(([code, b]) => `${code} ${b.bank}`).join(', ');
}

/** Every layout, in the order of the layouts table of docs/receivables.md. */
export const ALL_LAYOUTS: readonly RecordLayout[] = [BRADESCO_400, BB_400, BASE_400, FIDC_444, UNKNOWN_400];
