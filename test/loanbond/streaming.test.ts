// The registration body read as a stream: answers as when it was read whole, nothing left behind by a
// refusal or a client that leaves, the 15 MB boundary to the byte, and the stored files through
// restarts, snapshots, resets and workspaces.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { workspaceDbPath } from '../../src/control/workspace-routes.js';
import { MAX_FILE_BYTES } from '../../src/domain/pdf.js';
import { migrations } from '../../src/store/migrations.js';
import { buildPdf, onePage, STANDARD_SECURITY_HANDLER } from '../domain/pdf-builder.js';
import { listenOnFreePort, tempFolder } from '../helpers.js';
import { body, documentCount, type ErrorBody, filesIn, lbApp, pdf, pdfBytes, plainRecord, registrationCount, URL } from './helpers.js';

const tempDir = () => tempFolder('lb-stream-');


/** 50 small records with distinct files; record `at` gets `documento`. */
function fifty(at: number, documento: string): Record<string, unknown>[] {
  return Array.from({ length: 50 }, (_, i) => plainRecord({ documento: i === at ? documento : pdf(700, { tag: `r${i}` }) }));
}

/** Sends `text` in pieces of `size` bytes (through inject, as a stream). */
function postStreamed(app: FastifyInstance, text: string | Buffer, size = 7777) {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return app.inject({
    method: 'POST',
    url: URL,
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
    payload: Readable.from(pieces),
  });
}

/** `pieces` with a pause between them: a stream that buffered them all would hand them over as one chunk. */
async function* paced(pieces: Buffer[]): AsyncGenerator<Buffer> {
  for (const [i, piece] of pieces.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    yield piece;
  }
}


function documentsFolder(app: FastifyInstance): string | undefined {
  return app.runtime.store.documents.location;
}

describe('a registration refused at record 37 of 50', () => {
  const encrypted = buildPdf([{ objects: [...onePage(), { num: 9, body: STANDARD_SECURITY_HANDLER }], trailer: '/Encr#79pt 9 0 R', xref: 'stream' }]);
  it.each([
    ['too big (rule 5)', () => Buffer.alloc(MAX_FILE_BYTES + 1, 0x20).toString('base64'), /^rule 5: the file is 15000001 bytes decoded/],
    ['encrypted (rule 3)', () => encrypted.toString('base64'), /^rule 3 \(not-encrypted\)/],
    ['not a PDF (rule 4)', () => Buffer.from('PK\u0003\u0004 a zip, not a PDF').toString('base64'), /^rule 4 \(pdf-only\)/],
  ])('%s: answers with the pointer of its file and stores nothing, on a database file too', async (_name, make, message) => {
    const db = join(tempDir(), 'sandbox.db');
    const app = await lbApp({ db });
    const res = await postStreamed(app, JSON.stringify(body(fifty(37, make()))), 65536);
    expect(res.statusCode).toBe(400);
    const err = res.json() as ErrorBody;
    expect(err.details.map((d) => d.path)).toEqual(['/registros/37/documento']);
    expect(err.details[0]?.message).toMatch(message);
    expect(await registrationCount(app)).toBe(0);
    expect(await documentCount(app)).toBe(0);
    expect(filesIn(documentsFolder(app))).toEqual([]);
    await app.close();
  });
});

describe('the 15 MB boundary, streamed', () => {
  it('accepts a file of exactly 15 000 000 bytes and refuses one of 15 000 001, whatever the pieces', async () => {
    const app = await lbApp();
    const exact = pdfBytes(MAX_FILE_BYTES);
    const accepted = await postStreamed(app, JSON.stringify(body([plainRecord({ documento: exact.toString('base64') })])), 65_537);
    expect(accepted.statusCode).toBe(201);
    const id = (accepted.json() as { registros: Array<{ codigo_identificador: string }> }).registros[0]?.codigo_identificador;
    const detail = (await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` })).json() as { documento: { size: number; sha256: string } };
    expect(detail.documento).toMatchObject({ size: MAX_FILE_BYTES, sha256: createHash('sha256').update(exact).digest('hex') });

    const over = pdfBytes(MAX_FILE_BYTES + 1);
    const refused = await postStreamed(app, JSON.stringify(body([plainRecord({ documento: over.toString('base64') })])), 4099);
    expect(refused.statusCode).toBe(400);
    expect((refused.json() as ErrorBody).details).toEqual([
      { path: '/registros/0/documento', message: 'rule 5: the file is 15000001 bytes decoded; the limit is 15 MB (15000000 bytes)' },
    ]);
  });
});

describe('malformed bodies, streamed', () => {
  it('gives the usual 400 with the position, after a file, inside one, and as any other route says it', async () => {
    const app = await lbApp();
    const good = JSON.stringify(body([plainRecord({ documento: pdf(300_000) })]));
    // A missing comma after 400 kB of base64.
    const cut = good.lastIndexOf('"documentos_adicionais"');
    const broken = `${good.slice(0, cut - 1)} ${good.slice(cut)}`;
    const res = await postStreamed(app, broken, 8191);
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).message).toBe(
      `the body is not valid JSON: unexpected "\\""; expected "," or "}" at byte offset ${cut} (line 1, column ${cut + 1})`,
    );
    // The same text to another interface's route: the same message.
    const registry = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/registrar_documentos',
      headers: { 'content-type': 'application/json', authorization: 'Bearer rg-token-1' },
      payload: broken,
    });
    expect((registry.json() as ErrorBody).message).toBe((res.json() as ErrorBody).message);

    // A raw line break inside a documento, on line 2.
    const text = `{"versao": "2.0",\n "token": "lb-token-1", "registros": [{"documento": "JVBER\ni0xLjc="}]}`;
    const inside = await postStreamed(app, text, 5);
    const at = text.indexOf('JVBER\n') + 5;
    const column = at - text.indexOf('\n') - 1 + 1;
    expect((inside.json() as ErrorBody).message).toBe(
      `the body is not valid JSON: a control character (U+000A) inside a string: write it as an escape such as \\n or \\u0000 at byte offset ${at} (line 2, column ${column})`,
    );
    expect(await registrationCount(app)).toBe(0);
  });

  it('refuses bytes that are not UTF-8, naming where, and stores nothing', async () => {
    const app = await lbApp();
    const text = JSON.stringify(body([plainRecord({ nome_documento: 'Jos\u0000' })]));
    const at = text.indexOf('Jos') + 3;
    const bytes = Buffer.from(text.replace('Jos\\u0000', 'JosX'), 'utf8');
    bytes[at] = 0xe9; // Latin-1 é
    const res = await postStreamed(app, bytes, 1000);
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).message).toBe(
      `the body is not valid UTF-8: the byte 0xE9 at byte offset ${at} (line 1, column ${at + 1}) starts a 3-byte UTF-8 character, ` +
        `but the byte 0x22 at byte offset ${at + 1} is not a continuation byte (80 to BF) ` +
        '(text in Latin-1 or Windows-1252, such as José written with the single byte E9, is not UTF-8); send the body encoded as UTF-8',
    );
    expect(await documentCount(app)).toBe(0);
  });

  it('names a byte that is not UTF-8 outside every string, or after a problem of syntax, as a route reading its body whole does, whatever the pieces', async () => {
    const app = await lbApp();
    const text = JSON.stringify(body([plainRecord({ documento: pdf(40_000) })]));
    const after = text.indexOf('"documento"') + 12;
    const cases: Buffer[] = [
      // 0xFF where a key should be; an é in Latin-1 between two fields.
      Buffer.concat([Buffer.from('{"versao":"2.0",'), Buffer.from([0xff]), Buffer.from(text.slice(16))]),
      Buffer.concat([Buffer.from(text.slice(0, after - 12)), Buffer.from([0xe9]), Buffer.from(text.slice(after - 12))]),
      // A comma missing at the start, and a lone C3 far after it, past 40 kB of base64.
      Buffer.concat([Buffer.from(text.slice(0, 15)), Buffer.from(text.slice(16, -2)), Buffer.from([0x20, 0xc3]), Buffer.from(text.slice(-2))]),
      // A body that ends inside a character.
      Buffer.concat([Buffer.from(text), Buffer.from([0xe2, 0x82])]),
    ];
    for (const bytes of cases) {
      const whole = await app.inject({
        method: 'POST',
        url: '/api/v1.0/service/dup/registrar_documentos',
        headers: { 'content-type': 'application/json', authorization: 'Bearer rg-token-1' },
        payload: bytes,
      });
      const expected = (whole.json() as ErrorBody).message;
      expect(expected).toMatch(/^the body is not valid UTF-8: /);
      for (const size of [1, 7, 4096, 1 << 20]) {
        const res = await postStreamed(app, bytes, size);
        expect({ size, status: res.statusCode, message: (res.json() as ErrorBody).message }).toEqual({ size, status: 400, message: expected });
      }
    }
    expect(await documentCount(app)).toBe(0);
  });

  it('refuses a byte-order mark with the message every other body gets', async () => {
    const app = await lbApp();
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(body([plainRecord({})])), 'utf8')]);
    const res = await postStreamed(app, bytes, 1000);
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).message).toMatch(/^the body starts with a UTF-8 byte-order mark \(the bytes EF BB BF at byte offset 0\)/);
    expect(await documentCount(app)).toBe(0);
  });

  it('answers a body as read whole however its first bytes are cut: a byte-order mark split across chunks, or a body that is only the start of one', async () => {
    const app = await lbApp();
    const json = Buffer.from(JSON.stringify(body([plainRecord({})])), 'utf8');
    const bodies = [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]), Buffer.from([0xef, 0xbb]), Buffer.from([0xef]), Buffer.from([0xef, 0xbb, 0xbf])];
    const cutsOf = [[], [1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]];
    for (const bytes of bodies) {
      const answers = new Set<string>();
      for (const cuts of cutsOf) {
        const pieces = [0, ...cuts.filter((c) => c < bytes.length), bytes.length].map((at, i, all) => bytes.subarray(at, all[i + 1])).slice(0, -1);
        const res = await app.inject({
          method: 'POST',
          url: URL,
          headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
          // A pause between pieces, so that the server reads each as a chunk of its own.
          payload: Readable.from(paced(pieces)),
        });
        answers.add(`${res.statusCode} ${(res.json() as ErrorBody).message}`);
      }
      expect({ bytes: [...bytes.subarray(0, 4)], answers: [...answers] }).toEqual({ bytes: [...bytes.subarray(0, 4)], answers: [expect.stringMatching(/^400 /)] });
    }
    expect(await documentCount(app)).toBe(0);
  });
});

describe('a client that leaves halfway', () => {
  it('leaves no file and no row behind', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const app = await lbApp({ db });
    const port = await listenOnFreePort(app);
    const payload = Buffer.from(JSON.stringify(body(Array.from({ length: 8 }, (_, i) => plainRecord({ documento: pdf(200_000, { tag: `h${i}` }) })))));
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: URL, headers: { 'content-type': 'application/json', 'content-length': payload.length } });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(payload.subarray(0, Math.floor(payload.length * 0.6)), () => {
        // Long enough for the server to have written files of the first records.
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 300);
      });
    });
    const folder = `${db}-documents`;
    for (let i = 0; i < 100 && filesIn(folder).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(filesIn(folder)).toEqual([]);
    expect(await registrationCount(app)).toBe(0);
    expect(await documentCount(app)).toBe(0);
    await app.close();
  });
});

describe('stored files', () => {
  const file = pdfBytes(5000, { tag: 'kept' });
  const name = `${createHash('sha256').update(file).digest('hex')}-${file.length}.pdf`;
  const registerKept = (app: FastifyInstance, path = URL) =>
    app.inject({ method: 'POST', url: path, payload: body([plainRecord({ documento: file.toString('base64') })]) });

  it('survive a restart on the same database file, byte for byte', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const first = await lbApp({ db });
    expect((await registerKept(first)).statusCode).toBe(201);
    await first.close();
    const second = await lbApp({ db });
    expect(await documentCount(second)).toBe(1);
    expect(readFileSync(join(`${db}-documents`, name)).equals(file)).toBe(true);
    await second.close();
  });

  it('stay while a snapshot refers to them, come back with a restore, and go once nothing refers to them', async () => {
    const app = await lbApp();
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'empty' } });
    expect((await registerKept(app)).statusCode).toBe(201);
    const folder = documentsFolder(app);
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'with-file' } });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots/empty/restore', payload: {} });
    expect(await documentCount(app)).toBe(0);
    expect(filesIn(folder)).toEqual([name]);
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots/with-file/restore', payload: {} });
    expect(await registrationCount(app)).toBe(1);
    expect(readFileSync(join(folder as string, name)).equals(file)).toBe(true);
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect(filesIn(folder)).toEqual([name]);
    await app.inject({ method: 'DELETE', url: '/_sandbox/snapshots/with-file' });
    expect(filesIn(folder)).toEqual([]);
  });

  it('go on reset when no snapshot refers to them, and an in-memory state takes its folder when it closes', async () => {
    const app = await lbApp();
    expect((await registerKept(app)).statusCode).toBe(201);
    const folder = documentsFolder(app) as string;
    expect(filesIn(folder)).toEqual([name]);
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } });
    expect(filesIn(folder)).toEqual([]);
    expect((await registerKept(app)).statusCode).toBe(201);
    await app.close();
    expect(existsSync(folder)).toBe(false);
  });

  it('go with their workspace', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const app = await lbApp({ db });
    expect((await registerKept(app, `/ws/w1${URL}`)).statusCode).toBe(201);
    const folder = `${workspaceDbPath(db, 'w1')}-documents`;
    expect(filesIn(folder)).toEqual([name]);
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/w1' })).statusCode).toBe(200);
    expect(existsSync(folder)).toBe(false);
    expect(filesIn(`${db}-documents`)).toEqual([]);
    await app.close();
  });

  it('leave the database of an older sandbox for files beside it, nothing lost', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const old = new Database(db);
    const before = migrations.findIndex((m) => m.sql.includes('DROP COLUMN bytes'));
    old.exec(migrations.slice(0, before).map((m) => m.sql).join('\n'));
    old.pragma(`user_version = ${before}`);
    old.prepare('INSERT INTO lb_documents (sha256, size, bytes) VALUES (?, ?, ?)').run(createHash('sha256').update(file).digest('hex'), file.length, file);
    old.close();
    const app = await lbApp({ db });
    expect(await documentCount(app)).toBe(1);
    expect(readFileSync(join(`${db}-documents`, name)).equals(file)).toBe(true);
    await app.close();
  });
});
