// Workspaces on the HTTP side: how a request under /ws/{name} reaches that workspace's runtime, the
// /ws/* refusal of a bad name, where a workspace's database lives, and the server-wide control calls
// GET/POST /_sandbox/workspaces and DELETE /_sandbox/workspaces/{name}.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { adminKeyProblem, adminKeyRefusal, carriesAdminKey } from '../http/bearer.js';
import { WORKSPACE_HEADER_SCHEMAS } from '../http/interface-plugin.js';
import { renderError, SandboxError, standardBody, validationError } from '../http/errors.js';
import { editDistance } from '../http/near-miss.js';
import { afterKey, NextCursor, pageOf, pageQuery } from '../http/paging.js';
import { StandardError } from '../http/schema.js';
import { pathOf } from '../http/url.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { createRuntime, type InterfaceParts, type Runtime, type RuntimeLog, type RuntimeSettings } from '../runtime/index.js';
import {
  CREATED_HEADER,
  createdByRequest,
  DEFAULT_WORKSPACE,
  invalidWorkspaceNameOf,
  refusedWorkspaceOf,
  reopenedByRequest,
  SIMILAR_HEADER,
  removalRefusal,
  WorkspaceRemovingError,
  WorkspaceUnknownError,
  WORKSPACE_NAME,
  WORKSPACE_NAME_RULE,
  type WorkspaceOpener,
  workspaceNameOf,
  type Workspaces,
} from '../runtime/workspaces.js';
import { readFixtureFile, under } from '../runtime/fixture-document.js';
import { redactPathParameters } from '../runtime/redact.js';
import { documentsDir } from '../store/documents.js';
import { isInMemoryPath } from '../store/db.js';
import { WORKSPACE_META } from '../store/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every workspace of this sandbox, `default` included. */
    workspaces: Workspaces;
  }
}

/** Workspaces per page of the list: a workspace's line is well under 1 kB. */
const WORKSPACES_PAGE = 100;
const WORKSPACES_PAGE_MAX = 1000;

const CREATED = WORKSPACE_META.createdAt;
const FIXTURES = WORKSPACE_META.fixtures;

/** `data/sandbox.db` -> `data/sandbox.ws-w3.db`: one file per workspace, beside the main one. */
export function workspaceDbPath(mainDb: string, name: string): string {
  const ext = extname(mainDb);
  return `${ext ? mainDb.slice(0, -ext.length) : mainDb}.ws-${name}.db`;
}

/** What a removed workspace's files are renamed to before they are deleted: never a workspace's name. */
const REMOVED = '.removed-';

function persistedNames(mainDb: string): string[] {
  const dir = dirname(mainDb);
  if (!existsSync(dir)) return [];
  const ext = extname(mainDb);
  const stem = `${basename(mainDb, ext)}.ws-`;
  const files = readdirSync(dir).filter((f) => f.startsWith(stem));
  // Files of a removal the process did not live to finish: they belong to no workspace.
  for (const f of files.filter((f) => f.includes(REMOVED))) rmSync(join(dir, f), { recursive: true, force: true });
  return files
    .filter((f) => f.endsWith('.db'))
    .map((f) => f.slice(stem.length, -'.db'.length))
    .filter((name) => WORKSPACE_NAME.test(name))
    .sort();
}

/**
 * Removes a closed workspace's database files and its loan-bond documents folder (store/documents.ts):
 * each is first renamed to a name no workspace can have (the WAL and shared-memory files before the
 * database, so a half-done removal never leaves a log beside a database that is not its own; the
 * documents after it, as a folder left without its database is swept by the next database of that
 * name, which refers to none of its files), then deleted. The renames are done when it returns; the
 * deletions (a folder of documents may hold many files) run off the event loop, and the promise
 * settles once they are done. What a crash leaves of them is deleted at the next start (persistedNames).
 */
function removeFiles(path: string): Promise<void> {
  const tag = `${REMOVED}${randomBytes(6).toString('hex')}`;
  const moved: string[] = [];
  const documents = documentsDir(path).slice(path.length);
  for (const suffix of ['-wal', '-shm', '', documents]) {
    const from = `${path}${suffix}`;
    const to = `${path}${tag}${suffix}`;
    try {
      renameSync(from, to);
      moved.push(to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return Promise.all(moved.map((f) => rm(f, { recursive: true, force: true }))).then(() => undefined);
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
  const inMemory = isInMemoryPath(options.db);
  let startup: unknown;
  // The start-up fixture file is read once: creating a workspace should not re-parse it every time.
  const startupFixtures = () => {
    const configured = options.settings.fixtures;
    return (startup ??= typeof configured === 'string' ? readFixtureFile(configured) : configured);
  };
  const path = (name: string) => (inMemory ? ':memory:' : workspaceDbPath(options.db, name));
  const destroy = (name: string) => (inMemory ? Promise.resolve() : removeFiles(path(name)));
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
        name,
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
          return { runtime, createdAt: runtime.store.meta(CREATED) ?? new Date().toISOString(), isNew: false };
        }
        const createdAt = new Date().toISOString();
        runtime.store.transaction(() => {
          const doc = fixtures ?? startupFixtures();
          if (doc) runtime.fixtures.load(doc, runtime);
          runtime.store.setMetaValue(CREATED, createdAt);
          if (fixtures) runtime.store.setMetaValue(FIXTURES, JSON.stringify(fixtures));
        });
        return { runtime, createdAt, isNew: true };
      } catch (err) {
        // Never touched by a request: its database has no checkpoint connection to wait for.
        void runtime.close();
        void destroy(name).catch((cleanup: unknown) =>
          options.log.error({ err: cleanup, workspace: name }, 'the files of a workspace that could not be created were not all deleted'),
        );
        throw err;
      }
    },
  };
}

/**
 * Whether a request may create a workspace by naming it: always, unless the control plane is locked
 * (SANDBOX_ADMIN_TOKEN); then only a request carrying the key. So nobody without the key can fill the
 * sandbox up to its limit.
 */
export function creationPolicy(adminToken: string | undefined): (req: IncomingMessage) => boolean {
  if (!adminToken) return () => true;
  return (req) => carriesAdminKey(req.headers, adminToken);
}

/**
 * Puts `workspaces` on the app: the runtime resolver for requests under /ws/{name}, the hook that
 * marks a workspace unused again when its request is answered, and the /ws/* route that answers a
 * base URL reaching no workspace (a bad name, nested prefixes, a workspace being removed, or one that
 * does not exist and may not be created by this request). Returns the resolver for installRuntime.
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

  // Left untouched by the rewrite: a bad name after /ws/, a second /ws/ after a good one, or a
  // workspace the request may not reach now. Answered before the body is parsed: the body is never
  // read, and this app's parsers (Fastify's own) would refuse an empty JSON body, which the control
  // plane reads as {}, in Fastify's shape instead of this refusal (tester5 finding 2).
  const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.originalUrl.split('?')[0] ?? '';
    const refused = refusedWorkspaceOf(request.raw);
    if (refused) {
      const rest = path.slice(`/ws/${refused.name}`.length);
      const owner = app.interfaces.ofPath(rest);
      if (refused.reason === 'unknown' && !owner && rest.startsWith('/_sandbox')) {
        // The control plane's own answer without its key: whether a workspace exists is not told.
        return reply.code(401).send(standardBody(401, adminKeyRefusal(request.headers)));
      }
      if (refused.reason === 'removing') {
        const place = owner ? owner.contract.shape : rest.startsWith('/_sandbox') ? 'control' : 'standard';
        const { status, body } = removalRefusal(new WorkspaceRemovingError(refused.name), place);
        return reply.code(status).type('application/json').send(body);
      }
      // Under an interface, its documented 400 in its shape (an interface answers only the statuses
      // it documents, as for workspace-limit); outside every prefix the sandbox's own 404
      // (workspace-locked).
      const err = new WorkspaceUnknownError(refused.name, adminKeyProblem(request.headers));
      if (!owner) return reply.code(err.status).type('application/json').send(standardBody(err.status, err.message));
      const refusal = new SandboxError(400, err.message, { code: err.code });
      return reply.code(400).type('application/json').send(renderError(owner.contract.shape, refusal));
    }
    const bad = invalidWorkspaceNameOf(request.raw);
    if (bad === undefined) {
      return reply.code(404).send(standardBody(404, `${request.method} ${path}: workspace prefixes do not nest (one /ws/{name} per path)`));
    }
    const shown = bad.length > 80 ? `${bad.slice(0, 80)}...` : bad;
    const message = `"${shown}" in /ws/${shown}/ is not a workspace name: ${WORKSPACE_NAME_RULE} (pattern ${WORKSPACE_NAME.source})`;
    const rest = request.url.slice(`/ws/${bad}`.length).split('?')[0] ?? '';
    const owner = app.interfaces.ofPath(rest);
    const body = owner ? renderError(owner.contract.shape, new SandboxError(400, message)) : standardBody(400, message);
    return reply.code(400).type('application/json').send(body);
  };
  app.all('/ws/*', { schema: { hide: true }, onRequest: refuse }, refuse);

  // What a request that created its workspace on first use is answered with (workspace-created-header):
  // set when the answer goes out, since the workspace may be created by a hook or the handler.
  const created = new WeakMap<FastifyRequest, { name: string; similar: string | undefined }>();
  // A callback, not an async function: every answer passes here, and a promise each costs the hot path.
  app.addHook('onSend', (request, reply, payload, done) => {
    const made = created.get(request);
    if (made) {
      reply.header(CREATED_HEADER, made.name);
      if (made.similar !== undefined) reply.header(SIMILAR_HEADER, made.similar);
    }
    done(null, payload);
  });

  return (request) => {
    const name = workspaceNameOf(request.raw);
    if (name === undefined) return fallback;
    const runtime = workspaces.use(name, request.raw);
    using.add(request);
    if (createdByRequest(request.raw)) {
      const similar = similarWorkspaceName(name, workspaces.names());
      created.set(request, { name, similar });
      logCreation(request, name, similar);
    } else if (reopenedByRequest(request.raw)) {
      // It existed, with its data: no Sandbox-Workspace-Created, which promises a fresh workspace.
      request.log.info({ workspace: name }, `workspace '${name}' reopened from its file by ${request.method} ${loggedPath(request)}`);
    }
    return runtime;
  };
}

/** Longest path a creation log line quotes: a path is the client's and could be any length. */
const LOGGED_PATH = 200;

/**
 * The path a workspace's log line quotes: the path only, since a query string may carry what the
 * client considers secret; so may a path parameter (;jsessionid=), redacted as the request's own log
 * line redacts it.
 */
function loggedPath(request: FastifyRequest): string {
  const path = redactPathParameters(pathOf(request.originalUrl));
  return path.length > LOGGED_PATH ? `${path.slice(0, LOGGED_PATH)}...` : path;
}

function logCreation(request: FastifyRequest, name: string, similar: string | undefined): void {
  const line = `workspace '${name}' created by ${request.method} ${loggedPath(request)}`;
  request.log.info({ workspace: name }, line);
  if (similar !== undefined)
    request.log.warn({ workspace: name, similar }, `${line}: did you mean '${similar}', which exists?`);
}

/**
 * The existing workspace whose name `name` is most likely a typo of, if any: within edit distance 1
 * when the shorter name has 3 or 4 characters, 2 from 5 (shorter names are too close to everything),
 * nearest first, then by name. Names that differ only in their digits (w1 and w2, gw0 and gw1,
 * worker-3 and worker-12) are a series of parallel workers, never a typo.
 */
export function similarWorkspaceName(name: string, names: readonly string[]): string | undefined {
  const series = (n: string) => n.replace(/[0-9]+/g, '#');
  let best: { name: string; distance: number } | undefined;
  for (const other of names) {
    if (other === name || series(other) === series(name)) continue;
    const shorter = Math.min(other.length, name.length);
    const limit = shorter >= 5 ? 2 : shorter >= 3 ? 1 : 0;
    if (limit === 0 || Math.abs(other.length - name.length) > limit) continue;
    const distance = editDistance(name, other);
    if (distance > limit) continue;
    if (!best || distance < best.distance || (distance === best.distance && other < best.name)) best = { name: other, distance };
  }
  return best?.name;
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
          'without the prefix, paths reach "default". A page of limit workspaces (default 100); nextCursor, passed as ' +
          'cursor, gives the next ones.',
        querystring: Type.Object(pageQuery(WORKSPACES_PAGE, WORKSPACES_PAGE_MAX), { additionalProperties: false }),
        response: {
          200: Type.Object({
            max: Type.Integer({ description: 'SANDBOX_MAX_WORKSPACES: workspaces allowed besides default' }),
            storage: Type.String({ enum: ['memory', 'file'] }),
            total: Type.Integer({ description: 'workspaces in all, default included' }),
            workspaces: Type.Array(WorkspaceInfo, { description: 'a page of them: default first, then by name' }),
            nextCursor: NextCursor,
          }),
          401: StandardError,
          404: StandardError,
        },
        'x-sandbox-assumption': assumed('workspace-prefix', 'workspace-isolation', 'workspace-storage', 'workspace-eviction'),
      },
    },
    (request) => {
      refusedUnderPrefix(request);
      const { workspaces } = app;
      const { limit = WORKSPACES_PAGE, cursor } = request.query;
      const after = afterKey(cursor);
      const { workspaces: rows, total } = workspaces.list({ ...(after === undefined ? {} : { after }), limit: limit + 1 });
      const page = pageOf(rows, limit, (w) => [w.name]);
      return { max: workspaces.max, storage: workspaces.storage, total, workspaces: page.items, nextCursor: page.nextCursor };
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
          201: Type.Object(WorkspaceInfo.properties, {
            // Read by @fastify/swagger into the response's headers.
            headers: { [SIMILAR_HEADER]: WORKSPACE_HEADER_SCHEMAS[SIMILAR_HEADER] },
          }),
          400: StandardError,
          401: StandardError,
          404: StandardError,
          409: StandardError,
          429: StandardError,
        },
        'x-sandbox-assumption': assumed(
          'workspace-names',
          'workspace-lifecycle',
          'workspace-locked',
          'workspace-limit',
          'control-plane-key',
          'workspace-created-header',
        ),
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
      const similar = similarWorkspaceName(name, app.workspaces.names());
      if (similar !== undefined) {
        request.log.warn({ workspace: name, similar }, `workspace '${name}' created: did you mean '${similar}', which exists?`);
        reply.header(SIMILAR_HEADER, similar);
      }
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
        description:
          'Removes workspace {name}: its state, journal, clock, fault rules, snapshots and database file. It waits for ' +
          'the requests in flight in that workspace (at most 5 s) and answers once everything is gone; meanwhile a ' +
          'request to it is refused. The default workspace cannot be removed.',
        params: Type.Object({ name: WorkspaceName }),
        response: {
          200: Type.Object({ removed: Type.Integer() }),
          400: StandardError,
          401: StandardError,
          404: StandardError,
        },
        'x-sandbox-assumption': assumed('workspace-lifecycle', 'workspace-removal'),
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

