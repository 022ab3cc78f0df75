import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkPdf, isEncryptedPdf, isPdf, MAX_FILE_BYTES, PdfFileCheck, pdfHeaderOffset, PdfStructure, skipWhitespace } from '../../src/domain/pdf.js';
import { cmsSignedData, storedZip } from './helpers.js';
import { buildPdf, onePage, STANDARD_SECURITY_HANDLER } from './pdf-builder.js';
import { pdfjsSaysEncrypted, pdfkitFile } from './pdf-judges.js';

/** A minimal one-page PDF; `trailerExtra` is spliced into the trailer dictionary. */
function minimalPdf(trailerExtra = '', catalogExtra = ''): Buffer {
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${catalogExtra} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
  ];
  let body = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function withJunkBefore(pdf: Buffer, junkBytes: number): Buffer {
  return Buffer.concat([Buffer.alloc(junkBytes, 0x41), pdf]);
}

describe('isPdf', () => {
  it('recognises a minimal PDF', () => {
    expect(isPdf(minimalPdf())).toBe(true);
  });

  it('accepts junk before the header within the first 1024 bytes', () => {
    expect(isPdf(withJunkBefore(minimalPdf(), 500))).toBe(true);
    expect(isPdf(withJunkBefore(minimalPdf(), 1018))).toBe(true);
  });

  it('rejects a header that starts beyond the first 1024 bytes', () => {
    expect(isPdf(withJunkBefore(minimalPdf(), 1100))).toBe(false);
    expect(isPdf(withJunkBefore(minimalPdf(), 1020))).toBe(false);
  });

  it('requires a version digit after %PDF-', () => {
    expect(isPdf(Buffer.from('%PDF-x.7\n'))).toBe(false);
    expect(isPdf(Buffer.from('%PDF-'))).toBe(false);
    expect(isPdf(Buffer.from('%PDF-x %PDF-2.0'))).toBe(true);
  });

  it('rejects other files and empty input', () => {
    expect(isPdf(Buffer.from('PK\x03\x04 not a pdf'))).toBe(false);
    expect(isPdf(new Uint8Array())).toBe(false);
  });

  it('reads a Uint8Array view at its own offset', () => {
    const pdf = minimalPdf();
    const backing = new Uint8Array(2000 + pdf.length);
    backing.set(pdf, 2000);
    expect(isPdf(backing.subarray(2000))).toBe(true);
    expect(isPdf(backing)).toBe(false);
  });
});

describe('isEncryptedPdf: rule 3 by the structure of the file', () => {
  const plain = (trailer?: string, xref: 'table' | 'stream' = 'table') => buildPdf([{ objects: onePage(), xref, ...(trailer ? { trailer } : {}) }]);
  const encrypted = (xref: 'table' | 'stream' = 'table', name = '/Encrypt') =>
    buildPdf([{ objects: [...onePage(), { num: 9, body: STANDARD_SECURITY_HANDLER }], trailer: `${name} 9 0 R`, xref }]);

  it('finds /Encrypt in the trailer, and in a cross-reference stream dictionary', () => {
    expect(isEncryptedPdf(encrypted('table'))).toBe(true);
    expect(isEncryptedPdf(encrypted('stream'))).toBe(true);
    expect(isEncryptedPdf(minimalPdf(' /Encrypt 3 0 R'))).toBe(true);
  });

  it('decodes #xx escapes in names (ISO 32000-1 7.3.5): /Encr#79pt is /Encrypt', () => {
    expect(isEncryptedPdf(encrypted('table', '/Encr#79pt'))).toBe(true);
    expect(isEncryptedPdf(encrypted('stream', '/#45ncrypt'))).toBe(true);
    expect(isEncryptedPdf(plain('/Encrypt#20x 9 0 R'))).toBe(false);
  });

  it('accepts an unencrypted PDF that mentions /Encrypt in a string, a comment, a content stream or another dictionary', () => {
    const files = [
      buildPdf([{ objects: onePage('BT (trailer << /Encrypt 9 0 R >>) Tj ET'), xref: 'table' }]),
      buildPdf([{ objects: onePage(undefined, ' /Lang (/Encrypt 9 0 R) /Names <2F456E6372797074>'), xref: 'stream' }]),
      buildPdf([{ objects: onePage(undefined, ' /Encrypt 9 0 R % a catalog entry, not the trailer\n'), xref: 'table' }]),
      Buffer.concat([plain(), Buffer.from('% trailer << /Encrypt 9 0 R >>\n', 'latin1')]),
    ];
    for (const file of files) expect(isEncryptedPdf(file)).toBe(false);
  });

  it('does not take /EncryptMetadata for /Encrypt, nor an /Encrypt whose value is null (7.3.7)', () => {
    expect(isEncryptedPdf(minimalPdf('', ' /EncryptMetadata false'))).toBe(false);
    expect(isEncryptedPdf(plain('/EncryptMetadata false'))).toBe(false);
    expect(isEncryptedPdf(plain('/Encrypt null'))).toBe(false);
    expect(isEncryptedPdf(plain('/EncryptMetadata false /Encrypt 4 0 R'))).toBe(true);
  });

  it('resolves /Encrypt n g R: a reference to a null or undefined object is null (7.3.10, 7.3.7), as qpdf reads it', () => {
    const head = '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n';
    const file = (objects: string, trailer: string) => Buffer.from(`${head}${objects}trailer\n<< /Root 1 0 R ${trailer} >>\n%%EOF\n`, 'latin1');
    const handler = '3 0 obj\n<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>\nendobj\n';
    const verdicts = {
      nullObject: isEncryptedPdf(file('3 0 obj\nnull\nendobj\n', '/Encrypt 3 0 R')),
      emptyObject: isEncryptedPdf(file('3 0 obj\nendobj\n', '/Encrypt 3 0 R')),
      undefinedObject: isEncryptedPdf(file('', '/Encrypt 9 0 R')),
      otherGeneration: isEncryptedPdf(file(handler, '/Encrypt 3 1 R')),
      handler: isEncryptedPdf(file(handler, '/Encrypt 3 0 R')),
      handlerAfterTrailer: isEncryptedPdf(Buffer.concat([file('', '/Encrypt 3 0 R'), Buffer.from(handler, 'latin1')])),
      redefinedAsNull: isEncryptedPdf(Buffer.concat([file(handler, '/Encrypt 3 0 R'), Buffer.from('3 0 obj null endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1')])),
    };
    expect(verdicts).toEqual({
      nullObject: false,
      emptyObject: false,
      undefinedObject: false,
      otherGeneration: false,
      handler: true,
      handlerAfterTrailer: true,
      redefinedAsNull: false,
    });
    // The same verdict whatever pieces the bytes arrive in.
    const nullFile = file('3 0 obj\nnull\nendobj\n', '/Encrypt 3 0 R');
    for (let size = 1; size <= 16; size++) {
      const reader = new PdfStructure();
      for (let at = 0; at < nullFile.length; at += size) reader.push(nullFile.subarray(at, at + size));
      reader.end();
      expect(reader.encrypted).toBe(false);
    }
  });

  it('reads the /Encrypt entry whatever delimiter follows the name, a direct dictionary included', () => {
    for (const value of [' 9 0 R', '\t9 0 R', '\n9 0 R', '\r\n9 0 R', '\f9 0 R', '\x009 0 R', '%c\n9 0 R', '<</Filter/Standard>>', '[1]', '(x)', '<00>']) {
      const file = Buffer.from(`%PDF-1.4\n9 0 obj <</Filter/Standard>> endobj\ntrailer\n<</Root 1 0 R/Encrypt${value}>>\n%%EOF\n`, 'latin1');
      if (!isEncryptedPdf(file)) expect.fail(`missed /Encrypt followed by ${JSON.stringify(value)}`);
    }
  });

  it('sees every revision of an incrementally updated file', () => {
    const update = { objects: [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Lang (pt-BR /Encrypt) >>' }] };
    const base = { objects: onePage(), xref: 'table' as const };
    expect(isEncryptedPdf(buildPdf([base, { ...update, xref: 'table' }]))).toBe(false);
    expect(isEncryptedPdf(buildPdf([base, { ...update, xref: 'stream' }]))).toBe(false);
    const securedBase = { objects: [...onePage(), { num: 9, body: STANDARD_SECURITY_HANDLER }], trailer: '/Encrypt 9 0 R', xref: 'stream' as const };
    expect(isEncryptedPdf(buildPdf([securedBase, { ...update, trailer: '/Encrypt 9 0 R', xref: 'stream' }]))).toBe(true);
    expect(isEncryptedPdf(buildPdf([base, { ...update, trailer: '/Encrypt 4 0 R', xref: 'table' }]))).toBe(true);
  });

  it('skips stream data by its /Length, direct or indirect, and recovers from a wrong one', () => {
    const inside = 'trailer\n<< /Encrypt 9 0 R >>\n';
    const withStream = (dict: string, data: string, extra: string[] = []) =>
      Buffer.from(
        ['%PDF-1.7', `4 0 obj\n${dict}\nstream\n${data}\nendstream\nendobj`, ...extra, 'trailer\n<< /Root 1 0 R >>', '%%EOF', ''].join('\n'),
        'latin1',
      );
    expect(isEncryptedPdf(withStream(`<< /Length ${inside.length} >>`, inside))).toBe(false);
    expect(isEncryptedPdf(withStream('<< /Length 5 0 R >>', inside, ['5 0 obj 29 endobj']))).toBe(false);
    expect(isEncryptedPdf(withStream('<< /Length 3 >>', inside))).toBe(false);
    // A stream of a cross-reference stream dictionary: the dictionary counts, its data does not.
    expect(isEncryptedPdf(withStream('<< /Type /XRef /Encrypt 4 0 R /Length 3 >>', 'abc'))).toBe(true);
    expect(isEncryptedPdf(withStream('<< /Type /ObjStm /Encrypt 9 0 R /Length 3 >>', 'abc'))).toBe(false);
  });

  describe('a file whose structure breaks off, read as readers recover it (lb-pdf-detection)', () => {
    // Files with a valid cross-reference section, damaged by one edit of the same width (so every
    // offset stays right): a stream's /Length made too long, or a string left unterminated. A reader
    // goes to the trailer by startxref, and reads a stream whose /Length does not end at `endstream`
    // up to the first `endstream` after its start (pdf.js and qpdf both do).
    const withStream = (data: string, trailer?: string, xref: 'table' | 'stream' = 'table') =>
      buildPdf([{ objects: [...onePage(), { num: 5, body: '<< >>', stream: data }, { num: 9, body: STANDARD_SECURITY_HANDLER }], xref, ...(trailer ? { trailer } : {}) }]);
    const withString = (trailer?: string, xref: 'table' | 'stream' = 'table') =>
      buildPdf([{ objects: [...onePage(), { num: 5, body: '<< /Lang (abc) >>' }, { num: 9, body: STANDARD_SECURITY_HANDLER }], xref, ...(trailer ? { trailer } : {}) }]);
    const edit = (file: Buffer, from: string, to: string) => {
      expect(to.length).toBe(from.length);
      const text = file.toString('latin1');
      expect(text).toContain(from);
      return Buffer.from(text.replace(from, to), 'latin1');
    };
    const x = (n: number) => 'x'.repeat(n);
    const cases: Array<[string, (trailer?: string, xref?: 'table' | 'stream') => Buffer]> = [
      ['a /Length running past the end of the file', (t, xr) => edit(withStream(x(10_000), t, xr), '/Length 10000', '/Length 99999')],
      ['a /Length running into the objects after it', (t, xr) => edit(withStream(x(20), t, xr), '/Length 20', '/Length 99')],
      ['a /Length ending inside its own `endstream`', (t, xr) => edit(withStream(x(20), t, xr), '/Length 20', '/Length 25')],
      ['a /Length too long over data that holds `endstream` and a trailer', (t, xr) => {
        const data = `endstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n${x(9)}`;
        return edit(withStream(data, t, xr), `/Length ${data.length}`, '/Length 99');
      }],
    ];
    const unterminated = (t?: string) => edit(withString(t, 'table'), '(abc)', '(abc ');

    it.each(cases)('%s: encrypted when its trailer says so, as pdf.js says, in pieces of 1 to 64 bytes', async (_name, make) => {
      for (const xref of ['table', 'stream'] as const) {
        const secured = make('/Encrypt 9 0 R', xref);
        const open = make(undefined, xref);
        expect({ xref, secured: await pdfjsSaysEncrypted(secured), open: await pdfjsSaysEncrypted(open) }).toEqual({ xref, secured: true, open: false });
        for (const [file, expected] of [[secured, true], [open, false]] as const) {
          expect(isEncryptedPdf(file)).toBe(expected);
          for (let size = 1; size <= 64; size++) {
            const reader = new PdfStructure();
            for (let at = 0; at < file.length; at += size) reader.push(file.subarray(at, at + size));
            reader.end();
            if (reader.encrypted !== expected) expect.fail(`${xref}: pieces of ${size} bytes: ${reader.encrypted}, ${expected} whole`);
          }
        }
      }
    });

    it('a literal string left unterminated: encrypted when its trailer says so, as pdf.js says, in pieces of 1 to 64 bytes', async () => {
      expect([await pdfjsSaysEncrypted(unterminated('/Encrypt 9 0 R')), await pdfjsSaysEncrypted(unterminated())]).toEqual([true, false]);
      for (const [file, expected] of [[unterminated('/Encrypt 9 0 R'), true], [unterminated(), false]] as const) {
        for (let size = 1; size <= 64; size++) {
          const reader = new PdfStructure();
          for (let at = 0; at < file.length; at += size) reader.push(file.subarray(at, at + size));
          reader.end();
          if (reader.encrypted !== expected) expect.fail(`pieces of ${size} bytes: ${reader.encrypted}, ${expected} whole`);
        }
      }
    });

    it("refuses the tester's files: a stream or a string still open at the end, before an encrypted trailer", () => {
      const head = '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n';
      const trailer = 'trailer << /Root 1 0 R /Encrypt 2 0 R >>\n%%EOF\n';
      const files = [
        `${head}3 0 obj << /Length 99999 >>\nstream\nabc\nendstream endobj\n${trailer}`,
        `${head}3 0 obj (abc endobj\n${trailer}`,
        `${head}3 0 obj << >>\nstream\nabc\n${trailer}`,
        `${head}3 0 obj (abc\n4 0 obj << /Type /XRef /Root 1 0 R /Encrypt 2 0 R /Size 7 /W [1 1 1] /Length 0 >>\nstream\n\nendstream endobj\n%%EOF\n`,
        `${head}3 0 obj (abc\ntrailer << /Info (see 1 0 obj) /Root 1 0 R /Encrypt 2 0 R >>\n%%EOF\n`,
      ];
      for (const text of files) {
        const file = Buffer.from(text, 'latin1');
        for (let size = 1; size <= 64; size++) {
          const check = new PdfFileCheck(MAX_FILE_BYTES);
          for (let at = 0; at < file.length; at += size) check.push(file.subarray(at, at + size));
          const result = check.result();
          if (result.ok || result.rule !== 'not-encrypted') expect.fail(`pieces of ${size}: ${JSON.stringify(result)} for ${JSON.stringify(text)}`);
        }
      }
      // Closed by a ")" later, the same mentions are not encrypted: the line that starts with
      // `trailer` is read as a trailer (as qpdf rebuilding this file by lines reads it), but the
      // object its /Encrypt names is defined nowhere, so it is null (test/domain/pdf-damaged.test.ts).
      expect(isEncryptedPdf(Buffer.from(`${head}3 0 obj (abc\n${trailer}) endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1'))).toBe(false);
    });
  });

  it('gives the same verdict whatever pieces the bytes arrive in', () => {
    const files = [
      encrypted('table', '/Encr#79pt'),
      encrypted('stream'),
      buildPdf([{ objects: onePage('BT (a (nested \\) string) /Encrypt) Tj <2F456E> ET'), xref: 'stream' }]),
      buildPdf([{ objects: onePage(), xref: 'table' }, { objects: [{ num: 5, body: '<< /Length 6 0 R >>', stream: 'endstreax /Encrypt' }], trailer: '/Encrypt null', xref: 'stream' }]),
    ];
    for (const file of files) {
      const whole = isEncryptedPdf(file);
      for (const size of [1, 2, 3, 5, 7, 8, 9, 10, 13, 64]) {
        const reader = new PdfStructure();
        for (let at = 0; at < file.length; at += size) reader.push(file.subarray(at, at + size));
        reader.end();
        if (reader.encrypted !== whole) expect.fail(`pieces of ${size} bytes changed the verdict (${whole} whole)`);
      }
    }
  });

  it('agrees with pdf.js on PDFKit files encrypted by every Standard handler revision, and on plain ones', async () => {
    const corpus: Array<[string, Buffer]> = [
      ['plain', await pdfkitFile({})],
      ['plain, uncompressed (the title names /Encrypt in a string)', await pdfkitFile({ compress: false })],
      ['RC4 40-bit, owner password only', await pdfkitFile({ pdfVersion: '1.3', ownerPassword: 'owner' })],
      ['RC4 128-bit, user password', await pdfkitFile({ pdfVersion: '1.4', userPassword: 'user', ownerPassword: 'owner' })],
      ['AES-128, owner password only', await pdfkitFile({ pdfVersion: '1.6', ownerPassword: 'owner', permissions: { printing: 'highResolution' } })],
      ['AES-256, user password', await pdfkitFile({ pdfVersion: '1.7ext3', userPassword: 'user', ownerPassword: 'owner' })],
      ['built: classic trailer with /Encrypt', encrypted('table')],
      ['built: cross-reference stream with /Encr#79pt', encrypted('stream', '/Encr#79pt')],
      ['built: plain, cross-reference stream', plain(undefined, 'stream')],
      ['built: /Encrypt null', plain('/Encrypt null')],
    ];
    for (const [name, file] of corpus) {
      const judged = await pdfjsSaysEncrypted(file);
      expect({ name, encrypted: isEncryptedPdf(file) }).toEqual({ name, encrypted: judged });
    }
    expect(corpus.filter(([name]) => !name.includes('plain') && !name.includes('null')).length).toBe(6);
  });
});

describe('checkPdf', () => {
  it('accepts a plain PDF within the limit', () => {
    expect(checkPdf(minimalPdf(), MAX_FILE_BYTES)).toEqual({ ok: true });
  });

  it('checks size first, naming the limit and the size', () => {
    const result = checkPdf(Buffer.from('not a pdf at all'), 10);
    expect(result).toEqual({
      ok: false,
      rule: 'max-size',
      reason: 'the file is 16 bytes; the limit is 10 bytes',
    });
  });

  it('accepts a file exactly at the limit', () => {
    const pdf = minimalPdf();
    expect(checkPdf(pdf, pdf.length)).toEqual({ ok: true });
    expect(checkPdf(pdf, pdf.length - 1).ok).toBe(false);
  });

  it('checks the signature before encryption', () => {
    const result = checkPdf(withJunkBefore(minimalPdf(' /Encrypt 3 0 R'), 1100), MAX_FILE_BYTES);
    expect(result.ok === false && result.rule).toBe('pdf-only');
  });

  it('rejects an encrypted PDF under the not-encrypted rule', () => {
    const result = checkPdf(minimalPdf(' /Encrypt 3 0 R'), MAX_FILE_BYTES);
    expect(result.ok === false && result.rule).toBe('not-encrypted');
  });

  it('reads "15 MB" as 15 000 000 bytes', () => {
    expect(MAX_FILE_BYTES).toBe(15_000_000);
  });

  it('scans a file just under the limit for /Encrypt near its end', () => {
    const pdf = minimalPdf(' /Encrypt 3 0 R');
    const big = Buffer.concat([
      pdf.subarray(0, 20),
      Buffer.alloc(MAX_FILE_BYTES - pdf.length, 0x20),
      pdf.subarray(20),
    ]);
    expect(big.length).toBe(MAX_FILE_BYTES);
    expect(checkPdf(big, MAX_FILE_BYTES).ok === false).toBe(true);
    expect(isEncryptedPdf(big)).toBe(true);
  });
});

describe('the "%PDF-" header within the first 1024 bytes, to the byte', () => {
  const verdict = (bytes: Buffer, chunk?: number) => {
    const check = new PdfFileCheck(MAX_FILE_BYTES);
    if (chunk === undefined) check.push(bytes);
    else for (let at = 0; at < bytes.length; at += chunk) check.push(bytes.subarray(at, at + chunk));
    const result = check.result();
    return result.ok ? 'accepted' : `${result.rule}: ${result.reason}`;
  };
  // 1019 bytes before it: "%PDF-" takes bytes 1020-1024, ending exactly at byte 1024; its version digit is byte 1025.
  const endsAt1024 = withJunkBefore(minimalPdf(), 1019);
  const endsAt1025 = withJunkBefore(minimalPdf(), 1020);

  it('accepts a header ending exactly at byte 1024, whole or byte by byte, and finds it at offset 1019', () => {
    expect(endsAt1024.toString('latin1', 1019, 1024)).toBe('%PDF-');
    expect(pdfHeaderOffset(endsAt1024)).toBe(1019);
    expect(isPdf(endsAt1024)).toBe(true);
    expect(checkPdf(endsAt1024, MAX_FILE_BYTES)).toEqual({ ok: true });
    expect(verdict(endsAt1024, 1)).toBe('accepted');
    expect(verdict(endsAt1024, 1024)).toBe('accepted');
  });

  it('refuses one ending a byte later, saying where it starts and ends and where it was looked for', () => {
    const reason =
      'pdf-only: the file is not a PDF: its "%PDF-" header starts at byte offset 1020 and ends at byte 1025, ' +
      'past the first 1024 bytes, where a reader looks for it (it must start by offset 1019)';
    expect(pdfHeaderOffset(endsAt1025)).toBe(-1);
    expect(verdict(endsAt1025)).toBe(reason);
    expect(verdict(endsAt1025, 1)).toBe(reason);
    expect(verdict(endsAt1025, 1021)).toBe(reason);
  });

  it('says where it looked when there is no header at all', () => {
    expect(verdict(Buffer.alloc(3000, 0x41))).toBe(
      'pdf-only: the file is not a PDF: no "%PDF-" header followed by a version digit in its first 1024 bytes ' +
        '(looked for at byte offsets 0 to 1019, so that it ends by byte 1024)',
    );
  });
});

describe('checkPdf: a PDF inside another file is not a PDF (rule 4)', () => {
  const refusal = (bytes: Buffer) => {
    const result = checkPdf(bytes, MAX_FILE_BYTES);
    return result.ok ? 'accepted' : `${result.rule}: ${result.reason}`;
  };

  it('refuses a PDF stored in a ZIP archive, naming the container and where the PDF starts', () => {
    const zip = storedZip('contrato.pdf', minimalPdf());
    expect(isPdf(zip)).toBe(true); // a header search alone would let it through
    expect(refusal(zip)).toBe(
      'pdf-only: the file is a ZIP archive with a PDF inside (its "%PDF-" header is at byte 42); send the PDF itself',
    );
  });

  it('refuses a PDF signed inside a CMS envelope (.p7s), DER with definite lengths', () => {
    const p7s = cmsSignedData(minimalPdf());
    expect(refusal(p7s)).toMatch(/^pdf-only: the file is a CMS \/ PKCS#7 signed envelope .* at byte \d+\); send the PDF itself$/);
  });

  it('counts one byte before the header as 1 byte', () => {
    const wrapped = Buffer.concat([Buffer.alloc(1, 0x01), minimalPdf(), Buffer.alloc(2000, 0x02)]);
    expect(refusal(wrapped)).toMatch(/^pdf-only: the file has 1 byte before its "%PDF-" header and no/);
  });

  it('refuses a PDF in a container it has no signature for when the file does not end like a PDF', () => {
    const wrapped = Buffer.concat([Buffer.alloc(300, 0x01), minimalPdf(), Buffer.alloc(2000, 0x02)]);
    expect(refusal(wrapped)).toMatch(/^pdf-only: the file has 300 bytes before its "%PDF-" header and no "%%EOF" in its last 1024 bytes/);
  });

  it('accepts real PDFs: 600 bytes of junk before the header, incremental updates, linearization, PDF 2.0, trailing NULs', () => {
    expect(refusal(withJunkBefore(minimalPdf(), 600))).toBe('accepted');
    const update = Buffer.from('1 0 obj\n<< /Type /Catalog /Pages 2 0 R /Lang (pt-BR) >>\nendobj\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 4 /Root 1 0 R /Prev 9 >>\nstartxref\n400\n%%EOF\n');
    expect(refusal(withJunkBefore(Buffer.concat([minimalPdf(), update]), 600))).toBe('accepted');
    const linearized = Buffer.from(minimalPdf().toString('latin1').replace('%PDF-1.7\n', '%PDF-1.7\n4 0 obj\n<< /Linearized 1 /L 900 /O 3 /E 800 /N 1 /T 700 >>\nendobj\n'), 'latin1');
    expect(refusal(linearized)).toBe('accepted');
    const v2 = Buffer.from(minimalPdf().toString('latin1').replace('%PDF-1.7', '%PDF-2.0'), 'latin1');
    expect(refusal(withJunkBefore(v2, 100))).toBe('accepted');
    expect(refusal(Buffer.concat([minimalPdf(), Buffer.alloc(3000)]))).toBe('accepted');
  });
});

describe('skipWhitespace: long runs read eight bytes at a time', () => {
  /** The byte loop it replaces. */
  function byByte(b: Buffer, i: number, n: number): number {
    const ws = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
    while (i < n && ws.has(b[i] as number)) i++;
    return i;
  }
  const byteOf = fc.constantFrom(0x20, 0x20, 0x20, 0x20, 0x0a, 0x0d, 0x09, 0x0c, 0x00, 0x41, 0x2f, 0x80);
  const runs = fc.array(fc.record({ byte: byteOf, length: fc.integer({ min: 1, max: 90 }) }), { maxLength: 30 });

  it('ends every run where the byte loop does, at any alignment, start and end', () => {
    fc.assert(
      fc.property(runs, fc.nat(15), fc.nat(200), fc.nat(200), (parts, pad, start, cut) => {
        const bytes = Buffer.concat([Buffer.alloc(pad, 0x41), ...parts.map((p) => Buffer.alloc(p.length, p.byte))]);
        // A view at an odd offset of its ArrayBuffer, as a socket chunk's slice is.
        const b = Buffer.from(bytes).subarray(pad);
        const n = Math.max(0, b.length - cut);
        const i = Math.min(start, n);
        expect(skipWhitespace(b, i, n)).toBe(byByte(b, i, n));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps the verdict of a file padded with megabytes of spaces, its /Encrypt trailer after them, in any pieces', () => {
    const pad = Buffer.alloc(3 * 1024 * 1024 + 5, 0x20);
    for (let at = 97; at < pad.length; at += 97) pad[at] = 0x0a;
    const plain = minimalPdf();
    const encrypted = minimalPdf(' /Encrypt 3 0 R');
    const cut = plain.indexOf('trailer');
    const padded = (pdf: Buffer) => Buffer.concat([pdf.subarray(0, cut), pad, pdf.subarray(cut)]);
    for (const piece of [1021, 65536, 49152 + 3]) {
      for (const [file, expected] of [
        [padded(plain), false],
        [padded(encrypted), true],
      ] as const) {
        const check = new PdfFileCheck(MAX_FILE_BYTES);
        for (let at = 0; at < file.length; at += piece) check.push(file.subarray(at, at + piece));
        expect(check.result().ok).toBe(!expected);
        expect(isEncryptedPdf(file)).toBe(expected);
      }
    }
  });
});
