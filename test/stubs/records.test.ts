// Where the answers of user-defined operations show: the journal (with the mapping id), client
// coverage (as user-defined operations, in JSON, JUnit and Markdown), the catalog (named-only
// operations stubbed, with their mappings), and the answers outside every interface prefix.
import { parse as parseJunit } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';
import { RG, stubbed } from './helpers.js';

const batchQuery = {
  id: 'batch-query',
  name: 'batch query',
  request: { method: 'GET', urlPathTemplate: `${RG}/lotes/{chave}` },
  response: { status: 200, headers: { 'Content-Type': 'application/json' }, jsonBody: { status: 'REGISTRADO' } },
  metadata: { sandbox: { operation: 'batch-query' } },
};
const unbound = { id: 'free', request: { method: 'POST', urlPath: '/oauth/token' }, response: { status: 200, jsonBody: { access_token: 'bk-token-1' } } };

describe('the answers of user-defined operations', () => {
  it('are journaled with the mapping id and the named-only operation they implement', async () => {
    const app = await testApp();
    await stubbed(app, { mappings: [batchQuery, unbound] });
    await app.inject({ method: 'GET', url: `${RG}/lotes/RM1` });
    await app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'password', password: 'hunter2' } });
    await app.inject({ method: 'GET', url: `${RG}/nothing` });
    const entries = (await app.inject({ url: '/_sandbox/requests' })).json().entries as Array<Record<string, unknown>>;
    const [miss, login, query] = entries;
    expect(query).toMatchObject({ interface: 'registry', operation: 'batch-query', mapping: 'batch-query', status: 200, upstream: null });
    expect(query?.responseBody).toEqual({ status: 'REGISTRADO' });
    expect(login).toMatchObject({ interface: null, operation: null, mapping: 'free', status: 200, path: '/oauth/token' });
    // The journal keeps no secret, whatever answered.
    expect(JSON.stringify(login)).not.toContain('hunter2');
    expect(JSON.stringify(login)).not.toContain('bk-token-1');
    expect(miss).toMatchObject({ status: 501, mapping: null, operation: null });
    expect((await app.inject({ url: '/_sandbox/requests?operation=batch-query' })).json().entries).toHaveLength(1);
  });

  it('are counted by coverage as user-defined operations, in every format; reset counts from zero', async () => {
    const app = await testApp();
    await stubbed(app, { mappings: [batchQuery, unbound] });
    await app.inject({ method: 'GET', url: `${RG}/lotes/RM1` });
    await app.inject({ method: 'GET', url: `${RG}/lotes/RM2` });
    const report = (await app.inject({ url: '/_sandbox/coverage' })).json();
    // In the order the mappings are tried: the one added last first.
    expect(report.userDefined).toEqual([
      expect.objectContaining({ mapping: 'free', interface: null, operation: null, hits: 0, firstAt: null }),
      expect.objectContaining({ mapping: 'batch-query', interface: 'registry', operation: 'batch-query', method: 'GET', url: `${RG}/lotes/{chave}`, status: 200, hits: 2 }),
    ]);
    expect((await app.inject({ url: '/_sandbox/coverage?interface=registry' })).json().userDefined.map((u: { mapping: string }) => u.mapping)).toEqual(['batch-query']);
    const junit = (await parseJunit((await app.inject({ url: '/_sandbox/coverage?format=junit' })).body)) as {
      testsuite: Array<{ name: string; tests: number; skipped: number; testcase: Array<{ name: string }> }>;
    };
    const suite = junit.testsuite.find((s) => s.name === 'user-defined operations (stub mappings)');
    expect(suite).toMatchObject({ tests: 2, skipped: 1 });
    expect(suite?.testcase.map((t) => t.name)).toEqual([expect.stringMatching(/^free: /), expect.stringMatching(/^batch-query: batch query/)]);
    const markdown = (await app.inject({ url: '/_sandbox/coverage?format=markdown' })).body;
    expect(markdown).toContain('### User-defined operations (stub mappings)');
    expect(markdown).toMatch(/\| ✅ \| `batch-query` batch query \| registry \| `batch-query` \| GET .* → 200 \| 2 \|/);
    await app.inject({ method: 'DELETE', url: '/_sandbox/coverage' });
    expect((await app.inject({ url: '/_sandbox/coverage' })).json().userDefined[1].hits).toBe(0);
  });

  it('make a named-only operation "stubbed" in the catalog, with its mappings; the others are listed apart', async () => {
    const app = await testApp();
    const before = (await app.inject({ url: '/_sandbox/operations' })).json();
    expect(before.operations.find((o: { name: string }) => o.name === 'batch query')).toMatchObject({ status: 'named-only' });
    expect(before.userDefined).toEqual([]);
    await stubbed(app, { mappings: [batchQuery, unbound] });
    const after = (await app.inject({ url: '/_sandbox/operations' })).json();
    expect(after.operations.find((o: { name: string }) => o.name === 'batch query')).toEqual({
      id: 'batch-query',
      interface: 'registry',
      name: 'batch query',
      method: 'GET',
      path: null,
      status: 'stubbed',
      mappings: [{ id: 'batch-query', name: 'batch query', method: 'GET', url: `${RG}/lotes/{chave}` }],
    });
    expect(after.userDefined).toEqual([{ id: 'free', name: null, method: 'POST', url: '/oauth/token' }]);
    // Another workspace has none.
    const other = (await app.inject({ url: '/ws/other/_sandbox/operations' })).json();
    expect(other.operations.filter((o: { status: string }) => o.status === 'stubbed')).toEqual([]);
  });

  it('outside every prefix: a mapping answers what would be a 404; a miss is the 404 with the nearest mapping', async () => {
    const app = await testApp();
    await stubbed(app, unbound);
    expect((await app.inject({ method: 'POST', url: '/oauth/token' })).json()).toEqual({ access_token: 'bk-token-1' });
    const miss = await app.inject({ method: 'POST', url: '/oauth/tokens' });
    expect(miss.statusCode).toBe(404);
    expect(miss.json().nearestStub).toMatchObject({ id: 'free', differences: [expect.stringContaining('"tokens"')] });
    // The sandbox's own paths stay its own.
    expect((await app.inject({ url: '/_sandbox/health' })).json()).toEqual({ status: 'ok' });
  });

  it('a template that fails answers a 500 in the interface error shape naming the mapping', async () => {
    const app = await testApp();
    await stubbed(app, {
      id: 'broken',
      request: { method: 'GET', urlPath: '/v1/receivables-broken' },
      response: { status: 200, body: "{{jsonPath request.body '$.a'}}", transformers: ['response-template'] },
    });
    const res = await app.inject({ method: 'GET', url: '/v1/receivables-broken' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['matched-stub-id']).toBe('broken');
    expect(res.json()).toEqual({ error: { code: 'InternalServerError', message: expect.stringContaining('the mapping broken could not render its response: jsonPath'), target: null } });
  });
});
