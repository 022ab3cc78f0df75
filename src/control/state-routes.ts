// GET /_sandbox/health, POST /_sandbox/reset and POST /_sandbox/fixtures: whether the state is there,
// wiping it (Runtime.reset owns what a reset does) and adding a fixture document to it.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { StandardError, Strict } from '../http/schema.js';
import { runtimeOf } from '../runtime/index.js';
import { fixturesLoaded } from '../runtime/sandbox-events.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);
const Counts = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()));

export const stateRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
    // Synchronous: templates read it through the inspect helper.
    (request) => {
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
      config: {
        refusedBodyChecks: (request: FastifyRequest) => {
          const runtime = runtimeOf(request);
          return { details: runtime.fixtures.problems(request.body, runtime) };
        },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const loaded = runtime.fixtures.load(request.body, runtime);
      fixturesLoaded(runtime.events, loaded);
      request.log.info({ loaded }, 'fixtures loaded');
      return { loaded };
    },
  );
};
