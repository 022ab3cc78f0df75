// The bound on snapshots (assumption snapshot-limits, docs/snapshots.md): at most SANDBOX_MAX_SNAPSHOTS
// per workspace (a 409 past it) and SANDBOX_SNAPSHOTS_SIZE bytes across the sandbox (a 429 past it);
// a refused save changes nothing, a save over a name replaces it, a delete frees its room.
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

interface Info {
  name: string;
  createdAt: string;
  bytes: number;
  rows: Record<string, number>;
}

const save = (app: App, name: string, ws = '') =>
  app.inject({ method: 'POST', url: `${ws}/_sandbox/snapshots`, payload: { name } });
const remove = (app: App, name: string, ws = '') => app.inject({ method: 'DELETE', url: `${ws}/_sandbox/snapshots/${name}` });
const restore = (app: App, name: string, ws = '') => app.inject({ method: 'POST', url: `${ws}/_sandbox/snapshots/${name}/restore` });
const list = async (app: App, ws = '') =>
  ((await app.inject({ url: `${ws}/_sandbox/snapshots` })).json() as { snapshots: Info[] }).snapshots;

/** `n` trade bills of the fixture tenant, numbered from `from`: a state of a known size. */
async function bills(app: App, n: number, from = 0, ws = '') {
  const tradeBills = Array.from({ length: n }, (_, i) => ({ tenantId: '11222333000181', uid: `IUD-${from + i}`, amount: 1 + i }));
  const res = await app.inject({ method: 'POST', url: `${ws}/_sandbox/fixtures`, payload: { bookkeeping: { tradeBills } } });
  expect(res.statusCode).toBe(200);
}

const count = (app: App) => app.runtime.store.db.prepare('SELECT count(*) FROM bk_trade_bills').pluck().get() as number;

describe('the number of snapshots a workspace keeps', () => {
  it('is SANDBOX_MAX_SNAPSHOTS: one more is a 409 naming the setting, and changes nothing', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, maxSnapshots: 3 });
    for (const name of ['a', 'b', 'c']) expect((await save(app, name)).statusCode).toBe(201);
    const before = await list(app);
    const refused = await save(app, 'd');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ statusCode: 409, error: 'Conflict', details: [] });
    const message = (refused.json() as { message: string }).message;
    expect(message).toMatch(/holds 3 snapshots/);
    expect(message).toMatch(/SANDBOX_MAX_SNAPSHOTS=3/);
    expect(message).toMatch(/DELETE \/_sandbox\/snapshots\/\{name\}/);
    expect(message).toMatch(/nothing was saved/);
    expect(await list(app)).toEqual(before);
    expect((await restore(app, 'd')).statusCode).toBe(404);
  });

  it('lets a save over a name it holds replace it, and a delete free a place', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, maxSnapshots: 2 });
    await save(app, 'a');
    await save(app, 'b');
    await bills(app, 5);
    const again = await save(app, 'b');
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ replaced: true });
    expect((await save(app, 'c')).statusCode).toBe(409);
    expect((await remove(app, 'a')).statusCode).toBe(200);
    expect((await save(app, 'c')).statusCode).toBe(201);
    expect((await list(app)).map((s) => s.name)).toEqual(['b', 'c']);
  });

  it('is counted per workspace', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, maxSnapshots: 1 });
    expect((await save(app, 'a')).statusCode).toBe(201);
    expect((await save(app, 'b')).statusCode).toBe(409);
    expect((await save(app, 'a', '/ws/w1')).statusCode).toBe(201);
    expect((await save(app, 'b', '/ws/w1')).statusCode).toBe(409);
    expect((await save(app, 'a', '/ws/w2')).statusCode).toBe(201);
  });
});

describe('the bytes the snapshots of the sandbox take', () => {
  // A state whose snapshot takes about a megabyte, the least SANDBOX_SNAPSHOTS_SIZE: BASE_FIXTURES and N trade bills.
  const N = 10_000;

  /** The bytes of one snapshot of that state, as a sandbox of its own reports them. */
  async function sizeOfOne(): Promise<number> {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await bills(app, N);
    const saved = (await save(app, 'probe')).json() as Info;
    expect(saved.bytes).toBeGreaterThan(N * 20);
    expect((await list(app))[0]?.bytes).toBe(saved.bytes);
    return saved.bytes;
  }

  it('are SANDBOX_SNAPSHOTS_SIZE, every workspace counted: a save past it is a 429 naming the setting, and changes nothing', async () => {
    const one = await sizeOfOne();
    const app = await testApp({ fixtures: BASE_FIXTURES, snapshotsSize: Math.floor(one * 2.5) });
    await bills(app, N);
    expect((await save(app, 'a')).statusCode).toBe(201);
    expect((await save(app, 'b')).statusCode).toBe(201);
    const before = await list(app);
    const pages = () => app.runtime.store.db.pragma('sb_snapshots.page_count', { simple: true }) as number;
    const pagesBefore = pages();
    const refused = await save(app, 'c');
    expect(refused.statusCode).toBe(429);
    // The copy the refused save made is dropped, its memory given back.
    await app.runtime.store.snapshots.givenBack;
    expect(pages()).toBeLessThan(pagesBefore + 3);
    expect(refused.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    const message = (refused.json() as { message: string }).message;
    expect(message).toMatch(/SANDBOX_SNAPSHOTS_SIZE=/);
    expect(message).toMatch(/every workspace/);
    expect(message).toMatch(/DELETE \/_sandbox\/snapshots\/\{name\}/);
    expect(message).toMatch(/nothing was saved/);
    expect(await list(app)).toEqual(before);
    // Another workspace's save meets the same room.
    await bills(app, N, 0, '/ws/w1');
    expect((await save(app, 'c', '/ws/w1')).statusCode).toBe(429);
    expect(await list(app, '/ws/w1')).toEqual([]);
    // A delete in one workspace frees room for another.
    expect((await remove(app, 'a')).statusCode).toBe(200);
    expect((await save(app, 'c', '/ws/w1')).statusCode).toBe(201);
    expect((await save(app, 'a')).statusCode).toBe(429);
    // What the room counts is what the snapshots of every workspace take, refusals left out.
    const held = [...(await list(app)), ...(await list(app, '/ws/w1'))].reduce((sum, s) => sum + s.bytes, 0);
    expect(app.runtime.snapshots.room.bytes).toBe(held);
  });

  it('let a save replace a snapshot when the replacement does not grow past them; a bigger one is refused and the old one kept', async () => {
    const one = await sizeOfOne();
    const app = await testApp({ fixtures: BASE_FIXTURES, snapshotsSize: Math.floor(one * 2.5) });
    await bills(app, N);
    await save(app, 'a');
    await save(app, 'b');
    const again = await save(app, 'b');
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ replaced: true });
    // Twice the rows in b would take the two past the room.
    await bills(app, N, N);
    expect(count(app)).toBe(2 * N);
    const before = await list(app);
    expect((await save(app, 'b')).statusCode).toBe(429);
    expect(await list(app)).toEqual(before);
    expect((await restore(app, 'b')).statusCode).toBe(200);
    expect(count(app)).toBe(N);
    // Room freed by deleting a, the bigger b fits.
    await bills(app, N, N);
    await remove(app, 'a');
    expect((await save(app, 'b')).statusCode).toBe(201);
  });

  it('are freed by removing a workspace', async () => {
    const one = await sizeOfOne();
    const app = await testApp({ fixtures: BASE_FIXTURES, snapshotsSize: Math.floor(one * 1.5) });
    await bills(app, N, 0, '/ws/w1');
    expect((await save(app, 'a', '/ws/w1')).statusCode).toBe(201);
    await bills(app, N);
    expect((await save(app, 'a')).statusCode).toBe(429);
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/w1' })).statusCode).toBe(200);
    expect((await save(app, 'a')).statusCode).toBe(201);
  });

  it('are given back to the system when a snapshot goes, over a few turns: its pages are not kept for later', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const pages = () => app.runtime.store.db.pragma('sb_snapshots.page_count', { simple: true }) as number;
    await save(app, 'small');
    const small = pages();
    await bills(app, 5000);
    await save(app, 'big');
    expect(pages()).toBeGreaterThan(small * 2);
    await remove(app, 'big');
    await app.runtime.store.snapshots.givenBack;
    // The small one's pages (give or take the page that maps them), not the big one's too.
    expect(pages()).toBeLessThan(small + 3);
  });
});
