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

  it('sends the admin token it was given', async () => {
    const sandbox = await startSandbox({ adminToken: 'admin-1' });
    try {
      expect((await fetch(`${sandbox.url}/_sandbox/clock`)).status).toBe(401);
      expect((await sandbox.clock()).frozen).toBe(false);
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
