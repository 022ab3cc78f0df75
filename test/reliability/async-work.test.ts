// Asynchronous processing under storage trouble and under a flood of submissions: a slice whose
// transaction fails (here a real SQLITE_BUSY: another connection holds the database file's write
// lock) leaves the item as it was, is retried after a backoff and is shown on the item's inspection
// and by POST /_sandbox/work/run; past the backlog bound a submission is refused in the interface's
// documented shape and nothing of it is stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEMO_FIXTURES, submitCnab, testApp } from '../helpers.js';
import { body, documentCount, FIXTURES, pdf, post, record, registrationCount } from '../loanbond/helpers.js';
import { cnabBytes } from '../receivables/helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  vi.restoreAllMocks();
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** A sandbox on a database file, and a second connection to that file that can hold its write lock. */
async function lockableApp(fixtures: typeof DEMO_FIXTURES | typeof FIXTURES, seed?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-work-'));
  const app = await testApp({ db: join(dir, 'sandbox.db'), fixtures, ...(seed === undefined ? {} : { seed }) });
  // A short busy timeout: the sandbox gives up on the lock at once instead of after 5 s.
  app.runtime.store.db.pragma('busy_timeout = 20');
  const other = new Database(join(dir, 'sandbox.db'));
  // Nor does the other connection wait, when the sandbox's own transaction already holds the lock.
  other.pragma('busy_timeout = 0');
  cleanups.push(() => {
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** Runs `write` (a store write the runner makes) while the other connection holds the write lock. */
  const underLock = <T>(write: () => T): T => {
    other.exec('BEGIN IMMEDIATE');
    try {
      return write();
    } finally {
      other.exec('ROLLBACK');
    }
  };
  return { app, underLock };
}

const CNAB = cnabBytes('cnab400', [{}, { titleId: 'T-2' }]);
/** A file with one error (a due date of 31 February): its processing writes a diagnostic. */
const WITH_ERROR = cnabBytes('cnab400', [{}, { titleId: 'T-2', due: '310224' }]);

async function inspectImport(app: FastifyInstance, importId: string) {
  return (await app.inject({ url: `/_sandbox/receivables/imports/${importId}` })).json<{
    status: string;
    processing: null | {
      failedAttempts: number;
      retries: number;
      failures: Array<{ at: string; slice: string; error: string }>;
    };
  }>();
}

describe('a processing slice that fails', () => {
  it('is retried after a backoff: a CNAB import whose slice met a locked database (SQLITE_BUSY) once is processed, and so is the import after it; its inspection shows the failure and the retry', async () => {
    const { app, underLock } = await lockableApp(DEMO_FIXTURES);
    const store = app.runtime.store.receivables;
    const finish = store.finish.bind(store);
    let locked = 1;
    vi.spyOn(store, 'finish').mockImplementation((...args) =>
      locked-- > 0 ? underLock(() => finish(...args)) : finish(...args),
    );
    const importId = await submitCnab(app, CNAB);
    const later = await submitCnab(app, CNAB);
    // Both: the failed slice wedges neither its own import nor the ones after it.
    await vi.waitFor(
      async () => {
        expect((await inspectImport(app, importId)).status).toBe('processed');
        expect((await inspectImport(app, later)).status).toBe('processed');
      },
      { timeout: 10_000, interval: 20 },
    );
    expect((await inspectImport(app, later)).processing).toBeNull();
    const { processing } = await inspectImport(app, importId);
    expect(processing).toEqual({
      failedAttempts: 1,
      retries: 1,
      failures: [{ at: expect.any(String), slice: 'lines 1-4', error: expect.stringMatching(/^database locked \(SQLITE_BUSY\): /) }],
    });
    // The diagnostics were written once, not once per attempt.
    const again = await app.inject({ url: `/_sandbox/receivables/imports/${importId}` });
    expect(again.json<{ errorCount: number }>().errorCount).toBe(0);
  });

  // Each store write of the runner, locked once: the start of an import (clearing an earlier run's
  // diagnostics), a slice's diagnostics, its end. A start that failed once left the runner spinning on
  // the spent opening: nothing was processed again and POST /_sandbox/work/run never answered.
  it.each(['clearDiagnostics', 'addDiagnostics', 'finish'] as const)(
    'wedges nothing when %s meets a locked database once: that import, the ones pending with it and the ones submitted later are processed, and work/run answers',
    async (write) => {
      const { app, underLock } = await lockableApp(DEMO_FIXTURES);
      const store = app.runtime.store.receivables;
      const original = store[write].bind(store) as (...args: unknown[]) => unknown;
      let locked = 1;
      vi.spyOn(store, write).mockImplementation(((...args: unknown[]) =>
        locked-- > 0 ? underLock(() => original(...args)) : original(...args)) as never);
      const before = [await submitCnab(app, WITH_ERROR), await submitCnab(app, WITH_ERROR)];
      await vi.waitFor(() => expect(locked).toBeLessThan(0), { timeout: 10_000, interval: 20 });
      const after = [await submitCnab(app, WITH_ERROR), await submitCnab(app, WITH_ERROR)];
      const run = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
      expect(run.statusCode).toBe(200);
      for (const importId of [...before, ...after]) {
        const processed = (await app.inject({ url: `/_sandbox/receivables/imports/${importId}` })).json();
        // Its one error written once, however many attempts its processing took.
        expect(processed, importId).toMatchObject({ status: 'rejected', errorCount: 1 });
      }
      expect((await inspectImport(app, before[0] as string)).processing).toMatchObject({ failedAttempts: 1 });
      const work = (await app.inject({ url: '/_sandbox/work' })).json<{ runners: Record<string, { pending: number }> }>();
      expect(work.runners.receivables?.pending).toBe(0);
    },
  );

  it('is named by POST /_sandbox/work/run: the runner, the import and the error; once the lock is gone the next run processes it', async () => {
    const { app, underLock } = await lockableApp(DEMO_FIXTURES);
    const store = app.runtime.store.receivables;
    const finish = store.finish.bind(store);
    let locked = true;
    vi.spyOn(store, 'finish').mockImplementation((...args) => (locked ? underLock(() => finish(...args)) : finish(...args)));
    const importId = await submitCnab(app, CNAB);
    const run = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(run.statusCode).toBe(200);
    const result = run.json<{ errors: number; failures: Array<Record<string, unknown>> }>();
    expect(result.errors).toBe(1);
    expect(result.failures).toEqual([
      {
        runner: 'receivables',
        job: importId,
        error: expect.stringMatching(/^database locked \(SQLITE_BUSY\): another connection/),
        at: expect.any(String),
        attempt: expect.any(Number),
        retryInMs: expect.any(Number),
      },
    ]);
    expect((await inspectImport(app, importId)).status).toBe('pending');
    locked = false;
    const next = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(next.json()).toMatchObject({ errors: 0, failures: [] });
    expect((await inspectImport(app, importId)).status).toBe('processed');
  });

  it("is forgotten with the rows it befell: after a restore, an import that reuses the failed one's seeded id shows no failure", async () => {
    const { app, underLock } = await lockableApp(DEMO_FIXTURES, 'history-restore');
    expect((await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'before' } })).statusCode).toBe(201);
    const store = app.runtime.store.receivables;
    const finish = store.finish.bind(store);
    let locked = 1;
    vi.spyOn(store, 'finish').mockImplementation((...args) =>
      locked-- > 0 ? underLock(() => finish(...args)) : finish(...args),
    );
    const failed = await submitCnab(app, CNAB);
    await vi.waitFor(async () => expect((await inspectImport(app, failed)).status).toBe('processed'), { timeout: 10_000, interval: 20 });
    expect((await inspectImport(app, failed)).processing).toMatchObject({ failedAttempts: 1 });
    expect((await app.inject({ method: 'POST', url: '/_sandbox/snapshots/before/restore' })).statusCode).toBe(200);
    const again = await submitCnab(app, CNAB);
    expect(again).toBe(failed);
    await vi.waitFor(async () => expect((await inspectImport(app, again)).status).toBe('processed'), { timeout: 10_000, interval: 20 });
    expect((await inspectImport(app, again)).processing).toBeNull();
  });

  it('is retried for a loan-bond registration too: its step met a locked database once, then it advanced; its inspection shows the failure and the retry', async () => {
    const { app, underLock } = await lockableApp(FIXTURES);
    const store = app.runtime.store.loanbond;
    const advance = store.advance.bind(store);
    let locked = 1;
    vi.spyOn(store, 'advance').mockImplementation((...args) =>
      locked-- > 0 ? underLock(() => advance(...args)) : advance(...args),
    );
    const res = await post(app, body([record()]));
    expect(res.statusCode).toBe(201);
    const id = res.json<{ registros: Array<{ codigo_identificador: string }> }>().registros[0]?.codigo_identificador;
    const inspect = async () =>
      (await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` })).json<{
        state: string;
        processing: unknown;
      }>();
    await vi.waitFor(async () => expect((await inspect()).state).toBe('signatures-complete'), { timeout: 10_000, interval: 20 });
    expect((await inspect()).processing).toEqual({
      failedAttempts: 1,
      retries: 1,
      failures: [{ at: expect.any(String), slice: 'its step', error: expect.stringMatching(/^database locked \(SQLITE_BUSY\): /) }],
    });
  });
});

describe('back-pressure: the asynchronous backlog is bounded', () => {
  /** Processing held (POST /_sandbox/work): nothing pending is picked up until it is released. */
  async function holdProcessing(app: FastifyInstance, held = true) {
    const res = await app.inject({ method: 'POST', url: '/_sandbox/work', payload: { held } });
    expect(res.json()).toMatchObject({ held });
  }

  it('refuses a CNAB import past SANDBOX_WORK_BACKLOG with the documented envelope, stores nothing, and accepts again once processed', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES, workBacklog: 2 });
    await holdProcessing(app);
    await submitCnab(app, CNAB);
    await submitCnab(app, CNAB);
    const imports = async () =>
      (await app.inject({ url: `/_sandbox/receivables/funds/11222333000181/imports` })).json<{ imports: unknown[] }>().imports.length;
    const refused = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: {
        token: 'rc-demo-token-1',
        fundCnpj: '11.222.333/0001-81',
        operationFile: CNAB.toString('base64'),
        fileName: 'third.rem',
        additiveNumber: 3,
      },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['sandbox-outcome']).toBe('import-cnab.backlog-full');
    expect(refused.json()).toEqual({
      error: {
        code: 'SandboxBusy',
        message: expect.stringContaining('already holds 2 CNAB imports waiting for asynchronous processing, its limit (SANDBOX_WORK_BACKLOG, or POST /_sandbox/work): this request was not stored'),
        target: null,
      },
    });
    expect(refused.headers['sandbox-import-id']).toBeUndefined();
    expect(await imports()).toBe(2);
    // A request with its own fault still hears about that fault first.
    const badToken = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: { token: 'wrong', fundCnpj: '11222333000181', operationFile: CNAB.toString('base64'), fileName: 'x', additiveNumber: 1 },
    });
    expect(badToken.json<{ error: { code: string } }>().error.code).toBe('InvalidToken');

    const work = (await app.inject({ url: '/_sandbox/work' })).json<{ runners: Record<string, { pending: number }> }>();
    expect(work.runners.receivables?.pending).toBe(2);
    await holdProcessing(app, false);
    await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    await submitCnab(app, CNAB);
    expect(await imports()).toBe(3);
  });

  it('refuses a loan-bond registration past the bound with a 400 in its body and stores none of its records or files', async () => {
    const app = await testApp({ fixtures: FIXTURES, workBacklog: 2 });
    await holdProcessing(app);
    expect((await post(app, body([record()]))).statusCode).toBe(201);
    expect((await post(app, body([record()]))).statusCode).toBe(201);
    const before = { registrations: await registrationCount(app), documents: await documentCount(app) };
    // A file the store has not seen: had the request been stored, the document count would grow.
    const refused = await post(app, body([record({ documento: pdf(800, { tag: 'refused' }), documentos_adicionais: [] })]));
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['sandbox-outcome']).toBe('register-loan-bond.backlog-full');
    expect(refused.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringContaining('already holds 2 loan-bond registrations waiting for asynchronous processing'),
    });
    expect({ registrations: await registrationCount(app), documents: await documentCount(app) }).toEqual(before);
    // The token is still checked first: a stranger hears 401, not how busy the sandbox is.
    expect((await post(app, body([record()], 'lb-unknown'))).statusCode).toBe(401);

    const work = (await app.inject({ url: '/_sandbox/work' })).json<{ runners: Record<string, { pending: number }> }>();
    expect(work.runners.loanbond?.pending).toBe(2);
    await holdProcessing(app, false);
    await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect((await post(app, body([record()]))).statusCode).toBe(201);
  });
  it('counts every record a loan-bond request adds: a request that would bring the backlog over the bound is refused whole, and the pending count is the real one', async () => {
    const app = await testApp({ fixtures: FIXTURES, workBacklog: 3 });
    await holdProcessing(app);
    expect((await post(app, body([record()]))).statusCode).toBe(201);
    expect((await post(app, body([record()]))).statusCode).toBe(201);
    // 2 wait, the bound is 3: two more records would make 4.
    const refused = await post(app, body([record({ documento: pdf(800, { tag: 'a' }) }), record({ documento: pdf(800, { tag: 'b' }) })]));
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['sandbox-outcome']).toBe('register-loan-bond.backlog-full');
    expect(refused.json<{ message: string }>().message).toMatch(
      /this request adds 2 loan-bond registrations to the 2 waiting for asynchronous processing: 4 would be over the limit of 3 \(SANDBOX_WORK_BACKLOG, or POST \/_sandbox\/work\): this request was not stored/,
    );
    expect(await registrationCount(app)).toBe(2);
    // One more fits exactly.
    expect((await post(app, body([record()]))).statusCode).toBe(201);
    const pending = async () =>
      (await app.inject({ url: '/_sandbox/work' })).json<{ runners: Record<string, { pending: number }> }>().runners.loanbond?.pending;
    expect(await pending()).toBe(3);
    // A bound lowered under what waits: the count stays the real one.
    await app.inject({ method: 'POST', url: '/_sandbox/work', payload: { maxBacklog: 1 } });
    expect(await pending()).toBe(3);
    const over = await post(app, body([record()]));
    expect(over.json<{ message: string }>().message).toMatch(/already holds 3 loan-bond registrations waiting for asynchronous processing, more than its limit of 1 /);
    // A request larger than the bound itself could never be stored: it is told so.
    await holdProcessing(app, false);
    await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    const tooMany = await post(app, body([record({ documento: pdf(800, { tag: 'c' }) }), record({ documento: pdf(800, { tag: 'd' }) })]));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json<{ message: string }>().message).toMatch(/this request alone holds 2 loan-bond registrations, more than the limit of 1 /);
  });
});
