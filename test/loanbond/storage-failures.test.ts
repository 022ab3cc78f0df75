// A registration whose files cannot be written (file too large for the process, disk full, its
// workspace removed while the body streams in): the request is refused with the cause named, the
// process lives on, nothing of it is stored and no incoming file stays behind. The file system's
// failures are injected through the writer's test switch (documentWriter.failWrites), which fails
// the writes of the worker thread (files over 256 KiB) and of the main thread (smaller ones) alike.
import { Buffer } from 'node:buffer';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workspaceDbPath } from '../../src/control/workspace-routes.js';
import { documentWriter } from '../../src/store/document-writer.js';
import { tempFolder } from '../helpers.js';
import { body, documentCount, type ErrorBody, filesIn, lbApp, pdf, plainRecord, registrationCount, URL } from './helpers.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  documentWriter.failWrites = undefined;
});
const tempDir = () => tempFolder('lb-fail-');
const plain = (documento: string) => plainRecord({ documento });
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('a registration whose files cannot be written', () => {
  it.each([
    ['EFBIG', 1_500_000, 'the writer thread', /file too large \(EFBIG\)/],
    ['ENOSPC', 1_500_000, 'the writer thread', /disk full \(ENOSPC\)/],
    ['ENOSPC', 20_000, 'the main thread', /disk full \(ENOSPC\)/],
  ])('%s: a 400 naming the cause, no crash, nothing stored, no incoming file left (files of %d bytes, written by %s)', async (code, size, _thread, cause) => {
    const db = join(tempDir(), 'sandbox.db');
    const app = await lbApp({ db });
    documentWriter.failWrites = code;
    const text = JSON.stringify(body([plain(pdf(size, { tag: 'a' })), plain(pdf(size, { tag: 'b' }))]));
    const pieces: Buffer[] = [];
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 65536) pieces.push(bytes.subarray(at, at + 65536));
    const res = await app.inject({
      method: 'POST',
      url: URL,
      headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
      payload: Readable.from(pieces),
    });
    await settle();
    expect(unhandled).toEqual([]);
    expect(res.statusCode).toBe(400);
    const err = res.json() as ErrorBody;
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/a fault of the sandbox, not of your request/);
    expect(err.message).toMatch(cause);
    documentWriter.failWrites = undefined;
    expect(await registrationCount(app)).toBe(0);
    expect(await documentCount(app)).toBe(0);
    expect(filesIn(`${db}-documents`)).toEqual([]);
    // The sandbox still works.
    const ok = await app.inject({ method: 'POST', url: URL, payload: body([plain(pdf(900, { tag: 'after' }))]) });
    expect(ok.statusCode).toBe(201);
    await app.close();
  });

  it('removal of its workspace while the body streams in: answered that the workspace is being removed, no crash, at once', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const app = await lbApp({ db, workspaceRemovalWaitMs: 100 });
    expect((await app.inject({ method: 'POST', url: `/ws/w1${URL}`, payload: body([plain(pdf(900, { tag: 'warm' }))]) })).statusCode).toBe(201);
    const bytes = Buffer.from(JSON.stringify(body([plain(pdf(1_500_000, { tag: 'a' })), plain(pdf(1_500_000, { tag: 'b' }))])));
    const stream = new PassThrough();
    const answer = app.inject({
      method: 'POST',
      url: `/ws/w1${URL}`,
      headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
      payload: stream,
    });
    // The first document, partly.
    const firstPart = Math.floor(bytes.length * 0.4);
    stream.write(bytes.subarray(0, firstPart));
    await settle();
    const removed = await app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/w1' });
    expect(removed.statusCode).toBe(200);
    // The rest: the second document's incoming file would be opened in the folder now gone.
    stream.end(bytes.subarray(firstPart));
    const res = await answer;
    await settle();
    expect(unhandled).toEqual([]);
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).message).toMatch(/workspace "w1" is being removed/);
    expect(existsSync(`${workspaceDbPath(db, 'w1')}-documents`)).toBe(false);
    expect(readdirSync(join(db, '..')).filter((n) => n.includes('w1'))).toEqual([]);
    await app.close();
  });
});
