// The largest registration the specification allows: 50 records of exactly 15 000 000-byte PDFs
// (about 1 GB of JSON), sent as a stream with default settings, against a streaming base64 decode of
// the same bytes measured in this process; the server's peak resident set against its idle one, and
// the latency of health checks sent while the body streams in.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { type IncomingHttpHeaders, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { cpuTicks, fmt, median, peakRss, type Server } from './lib.js';

const FILE_BYTES = 15_000_000;
const RECORDS = 50;
const PIECE = 64 * 1024;

/**
 * A PDF of exactly `size` bytes as its structure goes (ISO 32000-1 7.5): catalog, pages, one page
 * whose image XObject stream holds incompressible bytes (as a scanned contract's JPEG does), the
 * cross-reference table and the trailer. Bytes 9-20 hold a seed line, so each record's file differs
 * in its first 16 base64 characters only.
 */
function largePdf(size: number): Buffer {
  const head = '%PDF-1.7\n%SEED000000\n';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> >>',
  ];
  let text = head;
  const offsets: number[] = [];
  for (const [i, o] of objects.entries()) {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${o}\nendobj\n`;
  }
  const imageAt = text.length;
  const tailFor = (xref: number) => {
    let t = `xref\n0 5\n0000000000 65535 f \n`;
    for (const off of [...offsets, imageAt]) t += `${String(off).padStart(10, '0')} 00000 n \n`;
    return `${t}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  };
  const dictFor = (n: number) =>
    `4 0 obj\n<< /Type /XObject /Subtype /Image /Width 1000 /Height 1000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${n} >>\nstream\n`;
  const after = '\nendstream\nendobj\n';
  // The data length that makes the whole file `size` bytes (the tail's digits depend on the offsets).
  let n = size - text.length - dictFor(0).length - after.length - tailFor(0).length;
  for (let k = 0; k < 4; k++) {
    const xref = imageAt + dictFor(n).length + n + after.length;
    n = size - text.length - dictFor(n).length - after.length - tailFor(xref).length;
  }
  const xref = imageAt + dictFor(n).length + n + after.length;
  const data = Buffer.alloc(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    data[i] = x & 0xff;
  }
  const out = Buffer.concat([
    Buffer.from(text + dictFor(n), 'latin1'),
    data,
    Buffer.from(after + tailFor(xref), 'latin1'),
  ]);
  if (out.length !== size) throw new Error(`the large PDF is ${out.length} bytes, not ${size}`);
  return out;
}

/** The 50 records' JSON, as pieces to write in order (the big base64 shared, not copied). */
function bodyPieces(): { pieces: Buffer[]; documents: Buffer[][]; length: number } {
  const pdf = largePdf(FILE_BYTES);
  const base64 = Buffer.from(pdf.toString('base64'), 'latin1');
  const pieces: Buffer[] = [Buffer.from('{"versao":"1.0","token":"lb-bench","registros":[')];
  const documents: Buffer[][] = [];
  for (let i = 0; i < RECORDS; i++) {
    const seeded = Buffer.from(pdf.subarray(9, 21));
    seeded.write(`%SEED${String(i).padStart(6, '0')}\n`, 0, 'latin1');
    const doc = [base64.subarray(0, 12), Buffer.from(seeded.toString('base64'), 'latin1'), base64.subarray(28)];
    documents.push(doc);
    pieces.push(
      Buffer.from(
        `${i === 0 ? '' : ','}{"nome_documento":"ccb-${i}.pdf","emails_final_fluxo":["ops@example.com"],"assinado":false,"parcelas":[{"numero":1,"data_vencimento":"2026-12-20","valor":1000.5}],"documento":"`,
      ),
      ...doc,
      Buffer.from('"}'),
    );
  }
  pieces.push(Buffer.from(']}'));
  return { pieces, documents, length: pieces.reduce((s, p) => s + p.length, 0) };
}

/** Resident set now (VmRSS), in bytes. */
function rss(pid: number | undefined): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * The same documents' base64 decoded in 64 KiB pieces, as a stream would be, straight from the pieces
 * the body is sent from (joining each document's pieces first made the baseline allocate 1 GB of
 * fresh memory per run, which swung it between 0.8 and 2.4 s): the baseline.
 */
function streamingDecode(documents: Buffer[][]): number {
  const t0 = performance.now();
  let bytes = 0;
  for (const doc of documents) {
    let carry = '';
    for (const part of doc) {
      for (let at = 0; at < part.length; at += PIECE) {
        const piece = carry + part.toString('latin1', at, Math.min(part.length, at + PIECE));
        const whole = piece.length - (piece.length % 4);
        bytes += Buffer.from(piece.slice(0, whole), 'base64').length;
        carry = piece.slice(whole);
      }
    }
    if (carry.length > 0) throw new Error('a document of the baseline is not whole base64');
  }
  if (bytes !== RECORDS * FILE_BYTES) throw new Error(`the baseline decoded ${bytes} bytes`);
  return performance.now() - t0;
}

/**
 * The SHA-256 of 50 files of FILE_BYTES (what content-addressed storage must compute at the least),
 * in batches of 1 MiB as the sandbox's writer hashes them; milliseconds of CPU.
 */
function hashing(): number {
  const batch = Buffer.alloc(1024 * 1024, 0x5a);
  const before = process.cpuUsage();
  for (let f = 0; f < RECORDS; f++) {
    const hash = createHash('sha256');
    for (let at = 0; at < FILE_BYTES; at += batch.length) hash.update(batch.subarray(0, Math.min(batch.length, FILE_BYTES - at)));
    hash.digest();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * POSTs a body of pieces through node:http, as a client that streams it. Not fetch: undici sending a
 * 67 MiB string took about a second by itself against a server that only drained it (node:http with
 * a Buffer: 150-190 ms), which would have been counted as the sandbox's time.
 */
export function send(
  url: string,
  pieces: Buffer[],
  length: number,
  path = '/api/service/document/registrar',
  contentType = 'application/json',
): Promise<{ status: number; text: string; headers: IncomingHttpHeaders }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, method: 'POST', path, headers: { 'content-type': contentType, 'content-length': length } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), headers: res.headers }));
      },
    );
    req.on('error', reject);
    let i = 0;
    const write = () => {
      while (i < pieces.length) {
        if (!req.write(pieces[i++] as Buffer)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

export interface LargeResult {
  figure: string;
  value: string;
  baseline: string;
  ratio: string;
  bar: string;
  pass: boolean;
}

/**
 * Registers the 50 x 15 MB batch on `server` (fixtures: caller lb-bench); one row of figures. `bare`:
 * a bare Fastify server (baseline-fastify.ts) whose /drain reads the same body and drops it, the time
 * any server takes to receive it from this client: shown beside the baseline, not a bar. So is the
 * floor: the CPU that the least any server must do takes (the client sending and a bare server
 * receiving, the decode, the SHA-256), spread over every core with nothing else running, the time no
 * server could beat on this machine.
 */
export async function largeBatch(server: Server, where: string, bare: Server): Promise<LargeResult> {
  const { pieces, documents, length } = bodyPieces();
  const drainTimes: number[] = [];
  const drainCpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const ticks = cpuTicks(bare.child.pid);
    const client = process.cpuUsage();
    const drained = await send(bare.url, pieces, length, '/drain', 'application/octet-stream');
    if (drained.status !== 201) throw new Error(`the bare server's drain answered ${drained.status}`);
    drainTimes.push(performance.now() - t);
    const sent = process.cpuUsage(client);
    drainCpu.push((cpuTicks(bare.child.pid) - ticks) * 10 + (sent.user + sent.system) / 1000);
  }
  const hashMs = median([hashing(), hashing(), hashing()]);
  // The median of three runs: two before the upload, one after it.
  const baseTimes = [streamingDecode(documents), streamingDecode(documents)];
  const pid = server.child.pid;
  const idle = rss(pid);
  const health: number[] = [];
  let uploading = true;
  const probe = (async () => {
    while (uploading) {
      const t = performance.now();
      const res = await fetch(`${server.url}/_sandbox/health`);
      await res.arrayBuffer();
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const t0 = performance.now();
  const res = await send(server.url, pieces, length);
  const ms = performance.now() - t0;
  uploading = false;
  await probe;
  baseTimes.push(streamingDecode(documents));
  const baseMs = median(baseTimes);
  if (res.status !== 201) throw new Error(`the 50 x 15 MB batch answered ${res.status}: ${res.text.slice(0, 300)}`);
  const peak = peakRss(pid) ?? 0;
  const sorted = [...health].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.POSITIVE_INFINITY;
  const ratio = ms / baseMs;
  const rssBar = idle + 256 * 1024 * 1024;
  const cores = availableParallelism();
  const floorMs = (median(drainCpu) + baseMs + hashMs) / cores;
  return {
    figure: `POST loan-bond registrar, 50 records x 15 000 000-byte PDFs (${fmt.mb(length)} body, default settings, ${where})`,
    value: `201 in ${fmt.ms(ms)}; peak RSS ${fmt.mb(peak)} (idle ${fmt.mb(idle)}); health p99 ${fmt.ms(p99)} over ${health.length} checks`,
    baseline: `streaming base64 decode ${fmt.ms(baseMs)} (median of 3); receiving alone (bare Fastify) ${fmt.ms(median(drainTimes))}; floor on ${cores} cores ${fmt.ms(floorMs)} = ${fmt.x(floorMs / baseMs)} (sending + receiving ${fmt.ms(median(drainCpu))} of CPU, decode, SHA-256 ${fmt.ms(hashMs)}); RSS bar ${fmt.mb(rssBar)}`,
    ratio: fmt.x(ratio),
    bar: 'time <= 3x a streaming base64 decode; peak RSS <= idle + 256 MiB; health p99 < 50 ms',
    pass: ratio <= 3 && peak <= rssBar && p99 < 50,
  };
}
