// The OpenAPI 3.0.3 rendition (GET /openapi-3.0.json) judged by tools nobody here wrote: the 3.0 JSON
// schema (@seriousme/openapi-schema-validator), Redocly and Spectral with their 3.0 rules, and a second
// client generator (openapi-typescript + openapi-fetch) whose client lists extract requests against a
// running sandbox. It keeps every operation, security requirement, schema and assumption mark of the 3.1
// document and no 3.1-only keyword, which is what openapi-generator and openapi-python-client need.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toOpenApi30 } from '../../scripts/openapi-30.js';
import { DEMO_FIXTURES, type Sandbox, startSandbox } from '../../src/index.js';
import { testApp } from '../helpers.js';
import { redoclyFindings, spectralFindings } from './linters.js';

type Json = Record<string, unknown>;

async function documents(): Promise<{ v31: Json; v30: Json; body30: string }> {
  const app = await testApp();
  const v31 = (await app.inject({ url: '/openapi.json' })).json<Json>();
  const answer = await app.inject({ url: '/openapi-3.0.json' });
  expect(answer.statusCode).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  return { v31, v30: answer.json<Json>(), body30: answer.body };
}

/** Every object of a document with its JSON pointer, skipping example values (data, not schemas). */
function* nodes(node: unknown, pointer = ''): Generator<[string, Json]> {
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) yield* nodes(n, `${pointer}/${i}`);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  yield [pointer, node as Json];
  for (const [k, v] of Object.entries(node)) if (k !== 'example' && k !== 'examples') yield* nodes(v, `${pointer}/${k}`);
}

function operations(doc: Json): Map<string, { operationId: unknown; security: unknown; tags: unknown; statuses: string[] }> {
  const out = new Map<string, { operationId: unknown; security: unknown; tags: unknown; statuses: string[] }>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      out.set(`${method.toUpperCase()} ${path}`, {
        operationId: op.operationId,
        security: op.security,
        tags: op.tags,
        statuses: Object.keys(op.responses as Json).sort(),
      });
    }
  }
  return out;
}

const marks = (doc: Json): string[] =>
  [...nodes(doc)].flatMap(([, n]) => (typeof n['x-sandbox-assumption'] === 'string' ? [n['x-sandbox-assumption']] : [])).sort();

describe('the OpenAPI 3.0.3 rendition', () => {
  it('is served at /openapi-3.0.json and passes the OpenAPI 3.0 JSON schema', async () => {
    const { v30 } = await documents();
    expect(v30.openapi).toBe('3.0.3');
    const validator = new Validator();
    const result = await validator.validate(v30);
    expect(validator.version).toBe('3.0');
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('keeps every operation with its operationId, security, tags and statuses, the components and the marks', async () => {
    const { v31, v30 } = await documents();
    expect(operations(v30)).toEqual(operations(v31));
    const components = (d: Json) => d.components as { schemas: Json; securitySchemes: Json };
    expect(Object.keys(components(v30).schemas).sort()).toEqual(Object.keys(components(v31).schemas).sort());
    expect(components(v30).securitySchemes).toEqual(components(v31).securitySchemes);
    expect(v30.info).toEqual(v31.info);
    expect(v30.tags).toEqual(v31.tags);
    expect(marks(v30).length).toBeGreaterThan(100);
    expect(marks(v30)).toEqual(marks(v31));
    // The examples of the 3.1 document are all still there.
    const examples = (d: Json) => [...nodes(d)].flatMap(([, n]) => ('example' in n ? [JSON.stringify(n.example)] : [])).sort();
    expect(examples(v30).length).toBeGreaterThan(0);
    expect(examples(v30)).toEqual(examples(v31));
  });

  it('has no 3.1-only keyword or form left: no null type, type array, const, numeric exclusive bound or $ref sibling', async () => {
    const { v30 } = await documents();
    const left = [...nodes(v30)].flatMap(([pointer, n]) => {
      const found: string[] = [];
      if (n.type === 'null' || Array.isArray(n.type)) found.push('type');
      for (const k of ['const', '$schema', '$id', '$defs', 'prefixItems', 'contentMediaType', 'contentEncoding', 'unevaluatedProperties'])
        if (k in n && !pointer.endsWith('/properties')) found.push(k);
      if (typeof n.exclusiveMinimum === 'number' || typeof n.exclusiveMaximum === 'number') found.push('exclusive bound');
      if ('$ref' in n && Object.keys(n).length > 1) found.push('$ref sibling');
      if ('nullable' in n && !('type' in n) && !('allOf' in n) && !('anyOf' in n)) found.push('nullable without type');
      return found.map((f) => `${pointer}: ${f}`);
    });
    expect(left).toEqual([]);
    // What was rewritten, at one known place each.
    const schemas = (v30.components as { schemas: Record<string, { properties: Record<string, Json> }> }).schemas;
    expect(schemas.PaymentDeclaration?.properties.paymentValue).toMatchObject({ minimum: 0, exclusiveMinimum: true, multipleOf: 0.01 });
    expect(schemas.LoanBondRecord?.properties.documento).toMatchObject({ type: 'string', format: 'byte' });
    expect(schemas.EnvelopeError).toBeDefined();
  });

  it('turns a union with null into nullable, keeping the annotations of the place of use', () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {},
      components: {
        schemas: {
          A: {
            type: 'object',
            properties: {
              default: { description: 'a property named like a keyword', anyOf: [{ type: 'string' }, { type: 'null' }] },
              named: { 'x-sandbox-assumption': 'm', anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
              either: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
              over: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 },
            },
          },
          B: { type: 'string', const: 'b', examples: ['b'] },
        },
      },
    };
    const before = JSON.stringify(doc);
    const out = toOpenApi30(doc) as { components: { schemas: { A: { properties: Json }; B: Json } } };
    expect(JSON.stringify(doc)).toBe(before);
    expect(out.components.schemas.A.properties).toEqual({
      default: { type: 'string', description: 'a property named like a keyword', nullable: true },
      named: { 'x-sandbox-assumption': 'm', allOf: [{ $ref: '#/components/schemas/B' }], nullable: true },
      either: { anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
      over: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
    });
    expect(out.components.schemas.B).toEqual({ type: 'string', enum: ['b'], example: 'b' });
  });

  it('passes Redocly recommended and Spectral spectral:oas (3.0 rules) with no error and no warning', async () => {
    const { body30 } = await documents();
    // The one warning docs/openapi.md accepts for the 3.1 document stands for the 3.0 one too.
    const justified = (rule: string) => rule === 'info-license-strict';
    const findings = [...(await redoclyFindings(body30)), ...(await spectralFindings(body30))];
    expect(findings.filter((f) => !justified(f.rule)).map((f) => `${f.tool} ${f.rule} at ${f.where}: ${f.message}`)).toEqual([]);
  });
});

describe('a client generated from the 3.0 document by openapi-typescript + openapi-fetch', () => {
  let sandbox: Sandbox;
  let dir: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });
    dir = mkdtempSync(join(tmpdir(), 'tradebill-client30-'));
    // The program imports openapi-fetch as a user's project would: from its node_modules.
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  });

  afterAll(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function run(baseUrl: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer bk-demo-token-7' } });
  const tenantId = '11222333000181';
  const { data, error, response } = await client.GET(
    '/api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/extract',
    { params: { path: { tenantId }, query: { pageSize: 5 } } },
  );
  return { status: response.status, page: data?.pagination, error };
}

// Never called: the types the 3.0 document gives refuse a missing path parameter.
export function wrong(client: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error tenantId is required
  return client.GET('/api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/extract', { params: { path: {} } });
}
`;

  it('type-checks and lists extract requests against a running sandbox', async () => {
    const v30 = await (await fetch(`${sandbox.url}/openapi-3.0.json`)).text();
    writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(v30)));
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    const program = ts.createProgram([join(dir, 'program.ts')], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
      noEmit: true,
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(errors).toEqual([]);

    const { run } = (await import(join(dir, 'program.ts'))) as { run: (baseUrl: string) => Promise<Json> };
    expect(await run(sandbox.url)).toMatchObject({ status: 200, page: { page: 1, size: 5 }, error: undefined });
    const [listed] = await sandbox.requests({ interface: 'bookkeeping' });
    expect(listed).toMatchObject({ method: 'GET', status: 200, operation: 'list-extract-requests' });
  }, 120_000);
});
