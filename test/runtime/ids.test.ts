import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { SandboxIds } from '../../src/runtime/ids.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

function keys(app: App): string[] {
  return [app.runtime.ids.newId('REM'), app.runtime.ids.newId('REG'), app.runtime.ids.newId(), app.runtime.ids.newId('CON')];
}

describe('deterministic ids', () => {
  it('two apps with the same seed generate identical key sequences', async () => {
    const a = await testApp({ seed: 'suite-42' });
    const b = await testApp({ seed: 'suite-42' });
    const ka = keys(a);
    expect(ka).toEqual(keys(b));
    expect(new Set(ka).size).toBe(4);
    expect(ka[0]).toMatch(/^REM[A-Z2-7]{24}$/);
  });

  it('different seeds, or no seed, give different keys', async () => {
    const a = await testApp({ seed: 'suite-42' });
    const b = await testApp({ seed: 'suite-43' });
    const c = await testApp();
    const d = await testApp();
    const kc = keys(c);
    expect(keys(a)).not.toEqual(keys(b));
    expect(kc).not.toEqual(keys(d));
  });

  it('reset with a seed restarts the sequence, on any app', async () => {
    const a = await testApp();
    const b = await testApp({ seed: 'other' });
    for (const app of [a, b]) {
      const res = await app.inject({
        method: 'POST',
        url: '/_sandbox/reset',
        payload: { seed: 'from-reset' },
      });
      expect(res.statusCode).toBe(200);
    }
    const first = keys(a);
    expect(first).toEqual(keys(b));
    await a.inject({ method: 'POST', url: '/_sandbox/reset', payload: { seed: 'from-reset' } });
    expect(keys(a)).toEqual(first);
  });

  it('reset without a seed goes back to the configured seed', async () => {
    const app = await testApp({ seed: 'configured' });
    const first = keys(app);
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect(keys(app)).toEqual(first);
  });

  it('keeps secrets random under a seed unless seedSecrets is asked for', async () => {
    const a = await testApp({ seed: 'same' });
    const b = await testApp({ seed: 'same' });
    expect(a.runtime.ids.secret()).not.toEqual(b.runtime.ids.secret());
    for (const app of [a, b]) {
      const res = await app.inject({
        method: 'POST',
        url: '/_sandbox/reset',
        payload: { seed: 'same', seedSecrets: true },
      });
      expect(res.statusCode).toBe(200);
    }
    const sa = a.runtime.ids.secret();
    expect(sa).toEqual(b.runtime.ids.secret());
    expect(sa).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The option lasts until the next reset that does not ask for it.
    for (const app of [a, b])
      await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { seed: 'same' } });
    expect(a.runtime.ids.secret()).not.toEqual(b.runtime.ids.secret());
  });

  it('seeds secrets from the start with seedSecrets', async () => {
    const a = await testApp({ seed: 's', seedSecrets: true });
    const b = await testApp({ seed: 's', seedSecrets: true });
    expect(a.runtime.ids.secret()).toEqual(b.runtime.ids.secret());
  });

  it('refuses seedSecrets without any seed', async () => {
    const app = await testApp();
    const res = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { seedSecrets: true } });
    expect(res.statusCode).toBe(400);
    expect((res.json() as { details: Array<{ path: string }> }).details[0]?.path).toBe('/seedSecrets');
  });

  it('never hands out a key again after a restart on the same database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ids-'));
    try {
      const db = join(dir, 'sandbox.db');
      const register = async (app: Awaited<ReturnType<typeof buildApp>>) => {
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1.0/service/dup/registrar_documentos',
          headers: { authorization: 'Bearer rg-token-1' },
          payload: { registros: [{ numeroDuplicata: '1' }] },
        });
        expect(res.statusCode).toBe(200);
        return (res.json() as { chaveRemessa: string }).chaveRemessa;
      };
      const first = await buildApp({ db, seed: 'same', fixtures: BASE_FIXTURES });
      const keyBefore = await register(first);
      await first.close();
      const second = await buildApp({ db, seed: 'same', fixtures: BASE_FIXTURES });
      const keyAfter = await register(second);
      await second.close();
      expect(keyAfter).not.toBe(keyBefore);
      // From a new database the same seed gives the same first key again.
      const fresh = await testApp({ seed: 'same', fixtures: BASE_FIXTURES });
      expect(await register(fresh)).toBe(keyBefore);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('saves and restores the position in the sequence', () => {
    const ids = new SandboxIds('x');
    ids.newId();
    const saved = ids.save();
    const next = [ids.newId(), ids.newId()];
    ids.restore(saved);
    expect([ids.newId(), ids.newId()]).toEqual(next);
  });
});
