// The document writer (src/store/document-writer.ts): a file over 256 KiB is written and hashed by
// one worker thread for the whole process, a smaller one by the main thread. Either way the stored
// file is the document byte for byte and is named by its SHA-256; the thread starts on the first
// large file, ends once idle, and its death under a request refuses that request and nothing else.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPdf, MAX_FILE_BYTES } from '../../src/domain/pdf.js';
import { BATCH_BYTES, documentWriter, type FileEnd, INLINE_BYTES, WRITER_LINGER_MS } from '../../src/store/document-writer.js';
import { IncomingFile } from '../../src/store/documents.js';
import { listenOnFreePort, tempFolder, until } from '../helpers.js';
import { body, documentCount, type ErrorBody, filesIn, lbApp, pdf, pdfBytes, plainRecord, registrationCount, URL } from './helpers.js';

const plain = (documento: string) => plainRecord({ documento });
const registered = async (app: FastifyInstance, files: Buffer[]) => {
  const res = await app.inject({ method: 'POST', url: URL, payload: body(files.map((f) => plain(f.toString('base64')))) });
  expect(res.statusCode).toBe(201);
  return (res.json() as { registros: Array<{ codigo_identificador: string }> }).registros.map((r) => r.codigo_identificador);
};

afterEach(() => {
  documentWriter.lingerMs = WRITER_LINGER_MS;
});

describe('the document writer', () => {
  it('writes small files from the main thread and larger ones from one worker thread, each byte for byte under its SHA-256', async () => {
    const db = join(tempFolder('lb-writer-'), 'sandbox.db');
    const app = await lbApp({ db });
    await documentWriter.terminate();
    const started = documentWriter.threadsStarted;
    const small = [pdfBytes(900, { tag: 's' }), pdfBytes(INLINE_BYTES, { tag: 'at the limit' })];
    await registered(app, small);
    expect(documentWriter.threadsStarted).toBe(started);
    expect(documentWriter.running).toBe(false);

    // Just over the limit, a whole batch, a batch and a byte, several batches with a part.
    const large = [INLINE_BYTES + 1, BATCH_BYTES, BATCH_BYTES + 1, 3 * BATCH_BYTES + 12_345].map((size) => pdfBytes(size, { tag: `l${size}` }));
    const ids = await registered(app, large);
    expect(documentWriter.threadsStarted).toBe(started + 1);
    for (const [i, file] of [...small, ...large].entries()) {
      const sha256 = createHash('sha256').update(file).digest('hex');
      expect(readFileSync(join(`${db}-documents`, `${sha256}-${file.length}.pdf`)).equals(file)).toBe(true);
      if (i >= small.length) {
        const detail = (await app.inject({ url: `/_sandbox/loanbond/registrations/${ids[i - small.length]}` })).json() as {
          documento: { size: number; sha256: string };
        };
        expect(detail.documento).toEqual({ nome: 'ccb-0001.pdf', size: file.length, sha256 });
      }
    }
    expect(readdirSync(`${db}-documents`).sort()).toHaveLength(small.length + large.length);
    await app.close();
  });

  it('ends its thread once idle, and the next large file starts another', async () => {
    const app = await lbApp();
    documentWriter.lingerMs = 50;
    await registered(app, [pdfBytes(INLINE_BYTES + 10, { tag: 'first' })]);
    const started = documentWriter.threadsStarted;
    await until('the thread ended', () => !documentWriter.running);
    await registered(app, [pdfBytes(INLINE_BYTES + 10, { tag: 'second' })]);
    expect(documentWriter.threadsStarted).toBe(started + 1);
    expect(await documentCount(app)).toBe(2);
    await app.close();
  });

  it('a thread let go when idle ends no file of a thread started after it', async () => {
    // The idle thread is let go by a timer; its end is reported on a later turn of the event loop. A
    // timer of the same length set after it runs right after it, in the same turn: a file started
    // there has a new thread, and the old one's end must not fail it.
    const folder = tempFolder('lb-writer-');
    documentWriter.lingerMs = 5;
    const first = pdfBytes(INLINE_BYTES + 1000, { tag: 'first' });
    const a = new IncomingFile(join(folder, 'a'));
    a.write(first);
    expect((await a.finish()).sha256).toBe(createHash('sha256').update(first).digest('hex'));
    const started = documentWriter.threadsStarted;
    const second = pdfBytes(INLINE_BYTES + 1000, { tag: 'second' });
    const end = await new Promise<Promise<FileEnd>>((resolve) =>
      setTimeout(() => {
        expect(documentWriter.running).toBe(false);
        const b = new IncomingFile(join(folder, 'b'));
        b.write(second);
        resolve(b.finish());
      }, 5),
    );
    expect(end.sha256).toBe(createHash('sha256').update(second).digest('hex'));
    expect(documentWriter.threadsStarted).toBe(started + 1);
    expect(readFileSync(join(folder, 'b')).equals(second)).toBe(true);
  });

  it('dying under a request: that request is refused as a fault of the sandbox, nothing of it stays, the next one is stored', async () => {
    const db = join(tempFolder('lb-writer-'), 'sandbox.db');
    const app = await lbApp({ db });
    // No thread left by an earlier test: the one running below is this request's.
    await documentWriter.terminate();
    const bytes = Buffer.from(JSON.stringify(body([plain(pdf(3_000_000, { tag: 'a' })), plain(pdf(3_000_000, { tag: 'b' }))])));
    const stream = new PassThrough();
    const answer = app.inject({
      method: 'POST',
      url: URL,
      headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
      payload: stream,
    });
    stream.write(bytes.subarray(0, Math.floor(bytes.length * 0.3)));
    await until('the thread started', () => documentWriter.running);
    await documentWriter.terminate();
    stream.end(bytes.subarray(Math.floor(bytes.length * 0.3)));
    const res = await answer;
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).message).toMatch(/a fault of the sandbox, not of your request/);
    expect(await registrationCount(app)).toBe(0);
    expect(await documentCount(app)).toBe(0);
    const folder = `${db}-documents`;
    expect(filesIn(folder)).toEqual([]);
    await registered(app, [pdfBytes(INLINE_BYTES * 2, { tag: 'after' })]);
    expect(await documentCount(app)).toBe(1);
    await app.close();
  });

  it('a client leaving halfway leaves no file with the thread: it ends once idle', async () => {
    // The first file is refused at once, so the next ones are only checked by the thread; the client
    // then leaves. A file the thread still had would keep it running.
    const db = join(tempFolder('lb-writer-'), 'sandbox.db');
    const app = await lbApp({ db });
    const port = await listenOnFreePort(app);
    await documentWriter.terminate();
    const started = documentWriter.threadsStarted;
    documentWriter.lingerMs = 20;
    const records = [plain(Buffer.from('not a PDF').toString('base64')), ...Array.from({ length: 6 }, (_, i) => plain(pdf(3_000_000, { tag: `c${i}` })))];
    const payload = Buffer.from(JSON.stringify(body(records)));
    // In twentieths with pauses: the refusal of the first file is known before the next ones start.
    // The client leaves after nine, in the middle of the third large file (about 2.8 of its 4 MB of
    // base64 sent), of which the thread has two batches.
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: URL, headers: { 'content-type': 'application/json', 'content-length': payload.length } });
    req.on('error', () => undefined);
    try {
      for (let part = 1; part <= 9; part++) {
        const piece = payload.subarray(Math.floor((payload.length * (part - 1)) / 20), Math.floor((payload.length * part) / 20));
        await new Promise<void>((resolve) => req.write(piece, () => resolve()));
        await new Promise((r) => setTimeout(r, 60));
      }
    } finally {
      req.destroy();
    }
    expect(documentWriter.threadsStarted).toBeGreaterThan(started);
    await until('the thread ended', () => !documentWriter.running);
    expect(filesIn(`${db}-documents`)).toEqual([]);
    expect(await registrationCount(app)).toBe(0);
    await app.close();
  });

  describe('checks rules 4 and 3 of a file it writes, with the verdict the main thread gives a small one', () => {
    const size = 2 * BATCH_BYTES + 777;
    const lateHeader = Buffer.concat([Buffer.alloc(2000, 0x20), pdfBytes(size - 2000, { tag: 'late' })]);
    // Bytes before its header and no %%EOF in its last 1024 bytes: another file with a PDF inside.
    const inside = Buffer.concat([Buffer.from('JUNKJUNK\n'), pdfBytes(size - 9, { tag: 'inside' })]);
    inside.write('%%EOX', size - 6, 'latin1');
    it.each([
      ['encrypted (rule 3)', pdfBytes(size, { trailer: '/Encrypt 5 0 R', tag: 'locked' })],
      ['not a PDF at all (rule 4)', Buffer.alloc(size, 0x20)],
      ['a header past the first 1024 bytes (rule 4)', lateHeader],
      ['a PDF inside another file (rule 4)', inside],
    ])('%s', async (_name, file) => {
      const verdict = checkPdf(file, MAX_FILE_BYTES);
      if (verdict.ok) throw new Error('the test file should break a rule');
      const db = join(tempFolder('lb-writer-'), 'sandbox.db');
      const app = await lbApp({ db });
      await documentWriter.terminate();
      const started = documentWriter.threadsStarted;
      const res = await app.inject({ method: 'POST', url: URL, payload: body([plain(pdf(900, { tag: 'fine' })), plain(file.toString('base64'))]) });
      expect(res.statusCode).toBe(400);
      const number = { 'not-encrypted': 3, 'pdf-only': 4, 'max-size': 5 }[verdict.rule];
      expect((res.json() as ErrorBody).details).toEqual([{ path: '/registros/1/documento', message: `rule ${number} (${verdict.rule}): ${verdict.reason}` }]);
      // The worker thread read it: the small file alone would not have started one.
      expect(documentWriter.threadsStarted).toBe(started + 1);
      expect(await registrationCount(app)).toBe(0);
      expect(filesIn(`${db}-documents`)).toEqual([]);
      await app.close();
    });

    it('still checks every file once nothing of the request will be stored, and names each problem', async () => {
      const db = join(tempFolder('lb-writer-'), 'sandbox.db');
      const app = await lbApp({ db });
      const locked = pdfBytes(size, { trailer: '/Encrypt 5 0 R', tag: 'second' });
      // The first file is refused at once: the second, larger one is only checked, never written.
      const files = [Buffer.from('PK\u0003\u0004 a zip').toString('base64'), locked.toString('base64'), pdf(size, { tag: 'fine' })];
      const res = await app.inject({ method: 'POST', url: URL, payload: body(files.map(plain)) });
      expect(res.statusCode).toBe(400);
      const details = (res.json() as ErrorBody).details;
      expect(details.map((d) => d.path)).toEqual(['/registros/0/documento', '/registros/1/documento']);
      expect(details[1]?.message).toMatch(/^rule 3 \(not-encrypted\)/);
      expect(await documentCount(app)).toBe(0);
      expect(filesIn(`${db}-documents`)).toEqual([]);
      await app.close();
    });
  });
});
