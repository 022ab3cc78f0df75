// The contract files shipped in the package under contract/ and served by the sandbox: the OpenAPI 3.1
// document, its 3.0.3 rendition and the Postman collection and environment, all written from the one
// source (the route schemas, through the served /openapi.json) by `npm run docs`. They are files
// rather than computed at start-up because their converters are large development tools that the
// package and the image do without; test/openapi/contract.test.ts fails when a committed file differs
// from what this writes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { convertV2 } from 'openapi-to-postmanv2';
import { buildApp } from '../src/app.js';
import { toOpenApi30 } from './openapi-30.js';

/** The repository's root, from the sources (scripts/) or compiled (dist-bench/scripts/). */
export const ROOT = new URL(import.meta.url.includes('/dist-bench/') ? '../../' : '../', import.meta.url);

export interface ContractFile {
  /** From the repository's root. */
  path: string;
  text: string;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The served 3.1 document, from an app built as the server builds it (no database on disk). */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const app = await buildApp({ db: ':memory:', logger: false });
  try {
    return (await app.inject({ url: '/openapi.json' })).json<Record<string, unknown>>();
  } finally {
    await app.close();
  }
}

type Json = Record<string, unknown>;

/** Where the collection's requests go unless the environment says otherwise: `npm start`'s address. */
export const BASE_URL = 'http://127.0.0.1:3000';

/** A small seeded generator (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The schema faker openapi-to-postmanv2 fills values with (its own copy of json-schema-faker). */
const faker = createRequire(import.meta.url)('openapi-to-postmanv2/assets/json-schema-faker.js') as {
  option(name: 'random'): () => number;
  option(options: { random: () => number }): void;
};

/**
 * openapi-to-postmanv2's collection of a document: a folder per tag, a request per operation with
 * its documented responses as examples. Values come from the schemas as typed placeholders
 * (`<string>`, `<integer>`), Postman's own style; the faker's other mode draws dates from the clock.
 * Where a schema lists values (an enum) the faker picks one with its `random` option or Math.random:
 * both are seeded for the conversion, then put back, so the file is the same on every run.
 */
async function convertToPostman(document: Json): Promise<Json> {
  const random = Math.random;
  const fakerRandom = faker.option('random');
  Math.random = seeded(20_260_101);
  faker.option({ random: seeded(20_260_102) });
  try {
    return await new Promise<Json>((resolve, reject) => {
      convertV2(
        { type: 'json', data: document },
        // Optional headers and query parameters unticked (Postman's `disabled`), as Postman's own import
        // leaves them: enabled, their typed placeholders (`sandbox-strict: <boolean>`, `cursor=<string>`)
        // would be sent and refused (tester5 finding 3).
        { folderStrategy: 'Tags', parametersResolution: 'Schema', requestNameSource: 'Fallback', enableOptionalParameters: false },
        (err, result) => {
          const data = result?.output?.[0]?.data as Json | undefined;
          if (err || !result?.result || !data) reject(err ?? new Error(`openapi-to-postmanv2: ${result?.reason ?? 'no collection'}`));
          else resolve(data);
        },
      );
    });
  } finally {
    Math.random = random;
    faker.option({ random: fakerRandom });
  }
}

/** The demo credentials of fixtures/demo.json, by the variable that carries each. */
function demoCredentials(): Record<string, string> {
  const demo = JSON.parse(readFileSync(new URL('fixtures/demo.json', ROOT), 'utf8')) as {
    bookkeeping: { users: Array<{ accessToken: string; tenants: string[] }> };
    registry: { participants: Array<{ accessToken: string }> };
    receivables: { funds: Array<{ fundCnpj: string; token: string | null }> };
    loanbond: { callers: Array<{ token: string }> };
  };
  const [user] = demo.bookkeeping.users;
  const fund = demo.receivables.funds.find((f) => f.token !== null);
  return {
    bookkeepingToken: user?.accessToken ?? '',
    tenantId: user?.tenants[0] ?? '',
    registryToken: demo.registry.participants[0]?.accessToken ?? '',
    receivablesToken: fund?.token ?? '',
    // Digits only: the value fills a path parameter, where the "/" of 11.222.333/0001-81 would split
    // the path (tester5 finding 3); the sandbox reads a CNPJ with or without punctuation.
    fundCnpj: (fund?.fundCnpj ?? '').replace(/\D/g, ''),
    loanbondToken: demo.loanbond.callers[0]?.token ?? '',
  };
}

/** Folder (tag) -> the variable of its bearer token, or of the body `token` for the two that carry one. */
const BEARER: Record<string, string> = { bookkeeping: 'bookkeepingToken', registry: 'registryToken' };
const BODY_TOKEN: Record<string, string> = { receivables: 'receivablesToken', loanbond: 'loanbondToken' };
/** Path parameters filled from the environment. */
const PATH_VARIABLES = new Set(['tenantId', 'fundCnpj']);

/**
 * What the converter cannot know, set on its output: each interface's credential as an environment
 * variable (it names one `bearerToken` for both bearer schemes and leaves the body `token` a
 * placeholder), the admin key variable, the demo tenant and fund as path values, the base URL, and
 * no random ids (Postman assigns its own on import), so the file is the same on every run.
 */
function wirePostman(collection: Json): Json {
  const walk = (node: unknown, folder: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, folder));
    if (typeof node !== 'object' || node === null) return node;
    const out: Json = {};
    const here = typeof (node as Json).item === 'object' ? String((node as Json).name) : folder;
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'id' || k === '_postman_id') && typeof v === 'string') continue;
      out[k] = walk(v, here);
    }
    const auth = out.auth as { type?: string; bearer?: Json[]; apikey?: Json[] } | undefined;
    if (auth?.type === 'bearer' && BEARER[folder]) auth.bearer = [{ key: 'token', value: `{{${BEARER[folder]}}}`, type: 'string' }];
    if (auth?.type === 'apikey') auth.apikey = auth.apikey?.map((e) => (e.key === 'value' ? { ...e, value: '{{adminToken}}' } : e));
    if (out.mode === 'raw' && typeof out.raw === 'string' && BODY_TOKEN[folder]) {
      let raw = out.raw.replace(/^( {2}"token": )"[^"]*"/m, `$1"{{${BODY_TOKEN[folder]}}}"`);
      // The fund whose token that is (the receivables submission names it beside the token).
      if (folder === 'receivables') raw = raw.replace(/^( {2}"fundCnpj": )"[^"]*"/m, '$1"{{fundCnpj}}"');
      out.raw = raw;
    }
    if (typeof out.key === 'string' && PATH_VARIABLES.has(out.key) && 'type' in out && out.type === 'any') out.value = `{{${out.key}}}`;
    return out;
  };
  const wired = walk(collection, '') as Json;
  wired.variable = [{ key: 'baseUrl', value: BASE_URL }];
  return wired;
}

/** The Postman environment: the base URL, the demo credentials, and the admin key (empty: none set). */
function postmanEnvironment(): Json {
  const values = { baseUrl: BASE_URL, ...demoCredentials(), adminToken: '' };
  return {
    name: 'tradebill-sandbox (demo fixtures)',
    values: Object.entries(values).map(([key, value]) => ({
      key,
      value,
      type: /token/i.test(key) ? 'secret' : 'default',
      enabled: true,
    })),
    _postman_variable_scope: 'environment',
  };
}

/** Every contract file, in the order they are written. */
export async function contractFiles(): Promise<ContractFile[]> {
  const v31 = await servedDocument();
  const v30 = toOpenApi30(v31);
  return [
    { path: 'contract/openapi.json', text: json(v31) },
    { path: 'contract/openapi-3.0.json', text: json(v30) },
    { path: 'contract/postman/collection.json', text: json(wirePostman(await convertToPostman(v30))) },
    { path: 'contract/postman/environment.json', text: json(postmanEnvironment()) },
  ];
}
