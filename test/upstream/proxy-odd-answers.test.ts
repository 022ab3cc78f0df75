// Proxy mode against an upstream that answers what Node will not write back as it came (a reason
// phrase with a control character, a status under 100) or breaks off midway: the sandbox never stops,
// passes on what it can, answers the interface's upstream-failure status for the rest, and journals
// and logs each request.
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { LogCapture } from '../helpers.js';

/** Answers, byte for byte, by the last segment of the request's path. */
const ANSWERS: Record<string, string> = {
  'del-reason': 'HTTP/1.1 200 O\x7fK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  'ctl-reason': 'HTTP/1.1 401 a\x01b\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"e":"401"}',
  'latin1-reason': 'HTTP/1.1 401 N\xe3o autorizado\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  'low-status': 'HTTP/1.1 042 Low\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  'bad-header': 'HTTP/1.1 200 OK\r\nX-Odd: a\x7fb\r\nContent-Length: 2\r\n\r\n{}',
};
const CUT_BODY = '{"partial":';
/** Answers cut midway that carry secrets: their own, and one the request sent (echoed). */
const CUT_SECRETS: Record<string, { type: string; body: string }> = {
  'cut-json': {
    type: 'application/json',
    body: '{"access_token":"UPSTREAM-TOKEN-1","user":{"name":"ana","password":"UPSTREAM-PW-2"},"echo":"REQ-TOKEN-123456","list":[{"client_secret":"UPSTREAM-SECRET-3"}],"refresh_token":"UPSTREAM-REFR',
  },
  'cut-form': { type: 'application/x-www-form-urlencoded', body: 'token_type=bearer&access_token=UPSTREAM-FORM-4&refresh_token=UPSTREAM-FO' },
};

interface Got {
  status: number;
  statusMessage: string;
  body: string;
}

/** One request on a fresh connection; `cut` when the connection broke before the answer's end. */
function call(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Got | 'cut'> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', () => resolve('cut'));
    });
    req.on('error', reject);
    req.end();
  });
}

let upstream: Server;
let upstreamUrl: string;
let sandbox: Sandbox;
const log = new LogCapture();

beforeAll(async () => {
  upstream = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (data: Buffer) => {
      const key = data.toString('latin1').split(' ')[1]?.split('/').pop() ?? '';
      if (key === 'cut') {
        // Promises 100 bytes, sends a few, then hangs up.
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n${CUT_BODY}`, () => setTimeout(() => socket.destroy(), 50));
        return;
      }
      const secret = CUT_SECRETS[key];
      if (secret) {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: ${secret.type}\r\nContent-Length: 1000\r\n\r\n${secret.body}`, () => setTimeout(() => socket.destroy(), 50));
        return;
      }
      socket.end(Buffer.from(ANSWERS[key] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n', 'latin1'));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  sandbox = await startSandbox({ fixtures: null, upstreams: [upstreamUrl], logger: { level: 'info', stream: log } });
});

afterAll(async () => {
  await sandbox?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

const BK = '/api/bookkeeping/integration/v1/11222333000181/x';

async function journalOf(path: string): Promise<Array<Record<string, unknown>>> {
  const entries = (await sandbox.requests({ limit: 1000 })) as unknown as Array<Record<string, unknown>>;
  return entries.filter((e) => e.path === path);
}

async function healthy(): Promise<number> {
  return (await fetch(`${sandbox.url}/_sandbox/health`)).status;
}

describe('an upstream answer Node will not write back as it came', () => {
  it('passes on a status whose reason phrase holds a control character without that phrase, and goes on', async () => {
    for (const [key, status, body] of [
      ['del-reason', 200, '{}'],
      ['ctl-reason', 401, '{"e":"401"}'],
    ] as const) {
      const got = await call(sandbox.url, 'GET', `/v1/${key}`);
      expect(got, key).toEqual({ status, statusMessage: '', body });
      expect(await healthy(), key).toBe(200);
      expect(await journalOf(`/v1/${key}`), key).toMatchObject([{ status, upstream: upstreamUrl, responseBody: JSON.parse(body) }]);
    }
    expect(log.lines.filter((l) => l.includes('could not be passed on unchanged') && l.includes('reason phrase'))).toHaveLength(2);
  });

  it('passes on a Latin-1 reason phrase as it came', async () => {
    expect(await call(sandbox.url, 'GET', '/v1/latin1-reason')).toEqual({ status: 401, statusMessage: 'N\xe3o autorizado', body: '{}' });
  });

  it("answers a status no HTTP answer can carry with the interface's upstream-failure status, naming it", async () => {
    const bk = await call(sandbox.url, 'GET', `${BK}/low-status`);
    expect(bk).toMatchObject({ status: 500 });
    expect(JSON.parse((bk as Got).body).message).toContain(`the upstream ${upstreamUrl} gave no answer the sandbox can pass on: it answered status 42`);
    const receivables = await call(sandbox.url, 'POST', '/v1/import-cnab/low-status');
    expect(receivables).toMatchObject({ status: 400 });
    expect(JSON.parse((receivables as Got).body).error).toMatchObject({ code: 'UpstreamUnavailable' });
    expect(await call(sandbox.url, 'GET', '/elsewhere/low-status')).toMatchObject({ status: 502 });
    expect(await healthy()).toBe(200);
    expect(await journalOf(`${BK}/low-status`)).toMatchObject([{ status: 500, upstream: upstreamUrl }]);
  });

  it('answers a header Node cannot parse the same way', async () => {
    const got = await call(sandbox.url, 'GET', `${BK}/bad-header`);
    expect(got).toMatchObject({ status: 500 });
    expect(JSON.parse((got as Got).body).message).toContain('gave no answer the sandbox can pass on: it answered what is not HTTP');
  });
});

describe('an upstream answer cut midway', () => {
  it("cuts the client's connection, journals the request with the status sent and a note, and logs a warning", async () => {
    expect(await call(sandbox.url, 'POST', '/v1/cut')).toBe('cut');
    expect(await healthy()).toBe(200);
    const [entry, ...more] = await journalOf('/v1/cut');
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({ status: 200, upstream: upstreamUrl, method: 'POST' });
    expect(entry?.responseBody).toBe(`${CUT_BODY}[truncated: the upstream's answer broke off after ${CUT_BODY.length} bytes of its body; the client's connection was cut]`);
    const warnings = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40 && l.msg === "the answer was cut midway: the client's connection is cut");
    expect(warnings).toMatchObject([{ upstream: upstreamUrl, status: 200 }]);
    // The request's own log line is written too.
    expect(log.lines.filter((l) => l.includes('"url":"/v1/cut"'))).toHaveLength(1);
  });

  it('redacts the part that came as a complete answer is redacted: secrets by key in JSON and form bodies, echoes of the request', async () => {
    for (const [key, expected] of [
      [
        'cut-json',
        '{"access_token":"[redacted]","user":{"name":"ana","password":"[redacted]"},"echo":"[redacted]","list":[{"client_secret":"[redacted]"}],"refresh_token":"[redacted]"',
      ],
      ['cut-form', 'token_type=bearer&access_token=[redacted]&refresh_token=[redacted]'],
    ] as const) {
      expect(await call(sandbox.url, 'POST', `/v1/${key}`, { authorization: 'Bearer REQ-TOKEN-123456' }), key).toBe('cut');
      const [entry] = await journalOf(`/v1/${key}`);
      const body = String(entry?.responseBody);
      expect(body, key).toBe(`${expected}[truncated: the upstream's answer broke off after ${CUT_SECRETS[key]?.body.length} bytes of its body; the client's connection was cut]`);
      expect(JSON.stringify(entry), key).not.toMatch(/UPSTREAM-|REQ-TOKEN/);
    }
  });
});
