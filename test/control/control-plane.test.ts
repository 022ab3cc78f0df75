import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, DEMO_FIXTURES, detailPaths, listenOnFreePort, testApp } from '../helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

/** Rows per table: the whole state, to show that a refused request changed nothing. */
function state(app: App): Record<string, number> {
  const tables = app.runtime.store.db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(
    tables.map((t) => [t, app.runtime.store.db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]),
  );
}

const json = (payload: unknown) => ({
  payload: JSON.stringify(payload),
  headers: { 'content-type': 'application/json' },
});

describe('GET /_sandbox/health', () => {
  it('answers 200 {"status":"ok"} once the database is open', async () => {
    const app = await testApp();
    const res = await app.inject({ url: '/_sandbox/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /_sandbox/operations', () => {
  it('lists the 6 documented operations as implemented and every named-only one', async () => {
    const app = await testApp();
    const { operations } = (await app.inject({ url: '/_sandbox/operations' })).json() as {
      operations: Array<Record<string, string | null>>;
    };
    for (const o of operations)
      expect(Object.keys(o).sort()).toEqual(['id', 'interface', 'method', 'name', 'path', 'status']);
    const implemented = operations.filter((o) => o.status === 'implemented');
    expect(implemented.map((o) => `${o.method} ${o.path}`)).toEqual([
      'GET /api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/extract',
      'PUT /api/bookkeeping/integration/v1/{tenantId}/trade-receivable-certificates/{uid}/payment',
      'POST /api/v1.0/service/dup/registrar_documentos',
      'POST /api/v1.0/service/dup/conciliar_documentos',
      'POST /v1/import-cnab',
      'POST /api/service/document/registrar',
    ]);
    const namedOnly = (i: string) => operations.filter((o) => o.interface === i && o.status === 'named-only');
    expect(namedOnly('bookkeeping')).toHaveLength(24);
    expect(namedOnly('registry')).toHaveLength(9);
    expect(namedOnly('receivables')).toHaveLength(6);
    expect(namedOnly('loanbond')).toHaveLength(15);
    for (const o of operations.filter((x) => x.status === 'named-only')) expect(o.path).toBeNull();
    expect(namedOnly('bookkeeping').find((o) => o.name === 'block trade bill')?.method).toBe('PATCH');
    expect(namedOnly('bookkeeping').find((o) => o.name === 'login')?.method).toBeNull();
  });
});

describe('requests outside the documented operations', () => {
  const cases: Array<[string, string, string, number]> = [
    [
      'bookkeeping',
      'GET',
      '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/IUD-1',
      24,
    ],
    ['bookkeeping', 'POST', '/api/bookkeeping/integration/v1/login', 24],
    ['registry', 'GET', '/api/v1.0/service/dup/consultar_remessa', 9],
    ['receivables', 'POST', '/v1/import-person', 6],
    ['loanbond', 'POST', '/api/service/document/cancelar', 15],
  ];
  for (const [iface, method, url, count] of cases) {
    it(`answers 501 under the ${iface} prefix, naming the interface and its named-only operations (${method} ${url})`, async () => {
      const app = await testApp();
      const res = await app.inject({ method: method as 'GET', url });
      expect(res.statusCode).toBe(501);
      const body = res.json();
      expect(body.interface).toBe(iface);
      expect(body.namedOnlyOperations).toHaveLength(count);
    });
  }

  it('answers 404 outside every prefix', async () => {
    const app = await testApp();
    for (const url of ['/', '/api/other', '/v2/import-cnab', '/_sandbox/nothing']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().statusCode).toBe(404);
    }
  });
});

describe('POST /_sandbox/reset', () => {
  it('wipes all state and loads the given fixture document, answering counts', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES, db: ':memory:' });
    expect(state(app).bk_users).toBeGreaterThan(0);
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/reset',
      ...json({ fixtures: BASE_FIXTURES }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'reset',
      loaded: {
        bookkeeping: { users: 1, tradeBills: 0, extractRequests: 0 },
        registry: { participants: 1 },
        receivables: { funds: 2 },
        loanbond: { callers: 1 },
      },
    });
    expect(state(app).bk_trade_bills).toBe(0);
  });

  it('with {} leaves the sandbox empty', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ method: 'POST', url: '/_sandbox/reset', ...json({}) });
    expect(res.statusCode).toBe(200);
    expect(Object.entries(state(app)).filter(([t, n]) => n > 0 && t !== 'sb_meta')).toEqual([]);
  });

  it('with "default" loads the configured fixture file', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    await app.inject({ method: 'POST', url: '/_sandbox/reset', ...json({}) });
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/reset',
      ...json({ fixtures: 'default' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().loaded.loanbond.callers).toBe(3);
    expect(state(app).lb_callers).toBe(3);
  });

  it('refuses an invalid document naming each bad field under /fixtures, and changes nothing', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const before = state(app);
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/reset',
      ...json({
        fixtures: {
          bookkeeping: {
            users: [{ userId: 1, accessToken: 't', tenants: ['11222333000182'] }],
            tradeBills: [{ tenantId: '11222333000181', uid: 'A', amount: 10, openValue: 20 }],
          },
        },
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: '/fixtures/bookkeeping/users/0/tenants/0', message: expect.stringMatching(/check digits/) },
      { path: '/fixtures/bookkeeping/tradeBills/0/openValue', message: 'must not exceed amount' },
    ]);
    expect(state(app)).toEqual(before);
  });
  it('points a duplicate at its first occurrence under /fixtures too, in a reset and in a new workspace', async () => {
    const app = await testApp();
    const users = [
      { userId: 1, accessToken: 'same-token', tenants: ['11222333000181'] },
      { userId: 2, accessToken: 'same-token', tenants: ['11222333000181'] },
    ];
    const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset', ...json({ fixtures: { bookkeeping: { users } } }) });
    expect(reset.statusCode).toBe(400);
    const detail = (reset.json() as { details: Array<{ path: string; message: string }> }).details[0];
    expect(detail?.path).toBe('/fixtures/bookkeeping/users/1/accessToken');
    expect(detail?.message).toMatch(/\(first at \/fixtures\/bookkeeping\/users\/0\/accessToken\)$/);
    const workspace = await app.inject({ method: 'POST', url: '/_sandbox/workspaces', ...json({ name: 'dup', fixtures: { bookkeeping: { users } } }) });
    expect(workspace.statusCode).toBe(400);
    expect(workspace.body).toContain('(first at /fixtures/bookkeeping/users/0/accessToken)');
  });

  it('says what fixtures accepts when it is neither "default" nor a document', async () => {
    const app = await testApp();
    for (const fixtures of ['nope', 1, null, ['default']]) {
      const res = await app.inject({ method: 'POST', url: '/_sandbox/reset', ...json({ fixtures }) });
      expect(res.statusCode, JSON.stringify(fixtures)).toBe(400);
      expect(res.json()).toMatchObject({
        message: '/fixtures: must be "default" or an object',
        details: [{ path: '/fixtures', message: 'must be "default" or an object' }],
      });
    }
  });
});

describe('POST /_sandbox/fixtures', () => {
  it('adds a fixture document to the current state', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({ registry: { participants: [{ participantId: 'PART-2', accessToken: 'rg-token-2' }] } }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ loaded: { registry: { participants: 1 } } });
    expect(state(app).rg_participants).toBe(2);
  });

  it('refuses unknown fields, naming each one', async () => {
    const app = await testApp();
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({
        bookkeping: {},
        registry: { participants: [{ participantId: 'P', accessToken: 't', role: 'x' }] },
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/bookkeping', '/registry/participants/0/role']);
  });

  it('is all or nothing: one bad entry refuses the document and adds nothing', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const before = state(app);
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({
        registry: { participants: [{ participantId: 'PART-2', accessToken: 'rg-token-2' }] },
        receivables: { funds: [{ fundCnpj: '11222333000181', token: 'dup' }] },
        loanbond: { callers: [{ callerId: 'C2', token: 'lb-token-1', products: [] }] },
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      {
        path: '/receivables/funds/0/fundCnpj',
        message: 'fundCnpj "11222333000181" already exists in the sandbox',
      },
      { path: '/loanbond/callers/0/token', message: 'this token already exists in the sandbox' },
    ]);
    expect(state(app)).toEqual(before);
    expect(res.body).not.toContain('lb-token-1');
  });

  it('names a trade bill sent twice or already loaded by its tenant and uid, never by an internal key', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const tenantId = '11222333000181';
    const bill = { tenantId, uid: 'IUD-X', amount: 10 };
    await app.inject({ method: 'POST', url: '/_sandbox/fixtures', ...json({ bookkeeping: { tradeBills: [bill] } }) });
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({ bookkeeping: { tradeBills: [{ ...bill, uid: 'IUD-Y' }, { ...bill, uid: 'IUD-Y' }, bill] } }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('\\u0000');
    expect(res.body).not.toContain('\u0000');
    expect(res.json().details).toEqual([
      {
        path: '/bookkeeping/tradeBills/1/uid',
        message: `trade bill "IUD-Y" of tenant ${tenantId} appears twice in the document (first at /bookkeeping/tradeBills/0/uid)`,
      },
      { path: '/bookkeeping/tradeBills/2/uid', message: `trade bill "IUD-X" of tenant ${tenantId} already exists in the sandbox` },
    ]);
  });

  it('refuses a fixture token with whitespace: no Bearer header could carry it', async () => {
    const app = await testApp();
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({ registry: { participants: [{ participantId: 'P', accessToken: 'two words' }] } }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('/registry/participants/0/accessToken');
  });

  it('keeps fixture money exact in cents and refuses a third decimal', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const ok = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({ bookkeeping: { tradeBills: [{ tenantId: '11222333000181', uid: 'C', amount: 0.29 }] } }),
    });
    expect(ok.statusCode).toBe(200);
    expect(app.runtime.store.bookkeeping.tradeBill('11222333000181', 'C')).toMatchObject({
      amountCents: 29,
      openCents: 29,
    });
    const bad = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      ...json({ bookkeeping: { tradeBills: [{ tenantId: '11222333000181', uid: 'D', amount: 0.299 }] } }),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('/bookkeeping/tradeBills/0/amount');
  });
});

describe('the Sandbox-Admin-Token', () => {
  it('is required on every control call when configured', async () => {
    const app = await testApp({ adminToken: 'admin-secret' });
    for (const url of ['/_sandbox/health', '/_sandbox/operations']) {
      const without = await app.inject({ url });
      expect(without.statusCode).toBe(401);
      expect(without.body).not.toContain('admin-secret');
      const wrong = await app.inject({ url, headers: { 'sandbox-admin-token': 'admin-secreT' } });
      expect(wrong.statusCode).toBe(401);
      const right = await app.inject({ url, headers: { 'sandbox-admin-token': 'admin-secret' } });
      expect(right.statusCode).toBe(200);
    }
  });

  it('leaves the control plane open when not configured', async () => {
    const app = await testApp();
    expect((await app.inject({ url: '/_sandbox/operations' })).statusCode).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('is served at /openapi.json and /docs, describing the control plane', async () => {
    const app = await testApp();
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/_sandbox/health',
        '/_sandbox/reset',
        '/_sandbox/fixtures',
        '/_sandbox/operations',
      ]),
    );
    const ui = await app.inject({ url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('a real port', () => {
  it('serves the health check over HTTP', async () => {
    const app = await testApp();
    const port = await listenOnFreePort(app);
    const res = await fetch(`http://127.0.0.1:${port}/_sandbox/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
