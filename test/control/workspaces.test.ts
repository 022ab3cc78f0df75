// Workspaces: /ws/{name} reaches an isolated sandbox for every interface path and the
// whole control plane; the name rule; the default workspace unchanged; created on first use or by
// POST /_sandbox/workspaces, listed, deleted; one database file each beside the main one; the limit
// and idle eviction.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startSandbox } from '../../src/index.js';
import { workspaceDbPath } from '../../src/control/workspace-routes.js';
import { errorShapeProblem } from '../reliability/engine/run.js';
import { BASE_FIXTURES, LogCapture, testApp } from '../helpers.js';

const BK_EXTRACT = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';
const bk = { authorization: 'Bearer bk-token-1' };
const RG_REGISTER = '/api/v1.0/service/dup/registrar_documentos';
const rg = { authorization: 'Bearer rg-token-1' };
const one = { registros: [{ numeroDuplicata: 'D-1', valorDuplicata: 10 }] };

async function json(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.body === '' ? undefined : res.json() };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a workspace behind /ws/{name}', () => {
  it('answers every control-plane GET of the OpenAPI document under the prefix as without it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const gets = Object.entries(doc.paths)
      .filter(([path, methods]) => path.startsWith('/_sandbox/') && !path.includes('{') && 'get' in methods)
      .map(([path]) => path)
      .filter((path) => path !== '/_sandbox/workspaces');
    expect(gets.length).toBeGreaterThan(10);
    for (const path of gets) {
      const plain = await app.inject({ url: path });
      const prefixed = await app.inject({ url: `/ws/w1${path}` });
      expect(prefixed.statusCode, path).toBe(plain.statusCode);
    }
    // The inspector too.
    expect((await app.inject({ url: '/ws/w1/_sandbox/ui' })).statusCode).toBe(200);
  });

  it('reaches every interface under the prefix, with paths in its journal relative to the base URL', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    expect((await app.inject({ url: `/ws/w1${BK_EXTRACT}`, headers: bk })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: `/ws/w1${RG_REGISTER}`, headers: rg, payload: one })).statusCode).toBe(200);
    const cnab = await app.inject({ method: 'POST', url: '/ws/w1/v1/import-cnab', payload: { token: 'nope' } });
    expect(errorShapeProblem('receivables', 400, cnab.body)).toBeNull();
    const lb = await app.inject({ method: 'POST', url: '/ws/w1/api/service/document/registrar', payload: {} });
    expect(lb.statusCode).toBe(400);
    // A 501 names the path relative to the base URL too.
    const unknown = await app.inject({ url: '/ws/w1/v1/other' });
    expect(unknown.statusCode).toBe(501);
    expect(unknown.json().error.message).toContain('GET /v1/other ');
    const journal = (await json(app, 'GET', '/ws/w1/_sandbox/requests')).body.entries as Array<{ path: string }>;
    expect(journal.map((e) => e.path)).toEqual([
      '/v1/other',
      '/api/service/document/registrar',
      '/v1/import-cnab',
      RG_REGISTER,
      BK_EXTRACT,
    ]);
    expect((await json(app, 'GET', '/_sandbox/requests')).body.entries).toEqual([]);
  });

  it('matches fault path patterns against the path relative to the base URL', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await json(app, 'POST', '/ws/w1/_sandbox/faults', { path: RG_REGISTER, status: 500 });
    expect((await app.inject({ method: 'POST', url: `/ws/w1${RG_REGISTER}`, headers: rg, payload: one })).statusCode).toBe(500);
    expect((await app.inject({ method: 'POST', url: RG_REGISTER, headers: rg, payload: one })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: `/ws/w2${RG_REGISTER}`, headers: rg, payload: one })).statusCode).toBe(200);
  });

  it('refuses a name outside 1-64 of [a-z0-9-] with a 400 naming the rule, in the shape of the interface reached', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    for (const name of ['W1', 'w_1', 'a'.repeat(65), '', 'w%31', 'w.1', 'ü']) {
      const control = await app.inject({ url: `/ws/${name}/_sandbox/health` });
      expect(control.statusCode, name).toBe(400);
      expect(control.json().message).toContain('1 to 64 characters of a-z, 0-9 and -');
      const cnab = await app.inject({ method: 'POST', url: `/ws/${name}/v1/import-cnab`, payload: {} });
      expect(cnab.statusCode, name).toBe(400);
      expect(errorShapeProblem('receivables', 400, cnab.body)).toBeNull();
      expect(cnab.json().error.message).toContain('is not a workspace name');
      // Refused before its body is read: an empty JSON body is no parse error here either.
      const reset = await app.inject({ method: 'POST', url: `/ws/${name}/_sandbox/reset`, headers: { 'content-type': 'application/json' }, payload: '' });
      expect(reset.statusCode, name).toBe(400);
      expect(reset.json().message).toContain('1 to 64 characters of a-z, 0-9 and -');
    }
    for (const name of ['a'.repeat(64), '0', '-', 'gw0', 'worker-12']) {
      expect((await app.inject({ url: `/ws/${name}/_sandbox/health` })).statusCode, name).toBe(200);
    }
    expect((await app.inject({ url: '/ws/a/ws/b/_sandbox/health' })).statusCode).toBe(404);
  });

  it('leaves paths without the prefix on the default workspace, which /ws/default reaches too', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await json(app, 'POST', '/_sandbox/clock', { now: '2030-01-01T00:00:00Z', freeze: true });
    expect((await json(app, 'GET', '/ws/default/_sandbox/clock')).body.now).toBe('2030-01-01T00:00:00.000Z');
    expect((await json(app, 'GET', '/ws/w1/_sandbox/clock')).body.now).not.toBe('2030-01-01T00:00:00.000Z');
    expect((await app.inject({ url: `/ws/default${BK_EXTRACT}`, headers: bk })).statusCode).toBe(200);
    expect((await json(app, 'GET', '/_sandbox/requests')).body.count).toBe(1);
    expect((await json(app, 'GET', '/_sandbox/workspaces')).body.workspaces.map((w: { name: string }) => w.name)).toEqual([
      'default',
      'w1',
    ]);
  });
});

describe('the lifecycle of a workspace', () => {
  it('is created on first use with the start-up fixtures, and listed with created, last used and rows', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    expect((await app.inject({ url: `/ws/w1${BK_EXTRACT}`, headers: bk })).statusCode).toBe(200);
    const list = (await json(app, 'GET', '/_sandbox/workspaces')).body;
    expect(list).toMatchObject({ max: 256, storage: 'memory' });
    const w1 = list.workspaces[1];
    expect(w1).toMatchObject({ name: 'w1', storage: 'memory', rows: { bk_users: 1, rg_participants: 1, rc_funds: 2 } });
    expect(Date.parse(w1.createdAt)).not.toBeNaN();
    expect(Date.parse(w1.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(w1.createdAt));
    // Documentation and the inspector's static files create nothing.
    await app.inject({ url: '/ws/w2/openapi.json' });
    await app.inject({ url: '/ws/w2/openapi-3.0.json' });
    await app.inject({ url: '/ws/w2/_sandbox/ui' });
    expect((await json(app, 'GET', '/_sandbox/workspaces')).body.workspaces).toHaveLength(2);
  });

  it('is created by POST /_sandbox/workspaces with its own fixtures, which its reset "default" loads again', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const own = { registry: { participants: [{ participantId: 'OWN', accessToken: 'own-token' }] } };
    const created = await json(app, 'POST', '/_sandbox/workspaces', { name: 'mine', fixtures: own });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'mine', rows: { rg_participants: 1, bk_users: 0 } });
    expect((await json(app, 'POST', '/_sandbox/workspaces', { name: 'mine' })).status).toBe(409);
    // The default workspace's token is unknown there, and the workspace's own token is unknown in default.
    expect((await app.inject({ url: `/ws/mine${BK_EXTRACT}`, headers: bk })).statusCode).toBe(401);
    const own1 = { authorization: 'Bearer own-token' };
    expect((await app.inject({ method: 'POST', url: `/ws/mine${RG_REGISTER}`, headers: own1, payload: one })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: RG_REGISTER, headers: own1, payload: one })).statusCode).toBe(401);
    const reset = await json(app, 'POST', '/ws/mine/_sandbox/reset', { fixtures: 'default' });
    expect(reset.body.loaded).toEqual({ registry: { participants: 1 } });
    // An invalid document names the field under /fixtures, and creates nothing.
    const bad = await json(app, 'POST', '/_sandbox/workspaces', {
      name: 'bad',
      fixtures: { registry: { participants: [{ participantId: 'P' }] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('/fixtures/registry/participants/0/accessToken');
    expect((await json(app, 'GET', '/_sandbox/workspaces')).body.workspaces.map((w: { name: string }) => w.name)).toEqual([
      'default',
      'mine',
    ]);
    expect((await json(app, 'POST', '/_sandbox/workspaces', { name: 'Bad' })).status).toBe(400);
    expect((await json(app, 'POST', '/_sandbox/workspaces', { name: 'default' })).status).toBe(409);
  });

  it('is removed by DELETE /_sandbox/workspaces/{name}, and the next use starts it afresh', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await app.inject({ method: 'POST', url: `/ws/w1${RG_REGISTER}`, headers: rg, payload: one });
    expect((await json(app, 'DELETE', '/_sandbox/workspaces/w1')).body).toEqual({ removed: 1 });
    expect((await json(app, 'DELETE', '/_sandbox/workspaces/w1')).status).toBe(404);
    expect((await json(app, 'DELETE', '/_sandbox/workspaces/default')).status).toBe(400);
    expect((await json(app, 'GET', '/ws/w1/_sandbox/requests')).body.entries).toEqual([]);
    expect((await json(app, 'GET', '/ws/w1/_sandbox/overview')).body.counts.registry.batches).toBe(0);
    // Management is server-wide: not under a prefix.
    expect((await json(app, 'GET', '/ws/w1/_sandbox/workspaces')).status).toBe(404);
    expect((await json(app, 'DELETE', '/ws/w1/_sandbox/workspaces/w1')).status).toBe(404);
  });
});

describe('isolation between workspaces', () => {
  it('keeps state, journal, clock, fault rules, key sequence and snapshots apart', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, seed: 'iso' });
    const register = (base: string) =>
      app.inject({ method: 'POST', url: `${base}${RG_REGISTER}`, headers: rg, payload: one });
    // The same seed: each workspace hands out the same first key, as a sandbox of its own would.
    const a = (await register('/ws/a')).json().chaveRemessa;
    const b = (await register('/ws/b')).json().chaveRemessa;
    expect(a).toBe(b);
    expect((await register('')).json().chaveRemessa).toBe(a);
    await json(app, 'POST', '/ws/a/_sandbox/clock', { advance: 'P1Y', freeze: true });
    await json(app, 'POST', '/ws/a/_sandbox/faults', { interface: 'registry', status: 401 });
    await json(app, 'POST', '/ws/a/_sandbox/snapshots', { name: 'only-in-a' });
    expect((await register('/ws/a')).statusCode).toBe(401);
    expect((await register('/ws/b')).statusCode).toBe(200);
    expect((await json(app, 'GET', '/ws/b/_sandbox/faults')).body.faults).toEqual([]);
    expect((await json(app, 'GET', '/ws/b/_sandbox/clock')).body.frozen).toBe(false);
    expect((await json(app, 'GET', '/ws/b/_sandbox/snapshots')).body.snapshots).toEqual([]);
    expect((await json(app, 'POST', '/ws/b/_sandbox/snapshots/only-in-a/restore')).status).toBe(404);
    expect((await json(app, 'GET', '/ws/a/_sandbox/requests')).body.count).toBe(2);
    expect((await json(app, 'GET', '/ws/b/_sandbox/requests')).body.count).toBe(2);
    // A reset in one leaves the other as it was.
    await json(app, 'POST', '/ws/b/_sandbox/reset', {});
    expect((await json(app, 'GET', '/ws/a/_sandbox/overview')).body.counts.registry.batches).toBe(1);
    expect((await json(app, 'GET', '/ws/b/_sandbox/overview')).body.counts.registry.batches).toBe(0);
    expect((await json(app, 'GET', '/_sandbox/overview')).body.counts.registry.batches).toBe(1);
  });
});

describe('workspaces in database files', () => {
  it('keeps each workspace in a file beside the main one, across restarts, and deletes it with the workspace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ws-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');
    const own = { registry: { participants: [{ participantId: 'OWN', accessToken: 'own-token' }] } };
    let app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    await json(app, 'POST', '/_sandbox/workspaces', { name: 'kept', fixtures: own });
    await app.inject({ method: 'POST', url: `/ws/kept${RG_REGISTER}`, headers: { authorization: 'Bearer own-token' }, payload: one });
    await app.inject({ url: `/ws/first-use${BK_EXTRACT}`, headers: bk });
    await app.close();
    expect(existsSync(workspaceDbPath(db, 'kept'))).toBe(true);
    expect(workspaceDbPath(db, 'kept')).toBe(join(dir, 'sandbox.ws-kept.db'));

    app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    try {
      const list = (await json(app, 'GET', '/_sandbox/workspaces')).body;
      expect(list.storage).toBe('file');
      expect(list.workspaces.map((w: { name: string }) => w.name)).toEqual(['default', 'first-use', 'kept']);
      expect(list.workspaces[2].rows).toMatchObject({ rg_participants: 1, rg_batches: 1 });
      // Its own fixtures were kept with it: reset "default" still loads them.
      expect((await json(app, 'POST', '/ws/kept/_sandbox/reset', { fixtures: 'default' })).body.loaded).toEqual({
        registry: { participants: 1 },
      });
      expect((await json(app, 'DELETE', '/_sandbox/workspaces/kept')).status).toBe(200);
      expect(readdirSync(dir).filter((f) => f.includes('ws-kept'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('a workspace kept in a file, reset, then opened again by a restart', () => {
  it('still resets to "default" with the fixtures it was created with, and keeps its creation time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ws-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');
    const own = { registry: { participants: [{ participantId: 'P-OWN', accessToken: 'own-token' }] } };
    const participants = async (app: FastifyInstance) =>
      (await json(app, 'GET', '/ws/w3/_sandbox/registry/participants')).body.participants.map((p: { participantId: string }) => p.participantId);
    let app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    let createdAt: string;
    try {
      expect((await json(app, 'POST', '/_sandbox/workspaces', { name: 'w3', fixtures: own })).status).toBe(201);
      createdAt = (await json(app, 'GET', '/_sandbox/workspaces')).body.workspaces.find((w: { name: string }) => w.name === 'w3').createdAt;
      // A reset (to anything) wipes the rows, never what the workspace is.
      expect((await json(app, 'POST', '/ws/w3/_sandbox/reset', { fixtures: {} })).status).toBe(200);
      expect(await participants(app)).toEqual([]);
    } finally {
      await app.close();
    }
    app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    try {
      expect((await json(app, 'POST', '/ws/w3/_sandbox/reset', { fixtures: 'default' })).status).toBe(200);
      expect(await participants(app)).toEqual(['P-OWN']);
      const listed = (await json(app, 'GET', '/_sandbox/workspaces')).body.workspaces.find((w: { name: string }) => w.name === 'w3');
      expect(listed.createdAt).toBe(createdAt);
    } finally {
      await app.close();
    }
  });
});

describe('a workspace kept in a file and not opened at start (over the limit then)', () => {
  /** A database file whose workspaces are `names` in order, zzz with one registered batch. */
  async function keptWorkspaces(names: readonly string[]): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ws-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');
    const app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    for (const name of names) {
      if (name !== 'zzz') await app.inject({ url: `/ws/${name}/_sandbox/health` });
      else expect((await app.inject({ method: 'POST', url: `/ws/zzz${RG_REGISTER}`, headers: rg, payload: one })).statusCode).toBe(200);
    }
    await app.close();
    return db;
  }

  it('is reopened with its data on first use, answered and logged as reopened, never as created', async () => {
    const db = await keptWorkspaces(['aaa', 'zzz', 'yyy']);
    const log = new LogCapture();
    const app = await buildApp({ db, fixtures: BASE_FIXTURES, maxWorkspaces: 1, logger: { level: 'info', stream: log } });
    try {
      // aaa took the one place at start (names are opened in order); a place frees up.
      expect((await json(app, 'GET', '/_sandbox/workspaces')).body.workspaces.map((w: { name: string }) => w.name)).toEqual(['default', 'aaa']);
      expect((await json(app, 'DELETE', '/_sandbox/workspaces/aaa')).status).toBe(200);
      const reopened = await app.inject({ url: '/ws/zzz/_sandbox/overview' });
      expect(reopened.statusCode).toBe(200);
      expect(reopened.json().counts.registry.batches).toBe(1);
      expect(reopened.headers['sandbox-workspace-created']).toBeUndefined();
      const lines = log.lines.map((l) => JSON.parse(l) as { msg: string; workspace?: string });
      expect(lines.filter((l) => l.workspace === 'zzz').map((l) => l.msg)).toContain("workspace 'zzz' reopened from its file by GET /ws/zzz/_sandbox/overview");
      expect(lines.some((l) => l.msg.startsWith("workspace 'zzz' created"))).toBe(false);
      // The place is taken again: the third file waits for one.
      expect((await app.inject({ url: '/ws/yyy/_sandbox/health' })).statusCode).toBe(429);
    } finally {
      await app.close();
    }
  });

  it('is a 409 to POST /_sandbox/workspaces, which finds it with its data instead of creating it', async () => {
    const db = await keptWorkspaces(['aaa', 'zzz']);
    const app = await buildApp({ db, fixtures: BASE_FIXTURES, maxWorkspaces: 1, logger: false });
    try {
      expect((await json(app, 'DELETE', '/_sandbox/workspaces/aaa')).status).toBe(200);
      const created = await json(app, 'POST', '/_sandbox/workspaces', { name: 'zzz', fixtures: {} });
      expect(created.status).toBe(409);
      expect(created.body.message).toContain('exists already');
      expect((await json(app, 'GET', '/ws/zzz/_sandbox/overview')).body.counts.registry.batches).toBe(1);
    } finally {
      await app.close();
    }
  });
});

describe('removing a workspace kept in a file while requests create it again', () => {
  it('never removes the files of the workspace created after it: every write answered since is there after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ws-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');
    const register = (app: FastifyInstance, n: number) =>
      app.inject({
        method: 'POST',
        url: `/ws/w${RG_REGISTER}`,
        headers: rg,
        payload: { registros: [{ numeroDuplicata: `D-${n}`, valorDuplicata: 10 }] },
      });
    const batches = async (app: FastifyInstance) =>
      ((await json(app, 'GET', '/ws/w/_sandbox/registry/participants/PART-1')).body.batches as Array<{ chaveRemessa: string }>)
        .map((b) => b.chaveRemessa)
        .sort();
    let app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    const answered: Array<{ at: number; status: number; key: string | undefined }> = [];
    let removedAt = Number.POSITIVE_INFINITY;
    let events = 0;
    try {
      for (let i = 0; i < 5; i++) expect((await register(app, i)).statusCode).toBe(200);
      // The removal, and a stream of writes to the same name from before it starts until after it ended.
      const removal = app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/w' }).then((res) => {
        removedAt = ++events;
        return res;
      });
      const writes: Array<Promise<unknown>> = [];
      for (let n = 0; n < 60; n++) {
        writes.push(
          register(app, 100 + n).then((res) => {
            const key = res.statusCode === 200 ? (res.json() as { chaveRemessa: string }).chaveRemessa : undefined;
            answered.push({ at: ++events, status: res.statusCode, key });
          }),
        );
        await new Promise((resolve) => setImmediate(resolve));
        if (n % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect((await removal).statusCode).toBe(200);
      await Promise.all(writes);
      // However the race fell, some writes come after the removal answered: they re-create the name.
      for (let n = 0; n < 3; n++) {
        const res = await register(app, 200 + n);
        answered.push({ at: ++events, status: res.statusCode, key: (res.json() as { chaveRemessa?: string }).chaveRemessa });
      }
      // None failed: each was stored, or refused because the workspace was being removed.
      expect(answered.filter((a) => a.status !== 200 && a.status !== 400)).toEqual([]);
      const live = await batches(app);
      // Every write answered after the removal answered is readable now...
      const after = answered.filter((a) => a.at > removedAt && a.key !== undefined).map((a) => a.key ?? '');
      expect(after.length).toBeGreaterThan(0);
      expect(live).toEqual(expect.arrayContaining(after));
      await app.close();
      // ...and still there after a restart: the workspace read before it is the one read after it.
      app = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
      expect(await batches(app)).toEqual(live);
    } finally {
      await app.close();
    }
  });
});

describe('workspaces under a locked control plane (SANDBOX_ADMIN_TOKEN)', () => {
  const key = { 'sandbox-admin-token': 'adm' };

  it('creates none for a request without the key: an unknown workspace is the interface\'s documented 400 in its shape, saying how to create it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, adminToken: 'adm', maxWorkspaces: 4 });
    const bookkeeping = await app.inject({ url: `/ws/w1${BK_EXTRACT}`, headers: bk });
    expect(bookkeeping.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, bookkeeping.body)).toBeNull();
    expect(bookkeeping.json().message).toContain('no workspace "w1"');
    expect(bookkeeping.json().message).toContain('POST /_sandbox/workspaces {"name":"w1"} with the header Sandbox-Admin-Token');
    const cnab = await app.inject({ method: 'POST', url: '/ws/w1/v1/import-cnab', payload: { token: 'rc-token-1' } });
    // Only the statuses an interface documents (docs/errors.md): 404 is none of import-cnab's.
    expect(cnab.statusCode).toBe(400);
    expect(errorShapeProblem('receivables', 400, cnab.body)).toBeNull();
    expect(cnab.json().error.code).toBe('WorkspaceNotFound');
    // The control plane under the prefix answers its 401 without telling whether the workspace exists.
    expect((await json(app, 'GET', '/ws/w1/_sandbox/clock')).status).toBe(401);
    expect((await app.inject({ url: '/ws/w1/openapi.json' })).statusCode).toBe(404);
    // Any number of names: the limit is never reached, and nothing was created.
    for (let i = 0; i < 20; i++) {
      expect((await app.inject({ method: 'POST', url: `/ws/flood-${i}${RG_REGISTER}`, headers: rg, payload: one })).statusCode).toBe(400);
    }
    expect(app.workspaces.size).toBe(0);
    const created = await app.inject({ method: 'POST', url: '/_sandbox/workspaces', headers: key, payload: { name: 'w1' } });
    expect(created.statusCode).toBe(201);
    // Once created with the key, its interfaces answer anyone, as the default workspace's do.
    expect((await app.inject({ url: `/ws/w1${BK_EXTRACT}`, headers: bk })).statusCode).toBe(200);
  });

  it('lets a request carrying the key create a workspace by using it, as an open sandbox does', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, adminToken: 'adm' });
    expect((await app.inject({ url: `/ws/w2${BK_EXTRACT}`, headers: { ...bk, ...key } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/ws/w3/_sandbox/clock', headers: key })).statusCode).toBe(200);
    expect((await app.inject({ url: `/ws/w4${BK_EXTRACT}`, headers: { ...bk, 'sandbox-admin-token': 'wrong' } })).statusCode).toBe(400);
    const list = await app.inject({ url: '/_sandbox/workspaces', headers: key });
    expect(list.json().workspaces.map((w: { name: string }) => w.name)).toEqual(['default', 'w2', 'w3']);
  });
});

describe('bounds', () => {
  it('refuses one workspace over the limit: 429 on the control plane, the interface\'s 400 under an interface path', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, maxWorkspaces: 2 });
    expect((await json(app, 'GET', '/ws/w1/_sandbox/health')).status).toBe(200);
    expect((await json(app, 'POST', '/_sandbox/workspaces', { name: 'w2' })).status).toBe(201);
    const control = await json(app, 'POST', '/_sandbox/workspaces', { name: 'w3' });
    expect(control.status).toBe(429);
    expect(control.body.message).toContain('SANDBOX_MAX_WORKSPACES=2');
    expect((await json(app, 'GET', '/ws/w3/_sandbox/clock')).status).toBe(429);
    const cnab = await app.inject({ method: 'POST', url: '/ws/w3/v1/import-cnab', payload: {} });
    expect(cnab.statusCode).toBe(400);
    expect(errorShapeProblem('receivables', 400, cnab.body)).toBeNull();
    expect(cnab.json().error.message).toContain('SANDBOX_MAX_WORKSPACES');
    const bookkeeping = await app.inject({ url: `/ws/w3${BK_EXTRACT}`, headers: bk });
    expect(bookkeeping.statusCode).toBe(400);
    expect(errorShapeProblem('bookkeeping', 400, bookkeeping.body)).toBeNull();
    // The default workspace is not counted, and freeing one makes room.
    expect((await app.inject({ url: BK_EXTRACT, headers: bk })).statusCode).toBe(200);
    await json(app, 'DELETE', '/_sandbox/workspaces/w1');
    expect((await json(app, 'GET', '/ws/w3/_sandbox/clock')).status).toBe(200);
  });

  it('evicts an in-memory workspace idle longer than the configured time, logged, never one answering a request', async () => {
    const capture = new LogCapture();
    const app = await testApp({ fixtures: BASE_FIXTURES, workspaceIdleMs: 50, logger: { level: 'info', stream: capture } });
    await json(app, 'POST', '/ws/idle/_sandbox/clock', { advance: 'P1D' });
    await json(app, 'POST', '/ws/busy/_sandbox/faults', { interface: 'registry', delayMs: 400 });
    const slow = app.inject({ method: 'POST', url: `/ws/busy${RG_REGISTER}`, headers: rg, payload: one });
    // The sandbox's own timer checks every 100 ms here; the busy workspace's request takes 400 ms.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.workspaces.has('idle')).toBe(false);
    expect(app.workspaces.has('busy')).toBe(true);
    expect((await slow).statusCode).toBe(200);
    expect(capture.text).toMatch(/"workspace":"idle".*workspace evicted after being idle/);
    // The default workspace is never evicted; the evicted one comes back fresh on its next use.
    expect(app.workspaces.has('default')).toBe(true);
    expect((await json(app, 'GET', '/ws/idle/_sandbox/clock')).body.offsetMs).toBeLessThan(1000);
  });

  it('never evicts a workspace kept in a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ws-'));
    dirs.push(dir);
    const app = await buildApp({ db: join(dir, 's.db'), fixtures: BASE_FIXTURES, logger: false, workspaceIdleMs: 1 });
    try {
      await json(app, 'GET', '/ws/w1/_sandbox/health');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await app.workspaces.evictIdle()).toEqual([]);
      expect(app.workspaces.has('w1')).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe('client coverage per workspace', () => {
  const hitsOf = async (app: FastifyInstance, base: string, id: string): Promise<number | undefined> => {
    const report = (await app.inject({ url: `${base}/_sandbox/coverage` })).json() as {
      operations: Array<{ outcomes: Array<{ id: string; hits: number }> }>;
    };
    return report.operations.flatMap((o) => o.outcomes).find((o) => o.id === id)?.hits;
  };

  it('counts each workspace on its own: its answers, its report, its clear', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    // BASE_FIXTURES has no extract requests: every page is empty.
    const listed = 'list-extract-requests.listed-empty';
    const inDefault = await app.inject({ url: BK_EXTRACT, headers: bk });
    expect(inDefault.headers['sandbox-outcome']).toBe(listed);
    for (let i = 0; i < 2; i++) {
      const inW1 = await app.inject({ url: `/ws/w1${BK_EXTRACT}`, headers: bk });
      expect(inW1.headers['sandbox-outcome']).toBe(listed);
    }
    const refused = await app.inject({ url: `/ws/w2${BK_EXTRACT}`, headers: { authorization: 'Bearer nobody' } });
    expect(refused.headers['sandbox-outcome']).toBe('list-extract-requests.token-unknown');
    expect(await hitsOf(app, '', listed)).toBe(1);
    expect(await hitsOf(app, '/ws/w1', listed)).toBe(2);
    expect(await hitsOf(app, '/ws/w2', listed)).toBe(0);
    expect(await hitsOf(app, '/ws/w2', 'list-extract-requests.token-unknown')).toBe(1);
    expect(await hitsOf(app, '', 'list-extract-requests.token-unknown')).toBe(0);
    // Clearing one workspace's coverage leaves the others' counts.
    expect((await app.inject({ method: 'DELETE', url: '/ws/w1/_sandbox/coverage' })).statusCode).toBe(200);
    expect(await hitsOf(app, '/ws/w1', listed)).toBe(0);
    expect(await hitsOf(app, '', listed)).toBe(1);
  });

  it('is off in every workspace with coverage: false', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, coverage: false });
    const res = await app.inject({ url: `/ws/w1${BK_EXTRACT}`, headers: bk });
    expect(res.statusCode).toBe(200);
    expect(res.headers['sandbox-outcome']).toBeUndefined();
    expect(await hitsOf(app, '/ws/w1', 'list-extract-requests.listed-empty')).toBeUndefined();
  });
});

describe('startSandbox().workspace(name).coverage()', () => {
  it('reads and clears that workspace\'s coverage only', async () => {
    const sandbox = await startSandbox({ fixtures: BASE_FIXTURES });
    try {
      const w = sandbox.workspace('cov');
      const res = await fetch(`${w.url}${BK_EXTRACT}`, { headers: bk });
      expect(res.headers.get('sandbox-outcome')).toBe('list-extract-requests.listed-empty');
      expect((await w.coverage()).totals.hits).toBe(1);
      expect((await sandbox.coverage()).totals.hits).toBe(0);
      expect(await w.coverage('markdown')).toContain('list-extract-requests');
      await w.clearCoverage();
      expect((await w.coverage()).totals.hits).toBe(0);
    } finally {
      await sandbox.close();
    }
  });
});

describe('removing a workspace while it is in use', () => {
  it('waits for its requests in flight, and refuses those that come meanwhile in the shape of the interface they reached', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await json(app, 'POST', '/ws/busy/_sandbox/faults', { path: RG_REGISTER, delayMs: 300 });
    const order: string[] = [];
    const inFlight = app.inject({ method: 'POST', url: `/ws/busy${RG_REGISTER}`, headers: rg, payload: one }).then((res) => {
      order.push('in flight answered');
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const removal = app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/busy' }).then((res) => {
      order.push('removed');
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Meanwhile: refused, each in its interface's shape with one of its documented statuses, or a 409 on the control plane.
    const registry = await app.inject({ method: 'POST', url: `/ws/busy${RG_REGISTER}`, headers: rg, payload: one });
    expect(registry.statusCode).toBe(400);
    expect(errorShapeProblem('registry', 400, registry.body)).toBeNull();
    expect(registry.json().message).toContain('workspace "busy" is being removed');
    const cnab = await app.inject({ method: 'POST', url: '/ws/busy/v1/import-cnab', payload: { token: 'rc-token-1' } });
    expect(cnab.statusCode).toBe(400);
    expect(errorShapeProblem('receivables', 400, cnab.body)).toBeNull();
    expect(cnab.json().error.code).toBe('WorkspaceRemoved');
    const control = await json(app, 'GET', '/ws/busy/_sandbox/clock');
    expect(control.status).toBe(409);
    expect(control.body.message).toContain('is being removed');
    expect((await json(app, 'POST', '/_sandbox/workspaces', { name: 'busy' })).status).toBe(409);
    // The same with a body the refusal never reads: an empty JSON body (what fetch sends for a bodiless
    // POST), which a control call reads as {}, and a body of a type no route takes.
    for (const [type, payload] of [['application/json', ''], ['application/json', '{'], ['text/plain', 'x'], ['application/xml', '<a/>']]) {
      const headers = { 'content-type': type };
      const reset = await app.inject({ method: 'POST', url: '/ws/busy/_sandbox/reset', headers, payload });
      expect(reset.statusCode, `${type} ${payload}`).toBe(409);
      expect(Object.keys(reset.json()).sort()).toEqual(['details', 'error', 'message', 'statusCode']);
      expect(reset.json().message).toContain('is being removed');
      const emptyRegistry = await app.inject({ method: 'POST', url: `/ws/busy${RG_REGISTER}`, headers: { ...rg, ...headers }, payload });
      expect(emptyRegistry.statusCode).toBe(400);
      expect(errorShapeProblem('registry', 400, emptyRegistry.body)).toBeNull();
      expect(emptyRegistry.json().message).toContain('workspace "busy" is being removed');
    }
    // The request in flight is answered as if nothing happened, before the removal answers.
    expect((await inFlight).statusCode).toBe(200);
    expect((await removal).json()).toEqual({ removed: 1 });
    expect(order).toEqual(['in flight answered', 'removed']);
    // Afterwards the name starts afresh.
    expect((await json(app, 'GET', '/ws/busy/_sandbox/faults')).body.faults).toEqual([]);
  });

  it('closes it after its wait even under a request still in flight, which is then refused, never failed', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, workspaceRemovalWaitMs: 50 });
    await json(app, 'POST', '/ws/slow/_sandbox/faults', { path: RG_REGISTER, delayMs: 400 });
    const inFlight = app.inject({ method: 'POST', url: `/ws/slow${RG_REGISTER}`, headers: rg, payload: one });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await json(app, 'DELETE', '/_sandbox/workspaces/slow')).status).toBe(200);
    const late = await inFlight;
    expect(late.statusCode).toBe(400);
    expect(errorShapeProblem('registry', 400, late.body)).toBeNull();
    expect(late.json().message).toContain('workspace "slow" is being removed');
  });

  it('refuses a delayed mapping answer still waiting after the wait, never answering from the removed state', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, workspaceRemovalWaitMs: 50 });
    const templated = { status: 200, body: 'clock {{inspect "/clock"}}', transformers: ['response-template'], fixedDelayMilliseconds: 400 };
    const added = await app.inject({
      method: 'POST',
      url: '/ws/gone/_sandbox/stubs',
      payload: { mappings: [{ request: { urlPath: '/api/v1.0/service/dup/consultar' }, response: templated }, { request: { urlPath: '/outside' }, response: templated }] },
    });
    expect(added.statusCode).toBe(201);
    const registry = app.inject({ url: '/ws/gone/api/v1.0/service/dup/consultar' });
    const outside = app.inject({ url: '/ws/gone/outside' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await json(app, 'DELETE', '/_sandbox/workspaces/gone')).status).toBe(200);
    const underPrefix = await registry;
    expect(underPrefix.statusCode).toBe(400);
    expect(errorShapeProblem('registry', 400, underPrefix.body)).toBeNull();
    expect(underPrefix.json().message).toContain('workspace "gone" is being removed');
    const beside = await outside;
    expect(beside.statusCode).toBe(400);
    expect(beside.json().message).toContain('workspace "gone" is being removed');
    expect(beside.body).not.toContain('clock');
  });

  it('wakes a delayed mapping answer when the removal starts: it is refused before the removal answers, not after its delay', async () => {
    // The delay outlasts the removal's wait for requests in flight: unwoken, the answer would be
    // refused only after the removal had answered.
    const app = await testApp({ fixtures: BASE_FIXTURES, workspaceRemovalWaitMs: 100 });
    const added = await app.inject({
      method: 'POST',
      url: '/ws/sleepy/_sandbox/stubs',
      payload: { request: { urlPath: '/api/v1.0/service/dup/consultar' }, response: { status: 200, body: 'late', fixedDelayMilliseconds: 3000 } },
    });
    expect(added.statusCode).toBe(201);
    const order: string[] = [];
    const delayed = app.inject({ url: '/ws/sleepy/api/v1.0/service/dup/consultar' }).then((res) => {
      order.push('delayed answered');
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const removal = await app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/sleepy' });
    order.push('removed');
    expect(removal.json()).toEqual({ removed: 1 });
    const refused = await delayed;
    expect(order).toEqual(['delayed answered', 'removed']);
    expect(refused.statusCode).toBe(400);
    expect(errorShapeProblem('registry', 400, refused.body)).toBeNull();
    expect(refused.json().message).toContain('workspace "sleepy" is being removed');
    expect(refused.body).not.toContain('late');
  });
});
