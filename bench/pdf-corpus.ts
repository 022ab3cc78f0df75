// npm run bench -- --only=pdf (or node dist-bench/bench/pdf-corpus.js): the encryption rule measured
// on a corpus built here with Debian's qpdf (apt-get install qpdf), encrypted and not: every Standard
// security handler qpdf writes (RC4 40 and 128 bits, AES 128 and 256), classic cross-reference tables
// and cross-reference streams with object streams, and linearized files (incremental updates are in test/domain/pdf.test.ts). Each file's
// verdict from our streaming reader (PdfFileCheck, fed in 48 KiB pieces as base64 decoding hands
// them over) is compared with pdf.js's, and both are timed, on small files and on 15 MB ones.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_FILE_BYTES, PdfFileCheck } from '../src/domain/pdf.js';
import { pdfjsSaysEncrypted } from '../test/domain/pdf-judges.js';

const dir = mkdtempSync(join(tmpdir(), 'pdf-corpus-'));

/** A plain PDF of about `size` bytes: one page whose image stream holds incompressible bytes. */
function basePdf(size: number, title: string): Buffer {
  const data = Buffer.alloc(Math.max(0, size - 900));
  let x = 0x2545f491;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    data[i] = x & 0xff;
  }
  const objects: Array<[number, Buffer]> = [
    [1, Buffer.from('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', 'latin1')],
    [2, Buffer.from('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n', 'latin1')],
    [3, Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> >>\nendobj\n', 'latin1')],
    [4, Buffer.concat([
      Buffer.from(`4 0 obj\n<< /Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ])],
    [5, Buffer.from(`5 0 obj\n<< /Title (${title}) >>\nendobj\n`, 'latin1')],
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  let at = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  for (const [, bytes] of objects) {
    offsets.push(at);
    parts.push(bytes);
    at += bytes.length;
  }
  let xref = 'xref\n0 6\n0000000000 65535 f \n';
  for (const off of offsets) xref += `${String(off).padStart(10, '0')} 00000 n \n`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size 6 /Root 1 0 R /Info 5 0 R >>\nstartxref\n${at}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

function qpdf(args: string[], input: string, output: string): void {
  try {
    execFileSync('qpdf', [...args, input, output], { stdio: 'ignore' });
  } catch (err) {
    throw new Error(`qpdf ${args.join(' ')} failed: ${String((err as { status?: number }).status)}`);
  }
}

/** qpdf --is-encrypted: exit 0 when encrypted, 2 when not. */
function qpdfSaysEncrypted(path: string): boolean {
  try {
    execFileSync('qpdf', ['--is-encrypted', path], { stdio: 'ignore' });
    return true;
  } catch (err) {
    if ((err as { status?: number }).status === 2) return false;
    throw err;
  }
}

function ours(bytes: Buffer): boolean {
  const check = new PdfFileCheck(MAX_FILE_BYTES);
  for (let at = 0; at < bytes.length; at += 49_152) check.push(bytes.subarray(at, at + 49_152));
  const verdict = check.result();
  if (!verdict.ok && verdict.rule !== 'not-encrypted') throw new Error(`not a PDF to us: ${verdict.reason}`);
  return !verdict.ok;
}

async function main(): Promise<void> {
  const variants: Array<[string, string[]]> = [
    ['plain, classic xref', []],
    ['plain, object streams + xref stream', ['--object-streams=generate']],
    ['plain, linearized', ['--linearize']],
    ['RC4 40, owner only', ['--allow-weak-crypto', '--encrypt', '', 'owner', '40', '--']],
    ['RC4 128, user + owner', ['--allow-weak-crypto', '--encrypt', 'user', 'owner', '128', '--use-aes=n', '--']],
    ['AES 128, owner only, xref stream', ['--object-streams=generate', '--encrypt', '', 'owner', '128', '--use-aes=y', '--']],
    ['AES 256, user + owner, xref stream', ['--object-streams=generate', '--encrypt', 'user', 'owner', '256', '--']],
    ['AES 256, owner only, linearized', ['--linearize', '--encrypt', '', 'owner', '256', '--']],
  ];
  const rows: string[] = [];
  let agree = 0;
  let total = 0;
  for (const size of [20_000, MAX_FILE_BYTES - 2_000_000]) {
    const input = join(dir, `base-${size}.pdf`);
    writeFileSync(input, basePdf(size, 'trailer << /Encrypt 9 0 R >> mentioned in a string'));
    for (const [name, args] of variants) {
      const out = join(dir, 'out.pdf');
      qpdf(args, input, out);
      const bytes = readFileSync(out);
      const t0 = performance.now();
      const mine = ours(bytes);
      const oursMs = performance.now() - t0;
      const t1 = performance.now();
      const judged = await pdfjsSaysEncrypted(bytes).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
      const jsMs = performance.now() - t1;
      const byQpdf = qpdfSaysEncrypted(out);
      total++;
      if (mine === byQpdf && (typeof judged !== 'boolean' || judged === mine)) agree++;
      const word = (v: boolean | string) => (typeof v === 'string' ? `unreadable (${v})` : v ? 'encrypted' : 'plain');
      rows.push(
        `| ${name} | ${(bytes.length / 1e6).toFixed(2)} MB | ${word(mine)} | ${word(byQpdf)} | ${word(judged)} | ${oursMs.toFixed(1)} ms | ${jsMs.toFixed(1)} ms |`,
      );
    }
  }
  process.stdout.write(
    `| file (qpdf ${execFileSync('qpdf', ['--version']).toString().split('\n')[0]?.replace('qpdf version ', '')}) | size | ours | qpdf --is-encrypted | pdf.js 4.10 | ours (streamed) | pdf.js (whole file) |\n| --- | --- | --- | --- | --- | --- | --- |\n${rows.join('\n')}\n\nagree: ${agree} of ${total}\n`,
  );
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`pdf corpus failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
