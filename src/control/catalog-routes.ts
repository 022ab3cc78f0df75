// GET /_sandbox/operations: every operation of the emulated interfaces, documented or named only.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { CONTROL_TAG } from '../http/openapi.js';
import { StandardError, StringEnum } from '../http/schema.js';

const TAG = [CONTROL_TAG.name];

const operationSchema = (ids: readonly string[]) =>
  Type.Object({
    interface: StringEnum(ids),
    name: Type.String(),
    method: Type.Union([Type.String(), Type.Null()]),
    path: Type.Union([Type.String(), Type.Null()]),
    status: StringEnum(['implemented', 'named-only']),
  });

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operations',
    {
      schema: {
        operationId: 'listOperations',
        description:
          'The catalog of the emulated interfaces: each operation with its method and path when the specification shows them (implemented), or by name only (such a call answers 501).',
        tags: TAG,
        summary: 'Every operation of the emulated interfaces: documented (implemented) or named only',
        response: {
          200: Type.Object({ operations: Type.Array(operationSchema(app.interfaces.ids)) }),
          401: StandardError,
        },
      },
    },
    async () => ({ operations: [...app.interfaces.operations] }),
  );
};
