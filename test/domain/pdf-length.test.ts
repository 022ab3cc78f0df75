// Rule 3 on large streams whose data spans many pieces: the streamed reader skips the data by its
// /Length and recovers when the length is wrong (lb-pdf-detection), with the same verdict as the
// whole-buffer reader and as qpdf, whatever pieces the bytes arrive in. The data is incompressible
// bytes (as a scanned contract's JPEG), which hold no `endstream`, `trailer` or `obj` of their own.
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPdf, isEncryptedPdf, MAX_FILE_BYTES, PdfFileCheck, PdfStructure } from '../../src/domain/pdf.js';
import { noise } from '../helpers.js';

const HANDLER = `<< /Filter /Standard /V 1 /R 2 /O <${'4f'.repeat(32)}> /U <${'55'.repeat(32)}> /P -4 >>`;

interface StreamFile {
  /** The stream dictionary's /Length entry, from the data's true length and the file's offsets (`trailerEncrypt`: where /Encrypt, or /Root in a plain file, starts). */
  length: (data: number, at: { dataStart: number; trailerEncrypt: number }) => string;
  data: Buffer;
  encrypted: boolean;
}

/**
 * catalog, an image stream (object 4) with `data`, the security handler (object 9), then a valid
 * cross-reference table and the trailer, with /Encrypt 9 0 R when `encrypted`.
 */
function streamPdf({ length, data, encrypted }: StreamFile): Buffer {
  const head = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n';
  const dictFor = (len: string) => `4 0 obj\n<< /Type /XObject /Subtype /Image /Width 100 /Height 100 /Filter /DCTDecode /Length ${len} >>\nstream\n`;
  const build = (len: string) => {
    const before = head + dictFor(len);
    const middle = `\nendstream\nendobj\n9 0 obj\n${HANDLER}\nendobj\n`;
    const xrefAt = before.length + data.length + middle.length;
    // Objects 1, 2, 4 and 9 where they start; 3 and 5-8 free.
    const at = [head.indexOf('1 0 obj'), head.indexOf('2 0 obj'), -1, head.length, -1, -1, -1, -1, before.length + data.length + middle.indexOf('9 0 obj')];
    let table = `xref\n0 10\n0000000000 65535 f \n`;
    for (const offset of at) table += offset < 0 ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`;
    const trailer = `trailer\n<< /Size 10 /Root 1 0 R${encrypted ? ' /Encrypt 9 0 R' : ''} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    return { text: [before, middle, table, trailer], dataStart: before.length, trailerEncrypt: xrefAt + table.length + trailer.indexOf(encrypted ? '/Encrypt' : '/Root') };
  };
  // The /Length text changes the offsets after it: settle it in two rounds.
  let len = length(data.length, build('0'));
  len = length(data.length, build(len));
  const { text } = build(len);
  if (len !== length(data.length, build(len))) throw new Error('the /Length did not settle');
  const [before, middle, table, trailer] = text as [string, string, string, string];
  return Buffer.concat([Buffer.from(before, 'latin1'), data, Buffer.from(middle + table + trailer, 'latin1')]);
}

/** The verdict whole and in pieces of these sizes (64 KiB, the decoded pieces of 64 KiB of base64, odd ones); a difference is listed. */
function verdicts(file: Buffer): string[] {
  const out = new Set<string>();
  const whole = isEncryptedPdf(file);
  out.add(`whole ${whole ? 'encrypted' : 'plain'}`);
  for (const size of [65_536, 49_152, 65_535, 4099, 9]) {
    const check = new PdfFileCheck(MAX_FILE_BYTES);
    for (let at = 0; at < file.length; at += size) check.push(file.subarray(at, at + size));
    const result = check.result();
    const encrypted = !result.ok && result.rule === 'not-encrypted';
    if (encrypted !== whole) out.add(`pieces of ${size}: ${encrypted ? 'encrypted' : 'plain'}`);
  }
  return [...out];
}

describe('rule 3 over a stream of 150 000 bytes, skipped by its /Length or recovered from a wrong one', () => {
  const data = noise(150_000);
  const lengths: Array<[string, StreamFile['length']]> = [
    ['the right /Length', (n) => String(n)],
    ['a /Length 1000 bytes short', (n) => String(n - 1000)],
    ['a /Length 1 byte short', (n) => String(n - 1)],
    ['a /Length 1000 bytes long (its end in the objects after the stream)', (n) => String(n + 1000)],
    ['a /Length ending inside `endstream`', (n) => String(n + 4)],
    ['a /Length past the end of the file', (n) => String(n + 100_000)],
    ['a /Length whose end lands inside the trailer, after `trailer << /Enc`', (_n, at) => String(at.trailerEncrypt + 4 - at.dataStart)],
    ['an indirect /Length, 5 0 R', () => '5 0 R'],
    ['a /Length of 0', () => '0'],
  ];

  it.each(lengths)('%s: encrypted when the trailer says so, plain when not, whole and in pieces of 9 bytes to 64 KiB', (_name, length) => {
    const secured = streamPdf({ length, data, encrypted: true });
    const open = streamPdf({ length, data, encrypted: false });
    expect({ secured: verdicts(secured), open: verdicts(open) }).toEqual({ secured: ['whole encrypted'], open: ['whole plain'] });
  });

  it('does not read stream data whose /Length is right as structure, whatever it mentions', () => {
    const mentions = Buffer.concat([data.subarray(0, 70_000), Buffer.from('\nendstream\nendobj\ntrailer\n<< /Encrypt 9 0 R >>\n9 0 obj\n<< /Type /XRef /Encrypt 9 0 R >>\n(', 'latin1'), data.subarray(70_000)]);
    expect(verdicts(streamPdf({ length: (n) => String(n), data: mentions, encrypted: false }))).toEqual(['whole plain']);
    expect(checkPdf(streamPdf({ length: (n) => String(n), data: mentions, encrypted: true }), MAX_FILE_BYTES)).toMatchObject({ ok: false, rule: 'not-encrypted' });
  });
});

describe('streams of any /Length, read in any pieces (fast-check)', () => {
  // Stream data of noise and keywords (a false `endstream`, a trailer naming /Encrypt, an object
  // header), each stream with its right /Length, a wrong one, an indirect one or none.
  const inserts = ['endstream', 'endstr', 'eam', 'trailer', 'trai', 'ler', ' 9 0 obj ', 'obj', '<< /Encrypt 9 0 R >>', '<< /Type /XRef /Encrypt 9 0 R >>',
    '\nendstream\nendobj\ntrailer << /Encrypt 9 0 R >>\n', '(', ')', '\n', 'stream\n', '<< /Length 3 >>'];
  const data = fc
    .array(fc.oneof(fc.uint8Array({ maxLength: 300 }).map((u) => Buffer.from(u)), fc.constantFrom(...inserts).map((t) => Buffer.from(t, 'latin1'))), { maxLength: 12 })
    .map((parts) => Buffer.concat(parts));
  const length = fc.oneof(fc.constant('right'), fc.integer({ min: -50, max: 400 }), fc.constant('5 0 R'), fc.constant('none'));
  const file = fc
    .tuple(fc.array(fc.tuple(data, length), { minLength: 1, maxLength: 3 }), fc.boolean(), fc.constantFrom('', '9 0 obj << /Filter /Standard >> endobj\n', '9 0 obj null endobj\n'))
    .map(([streams, encrypted, handler]) => {
      const parts = [Buffer.from(`%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n${handler}`, 'latin1')];
      streams.forEach(([bytes, len], k) => {
        const entry = len === 'none' ? '' : `/Length ${len === 'right' ? bytes.length : typeof len === 'number' ? Math.max(0, bytes.length + len) : len}`;
        parts.push(Buffer.from(`${k + 3} 0 obj << ${entry} >>\nstream\n`, 'latin1'), bytes, Buffer.from('\nendstream\nendobj\n', 'latin1'));
      });
      parts.push(Buffer.from(`trailer << /Root 1 0 R${encrypted ? ' /Encrypt 9 0 R' : ''} >>\n%%EOF\n`, 'latin1'));
      return Buffer.concat(parts);
    });

  it('gives the verdict of the whole file in pieces of any size', () => {
    fc.assert(
      fc.property(file, fc.integer({ min: 1, max: 700 }), (bytes, size) => {
        const reader = new PdfStructure();
        for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
        reader.end();
        expect(reader.encrypted).toBe(isEncryptedPdf(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});
