// The control plane's tools for a client's test suite: the request journal, fault rules, the clock,
// snapshots and running pending asynchronous work now. Mounted by the sandbox plugin under /_sandbox.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumptions.js';
import { pointer, SandboxError, validationError } from '../http/errors.js';
import { decodeCursor, pageOf } from '../http/paging.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { addDuration, parseDuration } from '../runtime/duration.js';
import {
  ClockChange,
  ClockState,
  FaultInput,
  FaultRuleSchema,
  JOURNAL_PAGE,
  JournalList,
  JournalQuery,
  SnapshotInfo,
  SnapshotName,
  WorkResult,
} from './schemas.js';
import type { SnapshotMeta } from '../runtime/snapshots.js';
import { runtimeOf } from '../runtime/index.js';
import { INTERFACES } from '../interfaces.js';

const TAG = ['sandbox control plane'];
const a = assumptionLookup(assumptions);

function snapshotView(meta: SnapshotMeta) {
  return { name: meta.name, createdAt: meta.createdAt, clock: meta.clockView, rows: meta.rows };
}

export const controlPlugin: FastifyPluginAsyncTypebox = async (app) => {
  // --- journal ---------------------------------------------------------------------------------
  app.get(
    '/requests',
    {
      schema: {
        operationId: 'listRequests',
        tags: TAG,
        summary: 'The request journal: what clients sent to the interfaces and what they got, newest first',
        description:
          'Every request under an interface prefix (501s included) and every 404 outside the prefixes. Bodies are ' +
          'redacted by key (tokens, Authorization, document bytes) and bounded; headers are never kept. A page of ' +
          'limit entries (default 100); nextCursor, passed as cursor, gives the older ones.',
        querystring: JournalQuery,
        response: { 200: JournalList, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': a('journal-scope'),
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const q = request.query;
      const limit = q.limit ?? JOURNAL_PAGE;
      const before = q.cursor === undefined ? undefined : Number(decodeCursor(q.cursor, ['number'])[0]);
      const page = pageOf(
        runtime.journal.list({
          interface: q.interface,
          operation: q.operation,
          status: q.status,
          since: q.since === undefined ? undefined : new Date(q.since),
          before,
          limit: limit + 1,
        }),
        limit,
        (e) => [e.id],
      );
      return {
        capacity: runtime.journal.capacity,
        count: runtime.journal.count,
        dropped: runtime.journal.dropped,
        entries: page.items,
        nextCursor: page.nextCursor,
      };
    },
  );

  app.delete(
    '/requests',
    {
      schema: {
        operationId: 'clearRequests',
        description:
          'Empties the request journal and answers how many entries it removed.',
        tags: TAG,
        summary: 'Clear the request journal',
        response: { 200: Type.Object({ cleared: Type.Integer() }), 401: StandardError },
      },
    },
    async (request) => ({ cleared: runtimeOf(request).journal.clear() }),
  );

  // --- faults ----------------------------------------------------------------------------------
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
        'x-sandbox-assumption': a('fault-rules'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const rule = runtime.faults.add(request.body, runtime.clock.now(), INTERFACES);
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
    async (request) => ({ faults: runtimeOf(request).faults.list() }),
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

  // --- clock -----------------------------------------------------------------------------------
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
    async (request) => runtimeOf(request).clock.describe(),
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
          'clock. POST /_sandbox/reset and DELETE /_sandbox/clock return it to real time.',
        body: ClockChange,
        response: { 200: ClockState, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': a('clock-durations'),
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
      if (now !== undefined) {
        runtime.clock.set(new Date(now), frozen);
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
        if (Number.isNaN(to.getTime()) || Math.abs(to.getTime()) > 8.64e15)
          throw validationError([
            { path: pointer('advance'), message: 'moves the clock out of the range of dates' },
          ]);
        runtime.clock.set(to, frozen);
      } else {
        runtime.clock.set(runtime.clock.now(), frozen);
      }
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
      runtime.clock.reset();
      return runtime.clock.describe();
    },
  );

  // --- snapshots -------------------------------------------------------------------------------
  app.post(
    '/snapshots',
    {
      schema: {
        operationId: 'takeSnapshot',
        description:
          'Saves the database, the clock setting and the key sequence under a name, to restore between tests instead of rebuilding fixtures.',
        tags: TAG,
        summary: 'Save the whole state under a name (replacing a snapshot of that name)',
        body: Type.Object({ name: SnapshotName }, { additionalProperties: false }),
        response: {
          201: Type.Object({ ...SnapshotInfo.properties, replaced: Type.Boolean() }),
          400: StandardError,
          401: StandardError,
        },
        'x-sandbox-assumption': a('snapshot-scope'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const { meta, replaced } = runtime.snapshots.save(request.body.name);
      request.log.info({ snapshot: meta.name, rows: meta.rows }, 'snapshot saved');
      return reply.code(201).send({ ...snapshotView(meta), replaced });
    },
  );

  app.get(
    '/snapshots',
    {
      schema: {
        operationId: 'listSnapshots',
        description:
          'Every saved snapshot with its name, when it was taken, its clock and its row counts.',
        tags: TAG,
        summary: 'The saved snapshots',
        response: { 200: Type.Object({ snapshots: Type.Array(SnapshotInfo) }), 401: StandardError },
      },
    },
    async (request) => ({ snapshots: runtimeOf(request).snapshots.list().map(snapshotView) }),
  );

  app.post(
    '/snapshots/:name/restore',
    {
      schema: {
        operationId: 'restoreSnapshot',
        description:
          'Replaces the whole state with the snapshot of this name; an unknown name is a 404 and changes nothing.',
        tags: TAG,
        summary: 'Put the whole state back as it was saved: database, clock setting and key sequence',
        params: Type.Object({ name: SnapshotName }),
        response: { 200: SnapshotInfo, 400: StandardError, 401: StandardError, 404: StandardError },
        'x-sandbox-assumption': a('snapshot-scope'),
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const meta = runtime.snapshots.restore(request.params.name);
      if (!meta)
        throw new SandboxError(
          404,
          `no snapshot "${request.params.name}" (GET /_sandbox/snapshots lists them)`,
        );
      // Work that was pending in the snapshot resumes.
      runtime.work.kickAll();
      request.log.info({ snapshot: meta.name }, 'snapshot restored');
      return snapshotView(meta);
    },
  );

  app.delete(
    '/snapshots/:name',
    {
      schema: {
        operationId: 'deleteSnapshot',
        description:
          'Deletes the snapshot of this name; an unknown name is a 404.',
        tags: TAG,
        summary: 'Delete a snapshot',
        params: Type.Object({ name: SnapshotName }),
        response: {
          200: Type.Object({ removed: Type.Integer() }),
          400: StandardError,
          401: StandardError,
          404: StandardError,
        },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      if (!runtime.snapshots.delete(request.params.name))
        throw new SandboxError(
          404,
          `no snapshot "${request.params.name}" (GET /_sandbox/snapshots lists them)`,
        );
      return { removed: 1 };
    },
  );

  // --- asynchronous work -----------------------------------------------------------------------
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
