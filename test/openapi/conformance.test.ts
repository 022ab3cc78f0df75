import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, testApp } from '../helpers.js';
import { CONTROL_TAG } from '../../src/http/openapi.js';
import { INTERFACES } from '../../src/interfaces.js';
import { Checker, type OpenApiDocument, problemsOf, responsesChecked, routesOf } from './conformance.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('the OpenAPI document against the routes of the app', () => {
  it('describes every route the app serves (hidden pages aside), and no route the app does not serve', async () => {
    const app = await testApp();
    const document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as OpenApiDocument;
    // Every GET also serves HEAD (assumption head-like-get); the document lists the GET.
    const served = routesOf(app)
      .filter((r) => !r.hidden && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(served.length).toBeGreaterThan(30);
    expect(documented).toEqual(served);
    const heads = routesOf(app).filter((r) => r.method === 'HEAD').map((r) => `GET ${r.path}`);
    expect(heads.length).toBeGreaterThan(10);
    expect(served.filter((r) => r.startsWith('GET ')).every((r) => heads.includes(r))).toBe(true);
    // The setup file has seen this test's own call to /openapi.json (a hidden route, not checked).
    expect(responsesChecked()).toBeGreaterThan(0);
  });

  it("states the package's version, read from package.json", async () => {
    const app = await testApp();
    const document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as { info: { version: string } };
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(document.info.version).toBe(pkg.version);
  });
});

describe('the headers of an answer from a workspace created on first use', () => {
  it('are declared on every response of every documented operation, and pass the response check', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as OpenApiDocument;
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.entries(item).filter(([m, op]) => METHODS.includes(m) && (op as { tags?: string[] }).tags?.some((t) => t !== CONTROL_TAG.name)),
    );
    expect(operations.length).toBeGreaterThanOrEqual(6);
    for (const [, operation] of operations) {
      for (const response of Object.values(operation.responses ?? {})) {
        expect(Object.keys(response.headers ?? {})).toEqual(
          expect.arrayContaining(['Sandbox-Outcome', 'Sandbox-Workspace-Created', 'Sandbox-Workspace-Similar']),
        );
      }
    }
    // A typo of an existing workspace: the answer carries both headers.
    await app.inject({ method: 'POST', url: '/_sandbox/workspaces', payload: { name: 'team-a' } });
    const url = '/ws/tema-a/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';
    const res = await app.inject({ url, headers: { authorization: 'Bearer bk-demo-token-7' } });
    expect(res.headers['sandbox-workspace-created']).toBe('tema-a');
    expect(res.headers['sandbox-workspace-similar']).toBe('team-a');
    const route = '/api/bookkeeping/integration/v1/:tenantId/trade-receivable-certificates/extract';
    const call = { method: 'GET', url, route, hidden: false };
    expect(problemsOf(new Checker(document), call, res.statusCode, res.headers, res.body, INTERFACES)).toEqual([]);
  });
});

describe('the Sandbox-* headers of the answers of documented operations', () => {
  it('each carry the assumption that adds them, on the header itself', async () => {
    const app = await testApp();
    const document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as OpenApiDocument;
    const unmarked: string[] = [];
    let seen = 0;
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.includes(method) || !(operation as { tags?: string[] }).tags?.some((t) => t !== CONTROL_TAG.name)) continue;
        for (const [status, response] of Object.entries(operation.responses ?? {}))
          for (const [name, header] of Object.entries(response.headers ?? {})) {
            if (!name.startsWith('Sandbox-')) continue;
            seen++;
            const text = (header as { schema?: Record<string, unknown> }).schema?.['x-sandbox-assumption'];
            if (typeof text !== 'string' || !/\[[a-z0-9-]+\]$/.test(text)) unmarked.push(`${method.toUpperCase()} ${path} ${status} ${name}`);
          }
      }
    expect(seen).toBeGreaterThan(20);
    expect(unmarked).toEqual([]);
  });
});

describe('the response check of the whole suite (test/openapi/conformance.ts)', () => {
  const document: OpenApiDocument = {
    paths: {
      '/things/{id}': {
        get: {
          responses: {
            '200': {
              headers: { 'Sandbox-Count': { required: true, schema: { type: 'integer' } } },
              content: {
                'application/json': {
                  schema: { type: 'object', required: ['n'], properties: { n: { type: 'number', multipleOf: 0.01 } } },
                },
              },
            },
            '404': {},
          },
        },
      },
    },
  };
  const checker = new Checker(document);
  const call = { method: 'GET', url: '/things/1?x=1', route: '/things/:id', hidden: false };
  const json = { 'content-type': 'application/json; charset=utf-8', 'sandbox-count': '2' };

  it('passes a response the document describes, money with float noise included', () => {
    expect(problemsOf(checker, call, 200, json, JSON.stringify({ n: 830.55 }), INTERFACES)).toEqual([]);
  });

  it('fails an undocumented status, a body off its schema, a missing or undeclared header, an unknown route', () => {
    expect(problemsOf(checker, call, 500, json, '{}', INTERFACES)).toEqual([expect.stringContaining('status 500 is not documented')]);
    expect(problemsOf(checker, call, 200, json, JSON.stringify({ n: 1.234 }), INTERFACES)).toEqual([
      expect.stringContaining('/n must be multiple of 0.01'),
    ]);
    expect(problemsOf(checker, call, 200, { 'content-type': 'application/json' }, '{"n":1}', INTERFACES)).toEqual([
      expect.stringContaining('required header Sandbox-Count is missing'),
    ]);
    expect(problemsOf(checker, call, 404, { 'sandbox-warnings': '1' }, '', INTERFACES)).toEqual([
      expect.stringContaining('header sandbox-warnings is sent but not declared'),
    ]);
    expect(problemsOf(checker, call, 404, {}, '{"error":"x"}', INTERFACES)).toEqual([
      expect.stringContaining('a body is sent where the document declares none'),
    ]);
    expect(problemsOf(checker, { ...call, route: '/other' }, 200, json, '{}', INTERFACES)).toEqual([
      expect.stringContaining('GET /other is a route the document does not describe'),
    ]);
  });

  it('allows an unrouted request only the 501 or a documented status under an interface, a 404 or 400 elsewhere', () => {
    const unrouted = (url: string) => ({ method: 'GET', url, route: undefined, hidden: false });
    expect(problemsOf(checker, unrouted('/api/service/document/cancelar'), 501, {}, '', INTERFACES)).toEqual([]);
    expect(problemsOf(checker, unrouted('/v1/import-cnab/x'), 401, {}, '', INTERFACES)).toHaveLength(1);
    expect(problemsOf(checker, unrouted('/elsewhere'), 404, {}, '', INTERFACES)).toEqual([]);
    expect(problemsOf(checker, unrouted('/elsewhere'), 501, {}, '', INTERFACES)).toHaveLength(1);
  });
});

describe('what the document says a caller must send', () => {
  it('never marks a parameter with a default as required, and requires the body tokens the server requires', async () => {
    const app = await testApp();
    const document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; required?: boolean; schema?: { default?: unknown } }> }>>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    const requiredWithDefault = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) =>
        (op.parameters ?? [])
          .filter((p) => p.required && p.schema?.default !== undefined && !path.includes(`{${p.name}}`))
          .map((p) => `${method} ${path} ${p.name}`),
      ),
    );
    expect(requiredWithDefault).toEqual([]);
    expect(document.components.schemas.RegistrationRequest?.required).toContain('token');
    expect(document.components.schemas.ImportCnabBody?.required).toContain('token');
  });
});
