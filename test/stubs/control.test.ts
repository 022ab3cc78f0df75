// The control calls of user-defined operations over HTTP: adding (all or nothing, every problem named
// by its pointer), the refusal of a mapping that can only match a documented operation, listing and
// removing, the --stubs folder, reset and snapshots, scenarios, and isolation between workspaces.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detailPaths, tempFolder, testApp } from '../helpers.js';
import { addStubs, BK, RG, stubbed } from './helpers.js';

const get = (app: Awaited<ReturnType<typeof testApp>>, url: string) => app.inject({ method: 'GET', url });

describe('adding mappings', () => {
  it('refuses a malformed mapping naming every problem by its JSON pointer, and adds nothing', async () => {
    const app = await testApp();
    const res = await addStubs(app, {
      mappings: [
        { request: { method: 'GET', urlPath: `${RG}/ok` }, response: { status: 200 } },
        {
          priority: 0,
          request: {
            method: 'FETCH',
            urlPath: 'no-slash',
            urlPattern: '(unclosed',
            queryParameters: { a: { equalTo: 'x', contains: 'y' }, b: {} },
            bodyPatterns: [{ matches: '[' }, { equalToJson: '{not json' }, { matchesJsonPath: '$[?(' }],
            cookies: { s: { equalTo: '1' } },
          },
          response: { status: 200, body: '{{#if}}', jsonBody: {}, transformers: ['response-template', 'other'] },
          scenarioName: 'x',
        },
      ],
    });
    expect(res.statusCode).toBe(400);
    const paths = detailPaths(res);
    expect(paths).toEqual(
      expect.arrayContaining(['/mappings/1/priority', '/mappings/1/request/cookies']),
    );
    expect(res.json().details.find((d: { path: string }) => d.path === '/mappings/1/request/cookies').message).toContain(
      'WireMock feature this sandbox does not read',
    );
    // Fix the structural problems: the meaning is checked next, again every problem at once.
    const second = await addStubs(app, {
      mappings: [
        { request: { method: 'GET', urlPath: `${RG}/ok` }, response: { status: 200 } },
        {
          request: {
            method: 'FETCH',
            urlPath: 'no-slash',
            urlPattern: '(unclosed',
            queryParameters: { a: { equalTo: 'x', contains: 'y' }, b: {} },
            bodyPatterns: [{ matches: '[' }, { equalToJson: '{not json' }],
          },
          response: { status: 200, body: '{{#if}}', jsonBody: {}, transformers: ['response-template', 'other'] },
        },
      ],
    });
    expect(second.statusCode).toBe(400);
    expect(detailPaths(second)).toEqual(
      [
        '/mappings/1/request/method',
        '/mappings/1/request/urlPath',
        '/mappings/1/request/urlPattern',
        '/mappings/1/request/queryParameters/a',
        '/mappings/1/request/queryParameters/b',
        '/mappings/1/request/bodyPatterns/0/matches',
        '/mappings/1/request/bodyPatterns/1/equalToJson',
        '/mappings/1/response/transformers/1',
        '/mappings/1/response/jsonBody',
        '/mappings/1/response/body',
      ].sort(),
    );
    expect((await get(app, '/_sandbox/stubs')).json().meta.total).toBe(0);
  });

  it('refuses a matchesJsonPath that is not a JSONPath expression, naming it', async () => {
    const app = await testApp();
    for (const [matcher, at] of [
      ['$[', '/request/bodyPatterns/0/matchesJsonPath'],
      [{ expression: '$.things[?(@.name ==)]', contains: 'x' }, '/request/bodyPatterns/0/matchesJsonPath/expression'],
    ] as const) {
      const res = await addStubs(app, { request: { method: 'POST', urlPath: `${RG}/jp`, bodyPatterns: [{ matchesJsonPath: matcher }] }, response: { status: 200 } });
      expect(res.statusCode, JSON.stringify(matcher)).toBe(400);
      expect(res.json().details).toEqual([{ path: at, message: expect.stringMatching(/^is not a JSONPath expression: it /) }]);
    }
  });

  it('refuses a mapping that can only match a documented operation, naming it', async () => {
    const app = await testApp();
    for (const request of [
      { method: 'GET', urlPath: `${BK}/extract` },
      { method: 'GET', url: `${BK}/extract?page=2` },
      { method: 'PUT', urlPathTemplate: '/api/bookkeeping/integration/v1/{tenant}/trade-receivable-certificates/IUD-1/payment' },
      { method: 'POST', urlPathPattern: '/api/v1\\.0/service/dup/registrar_documentos' },
    ]) {
      const res = await addStubs(app, { request, response: { status: 200 } });
      expect(res.statusCode, JSON.stringify(request)).toBe(400);
      expect(res.json().details[0]).toMatchObject({ path: '/request', message: expect.stringMatching(/^can only match requests of (list-extract-requests|declare-payment|register-documents) /) });
    }
    // An unescaped "." matches any character: the pattern reaches beyond the documented path.
    expect((await addStubs(app, { request: { method: 'POST', urlPathPattern: `${RG}/registrar_documentos` }, response: {} })).statusCode).toBe(201);
  });

  it('accepts a mapping that could also match other requests: the documented operation keeps its own', async () => {
    const app = await testApp({ fixtures: 'fixtures/demo.json' });
    // GET .../{uid} also matches .../extract, which stays the documented extract list.
    await stubbed(app, {
      request: { method: 'GET', urlPathTemplate: '/api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/{uid}' },
      response: { status: 200, jsonBody: { uid: 'from the mapping' } },
    });
    // PUT .../extract/payment is no trade bill's payment: the mapping may answer it.
    await stubbed(app, { request: { method: 'PUT', urlPath: `${BK}/extract/payment` }, response: { status: 202 } });
    // ANY on the extract path: its GET stays documented.
    await stubbed(app, { request: { method: 'ANY', urlPath: `${BK}/extract` }, response: { status: 418 } });
    const auth = { authorization: 'Bearer bk-demo-token-7' };
    expect((await app.inject({ method: 'GET', url: `${BK}/IUD-0001`, headers: auth })).json()).toEqual({ uid: 'from the mapping' });
    const extract = await app.inject({ method: 'GET', url: `${BK}/extract`, headers: auth });
    expect(extract.statusCode).toBe(200);
    expect(extract.json()).toHaveProperty('pagination');
    expect((await app.inject({ method: 'PUT', url: `${BK}/extract/payment` })).statusCode).toBe(202);
    expect((await app.inject({ method: 'POST', url: `${BK}/extract` })).statusCode).toBe(418);
  });

  it('adds several at once, lists them in the order they are tried, replaces one by its id and removes', async () => {
    const app = await testApp();
    const res = await addStubs(app, {
      mappings: [
        { id: 'low', priority: 9, request: { urlPath: `${RG}/a` }, response: { status: 200 } },
        { id: 'high', priority: 1, request: { urlPath: `${RG}/b` }, response: { status: 200 }, metadata: { sandbox: { operation: 'batch-query' } } },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().mappings[1]).toMatchObject({ id: 'high', sandbox: { source: 'runtime', interface: 'registry', operation: 'batch-query' } });
    const listed = (await get(app, '/_sandbox/stubs')).json();
    expect(listed.mappings.map((m: { id: string }) => m.id)).toEqual(['high', 'low']);
    expect(listed.meta).toEqual({ total: 2 });
    const again = await addStubs(app, { id: 'low', request: { urlPath: `${RG}/c` }, response: { status: 201 } });
    expect(again.json().replaced).toEqual(['low']);
    expect((await get(app, '/_sandbox/stubs/low')).json().request).toEqual({ urlPath: `${RG}/c` });
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/stubs/low' })).json()).toEqual({ removed: 1 });
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/stubs/low' })).statusCode).toBe(404);
    expect((await get(app, '/_sandbox/stubs/low')).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/stubs' })).json()).toEqual({ removed: 1 });
  });

  it('refuses a binding to an operation that is documented or unknown', async () => {
    const app = await testApp();
    const documented = await addStubs(app, { request: { urlPath: `${RG}/x` }, response: {}, metadata: { sandbox: { operation: 'register-documents' } } });
    expect(documented.json().details[0]).toMatchObject({ path: '/metadata/sandbox/operation', message: expect.stringContaining('documented operation') });
    const unknown = await addStubs(app, { request: { urlPath: `${RG}/x` }, response: {}, metadata: { sandbox: { operation: 'nope' } } });
    expect(unknown.json().details[0].path).toBe('/metadata/sandbox/operation');
    const elsewhere = await addStubs(app, { request: { urlPath: `${RG}/x` }, response: {}, metadata: { sandbox: { operation: 'login' } } });
    expect(elsewhere.json().details[0].message).toContain('belongs to bookkeeping');
  });
});

function stubFolder(): string {
  const dir = tempFolder('stubs-');
  mkdirSync(join(dir, 'mappings'));
  mkdirSync(join(dir, '__files'));
  writeFileSync(join(dir, '__files', 'batch.json'), '{"status":"{{request.query.chave}}"}');
  writeFileSync(
    join(dir, 'mappings', 'batch.json'),
    JSON.stringify({
      id: 'folder-batch',
      request: { method: 'GET', urlPath: `${RG}/lote` },
      response: { status: 200, bodyFileName: 'batch.json', transformers: ['response-template'] },
    }),
  );
  return dir;
}

describe('the --stubs folder, reset and snapshots', () => {
  it('serves the folder in every workspace; reset removes the mappings added at run time and keeps the folder', async () => {
    const app = await testApp({ stubs: stubFolder() });
    await stubbed(app, { id: 'runtime-one', request: { urlPath: `${RG}/extra` }, response: { status: 200 } });
    expect((await get(app, `${RG}/lote?chave=RM1`)).body).toBe('{"status":"RM1"}');
    expect((await get(app, `/ws/w1${RG}/lote?chave=RM2`)).body).toBe('{"status":"RM2"}');
    expect((await get(app, '/_sandbox/stubs/folder-batch')).json().sandbox).toMatchObject({ source: 'folder', file: 'mappings/batch.json' });
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/stubs/folder-batch' })).statusCode).toBe(400);
    await app.inject({ method: 'POST', url: '/_sandbox/reset' });
    const ids = (await get(app, '/_sandbox/stubs')).json().mappings.map((m: { id: string }) => m.id);
    expect(ids).toEqual(['folder-batch']);
    expect((await get(app, `${RG}/extra`)).statusCode).toBe(501);
  });

  it('refuses a framing or hop-by-hop response header, in any case, naming it and the rule', async () => {
    const app = await testApp();
    const owned = ['Transfer-Encoding', 'content-length', 'Connection', 'Keep-Alive', 'Upgrade', 'Trailer', 'TE', 'Proxy-Connection'];
    const res = await addStubs(app, {
      mappings: owned.map((name, i) => ({ request: { method: 'GET', urlPath: `${RG}/h${i}` }, response: { status: 200, headers: { [name]: name === 'content-length' ? '5' : 'chunked' }, body: 'hi' } })),
    });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(owned.map((name, i) => `/mappings/${i}/response/headers/${name}`).sort());
    for (const d of res.json().details as Array<{ message: string }>) expect(d.message).toMatch(/the sandbox writes it/);
    expect((await get(app, '/_sandbox/stubs')).json().meta.total).toBe(0);
    // Other headers, Content-Type and Content-Encoding among them, are the mapping's to give.
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/fine` }, response: { status: 200, headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'identity' }, body: 'hi' } });
    expect((await get(app, `${RG}/fine`)).body).toBe('hi');
  });

  it('stops the start on a folder mapping that sets Transfer-Encoding, naming the file and the pointer', async () => {
    const dir = stubFolder();
    writeFileSync(join(dir, 'mappings', 'framed.json'), JSON.stringify({ request: { method: 'GET', urlPath: `${RG}/framed` }, response: { status: 200, headers: { 'Transfer-Encoding': 'chunked' }, body: 'hi' } }));
    await expect(testApp({ stubs: dir })).rejects.toThrow(/mappings\/framed\.json: \/response\/headers\/Transfer-Encoding: /);
  });

  it('stops the start on a folder mapping with a problem, naming the file and the pointer', async () => {
    const dir = stubFolder();
    writeFileSync(join(dir, 'mappings', 'broken.json'), JSON.stringify({ request: { method: 'GET', urlPath: `${BK}/extract` }, response: { bodyFileName: '../../etc/passwd' } }));
    await expect(testApp({ stubs: dir })).rejects.toThrow(/mappings\/broken\.json: \/response\/bodyFileName: must be a path under the folder's __files/);
  });

  it('a snapshot holds the mappings added and the scenario states; restoring puts them back', async () => {
    const app = await testApp();
    await stubbed(app, { id: 'kept', scenarioName: 's', newScenarioState: 'moved', request: { urlPath: `${RG}/kept` }, response: { status: 200 } });
    await get(app, `${RG}/kept`);
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'base' } });
    await app.inject({ method: 'DELETE', url: '/_sandbox/stubs' });
    await stubbed(app, { id: 'later', request: { urlPath: `${RG}/later` }, response: { status: 200 } });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots/base/restore' });
    expect((await get(app, '/_sandbox/stubs')).json().mappings.map((m: { id: string }) => m.id)).toEqual(['kept']);
    expect((await get(app, '/_sandbox/scenarios')).json().scenarios).toEqual([{ name: 's', state: 'moved', possibleStates: ['Started', 'moved'] }]);
  });
});

describe('scenarios', () => {
  const todo = [
    { scenarioName: 'To do list', requiredScenarioState: 'Started', request: { method: 'GET', url: `${RG}/todo` }, response: { status: 200, body: 'milk' } },
    {
      scenarioName: 'To do list',
      requiredScenarioState: 'Started',
      newScenarioState: 'Cancel newspaper item added',
      request: { method: 'POST', url: `${RG}/todo`, bodyPatterns: [{ contains: 'Cancel newspaper subscription' }] },
      response: { status: 201 },
    },
    { scenarioName: 'To do list', requiredScenarioState: 'Cancel newspaper item added', request: { method: 'GET', url: `${RG}/todo` }, response: { status: 200, body: 'milk, newspaper' } },
  ];

  it('move as mappings answer, per workspace; reset, PUT and POST .../reset put them back', async () => {
    const app = await testApp();
    await stubbed(app, { mappings: todo });
    await stubbed(app, { mappings: todo }, '/ws/other');
    const list = async (base = '') => (await get(app, `${base}${RG}/todo`)).body;
    expect(await list()).toBe('milk');
    const posted = await app.inject({ method: 'POST', url: `${RG}/todo`, payload: 'Cancel newspaper subscription', headers: { 'content-type': 'text/plain' } });
    expect(posted.statusCode).toBe(201);
    expect(await list()).toBe('milk, newspaper');
    expect(await list('/ws/other')).toBe('milk');
    expect((await get(app, '/_sandbox/scenarios')).json().scenarios[0]).toEqual({
      name: 'To do list',
      state: 'Cancel newspaper item added',
      possibleStates: ['Started', 'Cancel newspaper item added'],
    });
    expect((await app.inject({ method: 'POST', url: '/_sandbox/scenarios/reset' })).json()).toEqual({ reset: 1 });
    expect(await list()).toBe('milk');
    const put = await app.inject({ method: 'PUT', url: '/_sandbox/scenarios/To%20do%20list/state', payload: { state: 'Cancel newspaper item added' } });
    expect(put.json().state).toBe('Cancel newspaper item added');
    expect(await list()).toBe('milk, newspaper');
    expect((await app.inject({ method: 'PUT', url: '/_sandbox/scenarios/nope/state' })).statusCode).toBe(404);
  });
});

describe('workspaces', () => {
  it('keep their mappings to themselves', async () => {
    const app = await testApp();
    await stubbed(app, { request: { urlPath: `${RG}/mine` }, response: { status: 200, body: 'w1' } }, '/ws/w1');
    expect((await get(app, `/ws/w1${RG}/mine`)).body).toBe('w1');
    expect((await get(app, `/ws/w2${RG}/mine`)).statusCode).toBe(501);
    expect((await get(app, `${RG}/mine`)).statusCode).toBe(501);
    expect((await get(app, '/ws/w2/_sandbox/stubs')).json().meta.total).toBe(0);
  });
});
