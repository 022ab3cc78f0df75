// What a mapping's answer may hold on the wire: a final status, a reason phrase and header values an
// HTTP/1.1 message can carry (RFC 9112), refused when the mapping is added; and, whatever a mapping
// read from an older database or a template renders, an answer that never takes the server down.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { readMapping, type Stub } from '../../src/stubs/mapping.js';
import type { RequestView } from '../../src/stubs/match.js';
import { renderAnswer } from '../../src/stubs/respond.js';
import { templateHelpers, TemplateError } from '../../src/runtime/templates.js';
import { tempFolder, testApp } from '../helpers.js';
import { addStubs, RG, stubbed } from './helpers.js';

const details = (res: { json(): unknown }) => (res.json() as { details: Array<{ path: string; message: string }> }).details;

async function refused(app: FastifyInstance, response: Record<string, unknown>, path: string, rule: RegExp): Promise<void> {
  const res = await addStubs(app, { request: { method: 'GET', urlPath: `${RG}/answer` }, response });
  expect(res.statusCode, res.body).toBe(400);
  const found = details(res).find((d) => d.path === path);
  expect(found, res.body).toBeDefined();
  expect(found?.message).toMatch(rule);
}

describe('a mapping whose answer cannot be sent is refused when it is added', () => {
  it('refuses a reason phrase with a character above U+00FF or a control character, naming the rule', async () => {
    const app = await testApp();
    await refused(app, { status: 200, statusMessage: 'Tudo certo ✓' }, '/response/statusMessage', /HTAB, SP, visible ASCII.*obs-text/);
    await refused(app, { status: 200, statusMessage: 'a\u0001b' }, '/response/statusMessage', /RFC 9112/);
    await refused(app, { status: 200, statusMessage: 'a\u007fb' }, '/response/statusMessage', /RFC 9112/);
    // Latin-1 letters are obs-text, which a reason phrase may carry.
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/latin` }, response: { status: 200, statusMessage: 'Tudo certo, ação' } });
    const res = await app.inject({ method: 'GET', url: `${RG}/latin` });
    expect(res.statusCode).toBe(200);
    expect(res.statusMessage).toBe('Tudo certo, ação');
  });

  it('refuses a static header value that a header cannot carry, and an empty Content-Type', async () => {
    const app = await testApp();
    await refused(app, { status: 200, headers: { 'X-Price': '€ 10' } }, '/response/headers/X-Price', /HTAB, SP, visible ASCII.*obs-text/);
    await refused(app, { status: 200, headers: { 'X-Many': ['ok', 'tab\u0001'] } }, '/response/headers/X-Many/1', /RFC 9112/);
    await refused(app, { status: 200, headers: { 'Content-Type': '' } }, '/response/headers/Content-Type', /media type/);
    await refused(app, { status: 200, headers: { 'content-type': '  ' } }, '/response/headers/content-type', /media type/);
  });

  it('refuses an informational (1xx) status: it is no final answer, and the client would wait forever', async () => {
    const app = await testApp();
    for (const status of [100, 101, 103, 199]) await refused(app, { status }, '/response/status', /1xx.*200 to 599/);
    // Outside every status, the range is stated as docs/stubs.md gives it.
    for (const status of [42, 99, 600]) await refused(app, { status }, '/response/status', /^must be from 200 to 599$/);
    await stubbed(app, { request: { method: 'GET', urlPath: `${RG}/two` }, response: { status: 204 } });
    expect((await app.inject({ method: 'GET', url: `${RG}/two` })).statusCode).toBe(204);
  });

  it('refuses a url or urlPath holding a character a request path cannot carry unencoded, such as a space', async () => {
    const app = await testApp();
    for (const key of ['urlPath', 'url']) {
      const res = await addStubs(app, { request: { method: 'POST', [key]: `${RG}/sp ace` }, response: { status: 200 } });
      expect(res.statusCode, res.body).toBe(400);
      expect(details(res)).toEqual([{ path: `/request/${key}`, message: expect.stringMatching(/percent-encoded.*%20/) }]);
    }
    // Written percent-encoded, as the client sends it, it matches.
    await stubbed(app, { request: { method: 'POST', urlPath: `${RG}/sp%20ace` }, response: { status: 200, body: 'matched' } });
    expect((await app.inject({ method: 'POST', url: `${RG}/sp%20ace` })).body).toBe('matched');
  });
});

const VIEW: RequestView = {
  method: 'GET',
  url: '/x?q=x',
  path: '/x',
  query: new Map([['q', ['x']]]),
  headers: new Map(),
  rawHeaders: [],
  body: Buffer.alloc(0),
  text: '',
  host: 'localhost',
  port: 80,
  scheme: 'http',
  base: '',
  clientIp: '127.0.0.1',
  id: 'req-1',
};

function stubOf(mapping: object): Stub {
  const result = readMapping(mapping, '', { source: 'runtime', operations: [], interfaceOfPath: () => null, newId: () => 'm-1' });
  if (!('stub' in result)) throw new Error(JSON.stringify(result.problems));
  return result.stub;
}

const helpers = templateHelpers({ clock: { nowMs: () => 0 }, ids: { randomText: (n) => 'a'.repeat(n) } });

describe('an answer that cannot be sent is a template error, never a crash', () => {
  it('fails the render of a mapping read before these rules (an older database), naming the part', () => {
    const stub = stubOf({ request: { urlPath: '/x' }, response: { status: 200, statusMessage: 'OK', headers: { 'X-Ok': 'fine' } } });
    stub.response.statusMessage = 'Tudo certo ✓';
    expect(() => renderAnswer(stub, VIEW, {}, helpers)).toThrow(TemplateError);
    expect(() => renderAnswer(stub, VIEW, {}, helpers)).toThrow(/statusMessage/);
    stub.response.statusMessage = 'OK';
    stub.response.headers = [['X-Price', '€ 10']];
    expect(() => renderAnswer(stub, VIEW, {}, helpers)).toThrow(/header X-Price/);
    stub.response.headers = [['X-Ok', 'fine']];
    expect(renderAnswer(stub, VIEW, {}, helpers).headers).toContainEqual(['X-Ok', 'fine']);
  });

  it('answers the documented template error, naming the mapping and the header, when a client sends a character a header cannot carry', async () => {
    const app = await testApp();
    await stubbed(app, {
      id: 'echo-header',
      name: 'echo',
      request: { method: 'GET', urlPath: `${RG}/echo` },
      response: { status: 200, statusMessage: 'OK', headers: { 'X-Echo': '{{request.query.q}}' }, body: 'ok', transformers: ['response-template'] },
    });
    for (const q of ['%E2%82%AC', '%F0%9F%9A%80']) {
      const res = await app.inject({ method: 'GET', url: `${RG}/echo?q=${q}` });
      expect(res.statusCode).toBe(500);
      expect(res.statusMessage).toBe('Internal Server Error');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatch(/echo-header \(echo\) could not render its response: the header X-Echo renders a character/);
      expect(res.body).not.toContain('€');
    }
    // Latin-1 is obs-text, and is sent.
    const ok = await app.inject({ method: 'GET', url: `${RG}/echo?q=%C3%A7` });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-echo']).toBe('ç');
  });

  it('sends Matched-Stub-Name as WireMock (Jetty) writes it: Latin-1 as its byte, any other character as a space', async () => {
    const app = await testApp();
    await stubbed(app, { name: 'cobrança ção ✓\u0001', request: { method: 'GET', urlPath: `${RG}/name` }, response: { status: 200 } });
    const res = await app.inject({ method: 'GET', url: `${RG}/name` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['matched-stub-name']).toBe('cobrança ção   ');
  });
});

describe('the --stubs folder', () => {
  function folder(files: Record<string, string>): string {
    const dir = tempFolder('sandbox-answers-');
    mkdirSync(join(dir, 'mappings'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, 'mappings', name), content);
    return dir;
  }

  it('reads a mapping file that starts with a UTF-8 byte order mark, as WireMock does', async () => {
    const dir = folder({ 'bom.json': `\uFEFF${JSON.stringify({ request: { method: 'GET', urlPath: `${RG}/bom` }, response: { status: 200, body: 'bom ok' } })}` });
    const app = await testApp({ stubs: dir });
    expect((await app.inject({ method: 'GET', url: `${RG}/bom` })).body).toBe('bom ok');
  });

  it('names the file, line and column of a file that is not JSON', async () => {
    const dir = folder({ 'broken.json': '{\n  "request": {"urlPath": "/x"},\n  "response": {"status": 200,}\n}' });
    await expect(testApp({ stubs: dir })).rejects.toThrow(/mappings\/broken\.json: not JSON at line 3, column \d+/);
  });
});
