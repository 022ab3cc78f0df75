// HTTP/1.1 answers in request order on one connection, checked with raw bytes over a socket: when
// bytes Node's parser refuses arrive in the same burst right after a request it accepted (a pipelined
// malformed request, or a body one byte longer than its Content-Length), the accepted request is
// answered first, then the 400 for the bytes after it, then the connection closes. The accepted
// request is applied once: a client that got its answer has no reason to send it again.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { COVERAGE_FIXTURES, T1 } from '../coverage/drivers.js';
import { cnabBytes } from '../receivables/helpers.js';
import { pdf } from '../loanbond/helpers.js';
import { validDocument } from '../registry/helpers.js';

// One of everything the six operations need: credentials, an open bill (IUD-OPEN), an extract request.
const TENANT = T1;

let sandbox: Sandbox;
let port: number;
beforeAll(async () => {
  sandbox = await startSandbox({ fixtures: COVERAGE_FIXTURES });
  port = Number(new URL(sandbox.url).port);
});
afterAll(() => sandbox.close());

interface Answer {
  status: number;
  body: string;
}

/** Reads consecutive HTTP/1.1 answers (Content-Length bodies, or none for 204) out of raw bytes. */
function parseAnswers(raw: Buffer): Answer[] {
  const out: Answer[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const head = raw.subarray(at, end).toString('latin1');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    out.push({ status, body: raw.subarray(end + 4, end + 4 + length).toString('utf8') });
    at = end + 4 + length;
  }
  return out;
}

/** Writes `bytes` in one burst and reads every answer until the server closes the connection. */
function exchange(bytes: Buffer): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('close', () => resolve(parseAnswers(Buffer.concat(chunks))));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function request(method: string, path: string, headers: Record<string, string>, body?: string, extra = ''): Buffer {
  const payload = body === undefined ? '' : body;
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: sandbox'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body !== undefined) lines.push('Content-Type: application/json');
  lines.push(`Content-Length: ${Buffer.byteLength(payload)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${payload}${extra}`, 'utf8');
}

const BK = { Authorization: 'Bearer bk-token-1' };
const RG = { Authorization: 'Bearer rg-token-1' };
const CNAB = cnabBytes('cnab400', [{}]).toString('base64');

/** The six documented operations, each as a request the sandbox accepts, with the status it answers. */
const OPERATIONS: Array<{ name: string; status: number; bytes: (extra: string) => Buffer }> = [
  {
    name: 'list-extract-requests',
    status: 200,
    bytes: (extra) => request('GET', `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/extract`, BK, undefined, extra),
  },
  {
    name: 'declare-payment',
    status: 204,
    bytes: (extra) =>
      request(
        'PUT',
        `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/IUD-OPEN/payment`,
        BK,
        JSON.stringify({ type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 10, paymentDate: '2026-01-02' }),
        extra,
      ),
  },
  {
    name: 'register-documents',
    status: 200,
    bytes: (extra) =>
      request('POST', '/api/v1.0/service/dup/registrar_documentos', RG, JSON.stringify({ registros: [validDocument()] }), extra),
  },
  {
    name: 'reconcile-documents',
    status: 200,
    bytes: (extra) =>
      request('POST', '/api/v1.0/service/dup/conciliar_documentos', RG, JSON.stringify({ registros: [{ chaveRegistro: 'RG-NONE' }] }), extra),
  },
  {
    name: 'import-cnab',
    status: 200,
    bytes: (extra) =>
      request(
        'POST',
        '/v1/import-cnab',
        {},
        JSON.stringify({ token: 'rc-token-1', fundCnpj: TENANT, operationFile: CNAB, fileName: 'f.rem', additiveNumber: 1 }),
        extra,
      ),
  },
  {
    name: 'register-loan-bond',
    status: 201,
    bytes: (extra) =>
      request(
        'POST',
        '/api/service/document/registrar',
        {},
        JSON.stringify({ versao: '2.0', token: 'lb-token-1', registros: [{ documento: pdf() }] }),
        extra,
      ),
  },
];

const TRAILING = {
  'a pipelined request the parser refuses': 'GET /_sandbox/health HTTP/9.9\r\nHost: sandbox\r\n\r\n',
  'a body one byte longer than its Content-Length': 'x',
};

/** How many requests of `operation` the journal holds, and their statuses. */
async function journaled(operation: string): Promise<number[]> {
  return (await sandbox.requests({ operation })).map((e) => e.status);
}

describe('answers in request order on one connection', () => {
  for (const op of OPERATIONS) {
    for (const [what, extra] of Object.entries(TRAILING)) {
      it(`${op.name}, followed by ${what}: its ${op.status} first, then the 400, and it is applied once`, async () => {
        await sandbox.reset('default');
        const answers = await exchange(op.bytes(extra));
        expect(answers.map((a) => a.status)).toEqual([op.status, 400]);
        expect(answers[1]?.body).toContain('the request is malformed at the HTTP level');
        expect(await journaled(op.name)).toEqual([op.status]);
      });
    }
  }

  it('two accepted requests then refused bytes: both answers, in order, then the 400', async () => {
    await sandbox.reset('default');
    const list = OPERATIONS[0];
    const pay = OPERATIONS[1];
    if (!list || !pay) throw new Error('the operations table changed');
    const answers = await exchange(Buffer.concat([pay.bytes(''), list.bytes(''), Buffer.from(TRAILING['a pipelined request the parser refuses'])]));
    expect(answers.map((a) => a.status)).toEqual([204, 200, 400]);
    // The bill was paid once.
    const bill = await fetch(`${sandbox.url}/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-OPEN`).then((r) => r.json() as Promise<{ openValue: number }>);
    expect(bill.openValue).toBe(90);
  });

  it('a request whose own body the parser refuses still gets its 400 at once (there is nothing to wait for)', async () => {
    const bytes = Buffer.from(
      'POST /v1/import-cnab HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    );
    const answers = await exchange(bytes);
    expect(answers.map((a) => a.status)).toEqual([400]);
    expect(answers[0]?.body).toContain('a chunk size is not hexadecimal');
  });
});
