// What a CNAB file's text holds beyond its columns (UTF-8 text of the right byte length, control
// characters, the header's literal labels, a blanked record after the trailer), and the two CNAB 444
// layouts mixed in one file: each is named by a diagnostic, never read silently.
import { describe, expect, it } from 'vitest';
import { cnabText, detailLine, headerLine, read, rules, trailerLine, VALID_NFE_KEY } from './helpers.js';

/** Replaces the text at 1-based `column` of line `line` (1-based) of a file's text. */
function edit(text: string, line: number, column: number, value: string): string {
  const lines = text.split('\r\n');
  const l = lines[line - 1] ?? '';
  lines[line - 1] = l.slice(0, column - 1) + value + l.slice(column - 1 + value.length);
  return lines.join('\r\n');
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

describe('text that is UTF-8 in a file of the right byte length (rc-file-encoding)', () => {
  // "JOSÉ DA SILVA" written as UTF-8 (É = C3 89) and padded to the 40 bytes of 235-274, so every line
  // still has 400 bytes: the columns count bytes, the name has 39 characters.
  const name = Buffer.from('JOSÉ DA SILVA', 'utf8').toString('latin1').padEnd(40);
  const utf8File = () => latin1(edit(cnabText('cnab400', [{}, {}]), 2, 235, name));

  it('warns that the file seems UTF-8, naming the line and column of the first multi-byte character', () => {
    const r = read(utf8File());
    expect(rules(utf8File())).toEqual(['2:238:file-encoding:warning']);
    expect(r.diagnostics[0]?.message).toContain('"É" (bytes C3 89)');
    expect(r.diagnostics[0]?.message).toContain('UTF-8');
  });

  it('reads its text as UTF-8, so the name stored is the name sent, not mojibake', () => {
    const r = read(utf8File());
    expect(r.titles.map((t) => t.draweeName)).toEqual(['JOSÉ DA SILVA', 'JOSE DA SILVA']);
  });

  it('is an error in strict mode', () => {
    expect(rules(utf8File(), true)).toEqual(['2:238:file-encoding:error']);
  });

  it('reads a Latin-1 file (É = C9) as Latin-1, without a diagnostic', () => {
    const file = latin1(edit(cnabText('cnab400', [{}]), 2, 235, 'JOSÉ DA SILVA'.padEnd(40)));
    const r = read(file);
    expect(r.diagnostics).toEqual([]);
    expect(r.titles[0]?.draweeName).toBe('JOSÉ DA SILVA');
  });
});

describe('control characters in a record', () => {
  it('names a NUL and a TAB in a drawee name by line, column and field', () => {
    const text = edit(edit(cnabText('cnab400', [{}, {}]), 2, 239, '\u0000'), 3, 235, 'JOSE\tSILVA');
    const r = read(latin1(text));
    expect(rules(latin1(text))).toEqual(['2:239:control-character:warning', '3:239:control-character:warning']);
    expect(r.diagnostics[0]?.message).toContain('NUL (0x00)');
    expect(r.diagnostics[0]?.message).toContain('draweeName');
    expect(r.diagnostics[1]?.message).toContain('TAB (0x09)');
  });
});

describe("the header's labels", () => {
  it('warns when REMESSA or COBRANCA is not written as the layout has it, lower case included', () => {
    const lower = latin1(edit(cnabText('cnab400', [{}]), 1, 3, 'remessa'));
    expect(rules(lower)).toEqual(['1:3-9:header-label:warning']);
    expect(read(lower).diagnostics[0]?.message).toContain('"remessa"');
    const service = latin1(edit(cnabText('cnab444-fidc', [{}]), 1, 10, '01cobranca'));
    expect(rules(service)).toEqual(['1:12-26:header-label:warning']);
    const code = latin1(edit(cnabText('cnab400', [{}]), 1, 10, '02'));
    expect(rules(code)).toEqual(['1:10-11:header-label:warning']);
  });
});

describe('a record blanked out after the trailer', () => {
  it('names a line of spaces as wide as a record after the trailer, which is not read', () => {
    const file = latin1(cnabText('cnab400', [{}], { tail: `${' '.repeat(400)}\r\n` }));
    const r = read(file);
    expect(rules(file)).toEqual(['4:null:after-trailer:warning']);
    expect(r.diagnostics[0]?.message).toContain('400 spaces');
    expect(r.summary.lineCount).toBe(3);
  });

  it('still tolerates a line end, an EOF byte or a few spaces after the trailer', () => {
    for (const tail of ['\x1a', '\r\n', '   \r\n\r\n']) expect(rules(latin1(cnabText('cnab400', [{}], { tail })))).toEqual([]);
  });
});

describe('the two CNAB 444 layouts mixed in one file', () => {
  /** A title in the "400 + 44" layout (sequence 395-400, key 401-444). */
  const plus44Title = (seq: number) => {
    const line = detailLine('cnab444-400+44');
    return `${line.slice(0, 394)}${String(seq).padStart(6, '0')}${line.slice(400)}`;
  };
  /** A title in the FIDC 444 layout (key 395-438, sequence 439-444). */
  const fidcTitle = (seq: number) => `${detailLine('cnab444-fidc').slice(0, 438)}${String(seq).padStart(6, '0')}`;
  const at = (line: string, column: number, seq: number) =>
    `${line.slice(0, column - 1)}${String(seq).padStart(6, '0')}${line.slice(column + 5)}`;

  it('says a "400 + 44" title under a FIDC 444 header is in the other layout, not that its sequence or key is wrong', () => {
    const lines = [at(headerLine('cnab444-fidc'), 439, 1), plus44Title(2), at(trailerLine('cnab444-fidc'), 439, 3)];
    const file = latin1(lines.join('\r\n'));
    const r = read(file);
    expect(rules(file)).toEqual(['2:395-400:layout-mix:error']);
    expect(r.diagnostics[0]?.message).toContain('"400 + 44"');
    expect(r.diagnostics[0]?.message).toContain('FIDC 444');
  });

  it('says a FIDC 444 title under a "400 + 44" header is in the other layout', () => {
    const header = at(headerLine('cnab400').padEnd(444), 395, 1);
    const lines = [header, fidcTitle(2), at(trailerLine('cnab400').padEnd(444), 395, 3)];
    const file = latin1(lines.join('\r\n'));
    expect(rules(file)).toEqual(['2:439-444:layout-mix:error']);
    const short = [at(headerLine('cnab400'), 395, 1), fidcTitle(2), at(trailerLine('cnab400'), 395, 3)];
    expect(rules(latin1(short.join('\r\n')))).toEqual(['2:439-444:layout-mix:error']);
  });

  it('warns when a duplicata (kind 01) of a 444 file has no NF-e key, and not for other kinds', () => {
    const fidc = latin1(cnabText('cnab444-fidc', [{ nfeKey: null }, { kind: '02', nfeKey: null }, {}]));
    expect(rules(fidc)).toEqual(['2:395-438:nfe-key:warning']);
    expect(read(fidc).diagnostics[0]?.message).toContain('kind 01');
    const plus44 = latin1(cnabText('cnab444-400+44', [{ nfeKey: null }, { nfeKey: VALID_NFE_KEY }]));
    expect(rules(plus44)).toEqual(['2:401-444:nfe-key:warning']);
  });
});
