// A real service that echoes what it was sent (as many error answers do), answers a form-encoded
// token, points a Location at a URL with a token, or compresses a valid JSON answer: no secret of the
// exchange reaches a recorded file or the conformance report, and the compressed answer is judged
// as the JSON it is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';

const BK = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';

let upstream: Server;
let proxy: Sandbox;
let recorded: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/oauth/token-form') {
        res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
        return res.end('access_token=ANSWERED-FORM-TOKEN&token_type=bearer&refresh_token=ANSWERED-FORM-REFRESH');
      }
      if (path === `${BK}/extract`) {
        const extract = { extractTradeReceivables: [], pagination: { page: 1, size: 10, totalItems: 0, totalPages: 0 } };
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(gzipSync(JSON.stringify(extract)));
      }
      // Every other call: its body and query quoted back, with a Location, a Link and a cookie.
      res.writeHead(200, [
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'sid=ANSWERED-COOKIE; HttpOnly; Path=/'],
        ['Location', 'https://app.example/cb?state=1&access_token=ANSWERED-LOCATION-TOKEN'],
        ['Link', '<https://app.example/next?page=2&token=ANSWERED-LINK-TOKEN>; rel="next"'],
        ['X-Seen', `query ${req.url ?? ''}`],
      ]);
      res.end(JSON.stringify({ ok: true, echo: body, seen: req.url, session: 'ANSWERED-SESSION', again: 'ANSWERED-SESSION' }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  recorded = mkdtempSync(join(tmpdir(), 'recorded-echoes-'));
  proxy = await startSandbox({ fixtures: null, upstreams: [`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`], record: recorded });
});

afterAll(async () => {
  await proxy?.close();
  await new Promise((resolve) => upstream?.close(resolve));
  if (recorded) rmSync(recorded, { recursive: true, force: true });
});

const send = (path: string, body: string, type: string) =>
  fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body }).then((r) => r.text());

describe('recording an answer that echoes the request', () => {
  it('writes none of the secrets of the request or the answer, in the body, the headers or the URL', async () => {
    await send('/oauth/login?x=1;token=SENT-SEMICOLON-TOKEN', JSON.stringify({ username: 'u7', password: 'SENT-JSON-PASSWORD1' }), 'application/json');
    await send('/oauth/login-form', 'username=u7&password=SENT-FORM-PASSWORD1&client_secret=SENT-FORM-SECRET1', 'application/x-www-form-urlencoded');
    await send('/oauth/token-form', 'grant_type=client_credentials', 'application/x-www-form-urlencoded');
    const files = readdirSync(join(recorded, 'mappings')).map((f) => readFileSync(join(recorded, 'mappings', f), 'utf8'));
    expect(files).toHaveLength(3);
    const text = files.join('\n');
    for (const secret of [
      'SENT-SEMICOLON-TOKEN',
      'SENT-JSON-PASSWORD1',
      'SENT-FORM-PASSWORD1',
      'SENT-FORM-SECRET1',
      'ANSWERED-FORM-TOKEN',
      'ANSWERED-FORM-REFRESH',
      'ANSWERED-COOKIE',
      'ANSWERED-LOCATION-TOKEN',
      'ANSWERED-LINK-TOKEN',
      'ANSWERED-SESSION',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    const mappings = files.map((f) => JSON.parse(f) as { request: Record<string, unknown>; response: { body?: string; headers?: Record<string, string> } });
    const form = mappings.find((m) => m.request.urlPath === '/oauth/token-form' || m.request.url === '/oauth/token-form');
    expect(form?.response.body).toBe('access_token=[redacted]&token_type=bearer&refresh_token=[redacted]');
    const login = mappings.find((m) => m.request.urlPath === '/oauth/login');
    expect(login?.request.queryParameters).toEqual({ x: { matches: '1;token=.*' } });
    expect(login?.response.headers).toMatchObject({
      Location: 'https://app.example/cb?state=1&access_token=[redacted]',
      Link: '<https://app.example/next?page=2&token=[redacted]>; rel="next"',
      'Set-Cookie': '[redacted]',
    });
    expect(JSON.parse(login?.response.body ?? '{}')).toMatchObject({ echo: '{"username":"u7","password":"[redacted]"}', again: '[redacted]' });
  });

  it('replays the recorded echo for another secret of the same form', async () => {
    const replay = await startSandbox({ fixtures: null, stubs: recorded });
    try {
      const res = await fetch(`${replay.url}/oauth/login?x=1;token=ANOTHER`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'u7', password: 'another one' }),
      });
      expect(res.status).toBe(200);
    } finally {
      await replay.close();
    }
  });
});

describe('recording a request with a secret path parameter (a servlet\'s ;jsessionid=)', () => {
  const recordedSemi = () =>
    readdirSync(join(recorded, 'mappings'))
      .map((f) => ({ file: f, text: readFileSync(join(recorded, 'mappings', f), 'utf8') }))
      .filter(({ text }) => (JSON.parse(text) as { name: string }).name.includes('/oauth/semi'));

  it('writes the secret in neither the mapping nor its file name', async () => {
    await fetch(`${proxy.url}/oauth/semi;jsessionid=SENT-PATH-SESSION1;v=2?page=1`);
    await fetch(`${proxy.url}/oauth/semi-q;jsessionid=SENT-PATH-SESSION2?token=SENT-PATH-QUERY2`);
    const files = recordedSemi();
    expect(files).toHaveLength(2);
    for (const { file, text } of files) {
      for (const secret of ['SENT-PATH-SESSION1', 'SENT-PATH-SESSION2', 'SENT-PATH-QUERY2']) {
        expect(file, secret).not.toContain(secret);
        expect(text, secret).not.toContain(secret);
      }
    }
    const mappings = files.map(({ text }) => JSON.parse(text) as { name: string; request: Record<string, unknown>; response: { body?: string } });
    const plain = mappings.find((m) => m.name.startsWith('GET /oauth/semi;'));
    expect(plain?.name).toBe('GET /oauth/semi;jsessionid=[redacted];v=2 (recorded)');
    expect(plain?.request.url).toBeUndefined();
    expect(plain?.request.urlPattern).toBe('/oauth/semi;jsessionid=[^;/?#]*;v=2\\?page=1');
    const withQuery = mappings.find((m) => m.name.startsWith('GET /oauth/semi-q;'));
    expect(withQuery?.request).toMatchObject({ urlPathPattern: '/oauth/semi-q;jsessionid=[^;/?#]*', queryParameters: { token: { matches: '.*' } } });
    expect(JSON.parse(plain?.response.body ?? '{}')).toMatchObject({ seen: '/oauth/semi;jsessionid=[redacted];v=2?page=1' });
  });

  it('replays the mapping for any value of the secret path parameter, and only for it', async () => {
    const replay = await startSandbox({ fixtures: null, stubs: recorded });
    try {
      expect((await fetch(`${replay.url}/oauth/semi;jsessionid=ANOTHER-ONE;v=2?page=1`)).status).toBe(200);
      expect((await fetch(`${replay.url}/oauth/semi-q;jsessionid=ANOTHER-TWO?token=ANOTHER-THREE`)).status).toBe(200);
      // The rest of the URL is matched as it was recorded.
      expect((await fetch(`${replay.url}/oauth/semi;jsessionid=ANOTHER-ONE;v=3?page=1`)).status).toBe(404);
      expect((await fetch(`${replay.url}/oauth/semi;jsessionid=ANOTHER-ONE;v=2?page=2`)).status).toBe(404);
    } finally {
      await replay.close();
    }
  });
});

describe('the conformance report of an answer that echoes the request', () => {
  it('shows none of its secrets, in JSON or JUnit, and judges a gzip JSON answer as JSON', async () => {
    await send('/v1/import-cnab', JSON.stringify({ token: 'SENT-RC-TOKEN1', fundCnpj: '11222333000181', operationFile: 'QUJD', fileName: 'a.rem', additiveNumber: 1 }), 'application/json');
    await fetch(`${proxy.url}${BK}/extract`, { headers: { authorization: 'Bearer bk-token' } });
    const report = await (await fetch(`${proxy.url}/_sandbox/conformance`)).text();
    const junit = await (await fetch(`${proxy.url}/_sandbox/conformance?format=junit`)).text();
    const markdown = await (await fetch(`${proxy.url}/_sandbox/conformance?format=markdown`)).text();
    // The echo was reported (a body the contract does not show), without the token it quotes.
    expect(report).toContain('/v1/import-cnab');
    for (const [format, text] of Object.entries({ report, junit, markdown })) {
      expect(text, format).not.toContain('SENT-RC-TOKEN1');
      expect(text, format).not.toContain('ANSWERED-SESSION');
    }
    const parsed = JSON.parse(report) as { operations: Array<{ operation: string; exchanges: number; conforming: number; findings: Array<{ message: string }> }> };
    const extract = parsed.operations.find((o) => o.operation === 'list-extract-requests');
    expect(extract?.findings.map((f) => f.message)).toEqual([]);
    expect(extract).toMatchObject({ exchanges: 1, conforming: 1 });
  });
});
