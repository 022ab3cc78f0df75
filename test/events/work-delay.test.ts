// Asynchronous work runs by itself once the sandbox clock has moved the work delay past the request
// that stored it (a frozen clock waits for a move), or at once on POST /_sandbox/work/run. Holding
// processing and releasing it changes none of that: a release lets run only what came due meanwhile.
import { describe, expect, it, vi } from 'vitest';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { injectClient, lastEventId, typesAfter } from './helpers.js';

async function turns(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

const registrationStates = (app: Parameters<typeof injectClient>[0]) =>
  app
    .inject({ url: '/_sandbox/loanbond/registrations' })
    .then((r) => r.json<{ registrations: Array<{ state: string }> }>().registrations.map((x) => x.state));

const hold = async (app: Parameters<typeof injectClient>[0], held: boolean) =>
  expect((await app.inject({ method: 'POST', url: '/_sandbox/work', payload: { held } })).json()).toMatchObject({ held });

const imports = (app: Parameters<typeof injectClient>[0]) =>
  app.inject({ url: '/_sandbox/receivables/funds/11222333000181/imports' }).then((r) => r.json<{ imports: Array<{ status: string }> }>().imports);

describe('the work delay', () => {
  it('on a frozen clock, stored work waits until the clock moves past the delay', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 2000 });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T10:00:00Z', freeze: true } });
    const before = await lastEventId(app);
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    await turns();
    expect((await imports(app)).map((i) => i.status)).toEqual(['pending']);
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'PT1S' } });
    await turns();
    expect((await imports(app)).map((i) => i.status)).toEqual(['pending']);
    const processed = app.inject({
      method: 'POST',
      url: '/_sandbox/wait',
      payload: { event: { type: 'sandbox.receivables.import.processed' }, timeout: '120s' },
    });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'PT1S' } });
    expect((await processed).json()).toMatchObject({ held: true });
    expect(await typesAfter(app, before)).toEqual([
      'sandbox.receivables.import.received',
      'sandbox.clock.changed',
      'sandbox.clock.changed',
      'sandbox.receivables.import.processed',
    ]);
  });

  it('on a running clock, it runs by itself: a wait on the view holds without any call to work/run', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 200 });
    const res = await DRIVERS['register-loan-bond.registered-unsigned']?.(injectClient(app));
    const id = (JSON.parse((res as { body: string }).body) as { registros: Array<{ codigo_identificador: string }> }).registros[0]
      ?.codigo_identificador;
    const wait = await app.inject({
      method: 'POST',
      url: '/_sandbox/wait',
      payload: { inspect: { path: `/_sandbox/loanbond/registrations/${id}`, jsonpath: '$.state', equals: 'signatures-pending' }, timeout: '120s' },
    });
    expect(wait.json()).toMatchObject({ held: true });
  });

  it('POST /_sandbox/work/run processes it at once, whatever the delay', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 3_600_000 });
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    const run = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(run.json()).toMatchObject({ errors: 0 });
    expect((await imports(app)).map((i) => i.status)).toEqual(['processed']);
  });

  it('with a delay of 0, it runs on a later turn of the event loop, the clock untouched', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 0 });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T10:00:00Z', freeze: true } });
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    const wait = await app.inject({
      method: 'POST',
      url: '/_sandbox/wait',
      payload: { event: { type: 'sandbox.receivables.import.processed' }, timeout: '120s' },
    });
    expect(wait.json()).toMatchObject({ held: true });
  });

  it('a release runs nothing before its delay: on a frozen clock, held and released work waits for the clock move', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 1000 });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T10:00:00Z', freeze: true } });
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    await DRIVERS['register-loan-bond.registered-unsigned']?.(injectClient(app));
    await hold(app, true);
    await hold(app, false);
    await turns();
    expect((await imports(app)).map((i) => i.status)).toEqual(['pending']);
    expect(await registrationStates(app)).toEqual(['registered']);
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'PT1S' } });
    await vi.waitFor(async () => expect((await imports(app)).map((i) => i.status)).toEqual(['processed']));
    await vi.waitFor(async () => expect(await registrationStates(app)).toEqual(['signatures-pending']));
  });

  it('work that came due while held runs on the release, and not before it', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 1000 });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T10:00:00Z', freeze: true } });
    await hold(app, true);
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'PT2S' } });
    await turns();
    expect((await imports(app)).map((i) => i.status)).toEqual(['pending']);
    await hold(app, false);
    await vi.waitFor(async () => expect((await imports(app)).map((i) => i.status)).toEqual(['processed']));
  });

  it('on a running clock, a release leaves work an hour early where it is', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES, workDelayMs: 3_600_000 });
    await DRIVERS['import-cnab.accepted']?.(injectClient(app));
    await hold(app, true);
    await hold(app, false);
    await turns();
    expect((await imports(app)).map((i) => i.status)).toEqual(['pending']);
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'PT1H' } });
    await vi.waitFor(async () => expect((await imports(app)).map((i) => i.status)).toEqual(['processed']));
  });
});
