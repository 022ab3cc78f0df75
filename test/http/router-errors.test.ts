// The router's own refusals answer in the interface's shape with a documented status.
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';

const EXTRACT = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';

describe('refusals of the router itself', () => {
  it('answers a path segment over 500 characters with the interface\'s 400, not a 414', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'PUT',
      url: `/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/${'u'.repeat(600)}/payment`,
      headers: { authorization: 'Bearer bk-token-1' },
      payload: {},
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', details: [] });
    expect(res.json().message).toMatch(/longer than 500/);
  });

  it('answers broken percent-encoding under /v1 in the receivables envelope', async () => {
    const app = await testApp();
    const res = await app.inject({ method: 'POST', url: '/v1/import-cnab%', payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'ValidationError', message: expect.any(String), target: null } });
  });

  it('answers HEAD like GET without a body wherever GET is served: documented operations, health, control GETs, OpenAPI', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const auth = { authorization: 'Bearer bk-token-1' };
    const urls: Array<[string, Record<string, string>]> = [
      [EXTRACT, auth],
      [`${EXTRACT}?desc=yes`, auth],
      [EXTRACT, {}],
      ['/_sandbox/health', {}],
      ['/_sandbox/requests', {}],
      ['/openapi.json', {}],
    ];
    for (const [url, headers] of urls) {
      const get = await app.inject({ method: 'GET', url, headers });
      const head = await app.inject({ method: 'HEAD', url, headers });
      expect(head.statusCode, url).toBe(get.statusCode);
      expect(head.headers['content-type'], url).toBe(get.headers['content-type']);
      expect(head.body, url).toBe('');
    }
  });

  it('still answers HEAD on a path only other methods serve with the 501 of an undocumented method', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'HEAD', url: '/v1/import-cnab' });
    // (Node's HTTP server sends no body to a HEAD; an injected request shows the one written.)
    expect(res.statusCode).toBe(501);
  });
});

describe('a body sent to a path outside every interface', () => {
  const REGISTRY = '/api/v1.0/service/dup/registrar_documentos';
  const bodies: Array<[string, Buffer]> = [
    ['a comma before "}"', Buffer.from('{"a":1,}')],
    ['a byte that is not UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x2c, 0xff, 0x7d])],
    ['a byte-order mark', Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
    ['a key twice', Buffer.from('{"a":1,"a":2}')],
    ['a key named __proto__', Buffer.from('{"__proto__":{"x":1}}')],
    ['nothing', Buffer.alloc(0)],
  ];
  it.each(bodies)('is refused as every route refuses it: %s', async (_name, payload) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const headers = { 'content-type': 'application/json', authorization: 'Bearer rg-token-1' };
    const outside = await app.inject({ method: 'POST', url: '/api/v1.0/service/dupp/registrar', headers, payload });
    const inside = await app.inject({ method: 'POST', url: REGISTRY, headers, payload });
    expect(inside.statusCode).toBe(400);
    expect({ status: outside.statusCode, message: outside.json().message }).toEqual({ status: 400, message: inside.json().message });
  });

  it('answers the 404 for a body that is JSON, and journals its numbers as sent', async () => {
    const app = await testApp();
    const res = await app.inject({ method: 'POST', url: '/nope', headers: { 'content-type': 'application/json' }, payload: '{"amount":1.10}' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toMatch(/^POST \/nope is outside every emulated interface/);
    const journal = await app.inject({ url: '/_sandbox/requests?limit=1' });
    expect(journal.body).toContain('"amount":1.10');
  });
});
