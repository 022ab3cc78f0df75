// Rule 3 on files whose syntax is damaged (lb-pdf-damaged-syntax): a stray delimiter, a string or a
// container left open must not hide the trailer that a reader going by the cross-reference section
// finds. Every file here has a valid cross-reference table, so qpdf reads the trailer (and the object
// its /Encrypt names) by their offsets, whatever the bytes before them; each verdict marked "qpdf"
// is what `qpdf --show-encryption` (qpdf 11.3) said of the same bytes, checked by hand.
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEncryptedPdf, MAX_FILE_BYTES, PdfFileCheck, PdfStructure } from '../../src/domain/pdf.js';

/** The security handler: a Standard one with made-up values (readers still see an encrypted file). */
const HANDLER = `<< /Filter /Standard /V 1 /R 2 /O <${'4f'.repeat(32)}> /U <${'55'.repeat(32)}> /P -4 >>`;

/**
 * A PDF from `parts` (ISO 32000-1 7.5: header, body, cross-reference table, trailer), each part's
 * `n 0 obj` listed at its offset, so the table is valid whatever else a part holds. `trailer` is
 * the trailer's extra entries; `tail` comes after %%EOF.
 */
function pdfOf(parts: string[], trailer: string, tail = ''): Buffer {
  let text = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets = new Map<number, number>();
  for (const part of parts) {
    const header = /(?<![\d])(\d+) 0 obj/.exec(part);
    if (header) offsets.set(Number(header[1]), text.length + header.index);
    text += part;
  }
  const size = Math.max(...offsets.keys()) + 1;
  const xref = text.length;
  text += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    const at = offsets.get(n);
    text += at === undefined ? '0000000000 65535 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`;
  }
  text += `trailer\n<< /Size ${size} /Root 1 0 R${trailer} >>\nstartxref\n${xref}\n%%EOF\n${tail}`;
  return Buffer.from(text, 'latin1');
}

const CATALOG = ['1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', '2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n'];
const SECURITY = `9 0 obj\n${HANDLER}\nendobj\n`;

/** The verdict whole, and in pieces of 1 to 16 and 64 bytes; a difference is reported by piece size. */
function verdicts(file: Buffer): string {
  const whole = isEncryptedPdf(file);
  const differ: number[] = [];
  for (const size of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 64]) {
    const reader = new PdfStructure();
    for (let at = 0; at < file.length; at += size) reader.push(file.subarray(at, at + size));
    reader.end();
    if (reader.encrypted !== whole) differ.push(size);
  }
  const check = new PdfFileCheck(MAX_FILE_BYTES);
  for (let at = 0; at < file.length; at += 7) check.push(file.subarray(at, at + 7));
  const result = check.result();
  if ((result.ok ? false : result.rule === 'not-encrypted') !== whole) differ.push(-7);
  return `${whole ? 'encrypted' : 'plain'}${differ.length > 0 ? ` (pieces of ${differ.join(', ')} bytes say otherwise)` : ''}`;
}

/** One file per case with `/Encrypt 9 0 R` in its trailer, and the same file without it. */
type Case = [name: string, parts: string[], tail?: string];

describe('rule 3 on damaged syntax: what comes before the trailer cannot hide it, as qpdf reads the file (lb-pdf-damaged-syntax)', () => {
  const judged = (cases: Case[]) =>
    Object.fromEntries(
      cases.map(([name, parts, tail]) => [name, [verdicts(pdfOf(parts, ' /Encrypt 9 0 R', tail)), verdicts(pdfOf(parts, '', tail))]]),
    );
  const expected = (cases: Case[]) => Object.fromEntries(cases.map(([name]) => [name, ['encrypted', 'plain']]));

  it('a stray ")" is a token of its own (ISO 32000-1 7.2.2), never the start of the keyword after it', () => {
    const cases: Case[] = [
      ['")" glued to the header of the security handler: ")9 0 obj"', [...CATALOG, `)${SECURITY}`]],
      ['")" on a line of its own before it', [...CATALOG, `)\n${SECURITY}`]],
      ['")" glued to a comment and a name', [...CATALOG, `3 0 obj\n<< /A 1 >>)/B%)\nendobj\n`, SECURITY]],
    ];
    expect(judged(cases)).toEqual(expected(cases));
  });

  it('a literal string left open and closed by a stray ")" further on ends at the next line that starts an object or the trailer', () => {
    const open = '3 0 obj\n<< /Title (contract :-( signed) >>\nendobj\n';
    const cases: Case[] = [
      ['closed after %%EOF', [...CATALOG, open, SECURITY], ')\n'],
      ['closed by a ")" in a comment after %%EOF', [...CATALOG, open, SECURITY], '% :-)\n'],
      ['closed in a later object, after a balanced string', [...CATALOG, open, '4 0 obj\n(ok)\nendobj\n', SECURITY, '5 0 obj\n(smile :-) )\nendobj\n']],
      ['closed inside the security handler', [...CATALOG, open, SECURITY.replace('/P -4', '/P -4 /Z (x\\\\))')]],
      ['closed after %%EOF, the object header after CR LF and spaces', [...CATALOG, open.replace('\nendobj\n', '\r\n  endobj\r\n'), SECURITY], ')'],
    ];
    expect(judged(cases)).toEqual(expected(cases));
  });

  it('a hexadecimal string ends at its first byte that is neither a hexadecimal digit nor white space (7.3.4.3)', () => {
    const cases: Case[] = [
      ['"<0A1" left open', [...CATALOG, '3 0 obj\n<0A1\nendobj\n', SECURITY]],
      ['"<0A1" left open, endobj on the same line', [...CATALOG, '3 0 obj\n<0A1 endobj\n', SECURITY]],
      ['"<0A1 Z>" with a stray byte', [...CATALOG, '3 0 obj\n<0A1 Z>\nendobj\n', SECURITY]],
      // The digits of "9 0 obj" read as hexadecimal digits: the object it defines is not known, so the
      // reference to it counts as a value.
      ['"<0A1" left open, the next object on the same line', [...CATALOG, '3 0 obj\n<0A1 ', SECURITY]],
    ];
    expect(judged(cases)).toEqual(expected(cases));
  });

  it('a line of a string that starts with trailer is read as the trailer, as qpdf reads a file it must rebuild by lines', () => {
    // No cross-reference section: qpdf rebuilds it from the lines that start with `n g obj` or
    // `trailer`, the one inside the string included. Mid-line, the same text stays string text.
    const head = '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n2 0 obj ' + HANDLER + ' endobj\n';
    const inString = (separator: string) =>
      Buffer.from(`${head}3 0 obj (abc${separator}trailer << /Root 1 0 R /Encrypt 2 0 R >>\n%%EOF\n) endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1');
    expect({ lineStart: verdicts(inString('\n')), afterCrLf: verdicts(inString('\r\n  ')), midLine: verdicts(inString(' ')) }).toEqual({
      lineStart: 'encrypted',
      afterCrLf: 'encrypted',
      midLine: 'plain',
    });
  });

  it('a dictionary or array left open is closed by endobj, the next object, xref or the trailer', () => {
    const cases: Case[] = [
      ['"<<" left open', [...CATALOG, '3 0 obj\n<< /A 1\nendobj\n', SECURITY]],
      ['"[" left open', [...CATALOG, '3 0 obj\n[1 2\nendobj\n', SECURITY]],
      ['"<< /A [" left open, no endobj', [...CATALOG, '3 0 obj\n<< /A [1 0 R\n', SECURITY]],
      ['"<<" left open in the last object before xref', [...CATALOG, SECURITY, '3 0 obj\n<< /A << /B 2\n']],
    ];
    expect(judged(cases)).toEqual(expected(cases));
  });

  it('a closing "]" or ">>" that does not match the innermost container is a stray token, as qpdf reads it', () => {
    const trailers: Array<[string, string, string]> = [
      ['"]" inside the trailer dictionary', ' ] /Encrypt 9 0 R', ' ]'],
      ['">>" inside an array of the trailer', ' /ID [<00> >> <00>] /Encrypt 9 0 R', ' /ID [<00> >> <00>]'],
    ];
    const got = Object.fromEntries(
      trailers.map(([name, secured, open]) => [name, [verdicts(pdfOf([...CATALOG, SECURITY], secured)), verdicts(pdfOf([...CATALOG, SECURITY], open))]]),
    );
    expect(got).toEqual(Object.fromEntries(trailers.map(([name]) => [name, ['encrypted', 'plain']])));
  });

  it('a stray delimiter as the value of /Encrypt reads as null, as qpdf reads a bad token', () => {
    expect([verdicts(pdfOf([...CATALOG, SECURITY], ' /Encrypt ) 9 0 R')), verdicts(pdfOf([...CATALOG, SECURITY], ' /Encrypt ] 9 0 R'))]).toEqual([
      'plain',
      'plain',
    ]);
  });

  it('reads the lexical cases that were already right the same way: comments, escapes, strings and stream data that mention the trailer', () => {
    const cases: Case[] = [
      ['"(" inside a comment', [...CATALOG, '% a comment with ( in it\n', SECURITY]],
      ['"%" inside a string', [...CATALOG, '3 0 obj\n(50% off)\nendobj\n', SECURITY]],
      ['"<<" and ">>" inside strings', [...CATALOG, '3 0 obj\n(<< /A >> >> <<)\nendobj\n', SECURITY]],
      ['escaped parentheses', [...CATALOG, '3 0 obj\n(a \\) b \\( c \\\\)\nendobj\n', SECURITY]],
      ['an extra ">>" and "]" after an object', [...CATALOG, '3 0 obj\n<< /A [1] >> >> ]\nendobj\n', SECURITY]],
      ['stream data holding a trailer that names /Encrypt, and endstream, with a right /Length', [...CATALOG, '3 0 obj\n<< /Length 46 >>\nstream\ntrailer << /Encrypt 9 0 R >> endstream ( x % y\nendstream\nendobj\n', SECURITY]],
    ];
    expect(judged(cases)).toEqual(expected(cases));
    // None of these mentions makes a plain file encrypted: the trailer there has no /Encrypt, and
    // the string and the stream data that name one are read as a string and as stream data.
    const mentions = [
      pdfOf([...CATALOG, '3 0 obj\n<< /Title (trailer << /Encrypt 9 0 R >>) >>\nendobj\n', SECURITY], ''),
      pdfOf([...CATALOG, '3 0 obj\n<< /Length 28 >>\nstream\ntrailer << /Encrypt 9 0 R >>\nendstream\nendobj\n', SECURITY], ''),
      pdfOf([...CATALOG, '3 0 obj\n<< /Title <7472 61696C6572> >> % trailer << /Encrypt 9 0 R >>\nendobj\n', SECURITY], ''),
    ];
    expect(mentions.map(verdicts)).toEqual(['plain', 'plain', 'plain']);
  });
});

describe('rule 3 on containers nested deeper than the reader keeps the details of (src/domain/kind-stack.ts)', () => {
  const deep = (n: number, open: string, close: string, inner = '') => `${open.repeat(n)}${inner}${close.repeat(n)}`;

  it('the trailer\'s /Encrypt after a value nested 1 000 deep counts; one inside it does not', () => {
    const got = {
      'arrays before /Encrypt': verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${deep(1000, '[', ']')} /Encrypt 9 0 R`)),
      'dictionaries before /Encrypt': verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${deep(1000, '<< /K ', ' >>', '1')} /Encrypt 9 0 R`)),
      'both, interleaved': verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${deep(500, '[<< /K ', ' >>]', '(s)')} /Encrypt 9 0 R`)),
      '/Encrypt deep inside a value': verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${deep(1000, '<< /Encrypt 9 0 R /K ', ' >>', '1')}`)),
      'the same value, /Encrypt after it': verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${deep(1000, '<< /Encrypt 9 0 R /K ', ' >>', '1')} /Encrypt 9 0 R`)),
    };
    expect(got).toEqual({
      'arrays before /Encrypt': 'encrypted',
      'dictionaries before /Encrypt': 'encrypted',
      'both, interleaved': 'encrypted',
      '/Encrypt deep inside a value': 'plain',
      'the same value, /Encrypt after it': 'encrypted',
    });
  });

  it('deep down, a closer that does not match is a stray token, as it is near the top', () => {
    // 1 000 arrays with a stray ">>" inside the innermost: the arrays still close with their own "]".
    const stray = verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${deep(1000, '[', ']', '>>')} /Encrypt 9 0 R`));
    // One "]" short: the last array is still open when /Encrypt comes, so it is no key of the trailer.
    const short = verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${'['.repeat(1000)}${']'.repeat(999)} /Encrypt 9 0 R`));
    // A ">>" where the 1 000th "]" should be: a stray token; the same as one short.
    const mismatched = verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${'['.repeat(1000)}${']'.repeat(999)}>> /Encrypt 9 0 R`));
    // A stray ">>" deep down closes nothing: the outermost array is still open at /Encrypt, which is
    // then an element of it (counted as a closer, it would make /Encrypt the trailer's).
    const deepStray = verdicts(pdfOf([...CATALOG, SECURITY], ` /X ${'['.repeat(1000)}>>${']'.repeat(999)} /Encrypt 9 0 R ]`));
    expect({ stray, short, mismatched, deepStray }).toEqual({ stray: 'encrypted', short: 'plain', mismatched: 'plain', deepStray: 'plain' });
  });

  it('an object nested 100 000 deep and left open is closed by endobj, and the trailer is read', () => {
    const open = `3 0 obj\n${'<< /A ['.repeat(100_000)}\nendobj\n`;
    expect([verdicts(pdfOf([...CATALOG, open, SECURITY], ' /Encrypt 9 0 R')), verdicts(pdfOf([...CATALOG, open, SECURITY], ''))]).toEqual([
      'encrypted',
      'plain',
    ]);
  });
});

describe('the streamed reader and the whole-buffer reader agree on damaged syntax (fast-check)', () => {
  // Fragments of PDF syntax, the broken ones included; a file is a sequence of them, read whole and
  // cut at arbitrary points.
  const fragments = [
    '(', ')', '\\', '<', '>', '<<', '>>', '[', ']', '{', '}', '%', '/', '\n', '\r', '\r\n', ' ', '  ', '\t',
    'trailer', 'xref', 'startxref', 'endobj', 'obj', 'stream\n', 'stream\r\n', 'endstream', 'null', 'R',
    '1', '0', '9', '9 0 obj', '9 0 R', '/Encrypt', '/Encr#79pt', '/EncryptMetadata', '/Type /XRef', '/Length 5', '/Length 0', '/Length 9 0 R',
    '0A1', 'abc', 'Z', '\x00', '\xff', '\n9 0 obj', '\ntrailer', '\nendobj', '\n  9', ' 0 ', 'ob', 'j', 'trai', 'ler', 'endstr', 'eam',
    // Whole pieces of structure, so that about one file in ten is encrypted.
    '\ntrailer << /Encrypt 9 0 R >>\n', 'trailer <</Encrypt 9 0 R', '\n9 0 obj << /Filter /Standard >> endobj\n', '9 0 obj null endobj',
    '<< /Length 5 >>\nstream\n', '<< /Type /XRef /Encrypt 9 0 R /Length 3 >>\nstream\n', 'abcde\nendstream\n', '\n3 0 obj\n',
  ];
  const file = fc.array(fc.constantFrom(...fragments), { maxLength: 80 }).map((parts) => Buffer.from(`%PDF-1.7\n${parts.join('')}`, 'latin1'));

  it('gives the verdict of the whole file wherever its bytes are cut, and byte by byte', () => {
    fc.assert(
      fc.property(file, fc.array(fc.nat(400), { maxLength: 6 }), (bytes, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const reader = new PdfStructure();
        let from = 0;
        for (const at of [...points, bytes.length]) {
          reader.push(bytes.subarray(from, at));
          from = at;
        }
        reader.end();
        const byByte = new PdfStructure();
        for (let at = 0; at < bytes.length; at++) byByte.push(bytes.subarray(at, at + 1));
        byByte.end();
        const whole = isEncryptedPdf(bytes);
        expect([reader.encrypted, byByte.encrypted]).toEqual([whole, whole]);
      }),
      { numRuns: 3000 },
    );
  });
});
