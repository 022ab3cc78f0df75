import { describe, expect, it } from 'vitest';
import type { FixtureDocument } from '../../src/interfaces.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

/** Every row of every table: the whole state, to compare. */
function dump(app: App): Record<string, unknown[]> {
  const tables = app.runtime.store.db
    .prepare(
      "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  return Object.fromEntries(
    tables.map((t) => [t, app.runtime.store.db.prepare(`SELECT * FROM "${t}" ORDER BY 1, 2`).all()]),
  );
}

const MORE: FixtureDocument = {
  bookkeeping: {
    tradeBills: [{ tenantId: '11222333000181', uid: 'IUD-NEW', amount: 10 }],
  },
  registry: { participants: [{ participantId: 'PART-2', accessToken: 'rg-token-2' }] },
};

async function post(app: App, url: string, payload?: unknown) {
  return app.inject({
    method: 'POST',
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

describe('snapshots', () => {
  it('snapshot, change state, restore: the state equals the snapshot', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const before = dump(app);
    const saved = await post(app, '/_sandbox/snapshots', { name: 'baseline' });
    expect(saved.statusCode).toBe(201);
    expect(saved.json()).toMatchObject({
      name: 'baseline',
      replaced: false,
      rows: { rg_participants: 1, lb_callers: 1 },
    });

    expect((await post(app, '/_sandbox/fixtures', MORE)).statusCode).toBe(200);
    app.runtime.store.db.prepare("DELETE FROM lb_callers WHERE caller_id = 'CALLER-1'").run();
    expect(dump(app)).not.toEqual(before);

    const restored = await post(app, '/_sandbox/snapshots/baseline/restore');
    expect(restored.statusCode).toBe(200);
    expect(dump(app)).toEqual(before);
    // The store modules keep working on the same connection.
    expect(app.runtime.store.registry.participantByToken('rg-token-1')).toBe('PART-1');
    expect(app.runtime.store.registry.participantExists('PART-2')).toBe(false);
  });

  it('restores after a reset, any number of times', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const before = dump(app);
    await post(app, '/_sandbox/snapshots', { name: 'baseline' });
    await post(app, '/_sandbox/reset', {});
    expect(app.runtime.store.registry.participantExists('PART-1')).toBe(false);
    for (let i = 0; i < 3; i++) {
      await post(app, '/_sandbox/fixtures', MORE);
      expect((await post(app, '/_sandbox/snapshots/baseline/restore')).statusCode).toBe(200);
      expect(dump(app)).toEqual(before);
    }
  });

  it('restores the clock setting and the position of the key sequence', async () => {
    const app = await testApp({ seed: 'snap' });
    await post(app, '/_sandbox/clock', { now: '2030-01-01T00:00:00Z', freeze: true });
    await post(app, '/_sandbox/snapshots', { name: 't0' });
    const keys = [app.runtime.ids.newId('K'), app.runtime.ids.newId('K')];
    await post(app, '/_sandbox/clock', { advance: 'P31D' });
    const restored = await post(app, '/_sandbox/snapshots/t0/restore');
    expect(restored.json()).toMatchObject({ clock: { now: '2030-01-01T00:00:00.000Z', frozen: true } });
    expect(app.runtime.clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect([app.runtime.ids.newId('K'), app.runtime.ids.newId('K')]).toEqual(keys);
  });

  it('lists, replaces and deletes snapshots by name', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await post(app, '/_sandbox/snapshots', { name: 'a' });
    await post(app, '/_sandbox/fixtures', MORE);
    const again = await post(app, '/_sandbox/snapshots', { name: 'a' });
    expect(again.json()).toMatchObject({ replaced: true, rows: { rg_participants: 2 } });
    await post(app, '/_sandbox/snapshots', { name: 'b.2' });
    const list = (await app.inject({ url: '/_sandbox/snapshots' })).json() as {
      snapshots: Array<{ name: string }>;
    };
    expect(list.snapshots.map((s) => s.name)).toEqual(['a', 'b.2']);

    await post(app, '/_sandbox/reset', {});
    await post(app, '/_sandbox/snapshots/a/restore');
    expect(app.runtime.store.registry.participantExists('PART-2')).toBe(true);

    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/snapshots/a' })).json()).toEqual({
      removed: 1,
    });
    expect((await post(app, '/_sandbox/snapshots/a/restore')).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/snapshots/a' })).statusCode).toBe(404);
    const left = (await app.inject({ url: '/_sandbox/snapshots' })).json() as {
      snapshots: Array<{ name: string }>;
    };
    expect(left.snapshots.map((s) => s.name)).toEqual(['b.2']);
  });

  it('refuses a name that is not letters, digits, _ . -', async () => {
    const app = await testApp();
    const res = await post(app, '/_sandbox/snapshots', { name: 'a"; DROP TABLE x; --' });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('/name');
    expect((await post(app, '/_sandbox/snapshots', {})).statusCode).toBe(400);
  });

  it('restores 10 000 rows whole', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const tradeBills = Array.from({ length: 10_000 }, (_, i) => ({
      tenantId: '11222333000181',
      uid: `IUD-${i}`,
      amount: 1 + (i % 500),
    }));
    expect((await post(app, '/_sandbox/fixtures', { bookkeeping: { tradeBills } })).statusCode).toBe(200);
    await post(app, '/_sandbox/snapshots', { name: 'big' });
    const before = dump(app);
    await post(app, '/_sandbox/reset', {});
    expect((await post(app, '/_sandbox/snapshots/big/restore')).statusCode).toBe(200);
    expect(dump(app)).toEqual(before);
    expect(app.runtime.store.db.prepare('SELECT count(*) FROM bk_trade_bills').pluck().get()).toBe(10_000);
  });
});

describe('a snapshot saved while other requests are answered', () => {
  it('is copied over many turns, other requests answered meanwhile, and holds what they wrote before it answered', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const answered: string[] = [];
    const saving = post(app, '/_sandbox/snapshots', { name: 'during' }).then((res) => (answered.push('save'), res));
    // A write sent after the save began, and answered before it ends.
    const writing = post(app, '/_sandbox/fixtures', MORE).then((res) => (answered.push('fixtures'), res));
    const [saved, written] = await Promise.all([saving, writing]);
    expect([saved.statusCode, written.statusCode]).toEqual([201, 200]);
    expect(answered).toEqual(['fixtures', 'save']);
    const withWrite = dump(app);
    expect(JSON.stringify(withWrite)).toContain('IUD-NEW');

    await post(app, '/_sandbox/reset', {});
    expect((await post(app, '/_sandbox/snapshots/during/restore')).statusCode).toBe(200);
    expect(dump(app)).toEqual(withWrite);
  });
});
