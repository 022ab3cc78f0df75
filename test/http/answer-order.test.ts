// HTTP/1.1 answers in request order on one connection, checked with raw bytes over a socket: when
// bytes Node's parser refuses arrive in the same burst right after a request it accepted (a pipelined
// malformed request, or a body one byte longer than its Content-Length), the accepted request is
// answered first, then the 400 for the bytes after it, then the connection closes. The accepted
// request is applied once: a client that got its answer has no reason to send it again.
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { COVERAGE_FIXTURES, T1 } from '../coverage/drivers.js';
import { cnabBytes } from '../receivables/helpers.js';
import { pdf } from '../loanbond/helpers.js';
import { validDocument } from '../registry/helpers.js';
import { errorShapeProblem } from '../reliability/engine/run.js';

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
const OPERATIONS: Array<{ name: string; status: number; bytes: (extra: string, n?: number) => Buffer }> = [
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
    bytes: (extra, n = 1) =>
      request('POST', '/api/v1.0/service/dup/registrar_documentos', RG, JSON.stringify({ registros: [validDocument(n)] }), extra),
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
    bytes: (extra, n = 1) =>
      request(
        'POST',
        '/v1/import-cnab',
        {},
        JSON.stringify({ token: 'rc-token-1', fundCnpj: TENANT, operationFile: CNAB, fileName: `f${n}.rem`, additiveNumber: n }),
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

// Several accepted requests before the refused bytes: Node queues the answer of each request after
// the first until the one before it is sent, so each of them, not only the first, is waited for.

/** A control-plane write answered after an await (the state is copied in turns). */
const SNAPSHOT = {
  name: 'take-snapshot',
  status: 201,
  bytes: (extra: string, n = 1) => request('POST', '/_sandbox/snapshots', {}, JSON.stringify({ name: `pipelined-${n}` }), extra),
};
const HEALTH = Buffer.from('GET /_sandbox/health HTTP/1.1\r\nHost: sandbox\r\n\r\n');

/** The kinds of bytes assumption malformed-http refuses after accepted requests, as the suffix of the last one. */
const REFUSED: Record<string, string> = {
  'a malformed header line': 'GET /_sandbox/health HTTP/1.1\r\nHost: sandbox\r\nBad Header\r\n\r\n',
  'Content-Length and Transfer-Encoding together':
    'POST /v1/import-cnab HTTP/1.1\r\nHost: sandbox\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
  'an unknown HTTP version': 'GET /_sandbox/health HTTP/9.9\r\nHost: sandbox\r\n\r\n',
  'a body longer than its Content-Length': '}\r\n',
  'a Content-Length that is no length': 'POST /v1/import-cnab HTTP/1.1\r\nHost: sandbox\r\nContent-Length: abc\r\n\r\n{}',
  // Its head is accepted and handed to the app; the parser refuses its body.
  'a chunk size that is not hexadecimal':
    'POST /v1/import-cnab HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
  // Rebuilt and answered by the app (client-errors.ts, rebuildRefusedTarget).
  'a target with a byte outside ASCII': 'POST /v1/import-cnab/\u00e9 HTTP/1.1\r\nHost: sandbox\r\nContent-Length: 0\r\n\r\n',
};

/** How many times each operation of `sequence` was applied: the journal's entries, and the snapshots saved. */
async function applied(names: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of new Set(names)) {
    out[name] =
      name === SNAPSHOT.name
        ? (await fetch(`${sandbox.url}/_sandbox/snapshots`).then((r) => r.json() as Promise<{ snapshots: Array<{ name: string }> }>)).snapshots.filter(
            (s) => s.name.startsWith('pipelined-'),
          ).length
        : (await journaled(name)).length;
  }
  return out;
}

async function clean(): Promise<void> {
  await sandbox.reset('default');
  const { snapshots } = await fetch(`${sandbox.url}/_sandbox/snapshots`).then((r) => r.json() as Promise<{ snapshots: Array<{ name: string }> }>);
  for (const s of snapshots) await fetch(`${sandbox.url}/_sandbox/snapshots/${s.name}`, { method: 'DELETE' });
}

/** Sends `sequence` in one write, the refused bytes after the last, and checks every answer came in order. */
async function checkSequence(sequence: typeof OPERATIONS, refused: string, lead: Buffer[] = []): Promise<void> {
  await clean();
  const bytes = Buffer.concat([...lead, ...sequence.map((op, i) => op.bytes(i === sequence.length - 1 ? refused : '', i + 1))]);
  const answers = await exchange(bytes);
  expect(answers.map((a) => a.status)).toEqual([...lead.map(() => 200), ...sequence.map((op) => op.status), 400]);
  expect(answers.at(-1)?.body).toContain('the request is malformed at the HTTP level');
  // Each request was applied once, and so was answered: nothing stored without its answer.
  const counts: Record<string, number> = {};
  for (const op of sequence) counts[op.name] = (counts[op.name] ?? 0) + 1;
  expect(await applied(Object.keys(counts))).toEqual(counts);
}

describe('several accepted requests, then refused bytes, on one connection', () => {
  const WRITES = [...OPERATIONS.filter((op) => op.name !== 'list-extract-requests'), SNAPSHOT];
  for (const op of WRITES) {
    for (const [what, refused] of Object.entries(REFUSED)) {
      it(`${op.name} three times, then ${what}: three answers in order, then the 400`, async () => {
        await checkSequence([op, op, op], refused);
      });
    }
    it(`a health check, then ${op.name}, then a malformed header line: both answers, then the 400`, async () => {
      await checkSequence([op], REFUSED['a malformed header line'] ?? '', [HEALTH]);
    });
  }

  // The parser reports the whole chunk it was reading: the refused request is found in it, not taken
  // to be the first request of the chunk.
  it('refused bytes of another interface after accepted requests: the 400 in the shape of the refused request', async () => {
    await clean();
    const [register] = OPERATIONS.filter((op) => op.name === 'register-documents');
    if (!register) throw new Error('the operations table changed');
    const answers = await exchange(
      Buffer.concat([register.bytes('', 1), register.bytes('', 2), Buffer.from('POST /v1/import-cnab HTTP/1.1\r\nHost: sandbox\r\nBad Header\r\n\r\n')]),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400]);
    expect(errorShapeProblem('receivables', 400, answers[2]?.body ?? '')).toBeNull();
  });

  it('a refused target after accepted requests is journalled as sent, and the requests before it once each', async () => {
    await clean();
    const [list] = OPERATIONS;
    if (!list) throw new Error('the operations table changed');
    const refused = `GET ${list.bytes('').toString('latin1').split(' ')[1] ?? ''}?x=\u00e9 HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer bk-token-1\r\n\r\n`;
    const answers = await exchange(Buffer.concat([list.bytes(''), list.bytes(''), Buffer.from(refused, 'utf8')]));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400]);
    expect(errorShapeProblem('bookkeeping', 400, answers[2]?.body ?? '')).toBeNull();
    expect(answers[2]?.body).toContain('the request target holds the byte 0xC3');
    const entries = await sandbox.requests({ operation: list.name });
    expect(entries.map((e) => e.status).sort()).toEqual([200, 200, 400]);
    expect(entries.filter((e) => e.status === 400).map((e) => e.requestLine)).toEqual([refused.split('\r\n')[0]]);
  });

  it('any sequence of accepted requests of any route, then any kind of refused bytes: every answer in order, then the 400', async () => {
    const ALL = [...OPERATIONS, SNAPSHOT];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...ALL), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...Object.values(REFUSED)),
        async (sequence, refused) => checkSequence(sequence, refused),
      ),
      { numRuns: 30 },
    );
  });
});
