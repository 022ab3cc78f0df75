import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { captureText, captureValue, Journal, type JournalEntry, packRequest, unpackRequest } from '../../src/runtime/journal.js';
import { EchoSecrets, namesSecret, redact, redactJsonText, redactPathParameters, redactSecretText, redactUrlSecrets } from '../../src/runtime/redact.js';
import { BASE_FIXTURES, LogCapture, testApp } from '../helpers.js';
import { stubbed } from '../stubs/helpers.js';

// Entries as the control plane serialises them (realTime is left out of these tests).
type Entry = Omit<JournalEntry, 'realTime' | 'interface'> & { interface: string | null };
interface JournalPage {
  capacity: number;
  count: number;
  dropped: number;
  entries: Entry[];
}

// Paths no interface documents: they answer 501 before and after the interfaces are implemented.
const BATCH_QUERY = '/api/v1.0/service/dup/consultar_lote';
const EXTRACTS = '/api/bookkeeping/integration/v1/11222333000181/trade-bills';
const RECEIVABLES = '/v1/validate-operation-batch';
const LOANBOND = '/api/service/document/cancelar';
// Documented: their status depends on the interface's handler, so tests assert no status on them.
const IMPORT_CNAB = '/v1/import-cnab';
const REGISTER_DOCUMENTS = '/api/v1.0/service/dup/registrar_documentos';
const LOAN_REGISTER = '/api/service/document/registrar';
const EXTRACT_LIST = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';

async function journal(app: Awaited<ReturnType<typeof testApp>>, query = ''): Promise<JournalPage> {
  const res = await app.inject({ url: `/_sandbox/requests${query}` });
  expect(res.statusCode).toBe(200);
  return res.json() as JournalPage;
}

describe('the request journal', () => {
  it('records a request to an interface with its method, path, status, interface and body', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await app.inject({ method: 'POST', url: `${BATCH_QUERY}?x=1`, payload: { registros: [{ numero: 1 }] } });
    const j = await journal(app);
    expect(j.count).toBe(1);
    const e = j.entries[0];
    expect(e).toMatchObject({
      interface: 'registry',
      method: 'POST',
      path: BATCH_QUERY,
      query: { x: '1' },
      status: 501,
      warnings: null,
      fault: null,
      requestBody: { registros: [{ numero: 1 }] },
    });
    expect(e?.responseBody).toMatchObject({ statusCode: 501, interface: 'registry' });
    expect(typeof e?.durationMs).toBe('number');
  });

  it('keeps the request line, query string and headers as sent beside the query as understood', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await app.inject({
      url: `${EXTRACT_LIST}?desc=True&pageSize=05&token=SECRET-Q&x=%41`,
      headers: { Authorization: 'Bearer SECRET-BEARER', 'X-Trace': 'abc', 'Sandbox-Admin-Token': 'SECRET-ADMIN', Cookie: 'k=SECRET-COOKIE' },
    });
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    expect(text).not.toMatch(/SECRET/);
    const e = (JSON.parse(text) as JournalPage).entries[0] as Entry & Record<string, unknown>;
    expect(e.requestLine).toBe(`GET ${EXTRACT_LIST}?desc=True&pageSize=05&token=[redacted]&x=%41 HTTP/1.1`);
    expect(e.rawQuery).toBe('desc=True&pageSize=05&token=[redacted]&x=%41');
    // Names as Node read them off the request (an injected request writes them in lower case).
    expect(e.headers).toEqual(
      expect.arrayContaining([
        { name: 'authorization', value: 'Bearer [redacted]' },
        { name: 'x-trace', value: 'abc' },
        { name: 'sandbox-admin-token', value: '[redacted]' },
        { name: 'cookie', value: '[redacted]' },
      ]),
    );
    expect(e.path).toBe(EXTRACT_LIST);
  });

  it('keeps the request line of a request under a workspace as the client wrote it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await app.inject({ url: `/ws/team-a${BATCH_QUERY}?a=1` });
    const res = await app.inject({ url: '/ws/team-a/_sandbox/requests' });
    const e = (res.json() as JournalPage).entries[0] as Entry & Record<string, unknown>;
    expect(e.requestLine).toBe(`GET /ws/team-a${BATCH_QUERY}?a=1 HTTP/1.1`);
    expect(e.path).toBe(BATCH_QUERY);
  });

  it('records 404s outside every interface, but not control-plane or documentation calls', async () => {
    const app = await testApp();
    await app.inject({ url: '/api/unknown/thing' });
    await app.inject({ url: '/_sandbox/health' });
    await app.inject({ url: '/openapi.json' });
    const j = await journal(app);
    expect(j.entries.map((e) => [e.interface, e.path, e.status])).toEqual([
      [null, '/api/unknown/thing', 404],
    ]);
  });

  it('records a request whose body could not be read, with no body', async () => {
    const app = await testApp();
    await app.inject({
      method: 'POST',
      url: BATCH_QUERY,
      headers: { 'content-type': 'application/json' },
      payload: '{"registros": [',
    });
    const [e] = (await journal(app)).entries;
    expect(e).toMatchObject({ interface: 'registry', status: 400, requestBody: null });
  });

  it('keeps the sandbox-clock time of arrival', async () => {
    const app = await testApp();
    await app.inject({
      method: 'POST',
      url: '/_sandbox/clock',
      payload: { now: '2030-01-02T03:04:05Z', freeze: true },
    });
    await app.inject({ url: EXTRACTS });
    expect((await journal(app)).entries[0]?.time).toBe('2030-01-02T03:04:05.000Z');
  });

  it('is bounded: N+100 requests keep the newest N entries', async () => {
    const app = await testApp({ journalSize: 50 });
    for (let i = 0; i < 150; i++) await app.inject({ url: `${EXTRACTS}?n=${i}` });
    const j = await journal(app);
    expect(j.capacity).toBe(50);
    expect(j.count).toBe(50);
    expect(j.dropped).toBe(100);
    expect(j.entries).toHaveLength(50);
    expect(j.entries[0]?.query).toEqual({ n: '149' });
    expect(j.entries[49]?.query).toEqual({ n: '100' });
  });

  it('keeps nothing when its size is 0', async () => {
    const app = await testApp({ journalSize: 0 });
    await app.inject({ url: EXTRACTS });
    expect((await journal(app)).entries).toEqual([]);
  });

  it('filters by interface, operation, status, status class and since, and limits', async () => {
    const app = await testApp();
    await app.inject({
      method: 'POST',
      url: '/_sandbox/clock',
      payload: { now: '2030-01-01T00:00:00Z', freeze: true },
    });
    await app.inject({ method: 'POST', url: BATCH_QUERY, payload: {} });
    await app.inject({ method: 'POST', url: RECEIVABLES, payload: {} });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P1D' } });
    await app.inject({ method: 'POST', url: LOANBOND, payload: {} });
    await app.inject({ url: '/nowhere' });
    // A fault answers with a documented status (401) for a path no route serves.
    await app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { path: EXTRACTS, status: 401 } });
    await app.inject({ url: EXTRACTS });

    const paths = async (q: string) => (await journal(app, q)).entries.map((e) => e.path);
    expect(await paths('?interface=receivables')).toEqual([RECEIVABLES]);
    expect(await paths('?status=404')).toEqual(['/nowhere']);
    expect(await paths('?status=5xx')).toEqual([LOANBOND, RECEIVABLES, BATCH_QUERY]);
    expect(await paths('?status=4xx')).toEqual([EXTRACTS, '/nowhere']);
    expect(await paths('?since=2030-01-02T00:00:00Z')).toEqual([EXTRACTS, '/nowhere', LOANBOND]);
    expect(await paths('?limit=2')).toEqual([EXTRACTS, '/nowhere']);
    expect(await paths('?interface=registry&status=501')).toEqual([BATCH_QUERY]);
    // None of these reached a documented operation.
    expect(await paths('?operation=register-documents')).toEqual([]);
  });

  it('filters by operation id', () => {
    const j = new Journal(10);
    const base = {
      time: '2030-01-01T00:00:00.000Z',
      realTime: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      query: captureValue({}, 0),
      sent: { method: 'POST', url: '/r', httpVersion: '1.1', rawHeaders: [] },
      durationMs: 1,
      warnings: null,
      fault: null,
      outcome: null,
      mapping: null,
      upstream: null,
      requestBody: captureValue(null, 0),
      responseBody: captureText(''),
    };
    j.add({
      ...base,
      id: j.nextId(),
      interface: 'registry',
      operation: 'register-documents',
      path: REGISTER_DOCUMENTS,
      status: 200,
    });
    j.add({
      ...base,
      id: j.nextId(),
      interface: 'registry',
      operation: 'reconcile-documents',
      path: '/r',
      status: 200,
    });
    j.add({
      ...base,
      id: j.nextId(),
      interface: 'registry',
      operation: null,
      path: BATCH_QUERY,
      status: 501,
    });
    expect(j.list({ operation: 'register-documents' }).map((e) => e.path)).toEqual([REGISTER_DOCUMENTS]);
    expect(j.list({ interface: 'registry', status: '2xx' }).map((e) => e.id)).toEqual([2, 1]);
  });

  it('refuses an unknown interface or a malformed status filter with a 400 naming it', async () => {
    const app = await testApp();
    const bad = await app.inject({ url: '/_sandbox/requests?interface=payments' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('interface');
    const status = await app.inject({ url: '/_sandbox/requests?status=abc' });
    expect(status.statusCode).toBe(400);
    expect(JSON.stringify(status.json())).toContain('status');
  });

  it('is cleared by DELETE and by reset', async () => {
    const app = await testApp();
    await app.inject({ url: EXTRACTS });
    await app.inject({ url: EXTRACTS });
    const del = await app.inject({ method: 'DELETE', url: '/_sandbox/requests' });
    expect(del.json()).toEqual({ cleared: 2 });
    expect((await journal(app)).count).toBe(0);
    await app.inject({ url: EXTRACTS });
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect((await journal(app)).count).toBe(0);
  });

  it('holds no token, Authorization value or document bytes it was sent', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const secrets = {
      bearer: 'bk-token-1-SECRET-BEARER',
      registryBearer: 'rg-token-SECRET-BEARER',
      bodyToken: 'rc-token-SECRET-BODY',
      loanToken: 'lb-token-SECRET-LOAN',
      tokenAcesso: 'SECRET-TOKEN-ACESSO',
      documento: 'JVBERi0xLjQKSECRETPDFBYTES',
      conteudo: 'JVBERi0xLjcKSECRETCONTEUDO',
      operationFile: 'MDEwMDAwMDAwMDAwMDAwU0VDUkVUQ05BQg==',
      accessToken: 'SECRET-ACCESS-TOKEN-FIELD',
      admin: 'SECRET-ADMIN-HEADER',
    };
    await app.inject({ url: EXTRACT_LIST, headers: { authorization: `Bearer ${secrets.bearer}` } });
    await app.inject({
      method: 'POST',
      url: REGISTER_DOCUMENTS,
      headers: { authorization: `Bearer ${secrets.registryBearer}`, 'sandbox-admin-token': secrets.admin },
      payload: {
        registros: [{ documento: secrets.documento, nested: { accessToken: secrets.accessToken } }],
      },
    });
    await app.inject({
      method: 'POST',
      url: IMPORT_CNAB,
      payload: { token: secrets.bodyToken, operationFile: secrets.operationFile },
    });
    await app.inject({
      method: 'POST',
      url: LOAN_REGISTER,
      payload: {
        token: secrets.loanToken,
        registros: [
          {
            documentos_adicionais: [{ nome: 'a.pdf', conteudo: secrets.conteudo }],
            TOKEN_ACESSO: secrets.tokenAcesso,
          },
        ],
      },
    });
    // A fault rule answers too: its journal entry must be as clean.
    await app.inject({
      method: 'POST',
      url: '/_sandbox/faults',
      payload: { path: IMPORT_CNAB, status: 400 },
    });
    await app.inject({ method: 'POST', url: IMPORT_CNAB, payload: { token: secrets.bodyToken } });
    await app.inject({
      url: `/nowhere?token=${secrets.bodyToken}`,
      headers: { authorization: `Bearer ${secrets.bearer}` },
    });

    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    expect((JSON.parse(text) as JournalPage).count).toBe(6);
    for (const [name, secret] of Object.entries(secrets)) {
      expect(text.includes(secret), `${name} leaked into the journal`).toBe(false);
    }
    expect(text).toContain('[redacted]');
  });

  it('redacts every header, query parameter and body key named like a secret, by one rule, and logs none of them', async () => {
    const capture = new LogCapture();
    const app = await testApp({ fixtures: BASE_FIXTURES, logger: { level: 'debug', stream: capture } });
    const secrets = {
      query: 'SECRET-QUERY-API-KEY',
      encodedQuery: 'SECRET-QUERY-CLIENT-SECRET',
      header: 'SECRET-HEADER-PRIVATE',
      clientSecret: 'SECRET-CLIENT-SECRET',
      refreshToken: 'SECRET-REFRESH-TOKEN',
      privateKey: 'SECRET-PRIVATE-KEY',
      pwd: 'SECRET-PWD',
      passwd: 'SECRET-PASSWD',
      pass: 'SECRET-PASS',
      bearer: 'SECRET-BEARER-FIELD',
      credential: 'SECRET-CREDENTIAL',
    };
    const res = await app.inject({
      method: 'POST',
      url: `/api/bookkeeping/integration/v1/login?x-api-key=${secrets.query}&Client%5FSecret=${secrets.encodedQuery}&page=2`,
      headers: { 'X-Private-Credential': secrets.header },
      payload: {
        clientSecret: secrets.clientSecret,
        nested: [{ refreshToken: secrets.refreshToken, PRIVATE_KEY: secrets.privateKey }],
        pwd: secrets.pwd,
        passwd: secrets.passwd,
        pass: secrets.pass,
        bearer: secrets.bearer,
        'user-credentials': secrets.credential,
        email: 'kept@example.com',
      },
    });
    expect(res.statusCode).not.toBe(500);
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    for (const [name, secret] of Object.entries(secrets)) {
      expect(text.includes(secret), `${name} leaked into the journal`).toBe(false);
      expect(capture.text.includes(secret), `${name} leaked into the log`).toBe(false);
    }
    const e = (JSON.parse(text) as JournalPage).entries[0];
    expect(e?.rawQuery).toBe('x-api-key=[redacted]&Client%5FSecret=[redacted]&page=2');
    expect(e?.requestLine).toBe('POST /api/bookkeeping/integration/v1/login?x-api-key=[redacted]&Client%5FSecret=[redacted]&page=2 HTTP/1.1');
    expect(e?.query).toMatchObject({ 'x-api-key': '[redacted]', page: '2' });
    expect(e?.requestBody).toMatchObject({ email: 'kept@example.com', pass: '[redacted]' });
  });

  it("keeps a request's secrets out of a stub's answer that echoes them", async () => {
    const app = await testApp();
    await stubbed(app, {
      request: { method: 'POST', urlPath: '/api/v1.0/service/dup/echo' },
      response: {
        status: 200,
        body: '{"seen":"{{request.headers.Authorization}}","body":{{{request.body}}},"q":"{{request.query.apiKey}}"}',
        transformers: ['response-template'],
      },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/echo?apiKey=SECRET-ECHO-QUERY',
      headers: { authorization: 'Bearer SECRET-ECHO-BEARER', 'content-type': 'application/json' },
      payload: JSON.stringify({ password: 'SECRET-ECHO-PASSWORD', nome: 'kept' }),
    });
    expect(res.body).toContain('SECRET-ECHO-BEARER');
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    for (const secret of ['SECRET-ECHO-BEARER', 'SECRET-ECHO-QUERY', 'SECRET-ECHO-PASSWORD']) {
      expect(text.includes(secret), `${secret} leaked into the journal`).toBe(false);
    }
    const e = (JSON.parse(text) as JournalPage).entries[0];
    expect(e?.responseBody).toMatchObject({ seen: 'Bearer [redacted]', body: { nome: 'kept', password: '[redacted]' }, q: '[redacted]' });
  });

  it("redacts a form body's secret fields (an OAuth token request), in the entry and in an answer that echoes it", async () => {
    const app = await testApp();
    await stubbed(app, {
      request: { method: 'POST', urlPath: '/api/v1.0/service/dup/oauth/token' },
      response: { status: 200, body: '{"echo":"{{{request.body}}}"}', transformers: ['response-template'] },
    });
    const form = 'grant_type=client_credentials&client_id=ana&client_secret=SECRET-FORM-CLIENT&password=SECRET%20FORM%2BPWD';
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      payload: form,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('SECRET-FORM-CLIENT');
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    for (const secret of ['SECRET-FORM-CLIENT', 'SECRET%20FORM%2BPWD', 'SECRET FORM+PWD']) {
      expect(text.includes(secret), `${secret} leaked into the journal`).toBe(false);
    }
    const e = (JSON.parse(text) as JournalPage).entries[0];
    const kept = 'grant_type=client_credentials&client_id=ana&client_secret=[redacted]&password=[redacted]';
    expect(e?.requestBody).toBe(kept);
    expect(e?.responseBody).toEqual({ echo: kept });
    // The same text sent as plain text is no form: it is kept as it came.
    await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/oauth/token', headers: { 'content-type': 'text/plain' }, payload: 'client_secret=plain' });
    expect((await journal(app)).entries[0]?.requestBody).toBe('client_secret=plain');
  });

  it('finds a secret echoed escaped or encoded: HTML-escaped Basic credentials, a JSON-escaped password, a cookie', async () => {
    const app = await testApp();
    await stubbed(app, {
      request: { method: 'POST', urlPath: '/api/v1.0/service/dup/echo' },
      response: {
        status: 200,
        body: '{"echo":"{{{request.body}}}","pw":"{{jsonPath request.body \'$.password\'}}","auth":"{{request.headers.Authorization}}","sid":"{{request.cookies.sid}}","q":"{{urlEncode request.query.secret}}"}',
        transformers: ['response-template'],
      },
    });
    const password = 'p<ss"w&rd12';
    const basic = Buffer.from('ana:BASIC-PASSWORD1').toString('base64');
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1.0/service/dup/echo?secret=${encodeURIComponent('SECRET Q&V')}`,
      headers: { authorization: `Basic ${basic}`, cookie: 'sid=COOKIEVAL1; lang=pt', 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'u7', password, note: 'ana:BASIC-PASSWORD1 and BASIC-PASSWORD1' }),
    });
    expect(res.statusCode).toBe(200);
    // The answer does carry them, escaped: the journal's copy must not.
    expect(res.body).toContain('&#x3D;');
    expect(res.body).toContain('COOKIEVAL1');
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    const forms = [basic, basic.replaceAll('=', '&#x3D;'), 'p&lt;ss&quot;w&amp;rd12', 'p<ss\\"w&rd12', 'COOKIEVAL1', 'BASIC-PASSWORD1', 'SECRET%20Q%26V', 'SECRET Q&V'];
    for (const form of forms) expect(text.includes(form), `${form} leaked into the journal`).toBe(false);
    const e = (JSON.parse(text) as JournalPage).entries[0];
    expect(e?.requestBody).toMatchObject({ username: 'u7', note: '[redacted] and [redacted]' });
  });

  it('finds a secret a template echoes through the base64, upper and lower helpers, alone or inside a longer text', async () => {
    const app = await testApp();
    const key = 'request.headers.X-Api-Key';
    await stubbed(app, {
      request: { method: 'POST', urlPath: '/api/v1.0/service/dup/encoded' },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body:
          '{"b64":"{{{base64 (jsonPath request.body \'$.token\')}}}","escaped":"{{base64 (jsonPath request.body \'$.token\')}}",' +
          '"bare":"{{{base64 (jsonPath request.body \'$.token\') padding=false}}}","up":"{{upper (jsonPath request.body \'$.token\')}}",' +
          '"low":"{{lower request.headers.X-Api-Key}}","bearer":"{{{base64 request.headers.Authorization}}}",' +
          `"a0":"{{{base64 (concat ${key} '.tail')}}}","a1":"{{{base64 (concat 'x' ${key} '.tail')}}}","a2":"{{{base64 (concat 'xy' ${key})}}}",` +
          '"body":"{{{request.bodyAsBase64}}}","plain":"{{{base64 \'not a secret at all\'}}}"}',
        transformers: ['response-template'],
      },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/encoded',
      headers: { authorization: 'Bearer SECRET-abc-123456', 'x-api-key': 'Key-Mixed-Case-42', 'content-type': 'application/json' },
      payload: JSON.stringify({ token: 'tok-SECRET-987654', nome: 'kept' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const answered = res.json() as Record<string, string>;
    expect(answered.up).toBe('TOK-SECRET-987654');
    const e = (await journal(app)).entries[0];
    const body = e?.responseBody as Record<string, string>;
    expect(body.up).toBe('[redacted]');
    expect(body.low).toBe('[redacted]');
    expect(body.b64).toBe('[redacted]');
    expect(body.escaped).toBe('[redacted]');
    expect(body.bare).toBe('[redacted]');
    expect(body.plain).toBe(answered.plain);
    // Inside a longer encoded text, at each of the three offsets of base64's groups: the whole text.
    for (const name of ['bearer', 'a0', 'a1', 'a2', 'body']) expect(body[name], name).toBe('[redacted]');
  });

  it('replaces a secret shorter than 6 characters only where it stands whole, and never under its name', async () => {
    const app = await testApp();
    await stubbed(app, {
      request: { method: 'GET', urlPath: '/api/v1.0/service/dup/pin' },
      response: {
        status: 200,
        body: '{"code":"{{request.query.pin}}","message":"PIN {{request.query.pin}} refused","n":{{request.query.pin}},"order":"A4321-4321","total":"143210","amount":1234}',
        transformers: ['response-template'],
      },
    });
    const res = await app.inject({ url: '/api/v1.0/service/dup/pin?pin=4321&page=4321' });
    expect(res.json()).toMatchObject({ code: '4321', n: 4321 });
    const e = (await journal(app)).entries[0];
    expect(e?.responseBody).toEqual({
      code: '[redacted]',
      message: 'PIN [redacted] refused',
      n: '[redacted]',
      order: 'A4321-4321',
      total: '143210',
      amount: 1234,
    });
    expect(e?.rawQuery).toBe('pin=[redacted]&page=[redacted]');
    expect(e?.query).toMatchObject({ pin: '[redacted]', page: '[redacted]' });
  });

  it("redacts a secret-named query value after a ';' as after a '&'", async () => {
    const app = await testApp();
    await app.inject({ url: `${BATCH_QUERY}?x=1;token=SECRET-SEMICOLON;page=2` });
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    expect(text).not.toContain('SECRET-SEMICOLON');
    const e = (JSON.parse(text) as JournalPage).entries[0];
    expect(e?.rawQuery).toBe('x=1;token=[redacted];page=2');
    expect(e?.requestLine).toBe(`GET ${BATCH_QUERY}?x=1;token=[redacted];page=2 HTTP/1.1`);
  });

  it("redacts a secret-named path parameter (a servlet's ;jsessionid=) in the path, the request line and an echo", async () => {
    const app = await testApp();
    await stubbed(app, {
      request: { method: 'GET', urlPathPattern: '/api/v1\\.0/service/dup/semi;.*' },
      response: { status: 200, body: '{"url":"{{{request.url}}}","path":"{{{request.path}}}"}', transformers: ['response-template'] },
    });
    const res = await app.inject({ url: '/api/v1.0/service/dup/semi;jsessionid=SECRET-PATH-SESSION;v=2?page=1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('SECRET-PATH-SESSION');
    // No mapping: the 501 quotes the path.
    await app.inject({ url: `${BATCH_QUERY};JSESSIONID=SECRET-PATH-501;v=1` });
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    expect(text).not.toContain('SECRET-PATH-SESSION');
    expect(text).not.toContain('SECRET-PATH-501');
    const [unmatched, echoed] = (JSON.parse(text) as JournalPage).entries;
    expect(echoed?.path).toBe('/api/v1.0/service/dup/semi;jsessionid=[redacted];v=2');
    expect(echoed?.requestLine).toBe('GET /api/v1.0/service/dup/semi;jsessionid=[redacted];v=2?page=1 HTTP/1.1');
    expect(echoed?.responseBody).toEqual({ url: '/api/v1.0/service/dup/semi;jsessionid=[redacted];v=2?page=1', path: '/api/v1.0/service/dup/semi;jsessionid=[redacted];v=2' });
    expect(unmatched?.path).toBe(`${BATCH_QUERY};JSESSIONID=[redacted];v=1`);
  });

  it('redacts the secret fields of a form-encoded answer (a token endpoint)', async () => {
    const app = await testApp();
    await stubbed(app, {
      request: { method: 'POST', urlPath: '/api/v1.0/service/dup/oauth/form-answer' },
      response: { status: 200, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'access_token=ANSWERED-FORM-TOKEN&token_type=bearer&expires_in=3600' },
    });
    await app.inject({ method: 'POST', url: '/api/v1.0/service/dup/oauth/form-answer', payload: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const e = (await journal(app)).entries[0];
    expect(e?.responseBody).toBe('access_token=[redacted]&token_type=bearer&expires_in=3600');
  });

  it("redacts a secret-named query value in a URL a request header holds (a Referer)", async () => {
    const app = await testApp();
    await app.inject({ url: BATCH_QUERY, headers: { referer: 'https://app.example/cb?code=1&access_token=SECRET-REFERER#top' } });
    const e = (await journal(app)).entries[0];
    expect(e?.headers.find((h) => h.name === 'referer')?.value).toBe('https://app.example/cb?code=1&access_token=[redacted]#top');
  });

  it('bounds the size of an entry whatever the size of the body', async () => {
    const app = await testApp();
    const huge = 'A'.repeat(5 * 1024 * 1024);
    const many = Array.from({ length: 100_000 }, (_, i) => ({ numero: i, texto: 'x'.repeat(50) }));
    await app.inject({ method: 'POST', url: BATCH_QUERY, payload: { nome: huge, registros: many } });
    const text = (await app.inject({ url: '/_sandbox/requests' })).body;
    expect(text.length).toBeLessThan(64 * 1024);
    const e = (JSON.parse(text) as JournalPage).entries[0];
    const body = e?.requestBody as { nome: string; registros: unknown[] };
    expect(body.nome).toMatch(/^A+…\[truncated: 5242880 characters\]$/);
    expect(body.registros.at(-1)).toMatch(/^\[truncated: \d+ more items\]$/);
  });
});

describe('redaction', () => {
  it('replaces secret keys at any depth and in any letter case, keeping nulls', () => {
    expect(
      redact({ a: [{ b: { Token: 'x', token_acesso: 'y', documento: { bytes: 'z' } } }], token: null, n: 1 }),
    ).toEqual({
      a: [{ b: { Token: '[redacted]', token_acesso: '[redacted]', documento: '[redacted]' } }],
      token: null,
      n: 1,
    });
  });

  it('names a secret by one rule, whatever the case or separators', () => {
    const secret = ['x-api-key', 'X-Api-Key', 'api_key', 'apiKey', 'clientSecret', 'client_secret', 'refreshToken', 'privateKey', 'pwd', 'passwd', 'pass', 'Password', 'bearer', 'credentials', 'Authorization', 'Proxy-Authorization', 'token_acesso', 'TOKEN', 'senha', 'pin', 'Cookie', 'Set-Cookie', 'X-Signature', 'sandbox-admin-token'];
    const plain = ['email', 'nome', 'chaveRemessa', 'codigoIdentificador', 'keys', 'passo', 'compass', 'pinned', 'valor', 'content-type', 'user-agent', 'page', 'desc', 'token_type', 'tokenType'];
    for (const name of secret) expect(namesSecret(name), name).toBe(true);
    for (const name of plain) expect(namesSecret(name), name).toBe(false);
    fc.assert(
      fc.property(fc.constantFrom(...secret), fc.constantFrom('-', '_', '.', ' '), (name, sep) => {
        expect(namesSecret(name.toUpperCase())).toBe(true);
        expect(namesSecret(`x${sep}${name}`)).toBe(true);
      }),
    );
  });

  it('redacts JSON text by key as redact() does the parsed value, and every start of it (an answer cut midway) too (fast-check)', () => {
    // Secret values hold SECRET, other values never do: no start of the text may show any of one.
    const key = fc.constantFrom('token', 'access_token', 'Password', 'client_secret', 'nome', 'valor', 'token_type', 'itens');
    const leaf = fc.oneof(fc.constant(null), fc.integer(), fc.constantFrom('a "b" c', 'plain', 'x\\y', 'PLAIN, with: colon'));
    const tree = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
    })).value;
    const mark = (v: unknown, secret: boolean, n: { i: number }): unknown => {
      if (Array.isArray(v)) return v.map((x) => mark(x, secret, n));
      if (v !== null && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mark(x, secret || namesSecret(k), n)]));
      return secret && v !== null ? `SECRET${(n.i += 1)}` : v;
    };
    fc.assert(
      fc.property(tree, fc.boolean(), (raw, indented) => {
        const value = mark(raw, false, { i: 0 });
        const text = JSON.stringify(value, null, indented ? 1 : undefined);
        expect(JSON.parse(redactJsonText(text))).toEqual(redact(value));
        for (let end = 0; end <= text.length; end++) expect(redactJsonText(text.slice(0, end))).not.toContain('SECRET');
      }),
    );
  });

  it("redacts a mapping's text by the same names: JSON members, name=value pairs, a pattern", () => {
    expect(redactSecretText('grant_type=client_credentials&client_secret=s3cr3t&scope=x')).toBe('grant_type=client_credentials&client_secret=[redacted]&scope=x');
    expect(redactSecretText('"user":"ana","password":"pw-1"')).toBe('"user":"ana","password":"[redacted]"');
    expect(redactSecretText('.*"token"\\s*:\\s*"abc123".*')).toBe('.*"token"\\s*:\\s*"[redacted]".*');
    expect(redactSecretText('.*client_secret=abc123.*')).toBe('.*client_secret=[redacted]');
    expect(redactSecretText("$[?(@.token == 'abc123' && @.n == 1)]")).toBe("$[?(@.token == '[redacted]' && @.n == 1)]");
    expect(redactSecretText('{"token_type":"bearer","n":1}')).toBe('{"token_type":"bearer","n":1}');
  });

  it('redacts the secret path parameters of every segment, and leaves the query to its own rule', () => {
    expect(redactPathParameters('/a;jsessionid=S1;v=2/b;token=S2/c;e=;api_key=S3?x=1;token=q#f')).toBe('/a;jsessionid=[redacted];v=2/b;token=[redacted]/c;e=;api_key=[redacted]?x=1;token=q#f');
    expect(redactPathParameters('/a;session%5Fid=S1;sessionless')).toBe('/a;session%5Fid=[redacted];sessionless');
    expect(redactPathParameters('/a?x=1;token=q')).toBe('/a?x=1;token=q');
    expect(redactUrlSecrets('https://app.example/cb;jsessionid=S1?access_token=S2')).toBe('https://app.example/cb;jsessionid=[redacted]?access_token=[redacted]');
  });

  it('finds a secret in any base64 text that encodes it, in either alphabet, padded or not (fast-check)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 6, maxLength: 40 }), text, text, fc.constantFrom('standard', 'url', 'bare', 'escaped'), (secret, before, after, form) => {
        const secrets = new EchoSecrets();
        secrets.add(secret);
        const standard = Buffer.from(before + secret + after, 'utf8').toString('base64');
        const encoded =
          form === 'url' ? Buffer.from(before + secret + after, 'utf8').toString('base64url')
          : form === 'bare' ? standard.replace(/=+$/, '')
          : form === 'escaped' ? standard.replaceAll('=', '&#x3D;')
          : standard;
        expect(secrets.scrubText(`"${encoded}"`)).toBe('"[redacted]"');
      }),
    );
  });

  it("replaces a short secret's base64 only where it is a whole run", () => {
    const secrets = new EchoSecrets();
    secrets.add('4321');
    const pin = Buffer.from('4321').toString('base64');
    expect(secrets.scrubText(`pin ${pin} and ${pin.replace(/=+$/, '')}`)).toBe('pin [redacted] and [redacted]');
    const longer = Buffer.from('x4321 and more').toString('base64');
    expect(secrets.scrubText(longer)).toBe(longer);
  });

  it('summarises the fields past its budget', () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field${i}`, 'v'.repeat(20)]));
    const out = redact(wide) as Record<string, unknown>;
    expect(Object.keys(out).length).toBeLessThan(5000);
    expect(out['[truncated]']).toMatch(/^\d+ more fields$/);
  });
});

describe('a journaled request line and headers, packed outside the heap', () => {
  it('come back exactly as sent, whatever their characters (fast-check)', () => {
    // Any code point, any UTF-16 unit (lone surrogates too), and the line feed the packing splits on.
    const unit = fc.oneof(
      fc.constantFrom('\n', '\ud800', '\udc00'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 40 });
    fc.assert(
      fc.property(text, text, text, fc.array(fc.tuple(text, text), { maxLength: 6 }), (method, url, httpVersion, pairs) => {
        const sent = { method, url, httpVersion, rawHeaders: pairs.flat() };
        const packed = packRequest(sent);
        // A line feed or a lone surrogate cannot come from Node's parser; such a request is kept as it is.
        const plain = [method, url, httpVersion, ...sent.rawHeaders].every((p) => !p.includes('\n') && !/\p{Cs}/u.test(p));
        expect(Buffer.isBuffer(packed)).toBe(plain);
        expect(unpackRequest(packed)).toEqual(sent);
      }),
      { numRuns: 500 },
    );
  });
});
