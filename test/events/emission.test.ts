// Every state change is an event of its workspace, emitted by the operation that causes it, and a
// refused request emits none: every outcome of the catalog is driven over HTTP (the coverage drivers)
// and the events it left are read back from the feed.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { OUTCOMES } from '../../src/interfaces.js';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { feed, injectClient, lastEventId, typesAfter } from './helpers.js';

/** The events an accepted answer of each operation leads to, once its asynchronous work is done. */
function expectedTypes(outcome: { id: string; operation: string; status: number }): string[] {
  if (outcome.status >= 400) return [];
  const slug = outcome.id.slice(outcome.operation.length + 1);
  switch (outcome.operation) {
    case 'list-extract-requests':
      return [];
    case 'declare-payment':
      return ['sandbox.bookkeeping.payment.declared'];
    case 'register-documents':
      return ['sandbox.registry.document.registered'];
    case 'reconcile-documents':
      // The drivers of matched and diverging register the document they reconcile first.
      return slug === 'reconciled-with-unknown'
        ? ['sandbox.registry.document.reconciled']
        : ['sandbox.registry.document.registered', 'sandbox.registry.document.reconciled'];
    case 'import-cnab':
      return [
        'sandbox.receivables.import.received',
        slug.startsWith('rejected-') ? 'sandbox.receivables.import.rejected' : 'sandbox.receivables.import.processed',
      ];
    case 'register-loan-bond':
      return ['sandbox.loanbond.record.registered', 'sandbox.loanbond.record.processed'];
    default:
      throw new Error(`no expectation for ${outcome.operation}`);
  }
}

describe('events emitted by the interfaces', () => {
  let app: FastifyInstance;
  // One app for the whole table (testApp closes its apps after each test).
  beforeAll(async () => {
    app = await buildApp({ db: ':memory:', logger: false, fixtures: COVERAGE_FIXTURES });
  });
  afterAll(() => app.close());

  for (const outcome of OUTCOMES) {
    const expected = expectedTypes(outcome);
    it(`${outcome.id} (${outcome.status}) emits ${expected.length === 0 ? 'nothing' : expected.join(', ')}`, { timeout: 30_000 }, async () => {
      await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } });
      const before = await lastEventId(app);
      const drive = DRIVERS[outcome.id];
      expect(drive).toBeDefined();
      // Some drivers store something first (a backlog filled before the submission it refuses): the
      // outcome is the answer to the driver's last request, so its events are counted from there.
      const client = injectClient(app);
      let beforeLast = before;
      await drive?.({
        send: (...args) => {
          beforeLast = app.runtime.events.lastId;
          return client.send(...args);
        },
      });
      const atAnswer = await typesAfter(app, beforeLast);
      // Asynchronous work runs by itself after a delay; here it is run now.
      await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
      if (outcome.status >= 400) {
        expect(atAnswer).toEqual([]);
        // Nor later: what the work run emitted is about what the driver stored before the refused request.
        const all = (await feed(app, `after=${before}`)).events;
        const earlier = new Set(all.filter((e) => Number(e.id) <= beforeLast).map((e) => e.subject));
        expect(all.filter((e) => Number(e.id) > beforeLast && !earlier.has(e.subject))).toEqual([]);
      } else {
        // Faults and work/run are control calls: they change no state and emit nothing.
        expect(await typesAfter(app, before)).toEqual(expected);
      }
    });
  }
});

describe('what the events say', () => {
  it('a payment: open value before and after, status before and after, on the sandbox clock', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T10:00:00Z', freeze: true } });
    const before = await lastEventId(app);
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));
    const [event] = (await feed(app, `after=${before}`)).events;
    expect(event).toMatchObject({
      specversion: '1.0',
      source: '/ws/default',
      type: 'sandbox.bookkeeping.payment.declared',
      subject: 'bookkeeping/tenants/11222333000181/trade-bills/IUD-OPEN',
      time: '2026-11-20T10:00:00.000Z',
      datacontenttype: 'application/json',
      data: {
        tenantId: '11222333000181',
        uid: 'IUD-OPEN',
        paymentValue: 10,
        isPartial: true,
        openValueBefore: 100,
        openValueAfter: 90,
        statusBefore: 'open',
        status: 'partially-paid',
      },
    });
  });

  it('a registry batch: one event per document, each naming its document and batch; a reconciliation, one per item with its result', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const c = injectClient(app);
    const before = await lastEventId(app);
    const res = await c.send('POST', '/api/v1.0/service/dup/registrar_documentos', {
      headers: { authorization: 'Bearer rg-token-1' },
      body: { registros: [{ numeroDuplicata: '1' }, { numeroDuplicata: '2' }] },
    });
    const { chaveRemessa } = JSON.parse(res.body) as { chaveRemessa: string };
    const registered = (await feed(app, `after=${before}`)).events;
    expect(registered.map((e) => e.data.itemIndex)).toEqual([0, 1]);
    for (const e of registered) {
      expect(e.data).toMatchObject({ chaveRemessa, participantId: 'PART-1' });
      expect(e.subject).toBe(`registry/documents/${String(e.data.chaveRegistro)}`);
    }
    const key = String(registered[1]?.data.chaveRegistro);
    const mid = await lastEventId(app);
    await c.send('POST', '/api/v1.0/service/dup/conciliar_documentos', {
      headers: { authorization: 'Bearer rg-token-1' },
      body: { registros: [{ chaveRegistro: key, numeroDuplicata: '3' }, { chaveRegistro: 'RG-NONE' }] },
    });
    const reconciled = (await feed(app, `after=${mid}`)).events;
    expect(reconciled.map((e) => [e.subject, e.data.result])).toEqual([
      [`registry/documents/${key}`, 'diverging'],
      [expect.stringMatching(/^registry\/reconciliations\/[^/]+\/items\/1$/), 'unknown'],
    ]);
    // The fields that differ, as JSON pointers into the item (as the reconciliation view names them).
    expect(reconciled[0]?.data.divergingFields).toEqual(['/numeroDuplicata']);
  });

  it('an import: received, then processed or rejected with its counts and first diagnostics', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const before = await lastEventId(app);
    await DRIVERS['import-cnab.rejected-face-value']?.(injectClient(app));
    const [received, rejected] = (await feed(app, `after=${before}`)).events;
    const importId = String(received?.data.importId);
    expect(received).toMatchObject({ subject: `receivables/imports/${importId}`, data: { status: 'pending', fileName: 'remessa.rem' } });
    expect(rejected).toMatchObject({
      type: 'sandbox.receivables.import.rejected',
      subject: `receivables/imports/${importId}`,
      data: { importId, status: 'rejected', titleCount: 1, errorCount: 1 },
    });
    expect(rejected?.data.diagnostics).toEqual([expect.objectContaining({ rule: 'face-value', severity: 'error', line: 2 })]);
  });

  it('a loan-bond batch: one registered event per record, then one processed event per record with its state', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const before = await lastEventId(app);
    await DRIVERS['register-loan-bond.registered-signed']?.(injectClient(app));
    await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    const [registered, processed] = (await feed(app, `after=${before}`)).events;
    const id = String(registered?.data.codigoIdentificador);
    expect(registered).toMatchObject({ subject: `loanbond/registrations/${id}`, data: { callerId: 'CALLER-1', state: 'registered' } });
    expect(processed).toMatchObject({ subject: `loanbond/registrations/${id}`, data: { state: 'signatures-complete' } });
    // No secret in an event: the access token the registration answered is not there.
    expect(JSON.stringify([registered, processed])).not.toMatch(/token/i);
  });
});

describe('events of the control plane', () => {
  it('a reset empties the feed and is its first event; ids go on', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));
    const before = await lastEventId(app);
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default' } });
    const after = await feed(app);
    expect(after.events.map((e) => [e.type, e.subject])).toEqual([['sandbox.reset', 'reset']]);
    expect(Number(after.events[0]?.id)).toBe(before + 1);
    expect(after.events[0]?.data).toMatchObject({ loaded: { bookkeeping: expect.any(Object) } });
  });

  it('fixtures loaded, the clock moved, a snapshot restored: one event each', async () => {
    const app = await testApp();
    const before = await lastEventId(app);
    await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: COVERAGE_FIXTURES });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P1D' } });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 's1' } });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots/s1/restore' });
    await app.inject({ method: 'DELETE', url: '/_sandbox/clock' });
    const events = (await feed(app, `after=${before}`)).events;
    expect(events.map((e) => [e.type, e.subject])).toEqual([
      ['sandbox.fixtures.loaded', 'fixtures'],
      ['sandbox.clock.changed', 'clock'],
      ['sandbox.snapshot.restored', 'snapshots/s1'],
      ['sandbox.clock.changed', 'clock'],
    ]);
    expect(events[1]?.data).toMatchObject({ frozen: false, now: expect.any(String), previous: expect.any(String) });
  });

  it('a refused control call emits nothing: a bad reset, bad fixtures, a bad clock move, an unknown snapshot', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const before = await lastEventId(app);
    const refused = [
      await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: { bookkeeping: { users: 'none' } } } }),
      await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { bookkeeping: { users: [{}] } } }),
      await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'soon' } }),
      await app.inject({ method: 'POST', url: '/_sandbox/snapshots/none/restore' }),
    ];
    expect(refused.map((r) => r.statusCode)).toEqual([400, 400, 400, 404]);
    expect(await typesAfter(app, before)).toEqual([]);
  });
});
