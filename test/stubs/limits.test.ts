// The bounds of user-defined operations: how deep a mapping's JSON and a client's body are read,
// numbers kept as written, how many mappings a workspace holds, how far the search for the nearest
// mapping goes, and GET /_sandbox/stubs in pages.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/domain/json-depth.js';
import { PAGE_BYTES } from '../../src/http/paging.js';
import { MAX_MAPPINGS_PER_CALL, MAX_MAPPINGS_PER_WORKSPACE, NEAREST_BUDGET } from '../../src/stubs/stub-set.js';
import type { RequestView } from '../../src/stubs/match.js';
import { testApp } from '../helpers.js';
import { addStubs, RG, stubbed } from './helpers.js';

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const postText = (app: FastifyInstance, url: string, payload: string) =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('JSON nested deeper than the sandbox reads', () => {
  it('refuses a mapping whose jsonBody or equalToJson nests too deep with a 400 naming the pointer and the limit', async () => {
    const app = await testApp();
    const body = await postText(app, '/_sandbox/stubs', `{"request":{"urlPath":"/deepbody"},"response":{"status":200,"jsonBody":${nested(5000)}}}`);
    expect(body.statusCode).toBe(400);
    const [detail] = body.json().details as Array<{ path: string; message: string }>;
    // The mapping object, response and jsonBody's own array are three levels: the first one too deep is the next.
    expect(detail?.path).toBe(`/response/jsonBody${'/0'.repeat(MAX_JSON_DEPTH - 2)}`);
    expect(detail?.message).toContain(String(MAX_JSON_DEPTH));
    const eq = await postText(app, '/_sandbox/stubs', `{"request":{"urlPath":"/deepeq","bodyPatterns":[{"equalToJson":${nested(5000)}}]},"response":{"status":200}}`);
    expect(eq.statusCode).toBe(400);
    expect(eq.json().details[0].path).toMatch(/^\/request\/bodyPatterns\/0\/equalToJson(\/0)+$/);
    // In a list, the pointer starts at the mapping's place.
    const listed = await postText(app, '/_sandbox/stubs', `{"mappings":[{"request":{"urlPath":"/ok"}},{"request":{"urlPath":"/d"},"response":{"jsonBody":${nested(100)}}}]}`);
    expect(listed.statusCode).toBe(400);
    expect(listed.json().details[0].path).toMatch(/^\/mappings\/1\/response\/jsonBody\/0/);
    // Exactly at the limit is read.
    const fits = await postText(app, '/_sandbox/stubs', `{"request":{"urlPath":"/fits"},"response":{"status":200,"jsonBody":${nested(MAX_JSON_DEPTH - 2)}}}`);
    expect(fits.statusCode, fits.body).toBe(201);
    expect((await app.inject({ url: '/fits' })).body).toBe(nested(MAX_JSON_DEPTH - 2));
  });

  it('reads a client body nested too deep as no JSON for the JSON patterns, and says so in the nearest mapping, never a 500', async () => {
    const app = await testApp();
    await stubbed(app, { id: 'jp', request: { urlPath: '/jp', bodyPatterns: [{ matchesJsonPath: '$..id' }] }, response: { status: 200 } });
    await stubbed(app, { id: 'eq', request: { urlPath: `${RG}/eq`, bodyPatterns: [{ equalToJson: { id: 1 } }] }, response: { status: 200 } });
    const deep = nested(20000, '{"id":1}');
    for (const url of ['/jp', '/some/other/path', `${RG}/consultar`, `${RG}/eq`]) {
      const res = await postText(app, url, deep);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(url.startsWith(RG) ? 501 : 404);
      const differences = (res.json().nearestStub?.differences ?? []) as string[];
      if (url === '/jp' || url === `${RG}/eq`) expect(differences.join('; ')).toContain(`nests arrays and objects deeper than ${MAX_JSON_DEPTH}`);
    }
    // The same body within the limit matches.
    expect((await postText(app, '/jp', nested(10, '{"id":1}'))).statusCode).toBe(200);
  });

  it('stops the start on a --stubs file nesting too deep, naming the file and the pointer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stubs-deep-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'mappings'));
    writeFileSync(join(dir, 'mappings', 'deep.json'), `{"request":{"urlPath":"/d"},"response":{"jsonBody":${nested(5000)}}}`);
    await expect(testApp({ stubs: dir })).rejects.toThrow(/mappings\/deep\.json: \/response\/jsonBody\/0\/0.*deeper than 64/);
  });
});

describe('numbers of a mapping, as written', () => {
  it('sends a jsonBody number a double would change digit for digit, and shows it so', async () => {
    const app = await testApp();
    const [id] = await stubbed(app, { request: { urlPath: '/n' }, response: { status: 200, jsonBody: { valor: 1500.5, id: 0 } } });
    // JSON text: the id is 20 digits, more than a double keeps.
    await postText(app, '/_sandbox/stubs', `{"id":"${id}","request":{"urlPath":"/n"},"response":{"status":200,"jsonBody":{"valor":1500.5,"id":12345678901234567890,"tiny":1e-400}}}`);
    expect((await app.inject({ url: '/n' })).body).toBe('{"valor":1500.5,"id":12345678901234567890,"tiny":1e-400}');
    expect((await app.inject({ url: `/_sandbox/stubs/${id}` })).body).toContain('"id":12345678901234567890');
  });

  it('sends and shows a jsonBody number a double would only write otherwise (1.10, 1E+2, -0) as written', async () => {
    const app = await testApp();
    const mapping = '{"id":"spelled","request":{"urlPath":"/spelled"},"response":{"status":200,"jsonBody":{"valor":1.10,"n":1E+2,"z":-0,"list":[2.50]}}}';
    expect((await postText(app, '/_sandbox/stubs', mapping)).statusCode).toBe(201);
    const sent = '{"valor":1.10,"n":1E+2,"z":-0,"list":[2.50]}';
    expect((await app.inject({ url: '/spelled' })).body).toBe(sent);
    expect((await app.inject({ url: '/_sandbox/stubs/spelled' })).body).toContain(`"jsonBody":${sent}`);
    expect((await app.inject({ url: '/_sandbox/stubs' })).body).toContain(`"jsonBody":${sent}`);
  });

  it('sends and shows a --stubs file\'s jsonBody numbers as the file writes them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stubs-spelled-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'mappings'));
    writeFileSync(join(dir, 'mappings', 'spelled.json'), '{"request":{"urlPath":"/spelled"},"response":{"status":200,"jsonBody":{"valor":1.10,"n":1E+2}}}');
    const app = await testApp({ stubs: dir });
    expect((await app.inject({ url: '/spelled' })).body).toBe('{"valor":1.10,"n":1E+2}');
    expect((await app.inject({ url: '/_sandbox/stubs' })).body).toContain('"jsonBody":{"valor":1.10,"n":1E+2}');
  });

  it('still compares equalToJson numbers written otherwise by their values', async () => {
    const app = await testApp();
    await postText(app, '/_sandbox/stubs', '{"request":{"urlPath":"/v","bodyPatterns":[{"equalToJson":{"n":1E+2,"v":1.10}}]},"response":{"status":201}}');
    expect((await postText(app, '/v', '{"n":100,"v":1.1}')).statusCode).toBe(201);
    expect((await postText(app, '/v', '{"n":1e2,"v":1.100}')).statusCode).toBe(201);
    expect((await postText(app, '/v', '{"n":101,"v":1.1}')).statusCode).toBe(404);
  });

  it('compares equalToJson numbers by their exact decimal value', async () => {
    const app = await testApp();
    await postText(app, '/_sandbox/stubs', '{"request":{"urlPath":"/e","bodyPatterns":[{"equalToJson":{"id":12345678901234567890}}]},"response":{"status":201}}');
    await postText(app, '/_sandbox/stubs', '{"request":{"urlPath":"/s","bodyPatterns":[{"equalToJson":"{\\"id\\":12345678901234567890}"}]},"response":{"status":201}}');
    for (const url of ['/e', '/s']) {
      expect((await postText(app, url, '{"id":12345678901234567891}')).statusCode).toBe(404);
      expect((await postText(app, url, '{"id":12345678901234567000}')).statusCode).toBe(404);
      expect((await postText(app, url, '{"id":12345678901234567890}')).statusCode).toBe(201);
      expect((await postText(app, url, '{"id":1234567890123456789e1}')).statusCode).toBe(201);
    }
    const near = await postText(app, '/e', '{"id":12345678901234567891}');
    expect(near.json().nearestStub.differences.join(' ')).toContain('expected 12345678901234567890');
    // Under a JSONPath, the selected value keeps its numbers as the body wrote them.
    await postText(app, '/_sandbox/stubs', '{"request":{"urlPath":"/p","bodyPatterns":[{"matchesJsonPath":{"expression":"$.item","equalToJson":{"id":12345678901234567890}}}]},"response":{"status":201}}');
    expect((await postText(app, '/p', '{"item":{"id":12345678901234567890}}')).statusCode).toBe(201);
    expect((await postText(app, '/p', '{"item":{"id":12345678901234567891}}')).statusCode).toBe(404);
    await stubbed(app, { request: { urlPath: '/one', bodyPatterns: [{ equalToJson: { a: 1 } }] }, response: { status: 201 } });
    expect((await postText(app, '/one', '{"a":1.0}')).statusCode).toBe(201);
  });
});

describe('how many mappings a workspace holds', () => {
  it('refuses a mapping beyond the limit with a 409 naming it; replacing one is no addition', async () => {
    const app = await testApp();
    const batch = (from: number, count: number) => ({
      mappings: Array.from({ length: count }, (_, i) => ({ id: `m-${from + i}`, request: { urlPath: `/many/${from + i}` }, response: { status: 200 } })),
    });
    for (let from = 0; from < MAX_MAPPINGS_PER_WORKSPACE; from += MAX_MAPPINGS_PER_CALL) {
      const res = await addStubs(app, batch(from, Math.min(MAX_MAPPINGS_PER_CALL, MAX_MAPPINGS_PER_WORKSPACE - from)));
      expect(res.statusCode).toBe(201);
    }
    const over = await addStubs(app, batch(MAX_MAPPINGS_PER_WORKSPACE, 1));
    expect(over.statusCode).toBe(409);
    expect(over.json().message).toContain(String(MAX_MAPPINGS_PER_WORKSPACE));
    expect((await addStubs(app, batch(0, 1))).statusCode).toBe(201);
    // Another workspace has its own.
    expect((await addStubs(app, batch(0, 1), '/ws/other')).statusCode).toBe(201);
  });

  it('compares at most a budget of mappings in full to find the nearest one', async () => {
    const app = await testApp();
    // Every mapping has the request's method and URL, so none can be set aside by them alone.
    const mappings = Array.from({ length: 1000 }, (_, i) => ({
      request: { method: 'POST', urlPath: '/same', headers: { 'X-A': { equalTo: `v${i}` } }, bodyPatterns: [{ matchesJsonPath: '$..c' }] },
      response: { status: 200 },
    }));
    await stubbed(app, { mappings });
    const view: RequestView = {
      method: 'POST', url: '/same', path: '/same', query: new Map(), headers: new Map([['x-a', ['nope']]]), rawHeaders: ['X-A', 'nope'],
      body: Buffer.from('{"c":1}'), text: '{"c":1}', host: 'localhost', port: 80, scheme: 'http', base: '', clientIp: '127.0.0.1', id: 'r1',
    };
    const found = app.userOperations.stubs.find(app.runtime, view);
    expect(found.stub).toBeNull();
    if (found.stub !== null) return;
    expect(found.nearest?.differences.join(' ')).toContain('header x-a');
    expect(found.compared).toBeLessThanOrEqual(NEAREST_BUDGET);
    expect(found.compared).toBeGreaterThan(0);
    // The request that fits one of them still finds it, however far down the list.
    const fits = app.userOperations.stubs.find(app.runtime, { ...view, headers: new Map([['x-a', ['v3']]]) });
    expect(fits.stub?.request.headers[0]?.[1].text).toBe('equalTo "v3"');
  });
});

describe('GET /_sandbox/stubs in pages', () => {
  it('answers limit mappings a page, in the order they are tried, with nextCursor to the next page', async () => {
    const app = await testApp();
    await stubbed(app, { mappings: Array.from({ length: 150 }, (_, i) => ({ id: `p-${i}`, priority: 1 + (i % 3), request: { urlPath: `/p/${i}` } })) });
    const first = (await app.inject({ url: '/_sandbox/stubs' })).json();
    expect(first.mappings).toHaveLength(100);
    expect(first.meta.total).toBe(150);
    expect(typeof first.nextCursor).toBe('string');
    const second = (await app.inject({ url: `/_sandbox/stubs?cursor=${first.nextCursor}` })).json();
    expect(second.mappings).toHaveLength(50);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.mappings, ...second.mappings].map((m: { id: string }) => m.id);
    expect(new Set(ids).size).toBe(150);
    const priorities = [...first.mappings, ...second.mappings].map((m: { priority: number }) => m.priority);
    expect(priorities).toEqual([...priorities].sort((a, b) => a - b));
    const small = (await app.inject({ url: '/_sandbox/stubs?limit=7' })).json();
    expect(small.mappings.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, 7));
    expect((await app.inject({ url: '/_sandbox/stubs?cursor=bogus' })).statusCode).toBe(400);
  });

  it('stops a page before its mappings take more than PAGE_BYTES of JSON', async () => {
    const app = await testApp();
    const text = 'x'.repeat(100_000);
    await stubbed(app, { mappings: Array.from({ length: 15 }, (_, i) => ({ request: { urlPath: `/big/${i}` }, response: { body: text } })) });
    const first = await app.inject({ url: '/_sandbox/stubs' });
    expect(first.body.length).toBeLessThan(PAGE_BYTES + 10_000);
    const page = first.json();
    expect(page.mappings.length).toBeLessThan(15);
    const rest = (await app.inject({ url: `/_sandbox/stubs?cursor=${page.nextCursor}` })).json();
    expect(page.mappings.length + rest.mappings.length).toBe(15);
  });
});
