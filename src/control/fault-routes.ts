// /_sandbox/faults: fault rules, under which matching requests get a documented error status in the
// interface's own body, or a delay (runtime/faults.ts keeps them; control/fault-hook.ts applies them).
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { SandboxError } from '../http/errors.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { runtimeOf } from '../runtime/index.js';
import { interfaceSchemas } from './schemas.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

export const faultRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { FaultInput, FaultRule: FaultRuleSchema } = interfaceSchemas(app.interfaces);
  const contracts = app.interfaces.modules.map((m) => m.contract);

  app.post(
    '/faults',
    {
      schema: {
        operationId: 'addFault',
        tags: TAG,
        summary:
          "Add a fault rule: matching requests get a documented error status in the interface's body, or a delay",
        description:
          'Rules are tried in the order they were added; the first that matches and has matches left applies. ' +
          'A rule applies before anything the interface checks (credentials, body): the request body is not read.',
        body: FaultInput,
        response: { 201: FaultRuleSchema, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': assumed('fault-rules'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const rule = runtime.faults.add(request.body, runtime.clock.now(), contracts);
      request.log.info({ fault: rule.id, path: rule.path, status: rule.status }, 'fault rule added');
      return reply.code(201).send(rule);
    },
  );

  app.get(
    '/faults',
    {
      schema: {
        operationId: 'listFaults',
        description:
          'Every fault rule in the order it is tried, with how many requests it has matched and how many matches it has left.',
        tags: TAG,
        summary: 'The fault rules, with their hit counts',
        response: { 200: Type.Object({ faults: Type.Array(FaultRuleSchema) }), 401: StandardError },
      },
    },
    (request) => ({ faults: runtimeOf(request).faults.list() }),
  );

  app.delete(
    '/faults',
    {
      schema: {
        operationId: 'clearFaults',
        description:
          'Removes every fault rule and answers how many there were.',
        tags: TAG,
        summary: 'Remove every fault rule',
        response: { 200: Type.Object({ removed: Type.Integer() }), 401: StandardError },
      },
    },
    async (request) => ({ removed: runtimeOf(request).faults.clear() }),
  );

  app.delete(
    '/faults/:id',
    {
      schema: {
        operationId: 'removeFault',
        description:
          'Removes the fault rule with this id; an unknown id is a 404.',
        tags: TAG,
        summary: 'Remove one fault rule',
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Object({ removed: Type.Integer() }), 401: StandardError, 404: StandardError },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      if (!runtime.faults.remove(request.params.id))
        throw new SandboxError(404, `no fault rule "${request.params.id}" (GET /_sandbox/faults lists them)`);
      return { removed: 1 };
    },
  );
};
