// Proxy mode against a fake platform (fake-platform.ts): answers passed through exact to the byte,
// the named-only operations recorded with no secret in the files, the recorded folder replayed with
// no upstream, the conformance report naming exactly the assumptions the platform contradicts, and
// the sandbox's own answer when the upstream gives none.
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse as parseJunit } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { DIVERGENCES, type FakePlatform, SECRETS, startFakePlatform } from './fake-platform.js';

interface Raw {
  status: number;
  statusMessage: string;
  /** Names and values as received, alternating. */
  rawHeaders: string[];
  body: Buffer;
}

/** One request on a fresh connection, read as bytes. */
function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method, agent: false, headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** End-to-end headers: hop-by-hop ones belong to each connection (RFC 9110 section 7.6.1). */
const endToEnd = (raw: readonly string[]) => {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!/^(connection|keep-alive|transfer-encoding)$/i.test(raw[i] ?? '')) out.push(raw[i] ?? '', raw[i + 1] ?? '');
  }
  return out;
};

const BK = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';
const RG = '/api/v1.0/service/dup';

/** What a client of the platform does: the documented operations, then some named only. */
const EXCHANGES: Array<{ label: string; method: string; path: string; body?: unknown; headers?: Record<string, string> }> = [
  { label: 'extract, default page', method: 'GET', path: `${BK}/extract`, headers: { authorization: 'Bearer bk-token' } },
  { label: 'extract, page 1 of 3', method: 'GET', path: `${BK}/extract?page=1&pageSize=3`, headers: { authorization: 'Bearer bk-token' } },
  { label: 'payment refused', method: 'PUT', path: `${BK}/IUD-1/payment`, body: {}, headers: { authorization: 'Bearer bk-token' } },
  {
    label: 'payment accepted',
    method: 'PUT',
    path: `${BK}/IUD-1/payment`,
    body: { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 10.5 },
    headers: { authorization: 'Bearer bk-token' },
  },
  {
    label: 'registry accepts an unknown field',
    method: 'POST',
    path: `${RG}/registrar_documentos`,
    body: { registros: [{ numeroDuplicata: 'D1', valorDuplicata: 10.5 }], lote: 'L-1' },
    headers: { authorization: `Bearer ${SECRETS.registryToken}` },
  },
  {
    label: 'receivables, unknown fund',
    method: 'POST',
    path: '/v1/import-cnab',
    body: { token: 'rc-token', fundCnpj: '99999999000191', operationFile: 'AAAA', fileName: 'x.rem', additiveNumber: 1 },
  },
  {
    label: 'loan-bond without a product',
    method: 'POST',
    path: '/api/service/document/registrar',
    body: { versao: '2.0', token: SECRETS.loanbondToken, registros: [{ documento: SECRETS.document }] },
  },
  // Named only by the specification: recorded.
  { label: 'login', method: 'POST', path: '/api/bookkeeping/auth/login', body: { username: 'ana', password: SECRETS.password } },
  { label: 'batch query', method: 'GET', path: `${RG}/lotes/RM1`, headers: { authorization: `Bearer ${SECRETS.registryToken}`, 'accept-encoding': 'gzip' } },
  {
    label: 'cancel loan-bond',
    method: 'POST',
    path: '/api/service/document/cancelar',
    body: { token: SECRETS.loanbondToken, codigo_identificador: 'LB-1', documento: SECRETS.document },
  },
  { label: 'status, chunked', method: 'GET', path: '/api/service/document/status' },
];

const getJson = async (path: string): Promise<unknown> => (await fetch(`${proxy.url}${path}`)).json();

let platform: FakePlatform;
let proxy: Sandbox;
let recorded: string;
const direct = new Map<string, Raw>();
const proxied = new Map<string, Raw>();

beforeAll(async () => {
  platform = await startFakePlatform();
  recorded = mkdtempSync(join(tmpdir(), 'recorded-'));
  proxy = await startSandbox({ fixtures: null, upstreams: [platform.url], record: recorded });
  for (const x of EXCHANGES) {
    direct.set(x.label, await call(platform.url, x.method, x.path, x.body, x.headers));
    proxied.set(x.label, await call(proxy.url, x.method, x.path, x.body, x.headers));
  }
});

afterAll(async () => {
  await proxy?.close();
  await platform?.close();
  if (recorded) rmSync(recorded, { recursive: true, force: true });
});

describe('proxy mode', () => {
  it('passes every answer through exact to the byte: status, reason phrase, end-to-end headers, body', () => {
    for (const x of EXCHANGES) {
      const d = direct.get(x.label);
      const p = proxied.get(x.label);
      expect(p?.status, x.label).toBe(d?.status);
      expect(p?.statusMessage, x.label).toBe(d?.statusMessage);
      // Every header but the Date the platform stamped on each answer.
      const withoutDate = (h: string[]) => h.filter((_, i, all) => !/^date$/i.test(all[i % 2 === 0 ? i : i - 1] ?? ''));
      expect(withoutDate(endToEnd(p?.rawHeaders ?? [])), x.label).toEqual(withoutDate(endToEnd(d?.rawHeaders ?? [])));
      expect(p?.body.equals(d?.body ?? Buffer.alloc(0)), x.label).toBe(true);
    }
    // The compressed answer went through compressed, and the chunked one chunked.
    expect(gunzipSync(proxied.get('batch query')?.body ?? Buffer.alloc(0)).toString()).toContain('PROCESSADA');
    expect(proxied.get('status, chunked')?.rawHeaders.map((h) => h.toLowerCase())).toContain('transfer-encoding');
  });

  it("forwards the client's headers but not the sandbox's own, with the upstream's Host", async () => {
    await call(proxy.url, 'GET', `${BK}/extract`, undefined, { authorization: 'Bearer bk-token', 'sandbox-admin-token': 'adm', 'x-client': 'c1' });
    const last = platform.received[platform.received.length - 1];
    expect(last?.headers).toMatchObject({ authorization: 'Bearer bk-token', 'x-client': 'c1', host: platform.url.replace('http://', '') });
    expect(last?.headers['sandbox-admin-token']).toBeUndefined();
  });

  it('journals each proxied request with its upstream, and no secret', async () => {
    const entries = (await proxy.requests({ limit: 100 })) as unknown as Array<Record<string, unknown>>;
    const login = entries.find((e) => e.path === '/api/bookkeeping/auth/login');
    expect(login).toMatchObject({ upstream: platform.url, status: 200, interface: 'bookkeeping', mapping: null });
    const text = JSON.stringify(entries);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });
});

describe('recording', () => {
  const files = () => readdirSync(join(recorded, 'mappings')).map((f) => join(recorded, 'mappings', f));

  it('writes one mapping per exchange of a named-only operation, none for the documented ones', () => {
    const names = files().map((f) => JSON.parse(readFileSync(f, 'utf8')).name as string);
    expect(names.sort()).toEqual(
      ['GET /api/service/document/status (recorded)', `GET ${RG}/lotes/RM1 (recorded)`, 'POST /api/bookkeeping/auth/login (recorded)', 'POST /api/service/document/cancelar (recorded)'].sort(),
    );
  });

  it('holds no secret the test sent or the platform answered', () => {
    const text = files().map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const [what, secret] of Object.entries(SECRETS)) expect(text, what).not.toContain(secret);
    expect(text).toContain('${json-unit.any-string}');
    expect(text).toContain('[redacted]');
  });

  it('replays from the recorded folder with no upstream, the same answers, matching whatever the secrets are', async () => {
    const replay = await startSandbox({ fixtures: null, stubs: recorded });
    try {
      for (const label of ['login', 'batch query', 'cancel loan-bond', 'status, chunked']) {
        const x = EXCHANGES.find((e) => e.label === label);
        if (!x) throw new Error(label);
        const original = direct.get(label);
        const again = await call(replay.url, x.method, x.path, x.body, x.headers);
        expect(again.status, label).toBe(original?.status);
        expect(again.statusMessage, label).toBe(original?.statusMessage);
        const plain = (r: Raw | undefined) => {
          const encoded = r?.rawHeaders.some((h) => /^gzip$/i.test(h));
          return (encoded ? gunzipSync(r?.body ?? Buffer.alloc(0)) : r?.body ?? Buffer.alloc(0)).toString('utf8');
        };
        const mask = (text: string) => text.replace(new RegExp(Object.values(SECRETS).join('|'), 'g'), '[redacted]');
        const parse = (text: string) => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            return text;
          }
        };
        expect(parse(plain(again)), label).toEqual(parse(mask(plain(original))));
      }
      // The secrets were replaced by "any value": another password is matched the same.
      const other = await call(replay.url, 'POST', '/api/bookkeeping/auth/login', { username: 'ana', password: 'another one' });
      expect(other.status).toBe(200);
      expect(JSON.parse(other.body.toString()).access_token).toBe('[redacted]');
      // What was not recorded is not answered.
      expect((await call(replay.url, 'POST', '/api/bookkeeping/auth/login', { username: 'bob', password: 'x' })).status).toBe(501);
    } finally {
      await replay.close();
    }
  });
});

describe('the conformance report', () => {
  it('names exactly the assumptions the platform contradicts, and the facts of the specification', async () => {
    const report = (await getJson('/_sandbox/conformance')) as {
      totals: { exchanges: number; conforming: number; diverging: number };
      assumptions: Array<{ id: string; findings: number; operations: string[]; text: string }>;
      specification: Array<{ id: string; text: string }>;
      operations: Array<{ operation: string; exchanges: number; conforming: number; findings: Array<{ basis: { kind: string; id: string }; example: unknown }> }>;
    };
    expect(report.assumptions.map((a) => a.id).sort()).toEqual(Object.keys(DIVERGENCES).sort());
    expect(report.specification.map((s) => s.id)).toEqual(['register-loan-bond.statuses']);
    expect(report.specification[0]?.text).toContain('201, 400, 401');
    const extract = report.operations.find((o) => o.operation === 'list-extract-requests');
    // Two extracts in the run, one more from the header test: only those without pageSize diverge.
    expect(extract).toMatchObject({ exchanges: 3, conforming: 1 });
    expect(report.totals.exchanges).toBe(8);
    // Examples are redacted.
    expect(JSON.stringify(report)).not.toContain(SECRETS.loanbondToken);
    expect(JSON.stringify(report)).not.toContain(SECRETS.document);
  });

  it('reads as JUnit XML (a failure per check that found something) and as Markdown', async () => {
    const xml = await (await fetch(`${proxy.url}/_sandbox/conformance?format=junit`)).text();
    const junit = (await parseJunit(xml)) as { failures: number; testsuite: Array<{ name: string; failures: number }> };
    expect(junit.failures).toBeGreaterThanOrEqual(5);
    expect(junit.testsuite.find((s) => s.name.startsWith('loanbond register-loan-bond'))?.failures).toBe(1);
    const markdown = await (await fetch(`${proxy.url}/_sandbox/conformance?format=markdown`)).text();
    for (const id of Object.keys(DIVERGENCES)) expect(markdown).toContain(`\`${id}\``);
    expect(markdown).toContain('distrust these rows of the assumptions table');
  });

  it('starts again after DELETE, and is kept by a reset', async () => {
    await proxy.reset();
    expect(((await getJson('/_sandbox/conformance')) as { totals: { exchanges: number } }).totals.exchanges).toBeGreaterThan(0);
    const cleared = await fetch(`${proxy.url}/_sandbox/conformance`, { method: 'DELETE' });
    expect(((await cleared.json()) as { cleared: number }).cleared).toBeGreaterThan(0);
    expect(((await getJson('/_sandbox/conformance')) as { totals: { exchanges: number } }).totals.exchanges).toBe(0);
  });
});

describe('an upstream that gives no answer', () => {
  it('gets an answer naming it, with a status the interface documents', async () => {
    const gone = await startFakePlatform();
    const url = gone.url;
    await gone.close();
    const sandbox = await startSandbox({ fixtures: null, upstreams: [url] });
    try {
      const bk = await call(sandbox.url, 'GET', `${BK}/extract`);
      expect(bk.status).toBe(500);
      expect(JSON.parse(bk.body.toString())).toMatchObject({ statusCode: 500, message: expect.stringContaining(`the upstream ${url} gave no answer: ECONNREFUSED`) });
      const rc = await call(sandbox.url, 'POST', '/v1/import-cnab', {});
      expect(rc.status).toBe(400);
      expect(JSON.parse(rc.body.toString()).error).toMatchObject({ code: 'UpstreamUnavailable', target: null });
      expect((await call(sandbox.url, 'POST', '/api/service/document/registrar', {})).status).toBe(400);
      expect((await call(sandbox.url, 'GET', '/elsewhere')).status).toBe(502);
    } finally {
      await sandbox.close();
    }
  });
});

describe('an upstream for one interface', () => {
  it('takes only that interface; the others are emulated, with their mappings; fault rules still come first', async () => {
    const sandbox = await startSandbox({ fixtures: 'fixtures/demo.json', upstreams: [`registry=${platform.url}`] });
    try {
      const registry = await call(sandbox.url, 'POST', `${RG}/registrar_documentos`, { registros: [{ numeroDuplicata: 'D1' }] }, { authorization: 'Bearer anything' });
      expect(JSON.parse(registry.body.toString()).chaveRemessa).toBe('REAL-BATCH-1');
      const emulated = await call(sandbox.url, 'GET', `${BK}/extract`, undefined, { authorization: 'Bearer bk-demo-token-7' });
      expect(emulated.rawHeaders.map((h) => h.toLowerCase())).toContain('sandbox-outcome');
      await sandbox.fault({ path: `${RG}/registrar_documentos`, status: 500, times: 1 });
      expect((await call(sandbox.url, 'POST', `${RG}/registrar_documentos`, { registros: [] })).status).toBe(500);
    } finally {
      await sandbox.close();
    }
  });
});
