// /_sandbox/snapshots: save the whole state under a name, restore it, list and delete snapshots
// (runtime/snapshots.ts).
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { SandboxError } from '../http/errors.js';
import { nextTurn } from '../http/json-body-stream.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { runtimeOf } from '../runtime/index.js';
import { snapshotRestored } from '../runtime/sandbox-events.js';
import type { SnapshotMeta } from '../runtime/snapshots.js';
import { interfaceRows } from '../store/index.js';
import { SnapshotInfo, SnapshotName } from './schemas.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

/** A snapshot as the control plane shows it: its rows as the workspace list shows them (interfaceRows). */
function snapshotView(meta: SnapshotMeta) {
  return { name: meta.name, createdAt: meta.createdAt, clock: meta.clockView, rows: interfaceRows(meta.rows), bytes: meta.bytes };
}

export const snapshotRoutes: FastifyPluginAsyncTypebox = async (app) => {

  app.post(
    '/snapshots',
    {
      schema: {
        operationId: 'takeSnapshot',
        description:
          'Saves the database, the clock setting and the key sequence under a name, to restore between tests instead of rebuilding fixtures. ' +
          'A new name past the snapshots a workspace keeps (SANDBOX_MAX_SNAPSHOTS) is a 409; a save that would take the snapshots of ' +
          'every workspace past SANDBOX_SNAPSHOTS_SIZE bytes is a 429; either changes nothing.',
        tags: TAG,
        summary: 'Save the whole state under a name (replacing a snapshot of that name)',
        body: Type.Object({ name: SnapshotName }, { additionalProperties: false }),
        response: {
          201: Type.Object({ ...SnapshotInfo.properties, replaced: Type.Boolean() }),
          400: StandardError,
          401: StandardError,
          409: StandardError,
          429: StandardError,
        },
        'x-sandbox-assumption': assumed('snapshot-scope', 'snapshot-limits'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      // In turns: other requests (other workspaces', and this one's, whose writes are copied again
      // at the end) are answered while a large state is copied. A workspace removed meanwhile ends it.
      const turn = async () => {
        await nextTurn();
        runtimeOf(request);
      };
      const { meta, replaced } = await runtime.snapshots.save(request.body.name, turn);
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
          'Every saved snapshot with its name, when it was taken, its clock, its row counts and the bytes it takes in memory.',
        tags: TAG,
        summary: 'The saved snapshots',
        response: { 200: Type.Object({ snapshots: Type.Array(SnapshotInfo) }), 401: StandardError },
        'x-sandbox-assumption': assumed('snapshot-limits'),
      },
    },
    (request) => ({ snapshots: runtimeOf(request).snapshots.list().map(snapshotView) }),
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
        'x-sandbox-assumption': assumed('snapshot-scope'),
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
      snapshotRestored(runtime.events, meta.name, meta.createdAt);
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
          'Deletes the snapshot of this name, giving its room back (snapshot-limits); an unknown name is a 404.',
        tags: TAG,
        summary: 'Delete a snapshot',
        params: Type.Object({ name: SnapshotName }),
        response: {
          200: Type.Object({ removed: Type.Integer() }),
          400: StandardError,
          401: StandardError,
          404: StandardError,
        },
        'x-sandbox-assumption': assumed('snapshot-limits'),
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
};
