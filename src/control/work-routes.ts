// /_sandbox/work: the asynchronous processing of this workspace (runtime/work.ts): what waits and what
// failed, holding or releasing it, the backlog bound, and running what waits now instead of on its
// schedule.
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import { WorkChange, WorkResult, WorkState } from './schemas.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

const workState = (runtime: Runtime) => ({
  held: runtime.work.isHeld,
  maxBacklog: runtime.work.maxBacklog,
  runners: runtime.work.describe(),
  failures: runtime.work.recentFailures.map(({ seq: _seq, ...failure }) => failure),
});

export const workRoutes: FastifyPluginAsyncTypebox = async (app) => {

  app.get(
    '/work',
    {
      schema: {
        operationId: 'getWork',
        description:
          'The asynchronous processing of this workspace: items waiting per kind of work (CNAB imports, loan-bond registrations), the backlog bound, whether processing is held, retries due and the last failures.',
        tags: TAG,
        summary: 'What asynchronous processing waits, and what failed',
        response: { 200: WorkState, 401: StandardError },
        'x-sandbox-assumption': assumed('work-backlog'),
      },
    },
    async (request) => workState(runtimeOf(request)),
  );

  app.post(
    '/work',
    {
      schema: {
        operationId: 'configureWork',
        description:
          'Holds or releases asynchronous processing (held, a client can observe its imports pending), and sets the backlog bound of this workspace; POST /_sandbox/reset returns both to their start-up values; a restart on the same database keeps them.',
        tags: TAG,
        summary: 'Hold or release asynchronous processing; set the backlog bound',
        body: WorkChange,
        response: { 200: WorkState, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': assumed('work-backlog', 'restart-settings'),
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      runtime.work.configure(request.body);
      return workState(runtime);
    },
  );

  app.post(
    '/work/run',
    {
      schema: {
        operationId: 'runPendingWork',
        description:
          'Runs the asynchronous processing that is waiting (CNAB imports, loan-bond registration steps) now instead of after the work delay (SANDBOX_WORK_DELAY), held or not, and answers with how many items each runner handled and the runs that failed (runner, job, error; each is retried after a backoff).',
        tags: TAG,
        summary:
          'Run all pending asynchronous processing now (CNAB imports, the loan-bond flow); answers when done',
        response: { 200: WorkResult, 401: StandardError },
        'x-sandbox-assumption': assumed('work-delay'),
      },
    },
    async (request) => {
      const { processed, failures } = await runtimeOf(request).work.drain();
      if (failures.length > 0) request.log.warn({ failures }, 'pending work failed; it is retried after a backoff');
      return {
        processed,
        errors: failures.length,
        failures: failures.map(({ seq: _seq, ...failure }) => failure),
      };
    },
  );
};
