// Files as real generators and bank layouts write them: record types whose meaning comes
// from the header's bank and layout, other banks' CNAB 400, return files, and what a refusal says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CnabFile, type CnabLayout } from '../../src/receivables/cnab-record.js';
import { scanLines } from '../../src/receivables/cnab-scan.js';
import {
  BRADESCO,
  bbRemessa,
  bradescoGuarantor,
  bradescoMessages,
  bradescoSplit,
  cnab240Bytes,
  cnabBytes,
  cnabText,
  cooperativeRemessa,
  fidcPayment,
  PAULISTA,
  returnFile,
  SICOOB,
  read,
  rules,
} from './helpers.js';

function open(bytes: Buffer): CnabFile {
  const opened = CnabFile.open(bytes);
  if (!opened.ok) throw new Error(opened.reason);
  return opened.file;
}

function refusal(bytes: Buffer): string {
  const scan = scanLines(bytes);
  return scan.ok ? 'accepted' : scan.reason;
}

const GUARANTOR = { address: 'AV PAULISTA 1000 CONJ 12', cep: '01310100', city: 'SAO PAULO', state: 'SP' };

describe('record types take their meaning from the header (bank 077-079) and the layout', () => {
  it('processes a Bradesco 400 with records 1, 2, 3 and 7: messages, credit split and the guarantor of the title before them', () => {
    const bytes = cnabBytes(
      'cnab400',
      [
        { documentNumber: 'DOC-1', after: [bradescoMessages('cnab400', 'NAO RECEBER APOS O VENCIMENTO'), bradescoGuarantor('cnab400', GUARANTOR)] },
        { documentNumber: 'DOC-2', draweeCode: '01', draweeId: '11144477735', after: [bradescoSplit('cnab400', 'FORNECEDOR LTDA', 1000)] },
      ],
      { bank: BRADESCO },
    );
    const r = read(bytes);
    expect(r.diagnostics).toEqual([]);
    expect(r.titles.map((t) => [t.line, t.recordType, t.documentNumber])).toEqual([
      [2, '1', 'DOC-1'],
      [5, '1', 'DOC-2'],
    ]);
    expect(r.summary).toMatchObject({ titleCount: 2, otherRecordCount: 3, errorCount: 0, warningCount: 0 });

    const file = open(bytes);
    expect(file.records.id).toBe('bradesco-400');
    expect(file.guarantorOf(1)).toEqual({
      line: 4,
      recordType: '7',
      meaning: 'Pagador Avalista (guarantor) of the title before it',
      fields: GUARANTOR,
    });
    expect(file.attachedTo(1).map((rec) => [rec.line, rec.recordType, rec.fields.message1 ?? rec.fields.cep])).toEqual([
      [3, '2', 'NAO RECEBER APOS O VENCIMENTO'],
      [4, '7', '01310100'],
    ]);
    expect(file.guarantorOf(4)).toBeNull();
    expect(file.attachedTo(4)).toEqual([
      expect.objectContaining({ line: 6, recordType: '3', fields: expect.objectContaining({ beneficiary1Name: 'FORNECEDOR LTDA', beneficiary1Value: '000000000001000' }) }),
    ]);
  });

  it('refused a Bradesco record 7 as a blank title before; the same line under a bank without a layout is still read as a title, with warnings only', () => {
    // The regression: a guarantor record read as a title has a blank document number and no due date.
    const titles = [{ after: [bradescoGuarantor('cnab400', GUARANTOR)] }];
    expect(rules(cnabBytes('cnab400', titles, { bank: BRADESCO }))).toEqual([]);
    const unknown = { code: '999', name: 'BANCO SEM LAYOUT' };
    // Read with guessed columns, what they show is a warning: the file is processed.
    expect(rules(cnabBytes('cnab400', titles, { bank: unknown }))).toEqual([
      '1:77-79:bank-layout:warning',
      '3:109-110:occurrence:warning',
      '3:111-120:document-number:warning',
      '3:121-126:due-date:warning',
      '3:127-139:face-value:warning',
      '3:148-149:kind:warning',
      '3:151-156:issue-date:warning',
      '3:219-220:drawee-type:warning',
    ]);
    expect(rules(cnabBytes('cnab400', titles, { bank: unknown }), true)).toContain('3:111-120:document-number:error');
  });

  it('processes a FIDC 444 with records 1, 2, 3 and 7 whatever bank its header names', () => {
    const payment = fidcPayment({ name: 'CEDENTE DEMO LTDA', cnpj: '11222333000181', valueCents: 240000 });
    const bytes = cnabBytes(
      'cnab444-fidc',
      [
        { after: [payment, bradescoSplit('cnab444-fidc', 'FORNECEDOR LTDA', 1000), bradescoGuarantor('cnab444-fidc', GUARANTOR)] },
        { documentNumber: 'DOC-2', after: [fidcPayment({ name: 'CEDENTE DEMO LTDA', cnpj: '11222333000181', valueCents: 7056 })] },
      ],
      { bank: PAULISTA },
    );
    const r = read(bytes);
    expect(r.diagnostics).toEqual([]);
    expect(r.summary).toMatchObject({ layout: 'cnab444-fidc', titleCount: 2, otherRecordCount: 4 });
    const file = open(bytes);
    expect(file.records.id).toBe('fidc-444');
    expect(file.attachedTo(1).map((rec) => rec.recordType)).toEqual(['2', '3', '7']);
    expect(file.attachedTo(1)[0]?.fields).toMatchObject({ payeeTaxId: '11222333000181', payeeName: 'CEDENTE DEMO LTDA', value: '0000000240000' });
    expect(file.guarantorOf(1)?.fields).toEqual(GUARANTOR);
    expect(file.attachedTo(5).map((rec) => [rec.line, rec.recordType])).toEqual([[7, '2']]);
  });

  it("processes Banco do Brasil's CNAB 400, whose titles are record 7 (control number at 039-063)", () => {
    const bytes = bbRemessa([
      { titleId: 'BB-TIT-1', documentNumber: 'NF-1001', valueCents: 150000 },
      { titleId: 'BB-TIT-2', documentNumber: 'NF-1002', draweeCode: '02', draweeId: '11222333000181', draweeName: 'MARIA DOS SANTOS PEREIRA DA SILVA' },
    ]);
    const r = read(bytes);
    expect(r.diagnostics).toEqual([]);
    expect(r.summary).toMatchObject({ titleCount: 2, otherRecordCount: 0 });
    expect(r.titles.map((t) => [t.recordType, t.titleId, t.documentNumber, t.draweeTaxId])).toEqual([
      ['7', 'BB-TIT-1', 'NF-1001', '52998224725'],
      ['7', 'BB-TIT-2', 'NF-1002', '11222333000181'],
    ]);
    expect(open(bytes).records.id).toBe('bb-400');
  });

  it("processes a cooperative bank's CNAB 400 whose fields the guessed columns find blank, with warnings that say the columns were guessed", () => {
    const titles = [
      { document: '0000001', due: '151226', valueCents: 150000, draweeId: '11222333000181', name: 'ACME COMERCIO LTDA' },
      { document: '0000002', due: '151226', valueCents: 99000, draweeId: '52998224725', name: 'JOSE DA SILVA' },
    ];
    const blanks = rules(cooperativeRemessa(titles, { instruction: true, kind: true, draweeId: true }));
    // Its header date is AAAAMMDD and its drawee type '20' / '10' (one digit, then 0), Sicredi's own
    // columns: read with the Bradesco base's columns, what they find is a warning, never an error.
    expect(blanks).toEqual([
      '1:95-100:file-date:warning',
      '1:77-79:bank-layout:warning',
      '2:109-110:occurrence:warning',
      '2:148-149:kind:warning',
      '2:219-220:drawee-type:warning',
      '2:221-234:drawee-tax-id:warning',
      '3:109-110:occurrence:warning',
      '3:148-149:kind:warning',
      '3:219-220:drawee-type:warning',
      '3:221-234:drawee-tax-id:warning',
    ]);
    const r = read(cooperativeRemessa(titles, { instruction: true, kind: true, draweeId: true }));
    expect(r.summary).toMatchObject({ errorCount: 0, warningCount: 10, titleCount: 2 });
    const bank = r.diagnostics.find((d) => d.rule === 'bank-layout');
    expect(bank?.message).toContain('bank "748" ("SICREDI"), whose CNAB 400 layout this sandbox does not know');
    expect(bank?.message).toContain('237 Bradesco');
    const occurrence = r.diagnostics.find((d) => d.rule === 'occurrence');
    expect(occurrence?.message).toMatch(/\(read from the guessed .* columns, which bank 748 may not use\)$/);
    // Structure is judged as in every layout: a broken sequence is still an error.
    const broken = cooperativeRemessa(titles).toString('latin1').replace(/000002(\r?\n)/, '000005$1');
    expect(rules(Buffer.from(broken, 'latin1'))).toContain('2:395-400:sequence:error');

    // Filled in, the file still says it was read with another bank's columns; strict mode refuses it.
    const filled = cooperativeRemessa(titles);
    expect(rules(filled)).toEqual([
      '1:95-100:file-date:warning',
      '1:77-79:bank-layout:warning',
      '2:148-149:kind:warning',
      '2:219-220:drawee-type:warning',
      '3:148-149:kind:warning',
      '3:219-220:drawee-type:warning',
    ]);
    expect(rules(filled, true)).toContain('1:77-79:bank-layout:error');
  });

  it('processes a credit cooperative whose layout it does not know but which writes the Bradesco base (Unicred, 136), with the layout warning only', () => {
    // Unicred's cobrança (CobExpress) takes remessa files in Bradesco's CNAB 400 layout.
    const unicred = { code: '136', name: 'UNICRED' };
    const bytes = cnabBytes('cnab400', [{}, { draweeId: '52998224725' }], { bank: unicred });
    expect(rules(bytes)).toEqual(['1:77-79:bank-layout:warning']);
    expect(read(bytes).summary).toMatchObject({ errorCount: 0, warningCount: 1, titleCount: 2 });
    expect(open(bytes).records).toMatchObject({ known: false });
  });

  it('reads a bank whose CNAB 400 follows the Bradesco base (Sicoob) without a layout warning', () => {
    expect(rules(cnabBytes('cnab400', [{}], { bank: SICOOB }))).toEqual([]);
  });

  it('requires a drawee id type and id on every title', () => {
    expect(rules(cnabBytes('cnab400', [{ draweeCode: '  ', draweeId: '' }, { draweeCode: '02', draweeId: '00000000000000' }]))).toEqual([
      '2:219-220:drawee-type:error',
      '3:221-234:drawee-tax-id:error',
    ]);
  });
});

describe('optional records in any number and order after each title', () => {
  // Each title is followed by any sequence of the records its layout describes (Bradesco 2, 3, 7;
  // FIDC 444 2, 3, 7): the file is processed clean and every record belongs to the title before it.
  const records = (layout: CnabLayout): Record<string, () => string> => ({
    '2': () => (layout === 'cnab444-fidc' ? fidcPayment({ name: 'CEDENTE', cnpj: '11222333000181', valueCents: 100 }) : bradescoMessages(layout, 'MENSAGEM')),
    '3': () => bradescoSplit(layout, 'FORNECEDOR', 100),
    '7': () => bradescoGuarantor(layout, GUARANTOR),
  });

  it.each<[CnabLayout]>([['cnab400'], ['cnab444-fidc'], ['cnab444-400+44']])('%s', (layout) => {
    const make = records(layout);
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom('2', '3', '7'), { maxLength: 4 }), { minLength: 1, maxLength: 6 }), (plan) => {
        const bytes = cnabBytes(layout, plan.map((after, i) => ({ documentNumber: `DOC-${i + 1}`, after: after.map((t) => make[t]?.() ?? '') })), { bank: BRADESCO });
        const r = read(bytes);
        expect(r.diagnostics).toEqual([]);
        expect(r.summary).toMatchObject({ titleCount: plan.length, otherRecordCount: plan.flat().length });
        const file = open(bytes);
        const titles = file.titleIndexes();
        expect(titles.map((i) => file.attachedTo(i).map((rec) => rec.recordType))).toEqual(plan);
        expect(titles.map((i) => file.guarantorOf(i) !== null)).toEqual(plan.map((after) => after.includes('7')));
      }),
      { numRuns: 60 },
    );
  });
});

describe('return files (retorno) sent as a remessa', () => {
  it.each([
    ['a Bradesco CNAB 400 retorno with 15 titles', returnFile('cnab400', BRADESCO, 15)],
    ['a FIDC 444 retorno with 45 titles', returnFile('cnab444-fidc', PAULISTA, 45)],
  ])('refuses %s with one diagnostic that names it', (_name, bytes) => {
    const r = read(bytes);
    expect(r.diagnostics).toEqual([
      {
        line: 1,
        columns: '2-9',
        rule: 'return-file',
        severity: 'error',
        message: expect.stringContaining('this is a return file (retorno), not an operation file (remessa)'),
      },
    ]);
    expect(r.summary).toMatchObject({ errorCount: 1, warningCount: 0, titleCount: 0 });
    expect(r.titles).toEqual([]);
  });
});

describe('what a refused file is, in the message', () => {
  it('names CNAB 240 and the layouts accepted', () => {
    expect(refusal(cnab240Bytes())).toBe(
      'CNAB 240 is not supported: use CNAB 400 or 444 (line 1 has 240 bytes, the CNAB 240 width)',
    );
  });

  it('names UTF-16, with or without a byte-order mark, little- or big-endian', () => {
    const text = cnabText('cnab400', [{}]);
    const le = Buffer.from(`\ufeff${text}`, 'utf16le');
    expect(refusal(le)).toBe(
      'the file is UTF-16 text (it starts with the byte-order mark FF FE); CNAB files are single-byte text: save it as ASCII or Latin-1 (ISO-8859-1)',
    );
    const be = Buffer.from(Buffer.from(text, 'utf16le')).swap16();
    expect(refusal(be)).toMatch(/^the file is UTF-16 text \(a NUL byte between its first characters\)/);
    expect(refusal(Buffer.from(text, 'utf16le'))).toMatch(/^the file is UTF-16 text/);
  });

  it('says a line of one byte has 1 byte', () => {
    expect(refusal(Buffer.from('A\r\n', 'latin1'))).toBe(
      'line 1 has 1 byte; every line of a CNAB file must have 400 or 444 (line ends CR LF or LF)',
    );
  });

  it('says a UTF-8 file must be ASCII or Latin-1, naming the line and column of the first multi-byte character', () => {
    const text = cnabText('cnab400', [{ draweeName: 'JOSÉ DA CONCEIÇÃO' }]);
    expect(refusal(Buffer.from(text, 'utf8'))).toBe(
      'line 2 has 403 bytes; every line of a CNAB file must have 400 or 444 (line ends CR LF or LF): the file must be ' +
        'ASCII or Latin-1 (one byte per character), but it is UTF-8, where an accented letter takes two bytes; the ' +
        'first multi-byte character is "É" (bytes C3 89) at line 2, column 238',
    );
    // The same letters in Latin-1 are one byte each: accepted.
    expect(refusal(Buffer.from(text, 'latin1'))).toBe('accepted');
  });
});
