// The Postman collection and environment of contract/postman/, judged by Postman's own library
// (postman-collection): they load as a v2.1 collection, hold one request per documented operation, and
// the requests they make, with the environment's demo credentials, are accepted by a running sandbox.
// test/openapi/contract.test.ts checks that they are what `npm run docs` writes from the code.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, type Sandbox, startSandbox } from '../../src/index.js';
import { testApp } from '../helpers.js';

type Json = Record<string, unknown>;

/** The parts of postman-collection used here (its types are an ambient module the package does not point to). */
interface PostmanUrl {
  /** The path, path variables resolved unless `unresolved` (then `:name`). */
  getPath(unresolved?: boolean): string;
  getQueryString(): string;
}
interface PostmanRequest {
  method: string;
  url: PostmanUrl;
  body?: { raw?: string };
  auth?: { type: string; parameters(): { get(key: string): unknown } };
  getHeaders(options: { enabled: boolean }): Record<string, string>;
  toJSON(): Json;
}
interface PostmanItem {
  name: string;
  request: PostmanRequest;
  getAuth(): PostmanRequest['auth'];
}
interface PostmanLib {
  Collection: new (definition: Json) => { forEachItem(each: (item: PostmanItem) => void): void; toJSON(): Json };
  Request: new (definition: Json) => PostmanRequest;
  VariableScope: new (values: Json[]) => { replaceIn<T>(template: T): T };
}
const postman = createRequire(import.meta.url)('postman-collection') as PostmanLib;

const collectionJson = JSON.parse(readFileSync('contract/postman/collection.json', 'utf8')) as Json;
const environmentJson = JSON.parse(readFileSync('contract/postman/environment.json', 'utf8')) as { values: Json[] };
const document = JSON.parse(readFileSync('contract/openapi-3.0.json', 'utf8')) as { paths: Record<string, Json> };

function items(): PostmanItem[] {
  const out: PostmanItem[] = [];
  new postman.Collection(collectionJson).forEachItem((item) => out.push(item));
  return out;
}

/** An item's request with the environment's variables put in, ready to send. */
function resolved(item: PostmanItem): { method: string; url: string; headers: Record<string, string>; body?: string } {
  const scope = new postman.VariableScope(environmentJson.values);
  const request = new postman.Request(scope.replaceIn(item.request.toJSON()));
  const headers = request.getHeaders({ enabled: true });
  const auth = item.getAuth();
  if (auth?.type === 'bearer') headers.Authorization = `Bearer ${String(scope.replaceIn(auth.parameters().get('token')))}`;
  const query = request.url.getQueryString();
  return { method: request.method, url: `${request.url.getPath()}${query ? `?${query}` : ''}`, headers, ...(request.body?.raw ? { body: request.body.raw } : {}) };
}

const find = (name: RegExp) => {
  const item = items().find((i) => name.test(i.name));
  if (!item) throw new Error(`no request named ${String(name)}`);
  return item;
};

describe('the Postman collection', () => {
  it('is a v2.1 collection that postman-collection loads and writes back unchanged', () => {
    expect((collectionJson.info as Json).schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    const loaded = new postman.Collection(collectionJson);
    const again = new postman.Collection(loaded.toJSON());
    const names = (c: { forEachItem(each: (item: PostmanItem) => void): void }) => {
      const out: string[] = [];
      c.forEachItem((i) => out.push(`${i.request.method} ${i.request.url.getPath(true)} ${i.name}`));
      return out;
    };
    expect(names(again)).toEqual(names(loaded));
  });

  it('has one request per documented operation, control calls included', () => {
    const operations = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const requests = items()
      .map((i) => `${i.request.method} ${i.request.url.getPath(true).replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    expect(operations.length).toBeGreaterThan(40);
    expect(requests).toEqual(operations);
  });

  it('takes every credential from the environment, which holds the demo fixtures\' ones', () => {
    const demo = readFileSync(DEMO_FIXTURES, 'utf8');
    const env = new Map(environmentJson.values.map((v) => [v.key as string, v.value as string]));
    for (const key of ['bookkeepingToken', 'registryToken', 'receivablesToken', 'loanbondToken']) expect(demo).toContain(`"${env.get(key) ?? 'missing'}"`);
    const text = JSON.stringify(collectionJson);
    const used = new Set([...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]));
    expect([...used].filter((v) => !env.has(v as string))).toEqual([]);
    expect(text).not.toContain('{{bearerToken}}');
    expect(text).not.toContain('{{apiKey}}');
  });
});

describe('requests of the collection with the environment, against a running sandbox', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  const send = async (item: PostmanItem) => {
    const r = resolved(item);
    return fetch(`${sandbox.url}${r.url}`, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
  };

  it('lists extract requests with the demo bookkeeping user and tenant', async () => {
    const answer = await send(find(/extract requests/i));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ pagination: { page: 1 } });
  });

  it('reaches the control plane (health) and the registry with its demo token (placeholders refused by name, not by credential)', async () => {
    expect((await send(find(/^Liveness/))).status).toBe(200);
    const register = await send(find(/^Register a batch/));
    expect(register.status).toBe(400);
    const receivables = await send(find(/CNAB 400 or CNAB 444/));
    expect([400, 422]).toContain(receivables.status);
    expect(await receivables.text()).not.toMatch(/token/i);
  });

  it('sends every request, with the environment, to the operation it names: no path broken by a variable, no header or query placeholder refused', async () => {
    // A sandbox of its own: the collection resets, loads fixtures and removes workspaces.
    const own = await startSandbox({ fixtures: DEMO_FIXTURES });
    try {
      const missed: string[] = [];
      for (const item of items()) {
        const r = resolved(item);
        const template = item.request.url.getPath(true);
        const path = r.url.split('?')[0] ?? '';
        if (path.split('/').length !== template.split('/').length) missed.push(`${item.name}: ${template} resolves to ${path}`);
        const answer = await fetch(`${own.url}${r.url}`, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
        const text = await answer.text();
        const label = `${item.name}: ${r.method} ${r.url} answered ${answer.status} ${text.slice(0, 160)}`;
        // The router's own misses: no route has the path, or none the method.
        if (answer.status === 405 || answer.status === 501 || /is not a control-plane call|is outside every emulated interface/.test(text)) missed.push(label);
        // A header or query parameter the collection sends refused by name: a placeholder left enabled.
        const query = [...new URLSearchParams(r.url.split('?')[1] ?? '').keys()];
        const sent = [...Object.keys(r.headers).map((h) => h.toLowerCase()), ...query];
        if (answer.status === 400 && sent.some((name) => text.includes(`"/${name}"`) || text.includes(`/${name}: `))) missed.push(label);
      }
      expect(missed).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('is served at /postman/collection.json and /postman/environment.json as committed', async () => {
    const app = await testApp();
    for (const file of ['collection', 'environment']) {
      const served = await app.inject({ url: `/postman/${file}.json` });
      expect(served.statusCode).toBe(200);
      expect(served.body).toBe(readFileSync(`contract/postman/${file}.json`, 'utf8'));
    }
  });
});
