// /_sandbox/clock: read, set, advance, freeze or reset the sandbox clock every rule reads.
import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { pointer, validationError } from '../http/errors.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { addDuration, parseDuration } from '../runtime/duration.js';
import { CLOCK_RANGE_TEXT, inClockRange } from '../runtime/clock.js';
import { runtimeOf } from '../runtime/index.js';
import { clockChanged } from '../runtime/sandbox-events.js';
import { ClockChange, ClockState } from './schemas.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

export const clockRoutes: FastifyPluginAsyncTypebox = async (app) => {

  app.get(
    '/clock',
    {
      schema: {
        operationId: 'getClock',
        description:
          'The time the sandbox acts on (due dates, overdue reconciliations, the loan-bond flow), the real time beside it, the offset between them and whether the clock is frozen.',
        tags: TAG,
        summary: 'Read the sandbox clock',
        response: { 200: ClockState, 401: StandardError },
      },
    },
    (request) => runtimeOf(request).clock.describe(),
  );

  app.post(
    '/clock',
    {
      schema: {
        operationId: 'setClock',
        tags: TAG,
        summary: 'Set, advance, freeze or unfreeze the sandbox clock',
        description:
          'Every timestamp the sandbox writes and every time rule (the monthly reconciliation included) reads this ' +
          'clock. POST /_sandbox/reset and DELETE /_sandbox/clock return it to real time; a restart on the same database keeps its setting.',
        body: ClockChange,
        response: { 200: ClockState, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': assumed('clock-durations', 'restart-settings'),
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const { now, advance, freeze } = request.body;
      if (now !== undefined && advance !== undefined)
        throw validationError([{ path: pointer('advance'), message: 'give now or advance, not both' }]);
      if (now === undefined && advance === undefined && freeze === undefined)
        throw validationError([{ path: '', message: 'give now, advance or freeze' }]);
      const frozen = freeze ?? runtime.clock.describe().frozen;
      const previous = runtime.clock.now().toISOString();
      const outOfRange = (field: string) =>
        validationError([{ path: pointer(field), message: `moves the clock out of its range: every clock target must be ${CLOCK_RANGE_TEXT}` }]);
      if (now !== undefined) {
        const to = new Date(now);
        if (!inClockRange(to.getTime())) throw outOfRange('now');
        runtime.clock.set(to, frozen);
      } else if (advance !== undefined) {
        const duration = parseDuration(advance);
        if (!duration)
          throw validationError([
            {
              path: pointer('advance'),
              message: 'must be an ISO 8601 duration such as P31D, PT36H, P1M or P1Y2M3DT4H5M6S',
            },
          ]);
        const from = runtime.clock.now();
        const to = addDuration(from, duration);
        if (!inClockRange(to.getTime())) throw outOfRange('advance');
        runtime.clock.set(to, frozen);
      } else {
        runtime.clock.set(runtime.clock.now(), frozen);
      }
      clockChanged(runtime.events, runtime.clock, previous);
      const state = runtime.clock.describe();
      request.log.info({ clock: state.now, frozen: state.frozen }, 'sandbox clock moved');
      return state;
    },
  );

  app.delete(
    '/clock',
    {
      schema: {
        operationId: 'resetClock',
        description:
          'Removes any offset and unfreezes the clock: the sandbox acts on real time again.',
        tags: TAG,
        summary: 'Return the sandbox clock to real time',
        response: { 200: ClockState, 401: StandardError },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      // The way back must work whatever the clock reads, past the dates JavaScript can write included
      // (a clock moved by an older sandbox, or by hand in process).
      const before = runtime.clock.now();
      const previous = Number.isNaN(before.getTime()) ? 'invalid' : before.toISOString();
      runtime.clock.reset();
      clockChanged(runtime.events, runtime.clock, previous);
      return runtime.clock.describe();
    },
  );
};
