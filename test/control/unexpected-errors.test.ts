// An unexpected error inside the sandbox must reach an in-process user who runs
// with the logger off: the answer names the request id, a control call's thrown error carries the
// cause, and neither carries a secret. The failure is simulated by making a store call throw.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/index.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';

const started: Sandbox[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (started.length > 0) await started.pop()?.close();
});

async function sandbox(): Promise<Sandbox> {
  const s = await startSandbox({ fixtures: BASE_FIXTURES, adminToken: 'admin-secret-1' });
  started.push(s);
  return s;
}

describe('unexpected errors in process, with the logger off', () => {
  it('throws from a control call with the cause, its first frames and the request id', async () => {
    const s = await sandbox();
    vi.spyOn(s.app.runtime.store, 'wipe').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    const error = await s.reset({ bookkeeping: { users: [{ userId: 9, accessToken: 'bk-secret-9', tenants: ['11222333000181'] }] } }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/^POST \/_sandbox\/reset answered 500: internal sandbox error \(request req-[0-9a-z]+\)/);
    expect(error?.message).toContain('cause: Error: disk I/O error | at ');
    // No secret: not the body's token, not the admin token.
    expect(error?.message).not.toContain('bk-secret-9');
    expect(error?.message).not.toContain('admin-secret-1');
  });

  it('answers a control call that fails unexpectedly with the request id and the cause in the standard body', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    vi.spyOn(app.runtime.store, 'wipe').mockImplementation(() => {
      throw new TypeError('cannot read the snapshot table');
    });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/reset' });
    expect(res.statusCode).toBe(500);
    const body = res.json<{ message: string; details: Array<{ path: string; message: string }> }>();
    expect(body.message).toMatch(/request req-[0-9a-z]+/);
    expect(body.details).toHaveLength(1);
    expect(body.details[0]?.message).toMatch(/^cause: TypeError: cannot read the snapshot table \| at /);
  });

  it('names the request id in the 500 of an interface that documents one, without the cause', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    vi.spyOn(app.runtime.store.bookkeeping, 'extractPage').mockImplementation(() => {
      throw new Error('database table is locked');
    });
    const res = await app.inject({
      url: '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract',
      headers: { authorization: 'Bearer bk-token-1' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: expect.stringMatching(/^internal sandbox error \(request req-[0-9a-z]+\): see the sandbox log$/),
      details: [],
    });
  });

  it('names the request id in the 400 of an interface that documents no 5xx', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    vi.spyOn(app.runtime.store.loanbond, 'callerByToken').mockImplementation(() => {
      throw new Error('database table is locked');
    });
    const res = await app.inject({
      method: 'POST',
      url: '/api/service/document/registrar',
      payload: { versao: '2.0', token: 'lb-token-1', registros: [{ documento: 'JVBERi0xLjcK' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toMatch(/^internal sandbox error \(request req-[0-9a-z]+\): a fault of the sandbox/);
    expect(res.body).not.toContain('lb-token-1');
  });
});
