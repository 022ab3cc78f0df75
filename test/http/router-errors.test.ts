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
