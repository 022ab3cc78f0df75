// The calls the inspector page reads (overview, participants, a file's lines, paged trade bills) and
// how the page itself is served: under the admin-token rule, with no asset from elsewhere.
import { readFileSync, readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, submitCnab, testApp } from '../helpers.js';

async function importCnab(app: FastifyInstance, file: Buffer): Promise<string> {
  const id = await submitCnab(app, file);
  await app.runtime.work.drain();
  return id;
}

/** The demo CNAB 444 file with a zero face value in its first title (columns 127-139). */
function zeroValueFile(): Buffer {
  const lines = readFileSync('fixtures/cnab444-demo.rem', 'latin1').split('\r\n');
  lines[1] = `${lines[1]?.slice(0, 126)}${'0'.repeat(13)}${lines[1]?.slice(139)}`;
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

describe('GET /_sandbox/overview', () => {
  it('counts rows per interface and gives the clock, the last reset and the journal', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const before = (await app.inject({ url: '/_sandbox/overview' })).json();
    expect(before.lastReset).toBeNull();
    expect(before.counts.bookkeeping).toMatchObject({ tenants: 2, users: 2, 'trade bills': 7, payments: 0 });
    expect(before.counts.registry).toMatchObject({ participants: 1, batches: 0 });
    expect(before.counts.receivables).toMatchObject({ funds: 2, imports: 0 });
    expect(before.counts.loanbond).toMatchObject({ callers: 3, registrations: 0 });
    expect(before.journal).toEqual({ capacity: 1000, count: 0, dropped: 0 });
    expect(before.clock.offsetMs).toBe(0);

    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } });
    const after = (await app.inject({ url: '/_sandbox/overview' })).json();
    expect(Date.parse(after.lastReset)).not.toBeNaN();
  });

  it('warns about rejected imports and overdue participants', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    expect((await app.inject({ url: '/_sandbox/overview' })).json().warnings).toEqual([]);
    await importCnab(app, zeroValueFile());
    const reg = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/registrar_documentos',
      headers: { authorization: 'Bearer rg-demo-token-1' },
      payload: { registros: [{ numeroDuplicata: 'D-1', valorDuplicata: 10 }] },
    });
    expect(reg.statusCode).toBe(200);
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P40D' } });
    const { warnings } = (await app.inject({ url: '/_sandbox/overview' })).json();
    expect(warnings).toEqual([
      expect.stringMatching(/^registry: participant PART-1 is overdue/),
      'receivables: 1 CNAB import(s) rejected',
    ]);
  });
});

describe('GET /_sandbox/registry/participants', () => {
  it('lists every participant with its overdue flag and never its token', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({ url: '/_sandbox/registry/participants' });
    expect(res.statusCode).toBe(200);
    expect(res.json().participants).toEqual([
      { participantId: 'PART-1', documentCount: 0, reconciliationDueBy: null, overdue: false },
    ]);
    expect(res.body).not.toContain('rg-demo-token-1');
  });
});

describe('GET /_sandbox/receivables/imports/{importId}/lines', () => {
  it('gives the stored file line by line, numbered as the diagnostics are', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const id = await importCnab(app, zeroValueFile());
    const detail = (await app.inject({ url: `/_sandbox/receivables/imports/${id}` })).json();
    expect(detail.diagnostics[0]).toMatchObject({ line: 2, columns: '127-139', severity: 'error' });

    const res = await app.inject({ url: `/_sandbox/receivables/imports/${id}/lines?offset=1&limit=2` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.lineCount).toBe(4);
    expect(body.lines.map((l: { line: number }) => l.line)).toEqual([2, 3]);
    expect(body.lines[0].text).toHaveLength(444);
    expect(body.lines[0].text.slice(126, 139)).toBe('0000000000000');
  });

  it('is a 404 for an unknown import', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    expect((await app.inject({ url: '/_sandbox/receivables/imports/CNAB-NONE/lines' })).statusCode).toBe(404);
  });
});

describe('GET /_sandbox/bookkeeping/tenants/{tenantId}/trade-bills with offset and limit', () => {
  it('gives a page of the bills and their total', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const url = '/_sandbox/bookkeeping/tenants/11222333000181/trade-bills';
    const page = (await app.inject({ url: `${url}?offset=2&limit=3` })).json();
    expect(page.total).toBe(6);
    expect(page.tradeBills.map((b: { uid: string }) => b.uid)).toEqual(['IUD-0003', 'IUD-0004', 'IUD-0005']);
    const all = (await app.inject({ url })).json();
    expect(all.total).toBe(6);
    expect(all.tradeBills).toHaveLength(6);
    expect(all.nextCursor).toBeNull();
  });
});

describe('GET /_sandbox/ui', () => {
  it('serves the page and its files from the sandbox, loading nothing from elsewhere', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const page = await app.inject({ url: '/_sandbox/ui' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    const referenced = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(referenced.filter((u) => u.startsWith('/_sandbox/ui/assets/'))).toHaveLength(2);
    for (const u of referenced) expect(u).toMatch(/^(\/_sandbox\/ui\/assets\/|#|data:|[a-z])/);

    for (const name of readdirSync('src/control/ui/assets').filter((n) => n !== 'index.html')) {
      const res = await app.inject({ url: `/_sandbox/ui/assets/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.body, name).not.toMatch(/https?:\/\//);
    }
    expect((await app.inject({ url: '/_sandbox/ui/assets/nothing.js' })).statusCode).toBe(404);
  });

  it.each(['/_sandbox/ui', '/ws/w3/_sandbox/ui'])('%s links the data of its own workspace, each link answering', async (path) => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const page = await app.inject({ url: path });
    expect(page.statusCode).toBe(200);
    const base = `http://sandbox${path}`;
    const links = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1] ?? '')
      // The page's static files hold no state: one copy serves every workspace.
      .filter((u) => !u.startsWith('#') && !u.startsWith('data:') && !u.startsWith('/_sandbox/ui/assets/'));
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const u of links) {
      const target = new URL(u, base);
      expect(target.pathname, u).toMatch(new RegExp(`^${path.replace(/ui$/, '')}[a-z]`));
      expect((await app.inject({ url: target.pathname + target.search })).statusCode, u).toBe(200);
    }
  });

  it('with an admin token, serves the page but no data without the token', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES, adminToken: 'admin-secret' });
    expect((await app.inject({ url: '/_sandbox/ui' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/_sandbox/ui/assets/app.js' })).statusCode).toBe(200);
    const denied = await app.inject({ url: '/_sandbox/overview' });
    expect(denied.statusCode).toBe(401);
    const allowed = await app.inject({
      url: '/_sandbox/overview',
      headers: { 'sandbox-admin-token': 'admin-secret' },
    });
    expect(allowed.statusCode).toBe(200);
    expect((await app.inject({ url: '/_sandbox/ui' })).body).not.toContain('admin-secret');
  });
});
