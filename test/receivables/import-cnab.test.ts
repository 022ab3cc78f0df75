import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations.js';
import { BASE_FIXTURES, LogCapture, testApp } from '../helpers.js';
import { bigCnab444, cnab240Bytes, cnabBytes, cnabText, type TitleSpec } from './helpers.js';

const URL = '/v1/import-cnab';

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    token: 'rc-token-1',
    fundCnpj: '11222333000181',
    operationFile: cnabBytes('cnab444-fidc', [{}]).toString('base64'),
    fileName: 'remessa-001.rem',
    additiveNumber: 1,
    ...overrides,
  };
}

function without(field: string): Record<string, unknown> {
  const b = body();
  delete b[field];
  return b;
}

async function post(app: FastifyInstance, payload: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: URL, payload });
}

interface Envelope {
  error: { code: string; message: string; target: string | null };
}

/** The body of a 400, checked to be exactly the documented envelope. */
function envelope(res: { statusCode: number; body: string }): Envelope['error'] {
  expect(res.statusCode).toBe(400);
  const parsed = JSON.parse(res.body) as Envelope;
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error)).toEqual(['code', 'message', 'target']);
  return parsed.error;
}

async function importOf(app: FastifyInstance, id: string, query = '') {
  const res = await app.inject({ url: `/_sandbox/receivables/imports/${id}${query}` });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function submitAndProcess(app: FastifyInstance, bytes: Buffer) {
  const res = await post(app, body({ operationFile: bytes.toString('base64') }));
  expect(res.statusCode).toBe(200);
  await app.runtime.work.drain();
  return importOf(app, String(res.headers['sandbox-import-id']));
}

describe('POST /v1/import-cnab: accepted submissions', () => {
  it('answers 200 with an empty body for a valid CNAB 400 and a valid CNAB 444 file', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    for (const layout of ['cnab400', 'cnab444-fidc', 'cnab444-400+44'] as const) {
      const res = await post(app, body({ operationFile: cnabBytes(layout, [{}]).toString('base64') }));
      expect(res.statusCode, layout).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
    }
  });

  it('accepts fundCnpj with and without punctuation, and stores the import under the bare CNPJ', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    for (const fundCnpj of ['11.222.333/0001-81', '11222333000181']) {
      expect((await post(app, body({ fundCnpj }))).statusCode).toBe(200);
    }
    const list = await app.inject({ url: '/_sandbox/receivables/funds/11222333000181/imports' });
    expect(list.json().imports.map((i: { fundCnpj: string }) => i.fundCnpj)).toEqual([
      '11222333000181',
      '11222333000181',
    ]);
  });

  it('refuses fundCnpj in any form but the bare characters or the mask NN.NNN.NNN/NNNN-NN, naming it (ValidationError, target fundCnpj)', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    for (const fundCnpj of [' 11222333000181 ', '112223330001/81', '11.222.333/000181', '11222333/0001-81', '11222333000181\t']) {
      const error = envelope(await post(app, body({ fundCnpj })));
      expect(error, JSON.stringify(fundCnpj)).toMatchObject({
        code: 'ValidationError',
        target: 'fundCnpj',
        message: expect.stringContaining('NN.NNN.NNN/NNNN-NN'),
      });
    }
    const list = await app.inject({ url: '/_sandbox/receivables/funds/11222333000181/imports' });
    expect(list.json().imports).toEqual([]);
  });

  it('accepts an alphanumeric fund CNPJ', async () => {
    const app = await testApp({
      fixtures: { receivables: { funds: [{ fundCnpj: '12.ABC.345/01DE-35', token: 'alpha-token' }] } },
    });
    const res = await post(app, body({ token: 'alpha-token', fundCnpj: '12ABC34501DE35' }));
    expect(res.statusCode).toBe(200);
    // Its letters are upper case, as in an NF-e key or a CNAB file (one rule, domain/tax-id.ts).
    const lower = await post(app, body({ token: 'alpha-token', fundCnpj: '12.abc.345/01de-35' }));
    expect(lower.statusCode).toBe(400);
    expect(lower.json<Envelope>().error).toMatchObject({ target: 'fundCnpj', message: expect.stringContaining('upper case') });
  });

  it('answers before processing: the import is pending until the runner has run', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await post(app, body());
    const id = String(res.headers['sandbox-import-id']);
    expect(app.runtime.store.receivables.import(id)?.status).toBe('pending');
    await app.runtime.work.drain();
    expect(app.runtime.store.receivables.import(id)?.status).toBe('processed');
  });

  it('stores the file bytes as sent', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const bytes = cnabBytes('cnab400', [{}], { tail: '\x1a' });
    const res = await post(app, body({ operationFile: bytes.toString('base64') }));
    expect(app.runtime.store.receivables.file(String(res.headers['sandbox-import-id']))).toEqual(bytes);
  });

  it('answers with no body over real HTTP too', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${address}${URL}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body()),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect(await res.text()).toBe('');
  });
});

describe('POST /v1/import-cnab: InvalidToken', () => {
  it('refuses a fund with token null, a wrong token and an unknown fund', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const cases = [
      { token: 'anything', fundCnpj: '11444777000161', says: 'has no token' },
      { token: 'rc-token-2', fundCnpj: '11222333000181', says: 'is not the token' },
      { token: 'rc-token-1', fundCnpj: '12ABC34501DE35', says: 'no fund with CNPJ' },
    ];
    for (const c of cases) {
      const error = envelope(await post(app, body({ token: c.token, fundCnpj: c.fundCnpj })));
      expect(error.code).toBe('InvalidToken');
      expect(error.target).toBe('token');
      expect(error.message).toContain(c.says);
      expect(error.message).not.toContain(c.token);
    }
    expect(app.runtime.store.receivables.importsOfFund('11222333000181')).toEqual([]);
  });
});

describe('POST /v1/import-cnab: ValidationError names the field', () => {
  it('refuses each over-long field', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const cases: Array<[string, unknown]> = [
      ['token', 'x'.repeat(65)],
      ['fundCnpj', '11.222.333/0001-811'],
      ['fileName', 'f'.repeat(151)],
    ];
    for (const [field, value] of cases) {
      const error = envelope(await post(app, body({ [field]: value })));
      expect(error).toMatchObject({ code: 'ValidationError', target: field });
    }
    // The limits themselves are accepted.
    expect((await post(app, body({ fileName: 'f'.repeat(150) }))).statusCode).toBe(200);
  });

  it('refuses each missing field', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    for (const field of ['token', 'fundCnpj', 'operationFile', 'fileName', 'additiveNumber']) {
      const error = envelope(await post(app, without(field)));
      expect(error, field).toMatchObject({ code: 'ValidationError', target: field });
      expect(error.message).toContain('is required');
    }
  });

  it('refuses each wrong type, without coercion', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const cases: Array<[string, unknown]> = [
      ['token', 123],
      ['fundCnpj', 11222333000181],
      ['operationFile', ['AAAA']],
      ['fileName', null],
      ['additiveNumber', '1'],
    ];
    for (const [field, value] of cases) {
      const error = envelope(await post(app, body({ [field]: value })));
      expect(error, field).toMatchObject({ code: 'ValidationError', target: field });
    }
  });

  it('refuses an empty fileName', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const error = envelope(await post(app, body({ fileName: '' })));
    expect(error).toMatchObject({ code: 'ValidationError', target: 'fileName' });
  });

  it('refuses a field sent twice, naming it: each field occurs exactly once', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const json = JSON.stringify(body()).replace('{', '{"token":"wrong-first",');
    const res = await app.inject({
      method: 'POST',
      url: URL,
      headers: { 'content-type': 'application/json' },
      payload: json,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { code: 'ValidationError', message: expect.stringMatching(/exactly once/), target: 'token' },
    });
  });

  it('refuses an unknown field, naming it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const error = envelope(await post(app, body({ fundCNPJ: '11222333000181' })));
    expect(error).toMatchObject({ code: 'ValidationError', target: 'fundCNPJ' });
  });

  it('refuses a fundCnpj that is not a valid CNPJ', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const error = envelope(await post(app, body({ fundCnpj: '11.222.333/0001-82' })));
    expect(error).toMatchObject({ code: 'ValidationError', target: 'fundCnpj' });
    expect(error.message).toContain('check digits');
  });

  it('refuses an operationFile that is not base64, is empty, or has a line neither 400 nor 444 bytes', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const short = Buffer.from(`${'0'.repeat(400)}\r\n${'9'.repeat(399)}\r\n`);
    const cases: Array<[string, string]> = [
      ['not base64!', 'is not base64'],
      ['', 'is empty'],
      [short.toString('base64'), 'line 2 has 399 bytes'],
      [Buffer.from('\r\n\r\n').toString('base64'), 'no records'],
    ];
    for (const [operationFile, says] of cases) {
      const error = envelope(await post(app, body({ operationFile })));
      expect(error).toMatchObject({ code: 'ValidationError', target: 'operationFile' });
      expect(error.message).toContain(says);
    }
    expect(app.runtime.store.receivables.importsOfFund('11222333000181')).toEqual([]);
  });

  it('tells raw CNAB text sent where base64 is expected from base64 that is wrong', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const text400 = cnabText('cnab400', [{}]);
    const text444 = cnabText('cnab444-fidc', [{}]);
    // Whole files (CRLF or LF), one header line alone, a header cut short: all plain CNAB text.
    for (const operationFile of [text400, text444, text400.replaceAll('\r\n', '\n'), text400.slice(0, 400), text444.slice(0, 30)]) {
      const error = envelope(await post(app, body({ operationFile })));
      expect(error).toMatchObject({ code: 'ValidationError', target: 'operationFile' });
      expect(error.message).toContain('this looks like CNAB text, not base64');
      expect(error.message).not.toContain('URL-safe');
    }
    const error = envelope(await post(app, body({ operationFile: 'bm90IGNuYWI-' })));
    expect(error.message).not.toContain('CNAB text');
    expect(error.message).toContain('URL-safe');
  });

  it('says when operationFile is a data: URI, or a file base64-encoded twice (the judgement of loan-bond documento too)', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const file = cnabBytes('cnab400', [{}]).toString('base64');
    const dataUri = envelope(await post(app, body({ operationFile: `data:text/plain;base64,${file}` })));
    expect(dataUri.message).toContain('a data: URI is not accepted');
    const twice = envelope(await post(app, body({ operationFile: Buffer.from(file, 'latin1').toString('base64') })));
    expect(twice).toMatchObject({ target: 'operationFile' });
    expect(twice.message).toContain('base64-encoded twice');
    expect(twice.message).toContain('a CNAB file');
  });

  it('answers malformed JSON, an empty body and a wrong content type in the envelope, target null', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const requests = [
      { headers: { 'content-type': 'application/json' }, payload: '{"token": ' },
      { headers: { 'content-type': 'application/json' }, payload: '' },
      { headers: { 'content-type': 'text/plain' }, payload: JSON.stringify(body()) },
      { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'token=x' },
    ];
    for (const r of requests) {
      const error = envelope(await app.inject({ method: 'POST', url: URL, ...r }));
      expect(error).toMatchObject({ code: 'ValidationError', target: null });
    }
  });

  it('checks the body shape before the token, and the token before the file', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const shape = envelope(await post(app, body({ token: 'wrong', fileName: 'f'.repeat(151) })));
    expect(shape).toMatchObject({ code: 'ValidationError', target: 'fileName' });
    const cnpj = envelope(await post(app, body({ token: 'wrong', fundCnpj: '1234' })));
    expect(cnpj).toMatchObject({ code: 'ValidationError', target: 'fundCnpj' });
    const token = envelope(await post(app, body({ token: 'wrong', operationFile: '!!' })));
    expect(token).toMatchObject({ code: 'InvalidToken', target: 'token' });
  });

  it('keeps the token and the file out of the log', async () => {
    const logs = new LogCapture();
    const app = await testApp({ fixtures: BASE_FIXTURES, logger: { stream: logs } });
    const b = body();
    await post(app, b);
    await post(app, body({ token: 'secret-wrong-token' }));
    await app.runtime.work.drain();
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.text).not.toContain('rc-token-1');
    expect(logs.text).not.toContain('secret-wrong-token');
    expect(logs.text).not.toContain(String(b.operationFile).slice(0, 40));
  });
});

describe('asynchronous processing', () => {
  it('processes a valid CNAB 400 file, reading values to the cent and dates', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const titles: TitleSpec[] = [
      {
        documentNumber: 'NF-1',
        due: '310127',
        valueCents: 247056,
        draweeCode: '02',
        draweeId: '11222333000181',
      },
      { documentNumber: 'NF-2', due: '290228', valueCents: 1, issue: '010126' },
    ];
    const imp = await submitAndProcess(app, cnabBytes('cnab400', titles));
    expect(imp).toMatchObject({
      status: 'processed',
      layout: 'cnab400',
      lineCount: 4,
      titleCount: 2,
      totalFaceValue: 2470.57,
      totalFaceValueCents: 247057,
      errorCount: 0,
      warningCount: 0,
      strict: false,
      diagnostics: [],
    });
    expect(imp.titles).toEqual([
      expect.objectContaining({
        line: 2,
        documentNumber: 'NF-1',
        dueDate: '2027-01-31',
        faceValue: 2470.56,
        faceValueCents: 247056,
        draweeType: 'cnpj',
        draweeTaxId: '11222333000181',
        nfeKey: null,
      }),
      expect.objectContaining({
        line: 3,
        documentNumber: 'NF-2',
        dueDate: '2028-02-29',
        issueDate: '2026-01-01',
        faceValue: 0.01,
        faceValueCents: 1,
        draweeType: 'cpf',
        draweeTaxId: '52998224725',
      }),
    ]);
  });

  it('processes a valid CNAB 444 file with LF line ends and a trailing EOF byte, reading the NF-e key', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const imp = await submitAndProcess(app, cnabBytes('cnab444-fidc', [{}, {}], { eol: '\n', tail: '\x1a' }));
    expect(imp).toMatchObject({ status: 'processed', layout: 'cnab444-fidc', titleCount: 2 });
    expect(imp.titles[1]).toMatchObject({ line: 3, nfeKey: '35260722333444000181550010001234561123456787' });
  });

  it('rejects a file with a broken sequence, naming the line and columns', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const imp = await submitAndProcess(
      app,
      cnabBytes('cnab444-fidc', [{}, {}], { sequence: { 3: 5, 4: 6 } }),
    );
    expect(imp.status).toBe('rejected');
    expect(imp.diagnostics[0]).toMatchObject({
      line: 3,
      columns: '439-444',
      rule: 'sequence',
      severity: 'error',
    });
    expect(imp.diagnostics[0].message).toContain('expected 000003, found 000005');
  });

  it('rejects a file whose trailer sequence is not the line count', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const imp = await submitAndProcess(app, cnabBytes('cnab400', [{}], { sequence: { 3: 4 } }));
    expect(imp.status).toBe('rejected');
    expect(imp.diagnostics).toEqual([
      expect.objectContaining({ line: 3, columns: '395-400', rule: 'trailer-count', severity: 'error' }),
    ]);
  });

  it('processes a file with a bad drawee check digit with a warning naming the line', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const imp = await submitAndProcess(app, cnabBytes('cnab400', [{}, { draweeId: '52998224724' }]));
    expect(imp).toMatchObject({ status: 'processed', errorCount: 0, warningCount: 1 });
    expect(imp.diagnostics).toEqual([
      expect.objectContaining({ line: 3, columns: '221-234', rule: 'drawee-tax-id', severity: 'warning' }),
    ]);
  });

  it('rejects the same file in strict mode', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, strict: true });
    const imp = await submitAndProcess(app, cnabBytes('cnab400', [{}, { draweeId: '52998224724' }]));
    expect(imp).toMatchObject({ status: 'rejected', strict: true, errorCount: 1, warningCount: 0 });
    expect(imp.diagnostics[0]).toMatchObject({ line: 3, rule: 'drawee-tax-id', severity: 'error' });
  });

  it('rejects it for one request with the header Sandbox-Strict: true, and only that one', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const file = cnabBytes('cnab400', [{}, { draweeId: '52998224724' }]).toString('base64');
    const strict = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      headers: { 'sandbox-strict': 'true' },
      payload: body({ operationFile: file }),
    });
    const lax = await post(app, body({ operationFile: file, fileName: 'lax.rem' }));
    expect([strict.statusCode, lax.statusCode]).toEqual([200, 200]);
    await app.runtime.work.drain();
    expect(await importOf(app, String(strict.headers['sandbox-import-id']))).toMatchObject({
      status: 'rejected',
      strict: true,
    });
    expect(await importOf(app, String(lax.headers['sandbox-import-id']))).toMatchObject({
      status: 'processed',
      strict: false,
      warningCount: 1,
    });
  });

  it('processes the imports in the order received', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await post(app, body({ fileName: 'a.rem' }));
    await post(app, body({ fileName: 'b.rem', operationFile: 'AAAA' }));
    await post(
      app,
      body({ fileName: 'c.rem', operationFile: cnabBytes('cnab400', [{}]).toString('base64') }),
    );
    await app.runtime.work.drain();
    const list = (await app.inject({ url: '/_sandbox/receivables/funds/11222333000181/imports' })).json();
    expect(
      list.imports.map((i: { fileName: string; status: string }) => `${i.fileName}:${i.status}`),
    ).toEqual(['a.rem:processed', 'c.rem:processed']);
  });

  it('resumes pending imports after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-restart-'));
    try {
      const db = join(dir, 'sandbox.db');
      const first = await testApp({ db, fixtures: BASE_FIXTURES });
      // Stored as the route stores it, but never kicked: as if the process stopped right after the 200.
      first.runtime.store.receivables.insertImport({
        importId: 'CNAB-PENDING',
        fundCnpj: '11222333000181',
        fileName: 'left-over.rem',
        additiveNumber: 7,
        strict: false,
        receivedAt: '2026-11-20T10:00:00.000Z',
        file: cnabBytes('cnab400', [{}]),
        lineCount: 3,
      });
      await first.close();
      const second = await testApp({ db, fixtures: BASE_FIXTURES });
      await second.runtime.work.drain();
      expect(second.runtime.store.receivables.import('CNAB-PENDING')).toMatchObject({
        status: 'processed',
        titleCount: 1,
      });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("moves an older database's CNAB files out of the imports' rows, nothing lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-migrate-'));
    try {
      const db = join(dir, 'sandbox.db');
      const old = new Database(db);
      const before = migrations.findIndex((m) => m.sql.includes('rc_import_files'));
      expect(before).toBeGreaterThan(0);
      old.exec(migrations.slice(0, before).map((m) => m.sql).join('\n'));
      old.pragma(`user_version = ${before}`);
      old.prepare('INSERT INTO rc_funds (fund_cnpj, token) VALUES (?, ?)').run('11222333000181', 'rc-token-1');
      const files = [cnabBytes('cnab400', [{}, {}]), cnabBytes('cnab444-fidc', [{}])];
      files.forEach((file, i) =>
        old
          .prepare(
            `INSERT INTO rc_imports (import_id, fund_cnpj, file_name, additive_number, received_at, status, file,
               byte_length, line_count, strict) VALUES (?, '11222333000181', ?, 1, '2026-11-20T10:00:00.000Z', 'pending', ?, ?, ?, 0)`,
          )
          .run(`CNAB-OLD-${i}`, `old-${i}.rem`, file, file.length, i === 0 ? 4 : 3),
      );
      old.close();
      const app = await testApp({ db, fixtures: 'none' });
      await app.runtime.work.drain();
      expect(await importOf(app, 'CNAB-OLD-0')).toMatchObject({ status: 'processed', titleCount: 2, byteLength: files[0]?.length });
      expect(await importOf(app, 'CNAB-OLD-1')).toMatchObject({ status: 'processed', titleCount: 1, byteLength: files[1]?.length });
      files.forEach((file, i) => expect(app.runtime.store.receivables.file(`CNAB-OLD-${i}`)?.equals(file)).toBe(true));
      await app.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('forgets an import wiped by a reset while it was being processed', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await post(app, body());
    expect((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} })).statusCode).toBe(200);
    await app.runtime.work.drain();
    expect(app.runtime.work.errors).toBe(0);
  });
});

describe('a 100 000-title CNAB 444 file', () => {
  it('is accepted and processed', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const bytes = bigCnab444(100_000);
    const res = await post(app, body({ operationFile: bytes.toString('base64'), fileName: 'big.rem' }));
    expect(res.statusCode).toBe(200);
    await app.runtime.work.drain();
    const imp = await importOf(
      app,
      String(res.headers['sandbox-import-id']),
      '?titlesOffset=99999&titlesLimit=5',
    );
    expect(imp).toMatchObject({
      status: 'processed',
      layout: 'cnab444-fidc',
      lineCount: 100_002,
      titleCount: 100_000,
      totalFaceValueCents: 100_000 * 247056,
      errorCount: 0,
      byteLength: bytes.length,
    });
    expect(imp.titles).toEqual([expect.objectContaining({ line: 100_001, faceValueCents: 247056 })]);
  }, 60_000);
});

describe('a file that is not CNAB 400 or 444 is refused at once, saying what it is', () => {
  it.each([
    ['a CNAB 240 file', cnab240Bytes(), 'CNAB 240 is not supported: use CNAB 400 or 444'],
    ['UTF-16 text', Buffer.from(`\ufeff${cnabText('cnab400', [{}])}`, 'utf16le'), 'the file is UTF-16 text'],
    [
      'UTF-8 text with accented letters',
      Buffer.from(cnabText('cnab400', [{ draweeName: 'AÇÚCAR LTDA' }]), 'utf8'),
      'the file must be ASCII or Latin-1 (one byte per character), but it is UTF-8',
    ],
  ])('%s', async (_name, file, message) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const error = envelope(await post(app, body({ operationFile: file.toString('base64') })));
    expect(error).toMatchObject({ code: 'ValidationError', target: 'operationFile' });
    expect(error.message).toContain(message);
  });
});

describe('POST /v1/import-cnab: query parameters', () => {
  it('refuses a query parameter (none is documented): ValidationError, target the parameter, nothing stored', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'POST', url: `${URL}?x=1`, payload: body() });
    const error = envelope(res);
    expect(error).toMatchObject({ code: 'ValidationError', target: 'x', message: expect.stringContaining('query parameter x') });
    expect(res.headers['sandbox-outcome']).toBe('import-cnab.query-invalid');
    const list = await app.inject({ url: '/_sandbox/receivables/funds/11222333000181/imports' });
    expect(list.json().imports).toEqual([]);
  });

  it('lists it after the problems of the body', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const error = envelope(await app.inject({ method: 'POST', url: `${URL}?x=1`, payload: body({ fileName: '' }) }));
    expect(error).toMatchObject({ code: 'ValidationError', target: 'fileName', message: expect.stringContaining('query parameter x') });
  });
});
