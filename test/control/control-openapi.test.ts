import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

interface OpenApiOperation {
  tags?: string[];
  responses?: Record<string, { content?: unknown }>;
  'x-sandbox-assumption'?: string;
}

const CALLS: Array<[string, string]> = [
  ['get', '/_sandbox/requests'],
  ['delete', '/_sandbox/requests'],
  ['post', '/_sandbox/faults'],
  ['get', '/_sandbox/faults'],
  ['delete', '/_sandbox/faults'],
  ['delete', '/_sandbox/faults/{id}'],
  ['get', '/_sandbox/clock'],
  ['post', '/_sandbox/clock'],
  ['delete', '/_sandbox/clock'],
  ['post', '/_sandbox/snapshots'],
  ['get', '/_sandbox/snapshots'],
  ['post', '/_sandbox/snapshots/{name}/restore'],
  ['delete', '/_sandbox/snapshots/{name}'],
  ['post', '/_sandbox/work/run'],
  ['get', '/_sandbox/coverage'],
  ['delete', '/_sandbox/coverage'],
  ['get', '/_sandbox/workspaces'],
  ['post', '/_sandbox/workspaces'],
  ['delete', '/_sandbox/workspaces/{name}'],
];

describe('the control plane in the OpenAPI document', () => {
  it('describes every journal, fault, clock, snapshot and work call, with a response schema for each status', async () => {
    const app = await testApp();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    for (const [method, path] of CALLS) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.tags).toEqual(['sandbox control plane']);
      const responses = Object.entries(op?.responses ?? {});
      expect(responses.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, r] of responses) expect(r.content, `${method} ${path} ${status}`).toBeDefined();
    }
    expect(doc.paths['/_sandbox/faults']?.post?.['x-sandbox-assumption']).toContain('[fault-rules]');
    expect(doc.paths['/_sandbox/requests']?.get?.['x-sandbox-assumption']).toContain('[journal-scope]');
  });
});

describe('the admin token', () => {
  it('guards the journal, faults, clock, snapshots and work calls too', async () => {
    const app = await testApp({ adminToken: 'admin-secret' });
    for (const [method, path] of CALLS) {
      const url = path.replace('{id}', 'fault-1').replace('{name}', 'x');
      const res = await app.inject({ method: method.toUpperCase() as 'GET', url });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    const ok = await app.inject({
      url: '/_sandbox/clock',
      headers: { 'sandbox-admin-token': 'admin-secret' },
    });
    expect(ok.statusCode).toBe(200);
  });
});
