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

  it('answers HEAD on a documented GET with the 501 of an undocumented method', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'HEAD', url: EXTRACT, headers: { authorization: 'Bearer bk-token-1' } });
    expect(res.statusCode).toBe(501);
  });
});
