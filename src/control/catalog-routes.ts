// GET /_sandbox/operations: every operation of the emulated interfaces, documented, named only, or
// stubbed (named only and answered in this workspace by user-defined operations).
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { StandardError, StringEnum } from '../http/schema.js';
import { runtimeOf } from '../runtime/index.js';
import type { Stub } from '../stubs/mapping.js';
import { userDefinedOperation } from '../stubs/stub-set.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

/** A user-defined operation (a stub mapping) as the catalog names it. */
const MappingRef = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  method: Type.String({ description: 'the method it matches, or ANY' }),
  url: Type.Union([Type.String(), Type.Null()], { description: 'its URL rule; null: every URL' }),
});

const operationSchema = (ids: readonly string[]) =>
  Type.Object({
    id: Type.String({
      description:
        'the operation id, as the journal and coverage name it, as the journal and count filters take it (operation=), and as a mapping names the named-only operation it implements (metadata.sandbox.operation)',
    }),
    interface: StringEnum(ids),
    name: Type.String(),
    method: Type.Union([Type.String(), Type.Null()]),
    path: Type.Union([Type.String(), Type.Null()]),
    status: StringEnum(['implemented', 'named-only', 'stubbed'], {
      description: 'stubbed: named only by the specification, answered in this workspace by the mappings listed',
    }),
    mappings: Type.Optional(Type.Array(MappingRef, { description: 'the user-defined operations that implement it' })),
  });

const mappingRef = (stub: Stub) => {
  const u = userDefinedOperation(stub);
  return { id: u.mapping, name: u.name, method: u.method, url: u.url };
};

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operations',
    {
      schema: {
        operationId: 'listOperations',
        description:
          'The catalog of the emulated interfaces: each operation with its method and path when the specification shows them (implemented), or by name only (such a call answers 501), or stubbed: named only, and answered in this workspace by user-defined operations (metadata.sandbox.operation of a mapping). The mappings that implement no named operation are listed apart.',
        tags: TAG,
        summary: 'Every operation of the emulated interfaces: documented (implemented), named only, or stubbed by mappings',
        response: {
          200: Type.Object({
            operations: Type.Array(operationSchema(app.interfaces.ids)),
            userDefined: Type.Array(MappingRef, { description: 'the mappings of this workspace that implement no named operation' }),
          }),
          401: StandardError,
        },
        'x-sandbox-assumption': assumed('stub-records'),
      },
    },
    // Synchronous: templates read it through the inspect helper.
    (request) => {
      const stubs = app.userOperations.stubs.all(runtimeOf(request));
      const byOperation = new Map<string, Stub[]>();
      for (const stub of stubs) if (stub.operation) byOperation.set(stub.operation, [...(byOperation.get(stub.operation) ?? []), stub]);
      return {
        operations: app.interfaces.operations.map((o) => {
          const mappings = byOperation.get(o.id);
          return mappings ? { ...o, status: 'stubbed' as const, mappings: mappings.map(mappingRef) } : o;
        }),
        userDefined: stubs.filter((s) => s.operation === null).map(mappingRef),
      };
    },
  );
};
