// What makes the served OpenAPI document usable by outside tools (linters, validating proxies, client
// generators): security schemes applied per operation, an operationId on each, servers, contact and
// licence, and named schemas under components.schemas. The route schemas stay the one source: this
// module only places what they say (docs/openapi.md).
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { assumptionLookup } from './assumption-catalog.js';
import type { Interfaces } from './interface-module.js';
import { assumptions } from './sandbox-assumptions.js';

/** The tag of every control-plane call. */
export const CONTROL_TAG = { name: 'sandbox control plane', description: 'the sandbox itself, under /_sandbox' } as const;

/** The control plane's security scheme; each interface names its own in its module. */
const ADMIN_TOKEN_SCHEME = {
  sandboxAdminToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Sandbox-Admin-Token',
    description: 'needed by /_sandbox calls only when the sandbox runs with SANDBOX_ADMIN_TOKEN set',
  },
} as const;

/** What the workspace base URL's server entry says it follows. */
const WORKSPACE_SERVER_ASSUMPTION = assumptionLookup(assumptions)('workspace-prefix', 'workspace-lifecycle', 'workspace-created-header');

/** The admin header is optional: needed only when the sandbox has an admin token. */
const CONTROL_SECURITY = [{ sandboxAdminToken: [] }, {}];

/** kebab-case operation ids of the catalog (journal, fault rules) -> the camelCase operationId. */
export function operationIdOf(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords that annotate a schema at its place of use without changing what it accepts. */
const ANNOTATIONS = new Set(['description', 'x-sandbox-assumption', 'default', 'examples', 'example']);

function sameContent(a: Schema, b: Schema): boolean {
  const strip = (s: Schema) =>
    JSON.stringify(Object.fromEntries(Object.entries(s).filter(([k]) => !ANNOTATIONS.has(k))));
  return strip(a) === strip(b);
}

/**
 * The route schemas name two rules by a keyword and a format of the sandbox's own Ajv
 * (http/validation.ts); the document says them in keywords every tool knows. `money` becomes
 * `multipleOf: 0.01` (the server checks the cents exactly, where a float division may not:
 * validators need a tolerance, e.g. Ajv's multipleOfPrecision), `utc-timestamp` becomes `date-time`.
 */
function standardFormats(schema: Schema): void {
  if (schema.money === true) {
    delete schema.money;
    schema.multipleOf = 0.01;
  } else if (schema.format === 'utc-timestamp') {
    schema.format = 'date-time';
  }
}

/**
 * Moves every schema that carries a `title` into components.schemas under that title, and leaves a
 * `$ref` (with the annotations of its place of use, which OpenAPI 3.1 allows beside `$ref`) where it
 * was. Two different schemas with one title are a programming error, reported when the document is built.
 */
export function nameSchemas(document: Schema): Schema {
  const components = (isObject(document.components) ? document.components : {}) as Schema;
  const named = (isObject(components.schemas) ? components.schemas : {}) as Record<string, Schema>;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'examples' || k === 'example' ? v : visit(v);
    standardFormats(out);
    const title = out.title;
    if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) return out;
    const held = named[title];
    if (held === undefined) named[title] = out;
    else if (!sameContent(held, out)) throw new Error(`two different schemas are both titled ${title}`);
    const kept = named[title] ?? out;
    const uses: Schema = { $ref: `#/components/schemas/${title}` };
    for (const k of ANNOTATIONS) {
      if (out[k] !== undefined && JSON.stringify(out[k]) !== JSON.stringify(kept[k])) uses[k] = out[k];
    }
    return uses;
  };
  const paths = visit(document.paths);
  return { ...document, paths, components: { ...components, schemas: named } };
}

/**
 * A response header marked `x-required` in a route schema (where a bare `required: true` would break
 * the JSON Schema that @fastify/swagger copies it into) becomes the header object's `required: true`.
 */
export function hoistRequiredHeaders(document: Schema): Schema {
  const visit = (node: unknown, key?: string): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n));
    if (!isObject(node)) return;
    if (key === 'headers') {
      for (const header of Object.values(node)) {
        if (isObject(header) && isObject(header.schema) && header.schema['x-required'] === true) {
          delete header.schema['x-required'];
          header.required = true;
        }
      }
    }
    for (const [k, v] of Object.entries(node)) visit(v, k);
  };
  visit(document.paths);
  return document;
}

export function swaggerOptions(
  info: Schema & { title: string; version: string },
  interfaces: Interfaces,
): FastifyDynamicSwaggerOptions {
  const securitySchemes = Object.assign({}, ...interfaces.modules.map((m) => m.openapi.securitySchemes ?? {}), ADMIN_TOKEN_SCHEME);
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        ...info,
        contact: { name: 'tradebill-sandbox maintainers' },
        // package.json is private and grants no licence; npm's word for that.
        license: { name: 'UNLICENSED' },
      },
      servers: [
        // Relative: the sandbox that serves the document (npm start listens on port 3000 by default).
        { url: '/', description: 'the sandbox serving this document' },
        // x-sandbox-assumption: an extension the ServerObject type does not name.
        {
          // Absolute: a relative URL with a variable is not one linters can check (Spectral's oas3-server-variables).
          url: 'http://{address}/ws/{name}',
          description:
            'workspace {name} of the sandbox serving this document, created on first use: an answer from a workspace ' +
            'that request created carries the header Sandbox-Workspace-Created: {name}, and Sandbox-Workspace-Similar: ' +
            '{an existing name} when the new name is near one (a likely typo; x-sandbox-assumption)',
          variables: {
            address: { default: '127.0.0.1:3000', description: 'host and port of the sandbox (npm start: 127.0.0.1:3000)' },
            name: { default: 'w0', description: '1 to 64 characters of a-z, 0-9 and -' },
          },
          ...{ 'x-sandbox-assumption': WORKSPACE_SERVER_ASSUMPTION },
        },
      ],
      tags: [...interfaces.modules.map((m) => m.openapi.tag), CONTROL_TAG],
      components: { securitySchemes },
    },
    transform: ({ schema, url, route }) => {
      const own = (schema ?? {}) as Schema;
      const owner = interfaces.ofPath(url);
      const operation = route.config?.operation;
      const placed: Schema = { ...own };
      if (placed.operationId === undefined && typeof operation === 'string')
        placed.operationId = operationIdOf(operation);
      if (placed.security === undefined) {
        if (owner) placed.security = owner.openapi.security;
        else if (url.startsWith('/_sandbox')) placed.security = route.config?.sandboxPublic ? [] : CONTROL_SECURITY;
      }
      return { schema: placed as typeof schema, url };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      return nameSchemas(hoistRequiredHeaders(documentObject.openapiObject as Schema)) as typeof documentObject.openapiObject;
    },
  };
}
