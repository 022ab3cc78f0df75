// The served OpenAPI document (GET /openapi.json) and its browsable form (/docs), built by
// @fastify/swagger from the route schemas; x-sandbox-assumptions lists every decision in one place.
// GET /openapi-3.0.json serves its 3.0.3 rendition and /postman/collection.json and
// /postman/environment.json the Postman collection and environment: files of contract/ that
// `npm run docs` converts from this document (scripts/contract.ts) and the package ships.
import { readFile } from 'node:fs/promises';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { type Assumption, assumptionText } from './assumption-catalog.js';
import type { Interfaces } from './interface-module.js';
import { swaggerOptions } from './openapi.js';

export interface OpenApiOptions {
  version: string;
  assumptions: readonly Assumption[];
  /** The emulated interfaces: their tags, and their prefixes decide each operation's security. */
  interfaces: Interfaces;
}

export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // x-sandbox-assumptions: an extension the InfoObject type does not name.
  const info = {
    title: 'tradebill-sandbox',
    version: options.version,
    description:
      'A stateful sandbox of interfaces of a Brazilian receivables platform. Behaviour the specification ' +
      'leaves open is marked x-sandbox-assumption; the full list is in info.x-sandbox-assumptions and docs/assumptions.md.',
    'x-sandbox-assumptions': options.assumptions.map((a) => ({
      id: a.id,
      interface: a.interface,
      text: assumptionText(a),
    })),
  };
  await app.register(swagger, swaggerOptions(info, options.interfaces));
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  serveContractFile(app, '/openapi-3.0.json', 'openapi-3.0.json');
  serveContractFile(app, '/postman/collection.json', 'postman/collection.json');
  serveContractFile(app, '/postman/environment.json', 'postman/environment.json');
}

/** The contract/ folder of the package: two levels above this module, from src/ and from dist/ alike. */
const CONTRACT = new URL('../../contract/', import.meta.url);

/** Serves a file of contract/ as JSON, read once on first request. */
export function serveContractFile(app: FastifyInstance, url: string, file: string): void {
  let text: Promise<string> | undefined;
  app.get(url, { schema: { hide: true } }, async (_request, reply) => {
    text ??= readFile(new URL(file, CONTRACT), 'utf8');
    return reply.type('application/json; charset=utf-8').send(await text);
  });
}
