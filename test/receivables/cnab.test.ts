import { describe, expect, it } from 'vitest';
import { CnabReader } from '../../src/receivables/cnab-checks.js';
import { CnabFile, type CnabLayout } from '../../src/receivables/cnab-record.js';
import { scanLines } from '../../src/receivables/cnab-scan.js';
import {
  BANCO_DO_BRASIL,
  cnabBytes,
  cnabText,
  detailLine,
  headerLine,
  trailerLine,
  VALID_NFE_KEY,
  read,
  rules,
} from './helpers.js';

describe('scanLines', () => {
  it('accepts CR LF and LF line ends', () => {
    for (const eol of ['\r\n', '\n']) {
      const scan = scanLines(cnabBytes('cnab400', [{}], { eol }));
      expect(scan.ok && scan.lines.count).toBe(3);
    }
  });

  it('tolerates a trailing EOF byte, a missing final line end and trailing blank lines', () => {
    for (const tail of ['\x1a', '\r\n', '   \r\n\r\n', '\x1a\r\n']) {
      const scan = scanLines(cnabBytes('cnab444-fidc', [{}], { tail }));
      expect(scan.ok && scan.lines.count, JSON.stringify(tail)).toBe(3);
    }
    const noFinalEol = Buffer.from(cnabText('cnab400', [{}]).replace(/\r\n$/, ''), 'latin1');
    const scan = scanLines(noFinalEol);
    expect(scan.ok && scan.lines.lengths).toEqual([400, 400, 400]);
  });

  it('accepts 400-byte header and trailer around 444-byte details ("400 + 44")', () => {
    const scan = scanLines(cnabBytes('cnab444-400+44', [{}, {}]));
    expect(scan.ok && scan.lines.lengths).toEqual([400, 444, 444, 400]);
  });

  it('names the first line that is neither 400 nor 444 bytes', () => {
    const text = cnabText('cnab400', [{}, {}]).split('\r\n');
    text[2] = (text[2] ?? '').slice(0, 398);
    const scan = scanLines(Buffer.from(text.join('\r\n'), 'latin1'));
    expect(scan).toEqual({ ok: false, line: 3, reason: expect.stringContaining('line 3 has 398 bytes') });
  });


  it('refuses an empty or blank file and a blank line between records', () => {
    expect(scanLines(Buffer.alloc(0)).ok).toBe(false);
    expect(scanLines(Buffer.from('\r\n  \r\n\x1a')).ok).toBe(false);
    const text = cnabText('cnab400', [{}]).replace('\r\n', '\r\n\r\n');
    expect(scanLines(Buffer.from(text, 'latin1'))).toMatchObject({ ok: false, line: 2 });
  });
});

describe('reading a CNAB 400 file (Bradesco base)', () => {
  it('reads every title field, the value to the cent and the dates', () => {
    const r = read(
      cnabBytes('cnab400', [
        {
          titleId: 'CTRL-0001',
          documentNumber: 'NF-000123',
          due: '310127',
          valueCents: 247056,
          kind: '01',
          issue: '201126',
          draweeCode: '02',
          draweeId: '11222333000181',
          draweeName: 'ACME COMERCIO LTDA',
        },
        { documentNumber: 'NF-000124', valueCents: 1, draweeId: '11144477735' },
      ]),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.summary).toEqual({
      layout: 'cnab400',
      lineCount: 4,
      fileDate: '2026-11-20',
      titleCount: 2,
      otherRecordCount: 0,
      totalFaceValueCents: 247057,
      errorCount: 0,
      warningCount: 0,
    });
    expect(r.titles[0]).toEqual({
      line: 2,
      recordType: '1',
      titleId: 'CTRL-0001',
      occurrence: '01',
      documentNumber: 'NF-000123',
      dueDate: '2027-01-31',
      faceValueCents: 247056,
      kind: '01',
      issueDate: '2026-11-20',
      draweeType: 'cnpj',
      draweeTaxId: '11222333000181',
      draweeName: 'ACME COMERCIO LTDA',
      nfeKey: null,
    });
    expect(r.titles[1]).toMatchObject({
      line: 3,
      draweeType: 'cpf',
      draweeTaxId: '11144477735',
      faceValueCents: 1,
    });
  });

  it('reads type 7 details as titles when the header names Banco do Brasil, other record types as optional records', () => {
    const r = read(cnabBytes('cnab400', [{ type: '7' }, {}], { bank: BANCO_DO_BRASIL, others: ['2', '5'] }));
    expect(r.diagnostics).toEqual([]);
    expect(r.titles.map((t) => t.recordType)).toEqual(['7', '1']);
    expect(r.summary).toMatchObject({ titleCount: 2, otherRecordCount: 2, lineCount: 6 });
  });

  it('accepts a trailer that carries totals', () => {
    const r = read(cnabBytes('cnab400', [{}], { trailerTotals: '000003000000000247056' }));
    expect(r.summary.errorCount).toBe(0);
  });

  it('accepts an alphanumeric drawee CNPJ', () => {
    const r = read(cnabBytes('cnab400', [{ draweeCode: '02', draweeId: '12ABC34501DE35' }]));
    expect(r.diagnostics).toEqual([]);
    expect(r.titles[0]?.draweeTaxId).toBe('12ABC34501DE35');
  });
});

describe('reading CNAB 444 files', () => {
  it('reads the NF-e key at 395-438 and the sequence at 439-444 (FIDC 444)', () => {
    const r = read(cnabBytes('cnab444-fidc', [{ valueCents: 100000 }]));
    expect(r.diagnostics).toEqual([]);
    expect(r.summary).toMatchObject({ layout: 'cnab444-fidc', titleCount: 1, totalFaceValueCents: 100000 });
    expect(r.titles[0]?.nfeKey).toBe(VALID_NFE_KEY);
  });

  it('reads the key at 401-444 and the sequence at 395-400 ("400 + 44", 400-byte header, trailer and type 2 record)', () => {
    const r = read(cnabBytes('cnab444-400+44', [{}, {}], { others: ['2'], eol: '\n' }));
    expect(r.diagnostics).toEqual([]);
    expect(r.summary).toMatchObject({ layout: 'cnab444-400+44', titleCount: 2, otherRecordCount: 1 });
    expect(r.titles[1]?.nfeKey).toBe(VALID_NFE_KEY);
  });

  it('reads a "400 + 44" file whose header and trailer are padded to 444', () => {
    const pad = (l: string) => l.padEnd(444);
    const lines = [pad(headerLine('cnab400')), detailLine('cnab444-400+44'), pad(trailerLine('cnab400'))].map(
      (l, i) => `${l.slice(0, 394)}00000${i + 1}${l.slice(400)}`,
    );
    const r = read(Buffer.from(lines.join('\r\n'), 'latin1'));
    expect(r.summary.layout).toBe('cnab444-400+44');
    expect(r.diagnostics).toEqual([]);
  });

  it('reads blank key columns as no key, and does not check the IPOC of a CCB (kind 41)', () => {
    // A duplicata (kind 01) without a key is warned (cnab-text-and-layouts.test.ts); kind 02 is not one.
    const r = read(
      cnabBytes('cnab444-fidc', [
        { kind: '02', nfeKey: null },
        { kind: '41', nfeKey: 'IPOC0000000000000000000000000000000000000001' },
      ]),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.titles.map((t) => t.nfeKey)).toEqual([null, 'IPOC0000000000000000000000000000000000000001']);
  });

  it('refuses a 400-byte line in a FIDC 444 file', () => {
    const lines = cnabText('cnab444-fidc', [{}, {}]).split('\r\n');
    lines[2] = (lines[2] ?? '').slice(0, 400);
    expect(rules(Buffer.from(lines.join('\r\n'), 'latin1'))).toContain('3:null:line-length:error');
  });
});

describe('mixed 400/444 widths: one rule whichever layout the header names', () => {
  /** The file of `layout` with three titles, line 3 (the second title) cut to 400 or padded to 444 bytes. */
  const withLine3 = (layout: CnabLayout, width: 400 | 444) => {
    const lines = cnabText(layout, [{}, {}, {}]).split('\r\n');
    const line = lines[2] ?? '';
    lines[2] = width === 400 ? line.slice(0, 400) : line.padEnd(444);
    return Buffer.from(lines.join('\r\n'), 'latin1');
  };
  const finding = (bytes: Buffer) => {
    const found = read(bytes).diagnostics.filter((d) => d.rule === 'line-length');
    return found.map(({ line, columns, rule, severity, message }) => ({ line, columns, rule, severity, message }));
  };
  const short = {
    line: 3,
    columns: null,
    rule: 'line-length',
    severity: 'error',
    message: 'line has 400 bytes, but the titles of this file have 444 (the first at line 2): every title has the same width',
  };

  it('a 400-byte title among 444-byte ones: the same error under a 444-byte FIDC header and a 400-byte "400 + 44" header', () => {
    expect(finding(withLine3('cnab444-fidc', 400))).toEqual([short]);
    expect(finding(withLine3('cnab444-400+44', 400))).toEqual([short]);
    // The rest of the file is read as usual: nothing else is reported.
    expect(rules(withLine3('cnab444-400+44', 400))).toEqual(['3:null:line-length:error']);
    expect(rules(withLine3('cnab444-fidc', 400))).toEqual(['3:null:line-length:error']);
  });

  it('a 444-byte title among 400-byte ones is refused too, in a CNAB 400 file', () => {
    expect(finding(withLine3('cnab400', 444))).toEqual([
      { ...short, message: 'line has 444 bytes, but the titles of this file have 400 (the first at line 2): every title has the same width' },
    ]);
  });

  it('takes 400-byte header, trailer and other records beside 444-byte titles ("400 + 44") under either header width', () => {
    // A FIDC file whose trailer is 400 bytes, numbered at 395-400 as a 400-byte line is.
    const lines = cnabText('cnab444-fidc', [{}, {}]).split('\r\n');
    const trailer = (lines[3] ?? '').slice(0, 394) + '000004';
    lines[3] = trailer;
    expect(rules(Buffer.from(lines.join('\r\n'), 'latin1'))).toEqual([]);
    expect(rules(cnabBytes('cnab444-400+44', [{}, {}], { others: ['2'] }))).toEqual([]);
  });

  it('never takes a 444-byte record beside 400-byte titles, whichever record it is', () => {
    const lines = cnabText('cnab400', [{}, {}]).split('\r\n');
    lines[3] = (lines[3] ?? '').padEnd(444);
    expect(read(Buffer.from(lines.join('\r\n'), 'latin1')).diagnostics).toEqual([
      {
        ...short,
        line: 4,
        message:
          'line has 444 bytes, but the titles of this file have 400 (the first at line 2): a header, trailer or other record ' +
          'has the width of the titles, or 400 beside 444-byte titles ("400 + 44")',
      },
    ]);
  });
});

describe('structural faults always reject, naming the line and columns', () => {
  it('reports a broken sequence once, at the line where it breaks', () => {
    const bytes = cnabBytes('cnab444-fidc', [{}, {}, {}], { sequence: { 3: 4, 4: 5, 5: 6 } });
    expect(rules(bytes)).toEqual(['3:439-444:sequence:error', '5:439-444:trailer-count:error']);
  });

  it('flags only the line whose sequence number is wrong, not the correct line after it', () => {
    const bytes = cnabBytes('cnab400', [{}, {}, {}], { sequence: { 3: 7 } });
    expect(rules(bytes)).toEqual(['3:395-400:sequence:error']);
    const fidc = cnabBytes('cnab444-fidc', [{}, {}, {}, {}], { sequence: { 2: 9, 4: 1 } });
    expect(rules(fidc)).toEqual(['2:439-444:sequence:error', '4:439-444:sequence:error']);
  });

  it('reports a sequence field that is not digits', () => {
    const lines = cnabText('cnab400', [{}]).split('\r\n');
    lines[1] = `${(lines[1] ?? '').slice(0, 394)}00000X`;
    expect(rules(Buffer.from(lines.join('\r\n'), 'latin1'))).toEqual(['2:395-400:sequence:error']);
  });

  it('reports a trailer whose sequence is not the record count', () => {
    const bytes = cnabBytes('cnab400', [{}, {}], { sequence: { 4: 9 } });
    const r = read(bytes);
    expect(rules(bytes)).toEqual(['4:395-400:trailer-count:error']);
    expect(r.diagnostics[0]?.message).toContain('record count 4, found 9');
  });

  it('reports a missing header, a missing trailer and a header or trailer in the middle', () => {
    const lines = cnabText('cnab400', [{}, {}]).split('\r\n').filter(Boolean);
    const noHeader = [lines[1], lines[2], lines[3]].map((l, i) => `${(l ?? '').slice(0, 394)}00000${i + 1}`);
    expect(rules(Buffer.from(noHeader.join('\n'), 'latin1'))).toEqual(['1:1:header:error']);
    const noTrailer = [lines[0], lines[1], lines[2]];
    expect(rules(Buffer.from(noTrailer.join('\n'), 'latin1'))).toContain('3:1:trailer:error');
    const middle = [lines[0], `9${(lines[1] ?? '').slice(1)}`, lines[2], lines[3]];
    expect(rules(Buffer.from(middle.join('\n'), 'latin1'))).toContain('2:1:record-type:error');
  });

  it('refuses a retorno file and a file without titles', () => {
    const retorno = cnabText('cnab400', [{}]).replace(/^01/, '02');
    expect(rules(Buffer.from(retorno, 'latin1'))).toEqual(['1:2-9:return-file:error']);
    expect(rules(cnabBytes('cnab400', [], { others: ['2'] }))).toEqual(['null:null:no-titles:error']);
  });

  it('refuses unreadable title fields: blank document number, impossible due date, zero or non-numeric value', () => {
    const bytes = cnabBytes('cnab400', [{ documentNumber: '' }, { due: '310226' }, { valueCents: 0 }]);
    expect(rules(bytes)).toEqual([
      '2:111-120:document-number:error',
      '3:121-126:due-date:error',
      '4:127-139:face-value:error',
    ]);
    const lines = cnabText('cnab400', [{}]).split('\r\n');
    lines[1] = `${(lines[1] ?? '').slice(0, 126)}00000000012,5${(lines[1] ?? '').slice(139)}`;
    expect(rules(Buffer.from(lines.join('\r\n'), 'latin1'))).toEqual(['2:127-139:face-value:error']);
  });
});

describe('domain checks warn, or reject in strict mode', () => {
  const bad = () =>
    cnabBytes('cnab444-fidc', [
      { draweeCode: '01', draweeId: '52998224724' },
      { draweeCode: '02', draweeId: '11222333000182' },
      { nfeKey: `${VALID_NFE_KEY.slice(0, 43)}0` },
      { draweeCode: '99' },
    ]);

  it('warns about drawee check digits, the NF-e key check digit and an unknown drawee type', () => {
    const r = read(bad());
    expect(rules(bad())).toEqual([
      '2:221-234:drawee-tax-id:warning',
      '3:221-234:drawee-tax-id:warning',
      '4:395-438:nfe-key:warning',
      '5:219-220:drawee-type:warning',
    ]);
    expect(r.diagnostics[0]?.message).toContain('CPF check digits do not match (expected 25)');
    expect(r.summary).toMatchObject({ errorCount: 0, warningCount: 4, titleCount: 4 });
  });

  it('turns the same checks into errors in strict mode', () => {
    const r = read(bad(), true);
    expect(r.diagnostics.map((d) => d.severity)).toEqual(['error', 'error', 'error', 'error']);
    expect(r.summary).toMatchObject({ errorCount: 4, warningCount: 0 });
  });
});

describe('CnabReader', () => {
  function open(bytes: Buffer): CnabFile {
    const opened = CnabFile.open(bytes);
    if (!opened.ok) throw new Error(opened.reason);
    return opened.file;
  }

  it('checks in slices with the sequence check carried across them', () => {
    const file = open(cnabBytes('cnab400', [{}, {}, {}, {}], { sequence: { 4: 7, 5: 8, 6: 9 } }));
    const reader = new CnabReader(file, { strict: false });
    const first = reader.read(0, 3);
    expect(reader.done).toBe(false);
    const second = reader.read(3, 6);
    expect(reader.done).toBe(true);
    expect(first).toEqual([]);
    expect(second.map((d) => `${d.line}:${d.rule}`)).toEqual(['4:sequence', '6:trailer-count']);
    expect(reader.summary().titleCount).toBe(4);
    expect(() => reader.read(2, 3)).toThrow(RangeError);
  });

  it('keeps at most maxDiagnostics diagnostics but counts them all', () => {
    const file = open(
      cnabBytes(
        'cnab400',
        Array.from({ length: 5 }, () => ({ draweeId: '52998224724' })),
      ),
    );
    const reader = new CnabReader(file, { strict: false, maxDiagnostics: 2 });
    expect(reader.read(0, 7)).toHaveLength(2);
    expect(reader.summary().warningCount).toBe(5);
  });

  it('reads one title on demand, skipping optional records', () => {
    const file = open(
      cnabBytes('cnab444-fidc', [{ documentNumber: 'A' }, { documentNumber: 'B' }], { others: ['2'] }),
    );
    expect(file.titleIndexes()).toEqual([1, 2]);
    expect(file.isTitle(3)).toBe(false);
    expect(file.title(2)).toMatchObject({ line: 3, documentNumber: 'B', nfeKey: VALID_NFE_KEY });
  });
});
