// Request matching and answers of user-defined operations, over HTTP (app.inject), rule by rule as
// WireMock's documentation describes them: each rule is shown to match and to refuse.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { RG, stubbed } from './helpers.js';

/** Every test adds its own mappings under its own path, so one app serves the file. */
let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp({ db: ':memory:', logger: false });
});
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
const post = (url: string, payload: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  app.inject({ method: 'POST', url, payload, headers });
const ok = (status = 200, body = 'matched') => ({ status, body });

describe('URL rules', () => {
  it('url: the path and query, equal', async () => {
    await stubbed(app, { request: { method: 'GET', url: `${RG}/u1?a=1&b=2` }, response: ok() });
    expect((await get(`${RG}/u1?a=1&b=2`)).statusCode).toBe(200);
    expect((await get(`${RG}/u1?b=2&a=1`)).statusCode).toBe(501);
    expect((await get(`${RG}/u1`)).statusCode).toBe(501);
  });

  it('urlPath: the path, equal, whatever the query', async () => {
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/u2` }, response: ok() });
    expect((await get(`${RG}/u2?anything=1`)).statusCode).toBe(200);
    expect((await get(`${RG}/u2/more`)).statusCode).toBe(501);
  });

  it('urlPattern: the path and query match a regular expression, whole', async () => {
    await stubbed(app, { request: { method: 'GET', urlPattern: `${RG}/u3/([a-z]*)\\?and=query` }, response: ok() });
    expect((await get(`${RG}/u3/abc?and=query`)).statusCode).toBe(200);
    expect((await get(`${RG}/u3/ABC?and=query`)).statusCode).toBe(501);
    expect((await get(`${RG}/u3/abc?and=query&more=1`)).statusCode).toBe(501);
  });

  it('urlPathPattern: the path matches, a leading (?i) ignoring case', async () => {
    await stubbed(app, { request: { method: 'GET', urlPathPattern: `(?i)${RG}/u4/[a-z]+` }, response: ok() });
    expect((await get(`${RG}/u4/ABC?x=1`)).statusCode).toBe(200);
    expect((await get(`${RG}/u4/123`)).statusCode).toBe(501);
  });

  it('urlPathTemplate with pathParameters: parameters by name, in the template model too', async () => {
    await stubbed(app, {
      request: {
        method: 'GET',
        urlPathTemplate: `${RG}/lotes/{chave}/documentos/{indice}`,
        pathParameters: { indice: { matches: '[0-9]+' } },
      },
      response: { status: 200, body: '{{request.path.chave}}:{{request.path.indice}}:{{request.pathSegments.[5]}}', transformers: ['response-template'] },
    });
    const res = await get(`${RG}/lotes/RM%201/documentos/7`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('RM 1:7:RM%201');
    expect((await get(`${RG}/lotes/RM1/documentos/x`)).statusCode).toBe(501);
    expect((await get(`${RG}/lotes/RM1/documentos`)).statusCode).toBe(501);
  });

  it('method: one, or ANY (the default)', async () => {
    await stubbed(app, { request: { method: 'DELETE', urlPath: `${RG}/m1` }, response: ok(204, '') });
    await stubbed(app, { request: { urlPath: `${RG}/m2` }, response: ok() });
    expect((await app.inject({ method: 'DELETE', url: `${RG}/m1` })).statusCode).toBe(204);
    expect((await get(`${RG}/m1`)).statusCode).toBe(501);
    for (const method of ['GET', 'POST', 'PATCH'] as const) expect((await app.inject({ method, url: `${RG}/m2` })).statusCode).toBe(200);
  });
});

describe('query parameters and headers', () => {
  it('equalTo (also in any case), contains, doesNotContain, matches, doesNotMatch, absent', async () => {
    await stubbed(app, {
      request: {
        method: 'GET',
        urlPath: `${RG}/q1`,
        queryParameters: {
          a: { equalTo: 'x' },
          b: { equalTo: 'Yes', caseInsensitive: true },
          c: { contains: 'mid' },
          d: { doesNotContain: 'bad' },
          e: { matches: '[0-9]{3}' },
          f: { doesNotMatch: '[0-9]+' },
          g: { absent: true },
        },
      },
      response: ok(),
    });
    const base = `${RG}/q1?a=x&b=yES&c=amidz&d=good&e=123&f=abc`;
    expect((await get(base)).statusCode).toBe(200);
    for (const broken of ['a=y', 'b=no', 'c=none', 'd=bad', 'e=12', 'f=1', 'g=1']) {
      const [name] = broken.split('=');
      const url = base.replace(new RegExp(`${name}=[^&]*`), broken) + (name === 'g' ? '&g=1' : '');
      const res = await get(url);
      expect(res.statusCode, broken).toBe(501);
    }
  });

  it('a parameter given several times matches when any value does; hasExactly and includes read them all', async () => {
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/q2`, queryParameters: { id: { equalTo: '2' } } }, response: ok() });
    await stubbed(app, {
      request: { method: 'GET', urlPath: `${RG}/q3`, queryParameters: { id: { hasExactly: [{ equalTo: '1' }, { equalTo: '2' }] } } },
      response: ok(),
    });
    await stubbed(app, {
      request: { method: 'GET', urlPath: `${RG}/q4`, queryParameters: { id: { includes: [{ equalTo: '1' }, { contains: '3' }] } } },
      response: ok(),
    });
    expect((await get(`${RG}/q2?id=1&id=2`)).statusCode).toBe(200);
    expect((await get(`${RG}/q3?id=2&id=1`)).statusCode).toBe(200);
    expect((await get(`${RG}/q3?id=1&id=2&id=3`)).statusCode).toBe(501);
    expect((await get(`${RG}/q4?id=1&id=2&id=33`)).statusCode).toBe(200);
    expect((await get(`${RG}/q4?id=1&id=2`)).statusCode).toBe(501);
  });

  it('and, or and not combine matchers', async () => {
    await stubbed(app, {
      request: {
        method: 'GET',
        urlPath: `${RG}/q5`,
        queryParameters: {
          a: { and: [{ matches: '[a-z]+' }, { contains: 'magic' }] },
          b: { or: [{ equalTo: 'one' }, { absent: true }] },
          c: { not: { equalTo: 'no' } },
        },
      },
      response: ok(),
    });
    expect((await get(`${RG}/q5?a=themagicword&c=yes`)).statusCode).toBe(200);
    expect((await get(`${RG}/q5?a=themagicword&b=one&c=yes`)).statusCode).toBe(200);
    expect((await get(`${RG}/q5?a=plain&c=yes`)).statusCode).toBe(501);
    expect((await get(`${RG}/q5?a=themagicword&b=two&c=yes`)).statusCode).toBe(501);
    expect((await get(`${RG}/q5?a=themagicword&c=no`)).statusCode).toBe(501);
  });

  it('headers match by name in any case', async () => {
    await stubbed(app, {
      request: { method: 'GET', urlPath: `${RG}/h1`, headers: { 'X-Request-Id': { matches: 'r-[0-9]+' }, Accept: { contains: 'json' } } },
      response: ok(),
    });
    expect((await get(`${RG}/h1`, { 'x-request-id': 'r-12', accept: 'application/json' })).statusCode).toBe(200);
    expect((await get(`${RG}/h1`, { 'x-request-id': 'r-x', accept: 'application/json' })).statusCode).toBe(501);
    expect((await get(`${RG}/h1`, { accept: 'application/json' })).statusCode).toBe(501);
  });
});

describe('body patterns', () => {
  it('equalToJson: semantic equality, numbers by value, strict by default', async () => {
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/b1`, bodyPatterns: [{ equalToJson: { total: 4, items: [1, 2] } }] }, response: ok() });
    expect((await post(`${RG}/b1`, '{ "items": [1, 2], "total": 4.0 }')).statusCode).toBe(200);
    expect((await post(`${RG}/b1`, '{"items":[2,1],"total":4}')).statusCode).toBe(501);
    expect((await post(`${RG}/b1`, '{"items":[1,2],"total":4,"extra":true}')).statusCode).toBe(501);
  });

  it('equalToJson given as text, with ignoreArrayOrder and ignoreExtraElements', async () => {
    await stubbed(app, {
      request: {
        method: 'POST',
        urlPath: `${RG}/b2`,
        bodyPatterns: [{ equalToJson: '{"items":[{"n":1},{"n":2}]}', ignoreArrayOrder: true, ignoreExtraElements: true }],
      },
      response: ok(),
    });
    expect((await post(`${RG}/b2`, '{"items":[{"n":2,"x":0},{"n":3},{"n":1}],"other":1}')).statusCode).toBe(200);
    expect((await post(`${RG}/b2`, '{"items":[{"n":2}]}')).statusCode).toBe(501);
  });

  it("equalToJson with JsonUnit's placeholders", async () => {
    await stubbed(app, {
      request: {
        method: 'POST',
        urlPath: `${RG}/b3`,
        bodyPatterns: [
          {
            equalToJson: {
              token: '${json-unit.any-string}',
              n: '${json-unit.any-number}',
              flag: '${json-unit.any-boolean}',
              free: '${json-unit.ignore}',
              code: '${json-unit.regex}[A-Z]{2}-[0-9]+',
            },
          },
        ],
      },
      response: ok(),
    });
    expect((await post(`${RG}/b3`, '{"token":"abc","n":1.5,"flag":false,"free":[1],"code":"RM-12"}')).statusCode).toBe(200);
    expect((await post(`${RG}/b3`, '{"token":1,"n":1.5,"flag":false,"free":[1],"code":"RM-12"}')).statusCode).toBe(501);
    expect((await post(`${RG}/b3`, '{"token":"abc","n":1.5,"flag":false,"free":[1],"code":"rm-12"}')).statusCode).toBe(501);
  });

  it('matchesJsonPath: presence, a filter, and a matcher on what the expression selects', async () => {
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/b4`, bodyPatterns: [{ matchesJsonPath: '$.name' }] }, response: ok() });
    await stubbed(app, {
      request: { method: 'POST', urlPath: `${RG}/b5`, bodyPatterns: [{ matchesJsonPath: "$.things[?(@.name == 'RequiredThing')]" }] },
      response: ok(),
    });
    await stubbed(app, {
      request: { method: 'POST', urlPath: `${RG}/b6`, bodyPatterns: [{ matchesJsonPath: { expression: '$..todoItem', contains: 'wash' } }] },
      response: ok(),
    });
    await stubbed(app, {
      request: { method: 'POST', urlPath: `${RG}/b7`, bodyPatterns: [{ matchesJsonPath: { expression: '$.outer', equalToJson: '{"inner": 42}' } }] },
      response: ok(),
    });
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/b8`, bodyPatterns: [{ matchesJsonPath: '$[?(@.things.size() == 2)]' }] }, response: ok() });
    expect((await post(`${RG}/b4`, '{"name":"x"}')).statusCode).toBe(200);
    expect((await post(`${RG}/b4`, '{"price":15}')).statusCode).toBe(501);
    expect((await post(`${RG}/b5`, '{"things":[{"name":"RequiredThing"},{"name":"Wiremock"}]}')).statusCode).toBe(200);
    expect((await post(`${RG}/b5`, '{"things":[{"name":"Wiremock"}]}')).statusCode).toBe(501);
    expect((await post(`${RG}/b6`, '{"list":[{"todoItem":"dry"},{"todoItem":"wash the car"}]}')).statusCode).toBe(200);
    expect((await post(`${RG}/b6`, '{"list":[{"todoItem":"dry"}]}')).statusCode).toBe(501);
    expect((await post(`${RG}/b7`, '{"outer":{"inner":42}}')).statusCode).toBe(200);
    expect((await post(`${RG}/b8`, '{"things":[1,2]}')).statusCode).toBe(200);
    expect((await post(`${RG}/b8`, '{"things":[1]}')).statusCode).toBe(501);
  });

  it('matchesJsonPath gives its matcher a selected object with the numbers the body wrote otherwise as written', async () => {
    await stubbed(app, {
      request: { method: 'POST', urlPath: `${RG}/b9`, bodyPatterns: [{ matchesJsonPath: { expression: '$.o', contains: '"a":10.00' } }] },
      response: ok(),
    });
    expect((await post(`${RG}/b9`, '{"o":{"a":10.00}}')).statusCode).toBe(200);
    expect((await post(`${RG}/b9`, '{"o":{"a":10}}')).statusCode).toBe(501);
  });

  it('contains, matches and equalTo read the body as text, whatever its type', async () => {
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/b9`, bodyPatterns: [{ contains: 'grant_type=password' }, { matches: '.*username=[a-z]+.*' }] }, response: ok() });
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/b10`, bodyPatterns: [{ equalTo: '<nfe>1</nfe>' }] }, response: ok() });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await post(`${RG}/b9`, 'grant_type=password&username=ana&password=s3cret', form)).statusCode).toBe(200);
    expect((await post(`${RG}/b9`, 'grant_type=client&username=ana', form)).statusCode).toBe(501);
    expect((await post(`${RG}/b10`, '<nfe>1</nfe>', { 'content-type': 'application/xml' })).statusCode).toBe(200);
  });
});

describe('which mapping answers', () => {
  it('the lowest priority number first, then the mapping added last', async () => {
    await stubbed(app, { priority: 10, request: { method: 'GET', urlPathPattern: `${RG}/p/.*` }, response: ok(200, 'catch-all') });
    await stubbed(app, { priority: 1, request: { method: 'GET', urlPath: `${RG}/p/specific` }, response: ok(200, 'specific') });
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/p/twice` }, response: ok(200, 'first') });
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/p/twice` }, response: ok(200, 'second') });
    expect((await get(`${RG}/p/specific`)).body).toBe('specific');
    expect((await get(`${RG}/p/other`)).body).toBe('catch-all');
    expect((await get(`${RG}/p/twice`)).body).toBe('second');
  });
});

describe('answers', () => {
  it('status, reason phrase, headers as given (one or several values) and no Content-Type of its own', async () => {
    const [id] = await stubbed(app, {
      name: 'answer headers',
      request: { method: 'GET', urlPath: `${RG}/r1` },
      response: { status: 202, statusMessage: 'Queued', headers: { 'X-One': 'a', 'Set-Cookie': ['s=1', 't=2'] }, body: 'queued' },
    });
    const res = await get(`${RG}/r1`);
    expect(res.statusCode).toBe(202);
    expect(res.statusMessage).toBe('Queued');
    expect(res.headers['x-one']).toBe('a');
    expect(res.headers['set-cookie']).toEqual(['s=1', 't=2']);
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.headers['matched-stub-id']).toBe(id);
    expect(res.headers['matched-stub-name']).toBe('answer headers');
    expect(res.body).toBe('queued');
  });

  it('jsonBody is sent as compact JSON; base64Body as its bytes', async () => {
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/r2` }, response: { status: 200, headers: { 'Content-Type': 'application/json' }, jsonBody: { a: [1, 2], b: { c: null } } } });
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/r3` }, response: { status: 200, base64Body: Buffer.from([0, 1, 2, 255]).toString('base64') } });
    const json = await get(`${RG}/r2`);
    expect(json.body).toBe('{"a":[1,2],"b":{"c":null}}');
    expect(json.headers['content-type']).toBe('application/json');
    expect([...(await get(`${RG}/r3`)).rawPayload]).toEqual([0, 1, 2, 255]);
  });

  it('fixedDelayMilliseconds: the answer is not sent before the delay', async () => {
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/r4` }, response: { status: 200, fixedDelayMilliseconds: 150 } });
    const started = process.hrtime.bigint();
    expect((await get(`${RG}/r4`)).statusCode).toBe(200);
    // A lower bound (the delay was applied), never a speed expectation.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeGreaterThanOrEqual(150);
  });

  it("response-template renders WireMock's request model into the body and headers", async () => {
    await stubbed(app, {
      request: { method: 'POST', urlPathPattern: `${RG}/t/.*` },
      response: {
        status: 200,
        headers: { 'X-Echo': '{{request.headers.X-Request-Id}}' },
        body:
          '{{request.method}} {{{request.url}}} {{request.url}} {{request.path}} {{request.path.[3]}} {{request.query.a}} {{request.query.a.1}} {{request.query.a.last}} ' +
          '{{request.cookies.s}} {{jsonPath request.body \'$.n\'}} {{parameters.p}} {{request.scheme}} {{request.host}}',
        transformers: ['response-template'],
        transformerParameters: { p: 'param' },
      },
    });
    const res = await app.inject({
      method: 'POST',
      url: `${RG}/t/x?a=1&a=2&a=3`,
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-9', cookie: 's=abc; t=1' },
      payload: '{"n":5}',
    });
    expect(res.headers['x-echo']).toBe('r-9');
    // {{ }} escapes as Handlebars does (WireMock's engine too); {{{ }}} does not.
    expect(res.body).toBe(`POST ${RG}/t/x?a=1&a=2&a=3 ${RG}/t/x?a&#x3D;1&amp;a&#x3D;2&amp;a&#x3D;3 ${RG}/t/x dup 1 2 3 abc 5 param http localhost`);
  });
});

describe('a request no mapping matches', () => {
  it('gets the 501 with the closest mapping and every reason it did not match', async () => {
    const [id] = await stubbed(app, {
      name: 'batch query',
      request: {
        method: 'GET',
        urlPath: `${RG}/consultar_lote`,
        queryParameters: { chave: { matches: 'RM[A-Z0-9]+' } },
        headers: { Authorization: { matches: 'Bearer .+' } },
      },
      response: ok(),
    });
    const res = await get(`${RG}/consultar_lote?chave=xx`, { authorization: 'Basic c2VjcmV0' });
    expect(res.statusCode).toBe(501);
    const body = res.json() as { interface: string; nearestStub: { id: string; name: string; differences: string[] } };
    expect(body.interface).toBe('registry');
    expect(body.nearestStub.id).toBe(id);
    expect(body.nearestStub.name).toBe('batch query');
    expect(body.nearestStub.differences).toEqual([
      expect.stringContaining('query parameter chave'),
      expect.stringContaining('header authorization'),
    ]);
    // The credential sent is never echoed.
    expect(res.body).not.toContain('c2VjcmV0');
  });

  it('never quotes the value of a query parameter or header named like a secret, sent or expected, nor the journal', async () => {
    await stubbed(app, {
      name: 'balance',
      request: {
        method: 'GET',
        urlPath: `${RG}/saldo`,
        queryParameters: { api_key: { equalTo: 'MAPPING-KEY' }, pin: { equalTo: '0000' }, conta: { equalTo: '1' } },
        headers: { 'X-Client-Secret': { equalTo: 'MAPPING-SECRET' } },
      },
      response: ok(),
    });
    const res = await get(`${RG}/saldo?api_key=REQ-API-KEY&pin=4321&conta=2`, { 'x-client-secret': 'REQ-CLIENT-SECRET' });
    expect(res.statusCode).toBe(501);
    const differences = (res.json() as { nearestStub: { differences: string[] } }).nearestStub.differences;
    expect(differences).toEqual([
      'query parameter api_key (equalTo [redacted]): the value sent ([redacted]) does not fit',
      'query parameter pin (equalTo [redacted]): the value sent ([redacted]) does not fit',
      'query parameter conta (equalTo "1"): "2" is not equal to "1"',
      'header x-client-secret (equalTo [redacted]): the value sent ([redacted]) does not fit',
    ]);
    for (const value of ['REQ-API-KEY', '4321', 'REQ-CLIENT-SECRET', 'MAPPING-KEY', '0000', 'MAPPING-SECRET']) expect(res.body).not.toContain(value);
    const entry = (await get('/_sandbox/requests?limit=1')).body;
    for (const value of ['REQ-API-KEY', '4321', 'REQ-CLIENT-SECRET']) expect(entry).not.toContain(value);
  });

  it("never quotes a secret query value in the differences of a url rule's query string", async () => {
    await stubbed(app, { request: { method: 'GET', url: `${RG}/saldo-url?conta=1&token=MAPPING-TOKEN` }, response: ok() });
    const res = await get(`${RG}/saldo-url?conta=2&token=REQ-TOKEN`);
    expect(res.statusCode).toBe(501);
    expect((res.json() as { nearestStub: { differences: string[] } }).nearestStub.differences).toEqual([
      'the query string is "?conta=2&token=[redacted]"; the mapping\'s url has "?conta=1&token=[redacted]"',
    ]);
  });

  it("never quotes a secret of the mapping's equalToJson", async () => {
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/login-json`, bodyPatterns: [{ equalToJson: { user: 'ana', password: 'MAPPING-PW' } }] }, response: ok() });
    const res = await post(`${RG}/login-json`, '{"user":"bia","password":"REQ-PW"}');
    expect(res.statusCode).toBe(501);
    expect(res.body).toContain('equalToJson {\\"user\\":\\"ana\\",\\"password\\":\\"[redacted]\\"}');
    expect(res.body).not.toContain('MAPPING-PW');
    expect(res.body).not.toContain('REQ-PW');
  });

  it("never quotes a secret the mapping's own body patterns give: a form, a JSON fragment, a pattern, a JSONPath's matcher", async () => {
    // An app of its own: six reasons put this mapping farther than others of this file's.
    const alone = await buildApp({ db: ':memory:', logger: false });
    await stubbed(alone, {
      request: {
        method: 'POST',
        urlPath: `${RG}/token-form`,
        bodyPatterns: [
          { equalTo: 'grant_type=client_credentials&client_secret=MAP-SECRET-1' },
          { contains: '"token":"MAP-TOKEN-2"' },
          { matches: '.*"password"\\s*:\\s*"MAP-PW-3".*' },
          { doesNotContain: 'api_key=MAP-KEY-4' },
          { matchesJsonPath: { expression: '$.client_secret', equalTo: 'MAP-SECRET-5' } },
          { matchesJsonPath: "$[?(@.token == 'MAP-TOKEN-6')]" },
        ],
      },
      response: ok(),
    });
    const res = await alone.inject({
      method: 'POST',
      url: `${RG}/token-form`,
      payload: '{"client_secret":"REQ-SECRET","api_key=MAP-KEY-4":1}',
      headers: { 'content-type': 'application/json' },
    });
    await alone.close();
    expect(res.statusCode).toBe(501);
    const differences = (res.json() as { nearestStub: { differences: string[] } }).nearestStub.differences;
    expect(differences).toEqual([
      'body (equalTo "grant_type=client_credentials&client_secret=[redacted]"): the body is not equal to "grant_type=client_credentials&client_secret=[redacted]"',
      'body (contains "\\"token\\":\\"[redacted]\\""): the body does not contain "\\"token\\":\\"[redacted]\\""',
      'body (matches /.*"password"\\s*:\\s*"[redacted]".*/): the body does not match /.*"password"\\s*:\\s*"[redacted]".*/',
      'body (doesNotContain "api_key=[redacted]"): the body contains "api_key=[redacted]"',
      'body (matchesJsonPath $.client_secret equalTo [redacted]): $.client_secret selects a value that does not fit equalTo [redacted]',
      "body (matchesJsonPath $[?(@.token == '[redacted]')]): $[?(@.token == '[redacted]')] selects nothing in the body",
    ]);
    for (const value of ['MAP-SECRET-1', 'MAP-TOKEN-2', 'MAP-PW-3', 'MAP-KEY-4', 'MAP-SECRET-5', 'MAP-TOKEN-6', 'REQ-SECRET']) expect(res.body, value).not.toContain(value);
  });

  it('never quotes a secret a URL pattern gives', async () => {
    const alone = await buildApp({ db: ':memory:', logger: false });
    await stubbed(alone, { request: { method: 'GET', urlPattern: `${RG}/por-url\\?token=MAP-URL-TOKEN&n=.*` }, response: ok() });
    const res = await alone.inject({ method: 'GET', url: `${RG}/por-url?token=REQ-URL-TOKEN&n=1x` });
    await alone.close();
    expect(res.statusCode).toBe(501);
    expect((res.json() as { nearestStub: { differences: string[] } }).nearestStub.differences).toEqual([
      `the URL ${RG}/por-url?token=[redacted]&n=1x does not match urlPattern /${RG}/por-url\\?token=[redacted]&n=.*/`,
    ]);
  });

  it('is told what in its body differs, never the values of its secrets', async () => {
    await stubbed(app, {
      request: { method: 'POST', urlPath: `${RG}/login`, bodyPatterns: [{ equalToJson: { user: 'ana', password: '${json-unit.any-string}', mode: 'a' } }] },
      response: ok(),
    });
    const res = await post(`${RG}/login`, '{"user":"ana","password":"hunter2","mode":"b"}');
    expect(res.statusCode).toBe(501);
    const differences = (res.json() as { nearestStub: { differences: string[] } }).nearestStub.differences;
    expect(differences.join(' ')).toContain('/mode: expected "a", got "b"');
    expect(res.body).not.toContain('hunter2');
  });
});
