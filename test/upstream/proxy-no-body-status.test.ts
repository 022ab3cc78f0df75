// Proxy mode against an upstream whose 204 carries a body (the specification's payment succeeds with
// "204, empty JSON object"): HTTP gives a 204 no body, so Node's client reads the bytes after its
// head as the next answer. The client must get the 204 (without the body, which a 204 cannot carry),
// the journal what the upstream sent, and the conformance report its bk-payment-no-body finding,
// whatever the framing of that body.
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { LogCapture } from '../helpers.js';

const HEAD = 'HTTP/1.1 204 No Content\r\nContent-Type: application/json\r\n';
/** Answers, byte for byte, by the trade bill's uid in the path. */
const ANSWERS: Record<string, string> = {
  'IUD-LENGTH': `${HEAD}Content-Length: 2\r\n\r\n{}`,
  'IUD-CLOSE': `${HEAD}Connection: close\r\n\r\n{}`,
  'IUD-CHUNKED': `${HEAD}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
  'IUD-EMPTY': `${HEAD}\r\n`,
};

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a fresh connection; `cut` when the connection broke before the answer's end. */
function put(url: string): Promise<Got | 'cut'> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'PUT', agent: false, headers: { authorization: 'Bearer t', 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', () => resolve('cut'));
    });
    req.on('error', () => resolve('cut'));
    req.end(JSON.stringify({ type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 1 }));
  });
}

let upstream: Server;
let sandbox: Sandbox;
const log = new LogCapture();
const PAYMENT = (uid: string) => `/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/${uid}/payment`;

beforeAll(async () => {
  upstream = createServer((socket) => {
    socket.on('error', () => {});
    let got = '';
    socket.on('data', (data: Buffer) => {
      got += data.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      const uid = /trade-receivable-certificates\/([^/]+)\//.exec(got)?.[1] ?? '';
      const answer = ANSWERS[uid] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';
      // A close-delimited body ends with the connection; the others leave it open.
      if (uid === 'IUD-CLOSE') socket.end(answer);
      else socket.write(answer);
      got = '';
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  sandbox = await startSandbox({ fixtures: null, upstreams: [upstreamUrl], logger: { level: 'info', stream: log } });
});

afterAll(async () => {
  await sandbox?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('an upstream 204 that carries a body', () => {
  it.each(['IUD-LENGTH', 'IUD-CLOSE', 'IUD-CHUNKED'])(
    '%s: the client gets the 204 without the body, the journal keeps the body, the report finds bk-payment-no-body',
    async (uid) => {
      const warnings = () => log.lines.filter((l) => l.includes('a 204 cannot carry')).length;
      const before = warnings();
      const got = await put(`${sandbox.url}${PAYMENT(uid)}`);
      expect(got).not.toBe('cut');
      if (got === 'cut') return;
      expect(got.status).toBe(204);
      expect(got.body).toBe('');
      // A 204 carries no Content-Length (RFC 9110 section 8.6).
      expect(got.headers['content-length']).toBeUndefined();
      expect(got.headers['content-type']).toBe('application/json');

      const entries = (await sandbox.requests({ limit: 1000 })) as unknown as Array<Record<string, unknown>>;
      const entry = entries.find((e) => e.path === PAYMENT(uid));
      expect(entry).toMatchObject({ status: 204 });
      expect(JSON.stringify(entry?.responseBody)).toMatch(/^("\{\}"|\{\})$/);

      expect(warnings()).toBe(before + 1);
      expect((await fetch(`${sandbox.url}/_sandbox/health`)).status).toBe(200);
    },
  );

  it('counts each in the conformance report against bk-payment-no-body, and a 204 without a body as conforming', async () => {
    const clean = await put(`${sandbox.url}${PAYMENT('IUD-EMPTY')}`);
    expect(clean).toMatchObject({ status: 204, body: '' });
    const report = (await (await fetch(`${sandbox.url}/_sandbox/conformance`)).json()) as {
      assumptions: Array<{ id: string; findings: number }>;
      operations: Array<{ operation: string; exchanges: number; conforming: number; findings: Array<{ check: string; basis: { id: string }; count: number }> }>;
    };
    const payment = report.operations.find((o) => o.operation === 'declare-payment');
    expect(payment).toMatchObject({ exchanges: 4, conforming: 1 });
    expect(payment?.findings).toMatchObject([{ check: 'success-body', basis: { id: 'bk-payment-no-body' }, count: 3 }]);
    expect(report.assumptions.map((a) => a.id)).toEqual(['bk-payment-no-body']);
  });
});
