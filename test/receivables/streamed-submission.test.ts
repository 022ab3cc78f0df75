// The submission's body is read as a stream, its file decoded, scanned and stored in turns of the
// event loop (src/receivables/upload.ts, submit.ts): the answers are those of a body read whole (the
// registry's route, on the same bytes, reads its body whole and is the reference), and other work
// runs between the slices of a large file.
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { LINES_PER_TURN, scanLines, scanLinesInTurns } from '../../src/receivables/cnab-scan.js';
import { FILE_PART_BYTES } from '../../src/store/receivables.js';
import { BASE_FIXTURES, listenOnFreePort, testApp } from '../helpers.js';
import { REGISTER } from '../registry/helpers.js';
import { bigCnab444, cnabBytes } from './helpers.js';

const URL = '/v1/import-cnab';

/** A CNAB 444 file of about `mb` megabytes of base64. */
function largeFile(mb: number): Buffer {
  return bigCnab444(Math.round((mb * 1_000_000 * 3) / 4 / 446));
}

/** The body's text around its file: `{...,"operationFile":"<file>"<rest>`. */
function bodyText(file: string, rest = ',"fileName":"big.rem","additiveNumber":1}'): string {
  return `{"token":"rc-token-1","fundCnpj":"11222333000181","operationFile":"${file}"${rest}`;
}

/** The message of a 400, in the receivables envelope or the registry's body. */
function messageOf(res: { statusCode: number; json: () => unknown }): { status: number; message: string } {
  const parsed = res.json() as { error?: { message?: string }; message?: string; mensagem?: string };
  return { status: res.statusCode, message: parsed.error?.message ?? parsed.message ?? parsed.mensagem ?? JSON.stringify(parsed) };
}

async function both(app: FastifyInstance, payload: Buffer) {
  const headers = { 'content-type': 'application/json' };
  const streamed = await app.inject({ method: 'POST', url: URL, headers, payload });
  const whole = await app.inject({ method: 'POST', url: REGISTER, headers: { ...headers, authorization: 'Bearer rg-token-1' }, payload });
  return { streamed: messageOf(streamed), whole: messageOf(whole), raw: streamed };
}

describe('a submission read as a stream answers as a body read whole', () => {
  const base64 = largeFile(2).toString('base64');
  const cases: Array<[string, Buffer]> = [
    ['a JSON syntax error after the file', Buffer.from(bodyText(base64, ',"fileName":big}'))],
    ['a raw line end inside the file, far in', Buffer.from(bodyText(`${base64.slice(0, 1_500_000)}\n${base64.slice(1_500_000)}`))],
    [
      'a byte that is not UTF-8 inside the file',
      Buffer.concat([Buffer.from(`{"token":"rc-token-1","operationFile":"${base64.slice(0, 900_000)}`), Buffer.from([0xe9]), Buffer.from('A"}')]),
    ],
    [
      'a JSON error first, then a byte that is not UTF-8 (UTF-8 is checked first)',
      Buffer.concat([Buffer.from(`{"token":x,"operationFile":"${base64.slice(0, 400_000)}`), Buffer.from([0xff]), Buffer.from('"}')]),
    ],
    [
      'lines and characters before a JSON error (columns count characters)',
      Buffer.from(`{\r\n "fileName": "remessa-ção.rem",\n "operationFile": "${base64.slice(0, 300_000)}", "token" "x"}`),
    ],
    ['a byte-order mark, and a byte not UTF-8 later', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(bodyText('AAAA')), Buffer.from([0xc3])])],
    ['operationFile twice', Buffer.from(bodyText(base64.slice(0, 200_000), `,"operationFile":"QUFB","fileName":"a.rem","additiveNumber":1}`))],
    ['a body that ends inside the file', Buffer.from(bodyText(base64.slice(0, 500_000)).slice(0, 400_000))],
    ['a key named __proto__', Buffer.from(bodyText('QUFB', ',"__proto__":{},"fileName":"a.rem","additiveNumber":1}'))],
    ['an empty body', Buffer.alloc(0)],
    ['a body of whitespace', Buffer.from(' \r\n ')],
  ];

  it.each(cases)('%s', async (_name, payload) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const { streamed, whole, raw } = await both(app, payload);
    expect(streamed.status).toBe(400);
    expect(streamed).toEqual(whole);
    expect(Object.keys(raw.json() as object)).toEqual(['error']);
    expect(app.runtime.store.receivables.importCount('11222333000181')).toBe(0);
  });

  it('names every unpaired surrogate escape, inside the file and after it, at its byte offset in the body', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const text = bodyText(`${base64.slice(0, 600_000)}\\udc00${base64.slice(600_000, 600_004)}\\ud800x`, ',"fileName":"a\\ud801.rem","additiveNumber":1}');
    const { streamed, whole } = await both(app, Buffer.from(text));
    expect(streamed.status).toBe(400);
    // The registry's message shows the first problem and a count, the receivables envelope all three.
    expect(streamed.message.startsWith(whole.message)).toBe(true);
    expect(whole.message).toContain(`/operationFile: holds the escape \\uDC00 at byte offset ${text.indexOf('\\udc00')}`);
    expect(streamed.message).toContain(`/operationFile: holds the escape \\uD800 at byte offset ${text.indexOf('\\ud800')}`);
    expect(streamed.message).toContain(`/fileName: holds the escape \\uD801 at byte offset ${text.indexOf('\\ud801')}`);
  });

  it('names the file of a refused body by the same rules as the file itself (the schema and the file in one answer)', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const payload = Buffer.from(bodyText(`${base64.slice(0, 400_000)}-AAA`, ',"additiveNumber":1}'));
    const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(400);
    const message = (res.json() as { error: { message: string } }).error.message;
    expect(message).toContain('fileName');
    expect(message).toContain('invalid base64 character "-" at offset 400000 (URL-safe base64 is not accepted)');
  });
});

describe('the body limit, exact', () => {
  const file = cnabBytes('cnab444-fidc', [{}]).toString('base64');
  const text = bodyText(file);
  const limit = Buffer.byteLength(text);

  it('takes a body of exactly the limit, and refuses one byte more, as a body read whole', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, bodyLimit: limit });
    const atLimit = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload: text });
    expect(atLimit.statusCode).toBe(200);
    for (const payload of [Buffer.from(`${text} `), Buffer.from(`${text}${' '.repeat(300_000)}`)]) {
      const { streamed, whole } = await both(app, payload);
      expect(streamed.status).toBe(400);
      expect(streamed.message).toBe(`the body is larger than this sandbox's limit of ${limit} bytes; raise SANDBOX_BODY_LIMIT to send more`);
      expect(streamed).toEqual(whole);
    }
    expect(app.runtime.store.receivables.importCount('11222333000181')).toBe(1);
  });
});

describe('padding in one slice', () => {
  it('answers tens of thousands of "=" with the padding rule and its offset, as a body read whole would', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    for (const k of [1000, 20_000]) {
      const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload: bodyText(`QUJD${'='.repeat(k)}`) });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('too much base64 padding \\"=\\" at offset 6');
      expect(res.body).not.toContain('SandboxFault');
    }
  });
});

describe('a large file, checked and stored in turns of the event loop', () => {
  it('finds the same lines, or the same fault, in many turns as in one', async () => {
    const bytes = bigCnab444(10_000);
    const broken = Buffer.concat([bytes.subarray(0, 446 * 7000), Buffer.from('1'.repeat(300) + '\r\n'), bytes.subarray(446 * 7000)]);
    for (const file of [bytes, broken]) {
      let turns = 0;
      const inTurns = await scanLinesInTurns(file, async () => void turns++, 1000);
      expect(inTurns).toEqual(scanLines(file));
      // A turn after every 1000 lines until the end or the fault (line 7001 of the broken one).
      expect(turns).toBe(file === bytes ? 10 : 7);
    }
    expect(LINES_PER_TURN).toBeGreaterThan(1000);
  });

  it('lets other work run between the slices of a 3 MB submission, and stores the file whole', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const file = largeFile(3);
    const payload = bodyText(file.toString('base64'));
    let ticks = 0;
    let done = false;
    const tick = () => {
      ticks++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload });
    done = true;
    expect(res.statusCode).toBe(200);
    // Turns while the body is read (one each TURN_MS of reading: test/http/json-body-stream.test.ts
    // counts them) and at least one per part of the file written.
    const parts = Math.ceil(file.length / FILE_PART_BYTES);
    expect(ticks).toBeGreaterThanOrEqual(parts);
    const importId = String(res.headers['sandbox-import-id']);
    expect(app.runtime.store.receivables.file(importId)?.equals(file)).toBe(true);
    const store = app.runtime.store.receivables;
    expect(store.fileParts(store.fileKey(importId) ?? importId)).toEqual({ parts, size: file.length });
    await app.runtime.work.drain();
    const detail = (await app.inject({ url: `/_sandbox/receivables/imports/${importId}` })).json() as Record<string, unknown>;
    expect(detail).toMatchObject({ status: 'processed', byteLength: file.length });
  });

  it('answers as the state is once the file is written: a reset meanwhile takes the fund away', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const file = largeFile(3).toString('base64');
    const submitted = app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload: bodyText(file) });
    // Reset to no fixtures while the submission is under way (its body is read in many turns).
    await new Promise((r) => setImmediate(r));
    const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: {} } });
    expect(reset.statusCode).toBe(200);
    const res = await submitted;
    expect(res.statusCode).toBe(400);
    expect((res.json() as { error: { code: string } }).error.code).toBe('InvalidToken');
    expect(app.runtime.store.receivables.importCount('11222333000181')).toBe(0);
  });
});

describe('a client that leaves halfway', () => {
  it('stores nothing, and the sandbox goes on answering', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const port = await listenOnFreePort(app);
    const payload = Buffer.from(bodyText(largeFile(2).toString('base64')));
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: URL,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(payload.subarray(0, Math.floor(payload.length * 0.7)), () => {
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(app.runtime.store.receivables.importCount('11222333000181')).toBe(0);
    expect(app.runtime.store.tableCounts().rc_import_file_parts ?? 0).toBe(0);
    const health = await fetch(`http://127.0.0.1:${port}/_sandbox/health`);
    expect(health.status).toBe(200);
    await app.close();
  });
});
