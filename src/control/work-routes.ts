// POST /_sandbox/work/run: run the asynchronous processing that is waiting now, instead of on its
// schedule (runtime/work.ts).
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CONTROL_TAG } from '../http/openapi.js';
import { StandardError } from '../http/schema.js';
import { runtimeOf } from '../runtime/index.js';
import { WorkResult } from './schemas.js';

const TAG = [CONTROL_TAG.name];

export const workRoutes: FastifyPluginAsyncTypebox = async (app) => {

  app.post(
    '/work/run',
    {
      schema: {
        operationId: 'runPendingWork',
        description:
          'Runs the asynchronous processing that is waiting (CNAB imports, loan-bond registration steps) now instead of on its schedule, and answers with how many items each runner handled.',
        tags: TAG,
        summary:
          'Run all pending asynchronous processing now (CNAB imports, the loan-bond flow); answers when done',
        response: { 200: WorkResult, 401: StandardError },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const errorsBefore = runtime.work.errors;
      const processed = await runtime.work.drain();
      return { processed, errors: runtime.work.errors - errorsBefore };
    },
  );
};
