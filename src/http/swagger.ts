// The served OpenAPI document (GET /openapi.json) and its browsable form (/docs), built by
// @fastify/swagger from the route schemas; x-sandbox-assumptions lists every decision in one place.
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
      'A stateful sandbox of four interfaces of a Brazilian receivables platform. Behaviour the specification ' +
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
}
