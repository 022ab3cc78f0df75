// The event feed over HTTP: filters, the cursor, retention, isolation per workspace, and the long
// poll answered by the event itself (checked by order: waiting before, answered in the turn of the
// emission, never by the wait's end).
import { describe, expect, it } from 'vitest';
import { COVERAGE_FIXTURES, DRIVERS } from '../coverage/drivers.js';
import { testApp } from '../helpers.js';
import { feed, injectClient, lastEventId } from './helpers.js';

/** Yields to the event loop `n` times (lets a pending request reach its handler). */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('GET /_sandbox/events', () => {
  it('filters by type (exact or a prefix with *), subject and after, oldest first, with a cursor to read on', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const c = injectClient(app);
    const start = await lastEventId(app);
    await DRIVERS['declare-payment.partial-accepted']?.(c);
    await DRIVERS['register-documents.registered']?.(c);
    await DRIVERS['declare-payment.partial-accepted']?.(c);
    const all = await feed(app, `after=${start}`);
    expect(all.events.map((e) => e.type)).toEqual([
      'sandbox.bookkeeping.payment.declared',
      'sandbox.registry.document.registered',
      'sandbox.bookkeeping.payment.declared',
    ]);
    expect(all.events.map((e) => Number(e.id))).toEqual([start + 1, start + 2, start + 3]);
    expect(all.next).toBe(String(start + 3));

    const payments = await feed(app, `after=${start}&type=sandbox.bookkeeping.*`);
    expect(payments.events.map((e) => e.data.openValueAfter)).toEqual([90, 80]);
    const registry = await feed(app, `after=${start}&type=sandbox.bookkeeping.payment.declared,sandbox.registry.*&subject=registry/*`);
    expect(registry.events.map((e) => e.type)).toEqual(['sandbox.registry.document.registered']);
    // The cursor skips what was looked at: the next read with the same filter starts after the last event.
    expect(registry.next).toBe(String(start + 3));
    const limited = await feed(app, `after=${start}&limit=1`);
    expect(limited.events).toHaveLength(1);
    expect(limited.next).toBe(String(start + 1));
    expect((await feed(app, `after=${limited.next}&limit=1`)).events[0]?.id).toBe(String(start + 2));
  });

  it('refuses an after never issued and a wait it cannot read, naming the parameter', async () => {
    const app = await testApp();
    const last = await lastEventId(app);
    const ahead = await app.inject({ url: `/_sandbox/events?after=${last + 1}` });
    expect(ahead.statusCode).toBe(400);
    expect(ahead.json()).toMatchObject({ details: [{ path: '/after', message: expect.stringMatching(/^query parameter after .*restart/) }] });
    // A sentence: the parameter, its value, then what is wrong.
    expect(ahead.json().details[0].message).toMatch(new RegExp(`^query parameter after is ${last + 1}, but no event ${last + 1} has been issued in this workspace \\(the last is ${last}\\); `));
    for (const wait of ['soon', '5', '121s']) {
      const res = await app.inject({ url: `/_sandbox/events?wait=${wait}` });
      expect(res.statusCode, wait).toBe(400);
      expect(res.json()).toMatchObject({ details: [{ path: '/wait', message: expect.stringMatching(/^query parameter wait /) }] });
    }
  });

  it('keeps the last SANDBOX_EVENTS_SIZE events and counts the ones it dropped', async () => {
    const app = await testApp({ eventsSize: 3 });
    for (let i = 0; i < 5; i++) app.runtime.events.emit('test.tick', `ticks/${i}`, { i });
    const body = await feed(app);
    expect(body.events.map((e) => e.data.i)).toEqual([2, 3, 4]);
    expect(body).toMatchObject({ capacity: 3, dropped: 2 });
    expect((await feed(app, 'after=1')).events.map((e) => e.data.i)).toEqual([2, 3, 4]);
  });

  it('a long poll waits for the first matching event and is answered in the turn that emitted it', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const after = await lastEventId(app);
    let answered = false;
    // A wait far longer than the test may take: only the event can answer it.
    const poll = app
      .inject({ url: `/_sandbox/events?after=${after}&type=sandbox.bookkeeping.payment.declared&wait=120s` })
      .then((res) => {
        answered = true;
        return res;
      });
    await turns();
    expect(app.runtime.events.waiting).toBe(1);
    // An event of another type does not answer it.
    await DRIVERS['register-documents.registered']?.(injectClient(app));
    await turns();
    expect(answered).toBe(false);
    expect(app.runtime.events.waiting).toBe(1);
    await DRIVERS['declare-payment.partial-accepted']?.(injectClient(app));
    // Released by the emission itself, not by a timer.
    expect(app.runtime.events.waiting).toBe(0);
    const res = await poll;
    expect(res.statusCode).toBe(200);
    const body = res.json<{ events: Array<{ type: string; id: string }>; next: string }>();
    expect(body.events.map((e) => e.type)).toEqual(['sandbox.bookkeeping.payment.declared']);
    expect(body.next).toBe(body.events[0]?.id);
  });

  it('answers at once when a matching event exists, and with nothing when the wait ends', async () => {
    const app = await testApp();
    app.runtime.events.emit('test.tick', 'ticks/1', {});
    const now = await app.inject({ url: '/_sandbox/events?type=test.tick&wait=120s' });
    expect(now.json<{ events: unknown[] }>().events).toHaveLength(1);
    const none = await app.inject({ url: '/_sandbox/events?type=test.other&wait=50ms' });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toMatchObject({ events: [], next: '1' });
  });

  it('is per workspace: its own events, source and ids; a long poll in one is not answered by another', async () => {
    const app = await testApp({ fixtures: COVERAGE_FIXTURES });
    const a = injectClient(app, '/ws/a');
    const b = injectClient(app, '/ws/b');
    await a.send('GET', '/_sandbox/health');
    await b.send('GET', '/_sandbox/health');
    const bAfter = await lastEventId(app, '/ws/b');
    let answered = false;
    const poll = app.inject({ url: `/ws/b/_sandbox/events?after=${bAfter}&wait=120s` }).then((res) => {
      answered = true;
      return res;
    });
    await turns();
    await DRIVERS['declare-payment.partial-accepted']?.(a);
    await turns();
    expect(answered).toBe(false);
    const inA = await feed(app, '', '/ws/a');
    expect(inA.events.map((e) => [e.type, e.source])).toEqual([['sandbox.bookkeeping.payment.declared', '/ws/a']]);
    expect((await feed(app, '', '/ws/b')).events).toEqual([]);
    expect((await feed(app)).events).toEqual([]);
    await DRIVERS['declare-payment.total-accepted']?.(b);
    const res = await poll;
    expect(res.json<{ events: Array<{ source: string; data: { status: string } }> }>().events).toEqual([
      expect.objectContaining({ source: '/ws/b', data: expect.objectContaining({ status: 'paid' }) }),
    ]);
  });

  it('a long poll of a workspace that is removed is answered at once that it is being removed', async () => {
    const app = await testApp();
    await app.inject({ method: 'POST', url: '/_sandbox/workspaces', payload: { name: 'gone' } });
    const poll = app.inject({ url: '/ws/gone/_sandbox/events?wait=120s' });
    await turns();
    const removed = await app.inject({ method: 'DELETE', url: '/_sandbox/workspaces/gone' });
    expect(removed.statusCode).toBe(200);
    const res = await poll;
    expect(res.statusCode).toBe(409);
    expect(res.json<{ message: string }>().message).toMatch(/workspace "gone" is being removed/);
  });
});
