// Response templates over HTTP: WireMock's helpers in a mapping, time from the sandbox clock,
// generated values from the seeded key generator, and `inspect`, which reads the workspace's state as
// the control plane's inspection calls show it.
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { HELPER_NAMES } from '../../src/runtime/templates.js';
import { DEMO_FIXTURES, LogCapture, testApp } from '../helpers.js';
import { BK, RG, stubbed } from './helpers.js';

const templated = (id: string, urlPath: string, body: string, extra: Record<string, unknown> = {}) => ({
  id,
  request: { method: 'ANY', urlPath },
  response: { status: 200, body, transformers: ['response-template'], ...extra },
});

const text = async (app: FastifyInstance, url: string, init: { method?: 'GET' | 'POST'; payload?: string } = {}) =>
  (await app.inject({ method: init.method ?? 'GET', url, ...(init.payload ? { payload: init.payload, headers: { 'content-type': 'application/json' } } : {}) })).body;

describe('time helpers use the sandbox clock', () => {
  it('now, date and parseDate follow a clock that was moved and frozen', async () => {
    const app = await testApp();
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2027-03-31T10:20:30Z', freeze: true } });
    await stubbed(app, templated('time', `${RG}/agora`, "{{now}}|{{now offset='1 months' format='yyyy-MM-dd'}}|{{date (parseDate request.query.d) offset='-1 days' format='dd/MM/yyyy'}}"));
    expect(await text(app, `${RG}/agora?d=2027-01-01`)).toBe('2027-03-31T10:20:30Z|2027-04-30|31/12/2026');
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P1D', freeze: true } });
    expect((await text(app, `${RG}/agora?d=2027-01-01`)).split('|')[0]).toBe('2027-04-01T10:20:30Z');
  });
});

describe('generated values use the seeded key generator', () => {
  it('repeat after a reset with the same seed, in every workspace alike', async () => {
    const app = await testApp({ seed: 'stubs' });
    const mapping = templated('ids', `${RG}/chave`, "{{randomValue length=10 type='ALPHANUMERIC' uppercase=true}} {{randomValue type='UUID'}}");
    await stubbed(app, mapping);
    const first = await text(app, `${RG}/chave`);
    const second = await text(app, `${RG}/chave`);
    expect(second).not.toBe(first);
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { seed: 'stubs' } });
    await stubbed(app, mapping);
    // A reset restarts the sequence; the mapping was added again, which drew no key (it has an id).
    expect(await text(app, `${RG}/chave`)).toBe(first);
    expect(first).toMatch(/^[A-Z0-9]{10} [0-9a-f-]{36}$/);
  });
});

describe('JSON, text, number and condition helpers', () => {
  it('render as WireMock renders them', async () => {
    const app = await testApp();
    await stubbed(
      app,
      templated(
        'helpers',
        `${RG}/ajuda`,
        "{{jsonPath request.body '$.doc.numero'}}|{{#each (jsonPath request.body '$.parcelas[?(@.valor > 100)]')}}{{numero}};{{/each}}" +
          "|{{parseJson request.body 'p'}}{{p.doc.numero}}|{{{toJson (jsonPath request.body '$.doc')}}}" +
          "|{{upper (concat 'dup-' request.query.n)}}|{{size (jsonPath request.body '$.parcelas')}}|{{math (jsonPath request.body '$.doc.valor') '*' 2}}" +
          "|{{#eq request.query.n '7'}}seven{{else}}other{{/eq}}|{{#if (and (gt 3 2) (contains request.body 'numero'))}}yes{{/if}}" +
          "|{{{base64 'ok'}}}|{{regexExtract request.query.code '[0-9]+'}}|{{val request.query.none or='dflt'}}",
      ),
    );
    const body = JSON.stringify({ doc: { numero: 'DUP-9', valor: 10.5 }, parcelas: [{ numero: 1, valor: 50 }, { numero: 2, valor: 150 }] });
    expect(await text(app, `${RG}/ajuda?n=7&code=AB12`, { method: 'POST', payload: body })).toBe(
      'DUP-9|2;|DUP-9|{"numero":"DUP-9","valor":10.5}|DUP-7|2|21|seven|yes|b2s=|12|dflt',
    );
  });
  it('jsonPath keeps the numbers a client sent digit for digit, as a value, an object or a list', async () => {
    const app = await testApp();
    await stubbed(
      app,
      templated(
        'exact',
        `${RG}/exato`,
        "{{jsonPath request.body '$.id'}}|{{jsonPath request.body '$.valor'}}|{{{jsonPath request.body '$.doc'}}}" +
          "|{{{jsonPath request.body '$.lista[*]'}}}|{{{toJson (jsonPath request.body '$.doc')}}}|{{#each (jsonPath request.body '$.lista[*]')}}{{this}};{{/each}}" +
          "|{{formatJson request.body format='compact'}}|{{#eq (jsonPath request.body '$.id') '12345678901234567890'}}same{{/eq}}",
      ),
    );
    const body = '{"id":12345678901234567890,"valor":80000000000000.01,"doc":{"id":12345678901234567891,"valor":80000000000000.01,"n":1.5},"lista":[12345678901234567892,2]}';
    expect(await text(app, `${RG}/exato`, { method: 'POST', payload: body })).toBe(
      '12345678901234567890|80000000000000.01|{"id":12345678901234567891,"valor":80000000000000.01,"n":1.5}' +
        '|[12345678901234567892,2]|{"id":12345678901234567891,"valor":80000000000000.01,"n":1.5}|12345678901234567892;2;' +
        `|${body}|same`,
    );
  });
});

describe('the other helpers', () => {
  it('render in a mapping as they do in WireMock', async () => {
    const app = await testApp({ seed: 'helpers' });
    await stubbed(
      app,
      templated(
        'rest',
        `${RG}/resto`,
        "{{randomInt lower=5 upper=9}}|{{#formatJson format='compact'}} { \"a\" : [ 1 ] } {{/formatJson}}|{{capitalize request.query.w}}|{{trim '  t  '}}" +
          "|{{urlEncode request.query.w}}|{{arrayJoin ',' (range 1 3)}}|{{join (array 'a' 'b') '-'}}|{{#assign 'v'}}V{{/assign}}{{v}}" +
          "|{{#if (neq request.query.n '7')}}ne{{/if}}|{{#if (gte 3 3)}}ge{{/if}}|{{#if (lt 2 3)}}lt{{/if}}|{{#if (lte 4 3)}}le{{else}}gt{{/if}}" +
          "|{{lower 'Y'}}|{{#matches request.query.n '[0-9]+'}}num{{/matches}}|{{#or false 0 ''}}t{{else}}f{{/or}}|{{#if (not false)}}not{{/if}}",
      ),
    );
    const answer = await text(app, `${RG}/resto?w=ab%20cd&n=8`);
    expect(answer).toMatch(/^[5-9]\|/);
    expect(answer.slice(2)).toBe('{"a":[1]}|Ab Cd|t|ab%20cd|1,2,3|a-b|V|ne|ge|lt|gt|y|num|f|not');
  });

  it('are each used by a mapping of these tests', () => {
    const mappings = [
      ...['templates', 'matching', 'wiremock', 'records'].map((f) => readFileSync(`test/stubs/${f}.test.ts`, 'utf8')),
      ...readdirSync('test/stubs/fixtures/wiremock/mappings').map((f) => readFileSync(`test/stubs/fixtures/wiremock/mappings/${f}`, 'utf8')),
    ].join('\n');
    // The words inside {{ }}: helper names among them.
    const used = new Set([...mappings.matchAll(/\{\{[^}]*\}\}/g)].flatMap((m) => m[0].split(/[\s(){}#/~]+/)));
    expect(HELPER_NAMES.filter((name) => !used.has(name))).toEqual([]);
  });
});

describe('inspect reads the state of the same workspace', () => {
  it('fills a named-only query in the real shape from what the client did', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    await stubbed(app, {
      id: 'batch-query',
      request: { method: 'GET', urlPath: `${RG}/consultar_remessa`, queryParameters: { chave: { matches: '.+' } } },
      response: {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
        body:
          "{{#with (inspect (concat '/registry/batches/' request.query.chave))}}" +
          '{"chaveRemessa":"{{chaveRemessa}}","quantidade":{{documentCount}},"registros":[{{#each documents}}{{#if @index}},{{/if}}{"chaveRegistro":"{{chaveRegistro}}"}{{/each}}]}' +
          '{{else}}{"erro":"remessa desconhecida"}{{/with}}',
        transformers: ['response-template'],
      },
      metadata: { sandbox: { operation: 'batch-query' } },
    });
    const registered = await app.inject({
      method: 'POST',
      url: `${RG}/registrar_documentos`,
      headers: { authorization: 'Bearer rg-demo-token-1' },
      payload: { registros: [{ numeroDuplicata: 'DUP-1', valorDuplicata: 10.5 }, { numeroDuplicata: 'DUP-2', valorDuplicata: 20 }] },
    });
    const chave = registered.json().chaveRemessa as string;
    const batch = (await app.inject({ url: `/_sandbox/registry/batches/${chave}` })).json();
    const answer = await app.inject({ url: `${RG}/consultar_remessa?chave=${chave}` });
    expect(answer.json()).toEqual({
      chaveRemessa: chave,
      quantidade: 2,
      registros: batch.documents.map((d: { chaveRegistro: string }) => ({ chaveRegistro: d.chaveRegistro })),
    });
    expect((await app.inject({ url: `${RG}/consultar_remessa?chave=NOPE` })).json()).toEqual({ erro: 'remessa desconhecida' });
    // Another workspace has no such batch.
    await stubbed(app, { mappings: [] }, '/ws/other');
    expect((await app.inject({ url: `/ws/other${RG}/consultar_remessa?chave=${chave}` })).statusCode).toBe(501);
  });

  it('returns what GET /_sandbox{path} answers, for every inspection call', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T12:00:00Z', freeze: true } });
    await stubbed(app, templated('inspector', `${RG}/inspecionar`, '{{{toJson (inspect request.query.path)}}}'));
    await app.inject({
      method: 'PUT',
      url: `${BK}/IUD-0001/payment`,
      headers: { authorization: 'Bearer bk-demo-token-7' },
      payload: { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 10 },
    });
    const paths = [
      '/bookkeeping/tenants',
      '/bookkeeping/tenants/11222333000181/trade-bills?offset=1&limit=2',
      '/bookkeeping/tenants/11222333000181/trade-bills/IUD-0001',
      '/registry/participants',
      '/registry/participants/PART-1',
      '/receivables/funds',
      '/loanbond/registrations',
      '/loanbond/documents',
      '/faults',
      '/snapshots',
      '/stubs',
      '/scenarios',
      '/operations',
    ];
    for (const path of paths) {
      const direct = await app.inject({ url: `/_sandbox${path}` });
      expect(direct.statusCode, path).toBe(200);
      const viaTemplate = await app.inject({ url: `${RG}/inspecionar?path=${encodeURIComponent(path)}` });
      expect(viaTemplate.statusCode, `${path}: ${viaTemplate.body.slice(0, 300)}`).toBe(200);
      expect(JSON.parse(viaTemplate.body), path).toEqual(direct.json());
    }
    // A 404 of the inspection call is null; a path that is no inspection call fails the template.
    expect((await app.inject({ url: `${RG}/inspecionar?path=${encodeURIComponent('/registry/batches/NOPE')}` })).body).toBe('null');
    const wrong = await app.inject({ url: `${RG}/inspecionar?path=${encodeURIComponent('/nowhere')}` });
    expect(wrong.statusCode).toBe(500);
    expect(wrong.json().message).toContain('is not an inspection call');
  });

  it('reads every GET of the control plane or fails the template naming the path, in any workspace', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const document = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.entries(document.paths)
      .filter(([path, item]) => path.startsWith('/_sandbox/') && 'get' in item)
      .map(([path]) => path.slice('/_sandbox'.length).replace(/\{[^}]+\}/g, 'x'));
    expect(paths.length).toBeGreaterThan(20);
    for (const base of ['', '/ws/other']) {
      await stubbed(app, templated('inspector', `${RG}/inspecionar`, '{{{toJson (inspect request.query.path)}}}'), base);
      for (const path of paths) {
        const direct = await app.inject({ url: `${base}/_sandbox${path}` });
        const res = await app.inject({ url: `${base}${RG}/inspecionar?path=${encodeURIComponent(path)}` });
        const where = `${base} ${path}: ${res.body.slice(0, 300)}`;
        if (res.statusCode === 200) {
          // Null where the call answers 404 (the test above compares the answers themselves).
          if (direct.statusCode === 404) expect(res.body, where).toBe('null');
          continue;
        }
        expect(res.statusCode, where).toBe(500);
        expect(res.json().message, where).toContain(`inspect: GET /_sandbox${path.split('?')[0]}`);
        expect(res.json().message, where).not.toMatch(/Cannot read|undefined|TypeError/);
      }
    }
  });
});

describe('the request model prints as WireMock prints it', () => {
  it('request.headers and request.query print as maps of their values', async () => {
    const app = await testApp();
    await stubbed(app, templated('maps', `${RG}/mapas`, '{{{request.headers}}}|{{request.query}}'));
    const res = await app.inject({ method: 'GET', url: `${RG}/mapas?a=1&b=x&b=y`, headers: { 'X-One': 'um' } });
    expect(res.statusCode, res.body).toBe(200);
    const [headers, query] = res.body.split('|');
    expect(headers).toMatch(/^\{.*x-one=um.*\}$/);
    // {{ }} escapes "=" as handlebars.java does.
    expect(query).toBe('{a&#x3D;1, b&#x3D;[x, y]}');
  });

  it('request.baseUrl followed by request.url is the URL the client called, in a workspace too', async () => {
    const app = await testApp();
    const link = templated('link', '/v1/lotes', '{{{request.baseUrl}}}{{{request.url}}}|{{{request.path}}}', {
      status: 201,
      headers: { Location: '{{{request.baseUrl}}}{{{request.url}}}/123' },
    });
    await stubbed(app, link);
    const plain = await app.inject({ method: 'POST', url: '/v1/lotes?x=1', headers: { host: 'sandbox.test:3105' } });
    expect(plain.body).toBe('http://sandbox.test:3105/v1/lotes?x=1|/v1/lotes');
    await stubbed(app, link, '/ws/w7');
    const inWorkspace = await app.inject({ method: 'POST', url: '/ws/w7/v1/lotes?x=1', headers: { host: 'sandbox.test:3105' } });
    // url and path stay relative to the workspace's base URL; baseUrl is that base URL.
    expect(inWorkspace.body).toBe('http://sandbox.test:3105/ws/w7/v1/lotes?x=1|/v1/lotes');
    expect(inWorkspace.headers.location).toBe('http://sandbox.test:3105/ws/w7/v1/lotes?x=1/123');
    await stubbed(app, link, '/ws/default');
    expect((await app.inject({ method: 'POST', url: '/ws/default/v1/lotes', headers: { host: 'sandbox.test' } })).body).toBe('http://sandbox.test/ws/default/v1/lotes|/v1/lotes');
  });
});

describe('a template that fails', () => {
  it('refuses a subexpression that calls a value, naming the expression and what to write instead', async () => {
    const app = await testApp();
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/stubs',
      payload: templated('echo-upper', '/echo', '{{upper (request.query.a)}}'),
    });
    expect(res.statusCode).toBe(400);
    const [detail] = res.json().details as Array<{ path: string; message: string }>;
    expect(detail?.path).toBe('/response/body');
    expect(detail?.message).toContain('(request.query.a)');
    expect(detail?.message).toMatch(/calls a helper.*request\.query\.a is a value/);
    expect(detail?.message).not.toMatch(/lookupProperty|alias|\.call/);
  });

  it('answers a 500 naming the mapping and the helper, and neither that answer nor the log quotes the value it failed on', async () => {
    const capture = new LogCapture();
    const app = await testApp({ logger: { level: 'debug', stream: capture } });
    await stubbed(app, {
      id: 'login-form',
      request: { method: 'POST', urlPath: `${RG}/oauth/tok` },
      response: { status: 200, body: "{{jsonPath request.body '$.username'}}|{{parseDate request.headers.X-Api-Key}}", transformers: ['response-template'] },
    });
    const form = await app.inject({
      method: 'POST',
      url: `${RG}/oauth/tok`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=u7&password=LEAKPASSWORD1',
    });
    expect(form.statusCode).toBe(500);
    expect(form.body).toMatch(/login-form could not render its response: jsonPath: its first argument is not JSON/);
    const json = await app.inject({
      method: 'POST',
      url: `${RG}/oauth/tok`,
      headers: { 'content-type': 'application/json', 'x-api-key': 'LEAKAPIKEY77' },
      payload: '{"username":"u7"}',
    });
    expect(json.statusCode).toBe(500);
    expect(json.body).toMatch(/parseDate: its first argument \(text of 12 characters\) is not an ISO 8601/);
    expect(capture.text).toMatch(/stub template failed/);
    for (const secret of ['LEAKPASSWORD1', 'LEAKAPIKEY77']) {
      expect(form.body + json.body).not.toContain(secret);
      expect(capture.text).not.toContain(secret);
    }
  });
});
