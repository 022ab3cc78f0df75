// Workspaces on the HTTP side: how a request under /ws/{name} reaches that workspace's runtime, the
// /ws/* refusal of a bad name, where a workspace's database lives, and the server-wide control calls
// GET/POST /_sandbox/workspaces and DELETE /_sandbox/workspaces/{name}.
import { CONTROL_TAG } from '../http/openapi.js';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { renderError, SandboxError, standardBody, validationError } from '../http/errors.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { createRuntime, type InterfaceParts, type Runtime, type RuntimeLog, type RuntimeSettings } from '../runtime/index.js';
import {
  DEFAULT_WORKSPACE,
  invalidWorkspaceNameOf,
  WORKSPACE_NAME,
  WORKSPACE_NAME_RULE,
  type WorkspaceOpener,
  workspaceNameOf,
  type Workspaces,
} from '../runtime/workspaces.js';
import { readFixtureFile, under } from '../runtime/fixture-document.js';
import { documentsDir } from '../store/documents.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every workspace of this sandbox, `default` included. */
    workspaces: Workspaces;
  }
}

const CREATED = 'workspaceCreatedAt';
const FIXTURES = 'workspaceFixtures';

/** `data/sandbox.db` -> `data/sandbox.ws-w3.db`: one file per workspace, beside the main one. */
export function workspaceDbPath(mainDb: string, name: string): string {
  const ext = extname(mainDb);
  return `${ext ? mainDb.slice(0, -ext.length) : mainDb}.ws-${name}.db`;
}

function persistedNames(mainDb: string): string[] {
  const dir = dirname(mainDb);
  if (!existsSync(dir)) return [];
  const ext = extname(mainDb);
  const stem = `${basename(mainDb, ext)}.ws-`;
  return readdirSync(dir)
    .filter((f) => f.startsWith(stem) && f.endsWith('.db'))
    .map((f) => f.slice(stem.length, -'.db'.length))
    .filter((name) => WORKSPACE_NAME.test(name))
    .sort();
}

export interface OpenerOptions {
  /** The main database: a file, or ':memory:'. */
  db: string;
  /** The default workspace's settings; each workspace gets a copy (its own fixtures). */
  settings: RuntimeSettings;
  /** What the interfaces bring to each state, as in the default workspace (each counts its own coverage). */
  interfaces: InterfaceParts;
  log: RuntimeLog;
}

/** Opens workspaces like the default one: same settings, a database of their own, fixtures when new. */
export function workspaceOpener(options: OpenerOptions): WorkspaceOpener {
  const inMemory = options.db === ':memory:' || options.db === '';
  let startup: unknown;
  // The start-up fixture file is read once: creating a workspace should not re-parse it every time.
  const startupFixtures = () => {
    const configured = options.settings.fixtures;
    return (startup ??= typeof configured === 'string' ? readFixtureFile(configured) : configured);
  };
  const path = (name: string) => (inMemory ? ':memory:' : workspaceDbPath(options.db, name));
  const destroy = (name: string) => {
    if (inMemory) return;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path(name)}${suffix}`, { force: true });
    // Its loan-bond files (store/documents.ts) go with it.
    rmSync(documentsDir(path(name)), { recursive: true, force: true });
  };
  return {
    storage: inMemory ? 'memory' : 'file',
    persisted: () => (inMemory ? [] : persistedNames(options.db)),
    destroy,
    open(name, fixtures) {
      const log: RuntimeLog = {
        info: (obj, msg) => options.log.info({ ...obj, workspace: name }, msg),
        error: (obj, msg) => options.log.error({ ...obj, workspace: name }, msg),
      };
      const settings: RuntimeSettings = { ...options.settings, fixtures: fixtures ?? options.settings.fixtures };
      const { runtime, isNew } = createRuntime({
        db: path(name),
        settings,
        interfaces: options.interfaces,
        log,
      });
      try {
        if (!isNew) {
          // Reopened from its file: its own fixtures, when it was created with some, are recorded there.
          const own = runtime.store.meta(FIXTURES);
          if (own !== undefined) runtime.settings.fixtures = JSON.parse(own) as object;
          return { runtime, createdAt: runtime.store.meta(CREATED) ?? new Date().toISOString() };
        }
        const createdAt = new Date().toISOString();
        runtime.store.transaction(() => {
          const doc = fixtures ?? startupFixtures();
          if (doc) runtime.fixtures.load(doc, runtime);
          runtime.store.setMetaValue(CREATED, createdAt);
          if (fixtures) runtime.store.setMetaValue(FIXTURES, JSON.stringify(fixtures));
        });
        return { runtime, createdAt };
      } catch (err) {
        void runtime.close();
        destroy(name);
        throw err;
      }
    },
  };
}

/**
 * Puts `workspaces` on the app: the runtime resolver for requests under /ws/{name}, the hook that
 * marks a workspace unused again when its request is answered, and the /ws/* route that refuses a
 * bad name. Returns the resolver for installRuntime.
 */
export function installWorkspaces(app: FastifyInstance, workspaces: Workspaces): (request: FastifyRequest) => Runtime {
  const fallback = workspaces.peek(DEFAULT_WORKSPACE);
  if (!fallback) throw new Error('the default workspace has no runtime');
  const using = new WeakSet<FastifyRequest>();
  app.decorate('workspaces', workspaces);
  app.addHook('onResponse', (request, _reply, done) => {
    if (using.has(request)) workspaces.release(workspaceNameOf(request.raw) ?? DEFAULT_WORKSPACE);
    done();
  });
  app.addHook('onClose', () => workspaces.close());

  // Left untouched by the rewrite: a bad name after /ws/, or a second /ws/ after a good one.
  app.all('/ws/*', { schema: { hide: true } }, async (request, reply) => {
    const bad = invalidWorkspaceNameOf(request.raw);
    if (bad === undefined) {
      return reply
        .code(404)
        .send(standardBody(404, `${request.method} ${request.originalUrl.split('?')[0]}: workspace prefixes do not nest (one /ws/{name} per path)`));
    }
    const shown = bad.length > 80 ? `${bad.slice(0, 80)}...` : bad;
    const message = `"${shown}" in /ws/${shown}/ is not a workspace name: ${WORKSPACE_NAME_RULE} (pattern ${WORKSPACE_NAME.source})`;
    const rest = request.url.slice(`/ws/${bad}`.length).split('?')[0] ?? '';
    const owner = app.interfaces.ofPath(rest);
    const body = owner ? renderError(owner.contract.shape, new SandboxError(400, message)) : standardBody(400, message);
    return reply.code(400).type('application/json').send(body);
  });

  return (request) => {
    const name = workspaceNameOf(request.raw);
    if (name === undefined) return fallback;
    const runtime = workspaces.use(name);
    using.add(request);
    return runtime;
  };
}

// ---- control calls --------------------------------------------------------------------------

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

const WorkspaceName = Type.String({
  pattern: WORKSPACE_NAME.source,
  description: `${WORKSPACE_NAME_RULE}; a test worker's id, e.g. w3 or gw0`,
  example: 'w3',
});

const WorkspaceInfo = Type.Object({
  name: Type.String(),
  createdAt: Type.String({ description: 'real time, ISO 8601 UTC' }),
  lastUsedAt: Type.String({ description: 'real time of the last request that reached it' }),
  storage: Type.String({ enum: ['memory', 'file'] }),
  rows: Type.Record(Type.String(), Type.Integer(), { description: 'rows per table' }),
});

function refusedUnderPrefix(request: FastifyRequest): void {
  const name = workspaceNameOf(request.raw);
  if (name !== undefined)
    throw new SandboxError(
      404,
      `workspaces are listed and managed at /_sandbox/workspaces without a workspace prefix, not under /ws/${name}`,
    );
}

export const workspacesPlugin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/workspaces',
    {
      schema: {
        tags: TAG,
        summary: 'The workspaces of this sandbox: name, created, last used, rows per table',
        operationId: 'listWorkspaces',
        description:
          'A base URL ending in /ws/{name} reaches workspace {name} (every interface path and the whole control plane); ' +
          'without the prefix, paths reach "default".',
        response: {
          200: Type.Object({
            max: Type.Integer({ description: 'SANDBOX_MAX_WORKSPACES: workspaces allowed besides default' }),
            storage: Type.String({ enum: ['memory', 'file'] }),
            workspaces: Type.Array(WorkspaceInfo, { description: 'default first, then by name' }),
          }),
          401: StandardError,
          404: StandardError,
        },
        'x-sandbox-assumption': assumed('workspace-prefix', 'workspace-isolation', 'workspace-storage', 'workspace-eviction'),
      },
    },
    async (request) => {
      refusedUnderPrefix(request);
      const { workspaces } = app;
      return { max: workspaces.max, storage: workspaces.storage, workspaces: workspaces.list() };
    },
  );

  app.post(
    '/workspaces',
    {
      schema: {
        tags: TAG,
        summary: 'Create a workspace with the given fixtures (default: the start-up ones)',
        operationId: 'createWorkspace',
        description:
          'Creates workspace {name} now, loaded with the fixtures given (a fixture document, a fixture name, or the ' +
          "sandbox's start-up fixtures when absent); 409 when it exists, 429 over SANDBOX_MAX_WORKSPACES.",
        body: Type.Object(
          {
            name: WorkspaceName,
            fixtures: Type.Optional(
              Type.Union([Type.Literal('default'), Type.Object({}, { additionalProperties: true })], {
                description: 'a fixture document ({} for an empty workspace), or "default" for the start-up fixtures',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: WorkspaceInfo,
          400: StandardError,
          401: StandardError,
          404: StandardError,
          409: StandardError,
          429: StandardError,
        },
        'x-sandbox-assumption': assumed('workspace-names', 'workspace-lifecycle', 'workspace-limit'),
      },
    },
    async (request, reply) => {
      refusedUnderPrefix(request);
      const { name, fixtures } = request.body;
      const created = under('/fixtures', () => app.workspaces.create(name, fixtures === 'default' ? undefined : fixtures));
      if (!created)
        throw new SandboxError(
          409,
          `workspace "${name}" exists already: reset it (POST /ws/${name}/_sandbox/reset) or DELETE /_sandbox/workspaces/${name} first`,
        );
      request.log.info({ workspace: name }, 'workspace created');
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/workspaces/:name',
    {
      schema: {
        tags: TAG,
        summary: 'Remove a workspace with its state, journal, snapshots and database file',
        operationId: 'deleteWorkspace',
        description: 'Removes workspace {name}: its state, journal, clock, fault rules, snapshots and database file. The default workspace cannot be removed.',
        params: Type.Object({ name: WorkspaceName }),
        response: {
          200: Type.Object({ removed: Type.Integer() }),
          400: StandardError,
          401: StandardError,
          404: StandardError,
        },
        'x-sandbox-assumption': assumed('workspace-lifecycle'),
      },
    },
    async (request) => {
      refusedUnderPrefix(request);
      const { name } = request.params;
      if (name === DEFAULT_WORKSPACE)
        throw validationError([
          { path: '/name', message: 'the default workspace cannot be removed: reset it (POST /_sandbox/reset)' },
        ]);
      if (!(await app.workspaces.remove(name)))
        throw new SandboxError(404, `no workspace "${name}" (GET /_sandbox/workspaces lists them)`);
      request.log.info({ workspace: name }, 'workspace removed');
      return { removed: 1 };
    },
  );
};

