// Requests malformed at the HTTP level, sent as raw bytes over a socket: a 400 in
// the interface's error shape naming what is wrong, wherever the sandbox gets to answer.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/index.js';
import { errorShapeProblem } from '../reliability/engine/run.js';
import { BASE_FIXTURES } from '../helpers.js';

let sandbox: Sandbox;
let port: number;
beforeAll(async () => {
  sandbox = await startSandbox({ fixtures: BASE_FIXTURES });
  port = Number(new URL(sandbox.url).port);
});
afterAll(() => sandbox.close());

/** Sends raw bytes and reads the first answer: status and body. */
function send(text: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    const done = () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0);
      const head = out.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(out)?.[1] ?? -1);
      const body = head < 0 ? '' : out.slice(head + 4);
      if (status && length >= 0 && Buffer.byteLength(body) >= length) {
        socket.destroy();
        resolve({ status, body: body.slice(0, length) });
        return true;
      }
      return false;
    };
    socket.on('data', (d) => {
      out += d.toString('latin1');
      done();
    });
    socket.on('close', () => (done() ? undefined : reject(new Error(`no complete answer: ${JSON.stringify(out)}`))));
    socket.on('error', reject);
    socket.write(text);
  });
}

const head = (method: string, path: string, extra: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\n${extra}\r\n`;
const REGISTRY = '/api/v1.0/service/dup/registrar_documentos';
const EXTRACT = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';

describe('requests malformed at the HTTP level', () => {
  it.each([
    ['a Content-Length that is not a number', 'receivables', head('POST', '/v1/import-cnab', 'Content-Length: abc\r\n') + '{}', 'Content-Length must be one decimal length'],
    ['a negative Content-Length', 'registry', head('POST', REGISTRY, 'Authorization: Bearer rg-token-1\r\nContent-Length: -1\r\n') + '{}', 'Content-Length must be one decimal length'],
    ['Content-Length given twice', 'loanbond', head('POST', '/api/service/document/registrar', 'Content-Length: 2\r\nContent-Length: 3\r\n') + '{}', 'sent once'],
    ['Content-Length after chunking', 'registry', head('POST', REGISTRY, 'Transfer-Encoding: chunked\r\nContent-Length: 2\r\n') + '2\r\n{}\r\n0\r\n\r\n', 'Content-Length and Transfer-Encoding together'],
    ['chunking after Content-Length', 'bookkeeping', head('PUT', `${EXTRACT.replace('/extract', '/IUD-1/payment')}`, 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n') + '2\r\n{}\r\n0\r\n\r\n', 'Content-Length and Transfer-Encoding together'],
    ['a transfer coding other than chunked alone', 'registry', head('POST', REGISTRY, 'Authorization: Bearer rg-token-1\r\nTransfer-Encoding: gzip, chunked\r\n') + '2\r\n{}\r\n0\r\n\r\n', 'gzip, chunked\\" is not chunked alone'],
    ['a transfer coding in a header of its own', 'loanbond', head('POST', '/api/service/document/registrar', 'Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n') + '2\r\n{}\r\n0\r\n\r\n', 'deflate, chunked\\" is not chunked alone'],
    ['a chunk size that is not hexadecimal', 'receivables', head('POST', '/v1/import-cnab', 'Transfer-Encoding: chunked\r\n') + 'zz\r\n{}\r\n0\r\n\r\n', 'a chunk size is not hexadecimal'],
    ['a header line without a colon', 'receivables', head('POST', '/v1/import-cnab', 'Bad Header\r\nContent-Length: 2\r\n') + '{}', 'a header line is malformed'],
    ['an unknown HTTP version', 'receivables', 'GET /v1/import-cnab HTTP/9.9\r\nHost: sandbox\r\n\r\n', 'the HTTP version'],
  ] as const)('answers %s with a 400 in the %s shape', async (_name, iface, bytes, message) => {
    const res = await send(bytes);
    expect(res.status).toBe(400);
    expect(errorShapeProblem(iface, 400, res.body)).toBeNull();
    expect(res.body).toContain(message);
    expect(res.body).not.toContain('not one the sandbox reads');
  });

  it('applies nothing sent with a transfer coding it does not read, and reads chunked in any case', async () => {
    const registered = async () => ((await (await fetch(`${sandbox.url}/_sandbox/registry/participants/PART-1`)).json()) as { batchCount: number }).batchCount;
    const before = await registered();
    const body = JSON.stringify({ registros: [{ numeroDuplicata: 'TE-1', valorDuplicata: 10 }] });
    const chunk = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const refused = await send(head('POST', REGISTRY, 'Authorization: Bearer rg-token-1\r\nTransfer-Encoding: gzip, chunked\r\n') + chunk);
    expect(refused.status).toBe(400);
    expect(await registered()).toBe(before);
    const read = await send(head('POST', REGISTRY, 'Authorization: Bearer rg-token-1\r\nTransfer-Encoding: Chunked\r\n') + chunk);
    expect(read.status, read.body).toBe(200);
    expect(await registered()).toBe(before + 1);
  });

  it('refuses a GET with a body in the interface shape and journals it', async () => {
    const res = await send(head('GET', EXTRACT, 'Authorization: Bearer bk-token-1\r\nContent-Length: 2\r\n') + '{}');
    expect(res.status).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, res.body)).toBeNull();
    expect(JSON.parse(res.body)).toMatchObject({ message: expect.stringContaining('a GET takes no body') });
    const journal = await sandbox.requests({ limit: 1 });
    expect(journal[0]).toMatchObject({ operation: 'list-extract-requests', status: 400 });
  });

  it('refuses a GET with a chunked body on the control plane too', async () => {
    const res = await send(head('GET', '/_sandbox/clock', 'Transfer-Encoding: chunked\r\n') + '2\r\n{}\r\n0\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ message: expect.stringContaining('Transfer-Encoding') });
  });

  it('still answers a GET with an empty Content-Length normally', async () => {
    const res = await send(head('GET', EXTRACT, 'Authorization: Bearer bk-token-1\r\nContent-Length: 0\r\n'));
    expect(res.status).toBe(200);
  });
});

describe('a request target with bytes a URL cannot hold', () => {
  /** The target carries UTF-8 bytes as sent, unencoded. */
  const sendBytes = (bytes: Buffer) => send(bytes);
  const raw = (line: string, extra = '') => Buffer.from(`${line} HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer bk-token-1\r\n${extra}\r\n`, 'utf8');

  it('refuses raw UTF-8 in the query with a 400 naming the byte, journals it, and shows its request line as sent', async () => {
    const res = await sendBytes(raw(`GET ${EXTRACT}?x=é`));
    expect(res.status).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, res.body)).toBeNull();
    const { message } = JSON.parse(res.body) as { message: string };
    expect(message).toContain(`the request target holds the byte 0xC3 at offset ${EXTRACT.length + 3}, in its query`);
    expect(message).toContain('percent-encoded (RFC 3986, section 2.1): %C3%A9');
    const [entry] = await sandbox.requests({ limit: 1 });
    expect(entry).toMatchObject({ interface: 'bookkeeping', method: 'GET', path: EXTRACT, status: 400 });
    expect(entry?.requestLine).toBe(`GET ${EXTRACT}?x=é HTTP/1.1`);
    expect(entry?.headers).toContainEqual({ name: 'Authorization', value: 'Bearer [redacted]' });
    expect(JSON.stringify(entry)).not.toContain('bk-token-1');
  });

  it('refuses raw UTF-8 in the path the same way, the request line showing the bytes sent', async () => {
    const res = await sendBytes(raw('POST /v1/import-cnab/é', 'Content-Length: 0\r\n'));
    expect(res.status).toBe(400);
    expect(errorShapeProblem('receivables', 400, res.body)).toBeNull();
    expect(res.body).toContain('the request target holds the byte 0xC3 at offset 16, in its path');
    const [entry] = await sandbox.requests({ limit: 1 });
    expect(entry).toMatchObject({ interface: 'receivables', status: 400 });
    expect(entry?.requestLine).toBe('POST /v1/import-cnab/é HTTP/1.1');
  });

  it('redacts a secret in a refused query as in any other', async () => {
    const res = await sendBytes(raw(`GET ${EXTRACT}?token=s3cr3t-value&x=é`));
    expect(res.status).toBe(400);
    const [entry] = await sandbox.requests({ limit: 1 });
    expect(entry?.requestLine).toBe(`GET ${EXTRACT}?token=[redacted]&x=é HTTP/1.1`);
    expect(JSON.stringify(entry)).not.toContain('s3cr3t-value');
  });
});

describe('a single-valued header sent twice', () => {
  const registered = async () => ((await (await fetch(`${sandbox.url}/_sandbox/registry/participants/PART-1`)).json()) as { batchCount: number }).batchCount;
  const BODY = JSON.stringify({ registros: [{ numeroDuplicata: 'DUP-1', valorDuplicata: 10 }] });
  const post = (extra: string, contentType = 'application/json') =>
    `POST ${REGISTRY} HTTP/1.1\r\nHost: sandbox\r\nContent-Type: ${contentType}\r\n${extra}Content-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`;

  it.each([
    ['two Content-Type headers', post('Authorization: Bearer rg-token-1\r\nContent-Type: application/json; charset=latin1\r\n'), 'the request has 2 Content-Type headers'],
    ['two Authorization headers', post('Authorization: Bearer rg-token-1\r\nAuthorization: Bearer nope\r\n'), 'the request has 2 Authorization headers'],
    ['two Host headers', post('Authorization: Bearer rg-token-1\r\nHost: elsewhere\r\n'), 'the request has 2 Host headers'],
    ['two Sandbox-Strict headers', post('Authorization: Bearer rg-token-1\r\nSandbox-Strict: false\r\nsandbox-strict: true\r\n'), 'the request has 2 Sandbox-Strict headers'],
  ] as const)('refuses %s with a 400 naming the header and the rule, applying nothing', async (_name, bytes, message) => {
    const before = await registered();
    const res = await send(bytes);
    expect(res.status, res.body).toBe(400);
    expect(errorShapeProblem('registry', 400, res.body)).toBeNull();
    expect(res.body).toContain(message);
    expect(res.body).toContain('takes one value (RFC 9110, section 5.3)');
    expect(res.body).not.toContain('rg-token-1');
    expect(await registered()).toBe(before);
    const journal = await sandbox.requests({ limit: 1 });
    expect(journal[0]).toMatchObject({ interface: 'registry', status: 400 });
  });

  it.each([
    ['utf-8 then latin1', 'application/json; charset=utf-8; charset=latin1'],
    ['latin1 then utf-8', 'application/json; charset=latin1; charset=utf-8'],
    ['utf-8 twice, in two cases', 'application/json; charset=utf-8; CHARSET="utf-8"'],
  ])('refuses a Content-Type with two charset parameters (%s), whichever comes first', async (_name, contentType) => {
    const before = await registered();
    const res = await send(post('Authorization: Bearer rg-token-1\r\n', contentType));
    expect(res.status, res.body).toBe(400);
    expect(errorShapeProblem('registry', 400, res.body)).toBeNull();
    expect(res.body).toContain('Content-Type has the parameter charset twice: a parameter of a media type is given once (RFC 6838, section 4.3)');
    expect(await registered()).toBe(before);
  });

  it('refuses a control-plane key sent twice on the control plane', async () => {
    const res = await send('GET /_sandbox/clock HTTP/1.1\r\nHost: sandbox\r\nSandbox-Admin-Token: a\r\nSandbox-Admin-Token: b\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toContain('the request has 2 Sandbox-Admin-Token headers');
  });

  it('still reads a list-valued header sent twice, and one Content-Type with one charset', async () => {
    const before = await registered();
    const res = await send(post('Authorization: Bearer rg-token-1\r\nAccept: application/json\r\nAccept: */*\r\n', 'application/json; charset=utf-8'));
    expect(res.status, res.body).toBe(200);
    expect(await registered()).toBe(before + 1);
  });
});

/** Sends raw bytes and reads everything until the server closes the connection. */
function sendUntilClosed(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error(`the connection stayed open: ${JSON.stringify(out)}`));
    });
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

const PAYMENT = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/IUD-1/payment';

describe('requests Node would answer on its own', () => {
  it.each([
    ['bookkeeping', head('PUT', PAYMENT, 'Authorization: Bearer bk-token-1\r\nExpect: 200-ok\r\nContent-Length: 2\r\n') + '{}'],
    ['receivables', head('POST', '/v1/import-cnab', 'Expect: 200-ok\r\nContent-Length: 2\r\n') + '{}'],
  ] as const)('refuses an Expect other than 100-continue with a 400 in the %s shape, journalled, not a bare 417', async (iface, bytes) => {
    const res = await send(bytes);
    expect(res.status).toBe(400);
    expect(errorShapeProblem(iface, 400, res.body)).toBeNull();
    expect(res.body).toContain('the request has Expect: 200-ok, an expectation the sandbox cannot meet (it meets only 100-continue)');
    const journal = await sandbox.requests({ limit: 1 });
    expect(journal[0]).toMatchObject({ interface: iface, status: 400 });
  });

  it('still meets Expect: 100-continue', async () => {
    const out = await sendUntilClosed(head('GET', EXTRACT, 'Authorization: Bearer bk-token-1\r\nExpect: 100-continue\r\nConnection: close\r\n'));
    expect(out).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('answers CONNECT under an interface prefix as any method the path does not serve (501), then closes', async () => {
    const out = await sendUntilClosed('CONNECT /v1/import-cnab HTTP/1.1\r\nHost: sandbox\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 501 /);
    const body = out.slice(out.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'NotImplemented' }, interface: 'receivables' });
    expect(body).toContain('CONNECT /v1/import-cnab is not a documented operation of the receivables interface');
    const journal = await sandbox.requests({ limit: 1 });
    expect(journal[0]).toMatchObject({ method: 'CONNECT', path: '/v1/import-cnab', status: 501 });
  });

  it('answers CONNECT to a host and port with a 404, then closes', async () => {
    const out = await sendUntilClosed('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 404 /);
  });
});
