// The control plane under /_sandbox: health, reset, fixtures, the operations catalog. Not part of any
// emulated interface; its errors use the standard body.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { sameSecret } from '../http/bearer.js';
import { standardBody } from '../http/errors.js';
import { useStandardErrors } from '../http/interface-plugin.js';
import { useJsonBodies } from '../http/json.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { StandardError, Strict, StringEnum } from '../http/schema.js';
import { pathOf } from '../http/url.js';
import { runtimeOf } from '../runtime/index.js';
import { clockRoutes } from './clock-routes.js';
import { coverageRoutes } from './coverage-routes.js';
import { faultRoutes } from './fault-routes.js';
import { journalRoutes } from './journal-routes.js';
import { snapshotRoutes } from './snapshot-routes.js';
import { uiPlugin } from './ui/index.js';
import { workRoutes } from './work-routes.js';
import { workspacesPlugin } from './workspaces.js';

const operationSchema = (ids: readonly string[]) =>
  Type.Object({
    interface: StringEnum(ids),
    name: Type.String(),
    method: Type.Union([Type.String(), Type.Null()]),
    path: Type.Union([Type.String(), Type.Null()]),
    status: StringEnum(['implemented', 'named-only']),
  });

const Counts = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()));

const TAG = [CONTROL_TAG.name];

/**
 * The refusals every control call can give, declared where they arise rather than on each route: a 401
 * under SANDBOX_ADMIN_TOKEN (the document is the same with or without it); a 400 for a malformed
 * request (a body on a GET, a bad JSON body, a bad parameter); a 429 under /ws/{name} when the
 * workspace limit keeps the workspace from being created; a 500 for an unexpected error, whose body
 * names the request id and the cause.
 */
function declareRefusals(route: RouteOptions): void {
  const schema = route.schema as (FastifySchema & { hide?: boolean; response?: Record<string, unknown> }) | undefined;
  if (!schema || schema.hide || !schema.response) return;
  const response = { ...schema.response };
  if (!route.config?.sandboxPublic) response[401] ??= StandardError;
  response[400] ??= StandardError;
  response[429] ??= StandardError;
  response[500] ??= StandardError;
  route.schema = { ...schema, response };
}
const assumed = assumptionLookup(assumptions);

export const sandboxPlugin: FastifyPluginAsyncTypebox = async (app) => {
  // A control call without a body schema takes none: an empty JSON body (what many clients send with
  // POST and DELETE) reads as {} there, as it does on reset, whose body is all optional.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) route.config = { ...route.config, optionalBody: true };
    declareRefusals(route);
  });
  useJsonBodies(app, { optionalBodies: true });

  const adminToken = app.settings.adminToken;
  if (adminToken) {
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.routeOptions.config.sandboxPublic) return;
      const given = request.headers['sandbox-admin-token'];
      if (typeof given !== 'string' || !sameSecret(given, adminToken)) {
        return reply
          .code(401)
          .send(
            standardBody(
              401,
              'this sandbox has SANDBOX_ADMIN_TOKEN set: send it in the Sandbox-Admin-Token header',
            ),
          );
      }
    });
  }

  useStandardErrors(app, (request) => `${request.method} ${pathOf(request.url)} is not a control-plane call`);

  app.get(
    '/health',
    {
      schema: {
        operationId: 'sandboxHealth',
        description:
          'Answers 200 {"status":"ok"} once the database is open and migrated: what a container health check or a test suite waits for before its first call.',
        tags: TAG,
        summary: 'Liveness: 200 once the database is open and migrated',
        response: { 200: Type.Object({ status: Type.Literal('ok') }), 401: StandardError },
      },
    },
    async (request) => {
      runtimeOf(request).store.ping();
      return { status: 'ok' as const };
    },
  );

  app.post(
    '/reset',
    {
      config: { optionalBody: true },
      schema: {
        operationId: 'resetSandbox',
        description:
          'Empties every interface, the journal and the fault rules, returns the clock to real time and restarts generated keys (from seed when given), then loads the fixtures in one transaction: a refused fixture document leaves the state as it was.',
        tags: TAG,
        summary: 'Wipe all state, then load the given fixtures ("default": the configured file; none: empty)',
        body: Type.Optional(
          Strict({
            fixtures: Type.Optional(
              Type.Union([Type.Literal('default'), Type.Object({}, { additionalProperties: true })], {
                description: 'a fixture document, or "default" for the configured fixture file',
              }),
            ),
            seed: Type.Optional(
              Type.String({
                minLength: 1,
                description: 'restart generated keys from this seed (reproducible)',
              }),
            ),
            seedSecrets: Type.Optional(
              Type.Boolean({
                description:
                  'true: secrets such as token_acesso follow the seed too (reproducible, hence guessable); default false',
              }),
            ),
          }),
        ),
        response: {
          200: Type.Object({ status: Type.Literal('reset'), loaded: Counts }),
          400: StandardError,
          401: StandardError,
        },
        'x-sandbox-assumption': assumed('reset-scope', 'seeded-secrets'),
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const loaded = runtimeOf(request).reset(body);
      request.log.info({ loaded }, 'sandbox reset');
      return { status: 'reset' as const, loaded };
    },
  );

  app.post(
    '/fixtures',
    {
      schema: {
        operationId: 'loadFixtures',
        description:
          'Loads a fixture document (users, participants, funds, callers, trade bills) on top of the current state, in one transaction: a refused document changes nothing, and the 400 names the field at fault.',
        tags: TAG,
        summary: 'Add a fixture document to the current state, all or nothing',
        'x-sandbox-assumption': assumed('fixture-open-value'),
        body: app.interfaces.fixtures.schema,
        response: { 200: Type.Object({ loaded: Counts }), 400: StandardError, 401: StandardError },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const loaded = runtime.fixtures.load(request.body, runtime);
      request.log.info({ loaded }, 'fixtures loaded');
      return { loaded };
    },
  );

  app.get(
    '/operations',
    {
      schema: {
        operationId: 'listOperations',
        description:
          'The catalog of the four emulated interfaces: each operation with its method and path when the specification shows them (implemented), or by name only (such a call answers 501).',
        tags: TAG,
        summary: 'Every operation of the four interfaces: documented (implemented) or named only',
        response: {
          200: Type.Object({ operations: Type.Array(operationSchema(app.interfaces.ids)) }),
          401: StandardError,
        },
      },
    },
    async () => ({ operations: [...app.interfaces.operations] }),
  );

  await app.register(journalRoutes);
  await app.register(faultRoutes);
  await app.register(clockRoutes);
  await app.register(snapshotRoutes);
  await app.register(workRoutes);
  await app.register(coverageRoutes);
  await app.register(workspacesPlugin);

  // Each interface inspects its own state, from its own folder.
  for (const { contract, inspection } of app.interfaces.modules)
    await app.register(inspection.routes, { prefix: `/${contract.id}` });
  await app.register(uiPlugin);
};
