import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { DEMO_FIXTURES, startSandbox } from '../src/index.js';
import { BASE_FIXTURES } from './helpers.js';

describe('startSandbox', () => {
  it('listens on a free port and drives the control plane', async () => {
    const sandbox = await startSandbox({ fixtures: BASE_FIXTURES });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${sandbox.url}/_sandbox/health`);
      expect(await health.json()).toEqual({ status: 'ok' });

      expect(
        await sandbox.reset({ registry: { participants: [{ participantId: 'P-9', accessToken: 't-9' }] } }),
      ).toEqual({
        registry: { participants: 1 },
      });
      expect(sandbox.app.runtime.store.registry.participantExists('P-9')).toBe(true);
      expect(await sandbox.reset('default')).toMatchObject({ registry: { participants: 1 } });
      expect(sandbox.app.runtime.store.registry.participantExists('PART-1')).toBe(true);
      await expect(
        sandbox.reset({ registry: { participants: [{ participantId: 'P' }] } } as never),
      ).rejects.toThrow(/answered 400: .*accessToken/);
      expect(await sandbox.runPendingWork()).toEqual({ receivables: 0, loanbond: 0 });
    } finally {
      await sandbox.close();
    }
    await expect(fetch(`${sandbox.url}/_sandbox/health`)).rejects.toThrow();
  });

  it('hands each worker its own workspace: base URL and control calls that act on it alone', async () => {
    const sandbox = await startSandbox({ fixtures: BASE_FIXTURES, adminToken: 'admin-2' });
    try {
      const w3 = sandbox.workspace('w3');
      expect(w3.url).toBe(`${sandbox.url}/ws/w3`);
      await w3.clock({ now: '2031-05-01T00:00:00Z', freeze: true });
      await w3.fault({ path: '/v1/import-cnab', status: 400, times: 1 });
      await w3.snapshot('base');
      const res = await fetch(`${w3.url}/v1/import-cnab`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(400);
      expect((await w3.requests()).map((e) => e.fault !== null)).toEqual([true]);
      expect(await sandbox.requests()).toEqual([]);
      expect((await sandbox.clock()).frozen).toBe(false);
      expect((await w3.reset('default')).registry).toEqual({ participants: 1 });
      await w3.restore('base');
      expect((await w3.clock()).now).toBe('2031-05-01T00:00:00.000Z');
      expect(await w3.runPendingWork()).toEqual({ receivables: 0, loanbond: 0 });
      expect((await sandbox.workspaces()).map((w) => w.name)).toEqual(['default', 'w3']);
      const w4 = sandbox.workspace('w4');
      expect((await w4.create({})).rows.rg_participants).toBe(0);
      await expect(w4.create()).rejects.toThrow(/answered 409/);
      await w4.remove();
      expect((await sandbox.workspaces()).map((w) => w.name)).toEqual(['default', 'w3']);
      expect(() => sandbox.workspace('W_4')).toThrow(/not a workspace name/);
    } finally {
      await sandbox.close();
    }
  });

  it('closes at once under requests in flight: a delayed mapping answer, a long poll; their kept-alive connections do not hold it', async () => {
    // Before, close() waited for the client to drop its kept-alive connection (Keep-Alive: timeout=72):
    // over 70 s, past any test runner's hook timeout.
    const sandbox = await startSandbox({ fixtures: BASE_FIXTURES });
    const added = await fetch(`${sandbox.url}/_sandbox/stubs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request: { urlPath: '/slow' }, response: { status: 200, body: 'late', fixedDelayMilliseconds: 1000 } }),
    });
    expect(added.status).toBe(201);
    const slow = fetch(`${sandbox.url}/slow`).then(async (r) => [r.status, await r.text()] as const);
    const poll = fetch(`${sandbox.url}/_sandbox/events?wait=60s`).then(async (r) => [r.status, ((await r.json()) as { message: string }).message] as const);
    // Time for both to reach their waits (nothing says so before they are answered).
    await new Promise((r) => setTimeout(r, 300));
    await sandbox.close();
    expect(await slow).toEqual([200, 'late']);
    const [status, message] = await poll;
    expect(status).toBe(503);
    expect(message).toContain('the sandbox is closing');
  }, 8000);

  it('sends the admin token it was given', async () => {
    const sandbox = await startSandbox({ adminToken: 'admin-1' });
    try {
      expect((await fetch(`${sandbox.url}/_sandbox/clock`)).status).toBe(401);
      expect((await sandbox.clock()).frozen).toBe(false);
    } finally {
      await sandbox.close();
    }
  });

  it('resets to DEMO_FIXTURES by path and back to the fixtures it started with by "default"', async () => {
    const sandbox = await startSandbox({ fixtures: BASE_FIXTURES });
    try {
      const demo = await sandbox.reset(DEMO_FIXTURES);
      expect(demo).toMatchObject({ registry: { participants: expect.any(Number) } });
      expect(sandbox.app.runtime.store.registry.participantByToken('rg-demo-token-1')).toBe('PART-1');
      expect(await sandbox.reset('default')).toMatchObject({ registry: { participants: 1 } });
      expect(sandbox.app.runtime.store.registry.participantByToken('rg-demo-token-1')).toBeUndefined();
      await sandbox.reset();
      expect(await sandbox.load(DEMO_FIXTURES)).toEqual(demo);
      expect(sandbox.app.runtime.store.registry.participantByToken('rg-demo-token-1')).toBe('PART-1');
      await expect(sandbox.reset('fixtures/none.json')).rejects.toThrow(
        'cannot read the fixture file fixtures/none.json',
      );
    } finally {
      await sandbox.close();
    }
  });

  it('points DEMO_FIXTURES at the shipped demo file', async () => {
    const sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });
    try {
      expect(sandbox.app.runtime.store.registry.participantByToken('rg-demo-token-1')).toBe('PART-1');
    } finally {
      await sandbox.close();
    }
  });
});

describe('configuration of the control plane', () => {
  it('finds the default fixtures in the package, whatever the working directory', () => {
    const c = parseConfig([], {});
    expect(c === 'help' ? null : c.fixtures).toBe(DEMO_FIXTURES);
    expect(isAbsolute(DEMO_FIXTURES) && existsSync(DEMO_FIXTURES)).toBe(true);
  });

  it('reads the journal size and seeded secrets from flags and environment', () => {
    const c = parseConfig(['--journal-size', '50', '--seed', 's', '--seed-secrets'], {});
    expect(c).toMatchObject({ journalSize: 50, seed: 's', seedSecrets: true });
    expect(parseConfig([], { SANDBOX_JOURNAL_SIZE: '0', SANDBOX_SEED_SECRETS: 'true' })).toMatchObject({
      journalSize: 0,
      seedSecrets: true,
    });
    expect(parseConfig([], {})).toMatchObject({ journalSize: 1000, seedSecrets: false });
    expect(() => parseConfig(['--journal-size', 'many'], {})).toThrow(/journal size/);
  });
});
