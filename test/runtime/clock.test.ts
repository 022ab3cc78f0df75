import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/runtime/clock.js';
import { addDuration, parseDuration } from '../../src/runtime/duration.js';
import { BASE_FIXTURES, detailPaths, testApp } from '../helpers.js';

interface ClockView {
  now: string;
  realNow: string;
  offsetMs: number;
  frozen: boolean;
}

function advance(from: string, duration: string): string {
  const d = parseDuration(duration);
  if (!d) throw new Error(`not a duration: ${duration}`);
  return addDuration(new Date(from), d).toISOString();
}

describe('ISO 8601 durations', () => {
  it('move by days, weeks, hours, minutes and seconds as fixed lengths', () => {
    expect(advance('2026-01-31T10:00:00Z', 'P31D')).toBe('2026-03-03T10:00:00.000Z');
    expect(advance('2026-01-01T00:00:00Z', 'P2W')).toBe('2026-01-15T00:00:00.000Z');
    expect(advance('2026-01-01T00:00:00Z', 'PT36H')).toBe('2026-01-02T12:00:00.000Z');
    expect(advance('2026-01-01T00:00:00Z', 'PT1M30.5S')).toBe('2026-01-01T00:01:30.500Z');
    expect(advance('2026-01-01T00:00:00Z', 'P1DT2H3M4S')).toBe('2026-01-02T02:03:04.000Z');
  });

  it('move by months and years on the calendar, clamping to the end of a shorter month', () => {
    expect(advance('2026-01-31T10:00:00Z', 'P1M')).toBe('2026-02-28T10:00:00.000Z');
    expect(advance('2028-01-31T10:00:00Z', 'P1M')).toBe('2028-02-29T10:00:00.000Z');
    expect(advance('2026-11-15T00:00:00Z', 'P2M')).toBe('2027-01-15T00:00:00.000Z');
    expect(advance('2028-02-29T00:00:00Z', 'P1Y')).toBe('2029-02-28T00:00:00.000Z');
    expect(advance('2026-03-31T00:00:00Z', '-P1M')).toBe('2026-02-28T00:00:00.000Z');
  });

  it('refuse what is not a duration', () => {
    for (const bad of ['P', 'PT', '31D', 'P1.5D', 'P1H', 'PT1D', 'P-1D', '', 'P1M2Y']) {
      expect(parseDuration(bad), bad).toBeUndefined();
    }
  });
});

describe('the sandbox clock over the control plane', () => {
  it('reads the clock', async () => {
    const app = await testApp();
    const res = await app.inject({ url: '/_sandbox/clock' });
    expect(res.statusCode).toBe(200);
    const c = res.json() as ClockView;
    expect(c.frozen).toBe(false);
    expect(Math.abs(Date.parse(c.now) - Date.parse(c.realNow))).toBeLessThan(1000);
  });

  it('sets, freezes, advances by P31D and returns to real time', async () => {
    const app = await testApp();
    const set = await app.inject({
      method: 'POST',
      url: '/_sandbox/clock',
      payload: { now: '2026-01-31T12:00:00Z', freeze: true },
    });
    expect(set.json()).toMatchObject({ now: '2026-01-31T12:00:00.000Z', frozen: true });
    const moved = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P31D' } });
    expect(moved.json()).toMatchObject({ now: '2026-03-03T12:00:00.000Z', frozen: true });
    expect(app.runtime.clock.now().toISOString()).toBe('2026-03-03T12:00:00.000Z');
    const month = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P1M' } });
    expect((month.json() as ClockView).now).toBe('2026-04-03T12:00:00.000Z');
    const real = await app.inject({ method: 'DELETE', url: '/_sandbox/clock' });
    expect(real.json()).toMatchObject({ offsetMs: 0, frozen: false });
  });

  it('keeps running from a new instant unless frozen', async () => {
    let real = Date.parse('2026-06-01T00:00:00Z');
    const app = await testApp({ clock: new SandboxClock(() => real) });
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2030-01-01T00:00:00Z' } });
    real += 5000;
    expect(app.runtime.clock.now().toISOString()).toBe('2030-01-01T00:00:05.000Z');
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { freeze: true } });
    real += 5000;
    expect(app.runtime.clock.now().toISOString()).toBe('2030-01-01T00:00:05.000Z');
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { freeze: false } });
    real += 1000;
    expect(app.runtime.clock.now().toISOString()).toBe('2030-01-01T00:00:06.000Z');
  });

  it('refuses both now and advance, neither, a bad duration or a non-UTC instant, naming the field', async () => {
    const app = await testApp();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ now: '2030-01-01T00:00:00Z', advance: 'P1D' }, '/advance'],
      [{ advance: '31 days' }, '/advance'],
      [{ now: '2030-01-01' }, '/now'],
      [{ later: true }, '/later'],
    ];
    for (const [payload, field] of cases) {
      const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(detailPaths(res)).toContain(
        field,
      );
    }
    expect((await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: {} })).statusCode).toBe(400);
    expect(app.runtime.clock.describe().offsetMs).toBe(0);
  });

  it('refuses every target outside years 0001-9998, by now or by advance, naming the field and the range', async () => {
    const app = await testApp();
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-01-01T00:00:00Z', freeze: true } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ advance: 'PT8638232774399S', freeze: false }, '/advance'],
      [{ advance: 'P7974Y' }, '/advance'],
      [{ advance: '-P2026Y' }, '/advance'],
      [{ advance: '-P100000Y' }, '/advance'],
      [{ now: '9999-01-01T00:00:00Z' }, '/now'],
    ];
    for (const [payload, field] of cases) {
      const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const details = (res.json() as { details: Array<{ path: string; message: string }> }).details;
      expect(details.map((d) => d.path)).toEqual([field]);
      expect(details[0]?.message).toContain('0001-01-01T00:00:00.000Z');
      expect(details[0]?.message).toContain('9998-12-31T23:59:59.999Z');
    }
    expect(app.runtime.clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    const edges: Array<[Record<string, unknown>, string]> = [
      [{ advance: 'P7972Y11M30DT23H59M59.999S' }, '9998-12-31T23:59:59.999Z'],
      [{ now: '0001-01-01T00:00:00Z' }, '0001-01-01T00:00:00.000Z'],
      [{ now: '9998-12-31T23:59:59.999Z' }, '9998-12-31T23:59:59.999Z'],
    ];
    for (const [payload, now] of edges) {
      await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-01-01T00:00:00Z' } });
      const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(200);
      expect((res.json() as ClockView).now).toBe(now);
    }
  });

  it('returns to real time by DELETE whatever the clock reads, even past the range of dates', async () => {
    const app = await testApp();
    app.runtime.clock.set(new Date(8.64e15), false);
    const res = await app.inject({ method: 'DELETE', url: '/_sandbox/clock' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ offsetMs: 0, frozen: false });
    expect((await app.inject({ url: '/_sandbox/clock' })).statusCode).toBe(200);
  });

  it('is returned to real time by reset', async () => {
    const app = await testApp();
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P400D', freeze: true } });
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect(app.runtime.clock.describe()).toMatchObject({ offsetMs: 0, frozen: false });
  });

  it('gives fixture timestamps and the journal the sandbox time', async () => {
    const app = await testApp();
    await app.inject({
      method: 'POST',
      url: '/_sandbox/clock',
      payload: { now: '2031-05-05T05:05:05Z', freeze: true },
    });
    const load = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      payload: {
        bookkeeping: {
          users: BASE_FIXTURES.bookkeeping?.users,
          extractRequests: [
            {
              tenantId: '11222333000181',
              extractTradeReceivableRequestId: 9,
              registeredByUserId: 1,
              protocolNumber: 'PRT-9',
              currentStepType: 'executed',
              generatedAt: '2031-05-05T06:00:00Z',
            },
          ],
        },
      },
    });
    expect(load.statusCode).toBe(200);
    const registeredAt = app.runtime.store.db
      .prepare('SELECT registered_at FROM bk_extract_requests WHERE request_id = 9')
      .pluck()
      .get();
    expect(registeredAt).toBe('2031-05-05T05:05:05.000Z');
    await app.inject({ url: '/api/bookkeeping/anything' });
    const journal = (await app.inject({ url: '/_sandbox/requests' })).json() as {
      entries: Array<{ time: string }>;
    };
    expect(journal.entries[0]?.time).toBe('2031-05-05T05:05:05.000Z');
  });
});

describe('the clock and the registry\'s monthly rule', () => {
  it('advancing 31 days over the control plane makes a registry participant overdue, and reconciling clears it', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const auth = { authorization: 'Bearer rg-token-1' };
    const participant = async () =>
      (await app.inject({ url: '/_sandbox/registry/participants/PART-1' })).json() as { overdue: boolean };
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2026-11-20T12:00:00Z', freeze: true } });
    const registered = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/registrar_documentos',
      headers: auth,
      payload: { registros: [{ numeroDuplicata: '1', valorDuplicata: 10.5 }] },
    });
    expect(registered.statusCode).toBe(200);
    expect((await participant()).overdue).toBe(false);

    const moved = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advance: 'P31D' } });
    expect(moved.json().now).toBe('2026-12-21T12:00:00.000Z');
    expect((await participant()).overdue).toBe(true);

    const reconciled = await app.inject({
      method: 'POST',
      url: '/api/v1.0/service/dup/conciliar_documentos',
      headers: auth,
      payload: { registros: [{ numeroDuplicata: '1' }] },
    });
    expect(reconciled.statusCode).toBe(200);
    expect((await participant()).overdue).toBe(false);
  });
});
