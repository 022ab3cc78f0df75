// Defects found by using the sandbox as a new user would, each pinned by the sequence that broke it.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { DEMO_FIXTURES, testApp } from '../helpers.js';

const EXTRACT = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';
const AUTH = { authorization: 'Bearer bk-demo-token-7' };

describe('snapshot, then reset to the demo fixtures', () => {
  it('resets to the demo fixtures after a snapshot was saved, over HTTP', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    expect((await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'b' } })).statusCode).toBe(201);
    const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toMatchObject({ loaded: { bookkeeping: { extractRequests: 39 } } });
    // And again after the snapshot is deleted, and after a restore: the change tracking holds.
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/snapshots/b' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'c' } })).statusCode).toBe(201);
    expect((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/_sandbox/snapshots/c/restore' })).statusCode).toBe(200);
    const page = await app.inject({ url: `${EXTRACT}?pageSize=100`, headers: AUTH });
    expect(page.statusCode).toBe(200);
  });

  it('resets to the demo fixtures after a snapshot was saved, in process', async () => {
    const s = await startSandbox({ fixtures: DEMO_FIXTURES });
    try {
      await s.snapshot('x');
      const loaded = await s.reset('default');
      expect(loaded).toMatchObject({ bookkeeping: { users: 2, tradeBills: 7, extractRequests: 39 } });
    } finally {
      await s.close();
    }
  });
});

describe('numeric query values of any length', () => {
  it.each([
    ['pageSize', '9'.repeat(400), 'must be from 1 to 100'],
    ['page', '9'.repeat(400), 'must be from 1 to 2147483647'],
    ['pageSize', `-${'9'.repeat(300)}`, 'must be from 1 to 100'],
    ['page', '1e400', 'must be an integer written in decimal digits'],
    ['pageSize', '0x10', 'must be an integer written in decimal digits'],
    ['pageSize', '1.0', 'must be an integer written in decimal digits'],
    ['pageSize', ' 5', 'must be an integer written in decimal digits'],
  ])('answers 400 naming %s for %s', async (name, value, rule) => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({ url: `${EXTRACT}?${name}=${encodeURIComponent(value)}`, headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ path: `/${name}`, message: `query parameter ${name} ${rule}` }] });
  });

  it('answers 400 for a numeric parameter given twice', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({ url: `${EXTRACT}?pageSize=5&pageSize=6`, headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ path: '/pageSize', message: 'query parameter pageSize is given more than once: give it once' }] });
  });

  it('reads a signed or zero-padded decimal value as its number', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({ url: `${EXTRACT}?page=%2B1&pageSize=007`, headers: AUTH });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ pagination: { page: 1, size: 7 } });
  });

  it('answers 400 naming a control-plane query value too long for a number', async () => {
    const app = await testApp();
    const res = await app.inject({ url: `/_sandbox/requests?limit=${'9'.repeat(400)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ path: '/limit' }] });
  });
});

describe('control calls whose body is optional', () => {
  const JSON_EMPTY = { headers: { 'content-type': 'application/json' }, payload: '' };

  it('reads a reset with no body at all as {}: the state is emptied', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/reset' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'reset', loaded: {} });
    expect((await app.inject({ url: EXTRACT, headers: AUTH })).statusCode).toBe(401);
  });

  it('reads a reset with an empty JSON body as {}', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/reset', ...JSON_EMPTY });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'reset', loaded: {} });
  });

  it('restores a snapshot, runs pending work and deletes fault rules with an empty JSON body', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'base' } });
    for (const [method, url] of [
      ['POST', '/_sandbox/snapshots/base/restore'],
      ['POST', '/_sandbox/work/run'],
      ['DELETE', '/_sandbox/faults'],
      ['DELETE', '/_sandbox/requests'],
      ['DELETE', '/_sandbox/clock'],
      ['DELETE', '/_sandbox/snapshots/base'],
    ] as const) {
      const res = await app.inject({ method, url, ...JSON_EMPTY });
      expect(`${method} ${url} ${res.statusCode}`).toBe(`${method} ${url} 200`);
    }
  });

  it('still refuses an empty body where the body is required, in the control plane and the interfaces', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    for (const [method, url, extra] of [
      ['POST', '/_sandbox/snapshots', {}],
      ['POST', '/_sandbox/fixtures', {}],
      ['POST', '/_sandbox/clock', {}],
      ['POST', '/_sandbox/faults', {}],
      ['PUT', '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/IUD-0001/payment', AUTH],
      ['POST', '/api/v1.0/service/dup/registrar_documentos', { authorization: 'Bearer rg-demo-token-1' }],
    ] as const) {
      const res = await app.inject({ method, url, headers: { ...JSON_EMPTY.headers, ...extra }, payload: '' });
      expect(`${url} ${res.statusCode}`).toBe(`${url} 400`);
      expect(res.body).toContain('the body is empty');
    }
  });
});
