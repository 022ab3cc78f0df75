// When the sandbox's storage fails (disk full, the database locked by another connection, the
// database read-only), every interface's fault answer and the control plane name the cause and its
// SQLite code, in the interface's documented shape, without a stack trace or a secret. The failures
// are SQLite's own: a size limit (max_page_count) for a full disk, a second connection holding the
// write lock for SQLITE_BUSY, query_only for a read-only database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { declaration, paymentUrl, TENANT } from '../bookkeeping/helpers.js';
import { body, pdf, post, record } from '../loanbond/helpers.js';
import { cnabBytes } from '../receivables/helpers.js';
import { REGISTER, validDocument } from '../registry/helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const FIXTURES = {
  ...BASE_FIXTURES,
  bookkeeping: {
    ...BASE_FIXTURES.bookkeeping,
    tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 1000 }],
  },
};

/** The database can grow no more: any write that needs a new page fails with SQLITE_FULL. */
function fillDisk(app: FastifyInstance): void {
  const db = app.runtime.store.db;
  db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`);
}

/** The database refuses every write with SQLITE_READONLY. */
function readOnly(app: FastifyInstance): void {
  app.runtime.store.db.pragma('query_only = 1');
}

const noStack = (text: string) => {
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|\.ts:\d+|node_modules/);
};

describe('storage failures named by their cause', () => {
  it('bookkeeping: a payment on a read-only database is the documented 500 naming SQLITE_READONLY', async () => {
    const app = await testApp({ fixtures: FIXTURES });
    app.runtime.clock.set(new Date('2026-11-20T12:00:00Z'), true);
    readOnly(app);
    const res = await app.inject({
      method: 'PUT',
      url: paymentUrl(TENANT, 'IUD-1'),
      headers: { authorization: 'Bearer bk-token-1' },
      payload: declaration(10, true),
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: expect.stringMatching(
        /^internal sandbox error \(request req-[0-9a-z]+\): the sandbox's storage failed, database read-only \(SQLITE_READONLY\): .+; see the sandbox log$/,
      ),
      details: [],
    });
    expect(res.body).not.toContain('bk-token-1');
  });

  it('registry: a registration while another connection holds the write lock is the documented 500 naming SQLITE_BUSY', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-storage-'));
    const file = join(dir, 'sandbox.db');
    const app = await testApp({ db: file, fixtures: FIXTURES });
    const other = new Database(file);
    cleanups.push(() => {
      other.close();
      rmSync(dir, { recursive: true, force: true });
    });
    app.runtime.store.db.pragma('busy_timeout = 20');
    other.exec('BEGIN IMMEDIATE');
    const res = await app.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Bearer rg-token-1' },
      payload: { registros: [validDocument()] },
    });
    other.exec('ROLLBACK');
    expect(res.statusCode).toBe(500);
    const message = res.json<{ message: string }>().message;
    expect(message).toMatch(/the sandbox's storage failed, database locked \(SQLITE_BUSY\): another connection to the database file held its write lock/);
    noStack(res.body);
    // Released, the same request goes through.
    const again = await app.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Bearer rg-token-1' },
      payload: { registros: [validDocument()] },
    });
    expect(again.statusCode).toBe(200);
  });

  it('receivables: an import on a full disk is the envelope 400 SandboxFault naming SQLITE_FULL', async () => {
    const app = await testApp({ fixtures: FIXTURES });
    fillDisk(app);
    const file = cnabBytes('cnab400', Array.from({ length: 40 }, (_, i) => ({ titleId: `T-${i}` })));
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: { token: 'rc-token-1', fundCnpj: TENANT, operationFile: file.toString('base64'), fileName: 'f.rem', additiveNumber: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'SandboxFault',
        message: expect.stringMatching(
          /a fault of the sandbox, not of your request \(the sandbox's storage failed, disk full \(SQLITE_FULL\): .+\); this interface documents no 5xx status$/,
        ),
        target: null,
      },
    });
    expect(res.body).not.toContain('rc-token-1');
  });

  it('loan-bond: a registration on a full disk is a 400 in its body naming SQLITE_FULL', async () => {
    const app = await testApp({ fixtures: FIXTURES });
    fillDisk(app);
    // A record larger than a page (its name): storing it needs pages the database may not add. The
    // PDF itself goes to a file beside the database, not into it.
    const res = await post(app, body([record({ documento: pdf(20_000), nome_documento: 'n'.repeat(20_000) })]));
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toMatch(/disk full \(SQLITE_FULL\)/);
    noStack(res.body);
    expect(res.body).not.toContain('lb-token-1');
  });

  it('control plane: a reset on a read-only database is a 500 whose message names SQLITE_READONLY, with no stack trace', async () => {
    const app = await testApp({ fixtures: FIXTURES, adminToken: 'admin-secret-1' });
    readOnly(app);
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/reset',
      headers: { 'sandbox-admin-token': 'admin-secret-1' },
      payload: { fixtures: { bookkeeping: { users: [{ userId: 9, accessToken: 'bk-secret-9', tenants: [TENANT] }] } } },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: expect.stringMatching(/storage failed, database read-only \(SQLITE_READONLY\)/),
      details: [],
    });
    noStack(res.body);
    expect(res.body).not.toContain('bk-secret-9');
    expect(res.body).not.toContain('admin-secret-1');
  });
});
