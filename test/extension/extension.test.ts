// An interface added from outside src/: one entry in the `interfaces` list given to buildApp, nothing
// else edited. It must show everywhere the four do: the catalog, OpenAPI, fixtures and reset,
// inspection and the inspector's overview, coverage, the journal, fault rules, asynchronous work and
// workspaces.
import { describe, expect, it } from 'vitest';
import { INTERFACE_MODULES } from '../../src/interfaces.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { notes } from './notes.js';

const ADD = '/api/notes/v1/notes';
const withNotes = () => testApp({ interfaces: [...INTERFACE_MODULES, notes], fixtures: { ...BASE_FIXTURES } });

describe('an interface added by one entry in the interfaces list', () => {
  it('is served in its own error shape, with its documented statuses and a 501 for its named-only operations', async () => {
    const app = await withNotes();
    await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: { authors: [{ token: 'nt-1' }] } } });
    const added = await app.inject({ method: 'POST', url: ADD, payload: { token: 'nt-1', text: 'hello' } });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toEqual({ id: 1 });
    const refused = await app.inject({ method: 'POST', url: ADD, payload: { token: 'nope', text: 'hello' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    // An unknown field is refused with its pointer, in the interface's shape.
    const unknown = await app.inject({ method: 'POST', url: ADD, payload: { token: 'nt-1', text: 'x', more: 1 } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].path).toBe('/more');
    const named = await app.inject({ url: '/api/notes/v1/notes-by-tag' });
    expect(named.statusCode).toBe(501);
    expect(named.json()).toMatchObject({ interface: 'notes', namedOnlyOperations: ['list notes by tag'] });
    // The four are served as before, beside it.
    expect((await app.inject({ url: '/v1/import-cnab' })).statusCode).toBe(501);
  });

  it('is in the operations catalog and the OpenAPI document: tag, operation, assumption', async () => {
    const app = await withNotes();
    const { operations } = (await app.inject({ url: '/_sandbox/operations' })).json() as {
      operations: Array<{ interface: string; name: string; status: string; path: string | null }>;
    };
    expect(operations.filter((o) => o.interface === 'notes')).toEqual([
      { id: 'add-note', interface: 'notes', name: 'add note', method: 'POST', path: ADD, status: 'implemented' },
      { id: 'list-notes-by-tag', interface: 'notes', name: 'list notes by tag', method: 'GET', path: null, status: 'named-only' },
    ]);
    expect(operations.filter((o) => o.interface === 'bookkeeping').length).toBeGreaterThan(0);

    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      tags: Array<{ name: string }>;
      paths: Record<string, Record<string, { tags: string[]; operationId: string; security: unknown[]; 'x-sandbox-assumption': string }>>;
      info: { 'x-sandbox-assumptions': Array<{ id: string; interface: string }> };
    };
    expect(doc.tags.map((t) => t.name)).toEqual(['bookkeeping', 'registry', 'receivables', 'loanbond', 'notes', 'sandbox control plane']);
    const post = doc.paths[ADD]?.post;
    expect(post).toMatchObject({ tags: ['notes'], operationId: 'addNote', security: [] });
    expect(post?.['x-sandbox-assumption']).toContain('[nt-filing]');
    expect(doc.info['x-sandbox-assumptions']).toContainEqual(expect.objectContaining({ id: 'nt-filing', interface: 'notes' }));
    expect(doc.paths['/_sandbox/notes/notes']?.get?.tags).toEqual(['sandbox control plane']);
  });

  it('has its section in the fixture document: loaded, checked with pointers, wiped and reloaded by reset', async () => {
    const app = await withNotes();
    const loaded = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: { authors: [{ token: 'a' }] } } });
    expect(loaded.json()).toEqual({ loaded: { notes: { authors: 1 } } });
    const twice = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: { authors: [{ token: 'a' }] } } });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().details).toEqual([{ path: '/notes/authors/0/token', message: 'this author token already exists in the sandbox' }]);
    const stray = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: { readers: [] } } });
    expect(stray.statusCode).toBe(400);
    expect(stray.json().details[0].path).toBe('/notes/readers');

    const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { fixtures: { notes: { authors: [{ token: 'b' }] } } } });
    expect(reset.json()).toEqual({ status: 'reset', loaded: { notes: { authors: 1 } } });
    expect((await app.inject({ method: 'POST', url: ADD, payload: { token: 'a', text: 'x' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: ADD, payload: { token: 'b', text: 'x' } })).statusCode).toBe(201);
  });

  it("shows in its inspection calls, the overview's counts, warnings and sections, and its work runs with the others'", async () => {
    const app = await withNotes();
    await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: { authors: [{ token: 'nt-1' }] } } });
    await app.inject({ method: 'POST', url: ADD, payload: { token: 'nt-1', text: 'first' } });
    expect((await app.inject({ url: '/_sandbox/notes/notes' })).json()).toEqual({ notes: [{ id: 1, text: 'first', filed: false }] });

    const overview = (await app.inject({ url: '/_sandbox/overview' })).json() as {
      counts: Record<string, Record<string, number>>;
      warnings: string[];
      interfaces: Array<{ id: string; title: string; panel: string | null }>;
    };
    expect(overview.counts.notes).toEqual({ authors: 1, notes: 1 });
    expect(overview.counts.bookkeeping).toMatchObject({ users: 1 });
    expect(overview.warnings).toContain('notes: 1 note(s) not yet filed');
    expect(overview.interfaces.map((i) => i.id)).toEqual(['bookkeeping', 'registry', 'receivables', 'loanbond', 'notes']);
    expect(overview.interfaces.at(-1)).toEqual({ id: 'notes', title: 'Notes', panel: null });

    const work = (await app.inject({ method: 'POST', url: '/_sandbox/work/run' })).json() as { processed: Record<string, number> };
    expect(work.processed).toEqual({ receivables: 0, loanbond: 0, notes: 1 });
    expect((await app.inject({ url: '/_sandbox/notes/notes' })).json().notes[0].filed).toBe(true);
    // What its work committed is an event of the feed, under the type its module declares.
    expect((await app.inject({ url: '/_sandbox/events?type=sandbox.notes.*' })).json().events).toEqual([
      expect.objectContaining({ type: 'sandbox.notes.note.filed', subject: 'notes/notes', data: { filed: 1 } }),
    ]);
  });

  it('is counted by coverage, named by Sandbox-Outcome and written to the journal, and fault rules reach it', async () => {
    const app = await withNotes();
    await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: { authors: [{ token: 'nt-1' }] } } });
    const added = await app.inject({ method: 'POST', url: ADD, payload: { token: 'nt-1', text: 'first' } });
    expect(added.headers['sandbox-outcome']).toBe('add-note.added');
    await app.inject({ method: 'POST', url: ADD, payload: { token: 'x', text: 'first' } });

    const coverage = (await app.inject({ url: '/_sandbox/coverage?interface=notes' })).json() as {
      operations: Array<{ interface: string; operation: string; outcomes: Array<{ id: string; hits: number }> }>;
    };
    expect(coverage.operations.map((o) => o.operation)).toEqual(['add-note']);
    const hits = Object.fromEntries(coverage.operations[0]?.outcomes.map((o) => [o.id, o.hits]) ?? []);
    expect(hits).toMatchObject({ 'add-note.added': 1, 'add-note.token-unknown': 1, 'add-note.body-invalid': 0 });

    const fault = await app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { interface: 'notes', status: 401, times: 1 } });
    expect(fault.json()).toMatchObject({ interface: 'notes', path: '/api/notes/*' });
    expect((await app.inject({ method: 'POST', url: ADD, payload: { token: 'nt-1', text: 'x' } })).statusCode).toBe(401);
    const refused = await app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { interface: 'notes', status: 500 } });
    expect(refused.json().details[0]).toEqual({ path: '/status', message: '500 is not a documented status of the notes interface: one of 400, 401' });

    const journal = (await app.inject({ url: '/_sandbox/requests?interface=notes' })).json() as {
      entries: Array<{ interface: string; operation: string | null; status: number; outcome: string | null; fault: string | null }>;
    };
    expect(journal.entries.map((e) => [e.operation, e.status, e.outcome, e.fault])).toEqual([
      ['add-note', 401, 'add-note.fault-401', 'fault-1'],
      ['add-note', 401, 'add-note.token-unknown', null],
      ['add-note', 201, 'add-note.added', null],
    ]);
  });

  it('has its tables in every workspace, and the default list leaves it out', async () => {
    const app = await withNotes();
    const created = await app.inject({
      method: 'POST',
      url: '/_sandbox/workspaces',
      payload: { name: 'w1', fixtures: { notes: { authors: [{ token: 'w' }] } } },
    });
    expect(created.statusCode).toBe(201);
    expect((await app.inject({ method: 'POST', url: `/ws/w1${ADD}`, payload: { token: 'w', text: 'x' } })).statusCode).toBe(201);
    expect((await app.inject({ method: 'POST', url: ADD, payload: { token: 'w', text: 'x' } })).statusCode).toBe(401);

    const plain = await testApp();
    expect((await plain.inject({ method: 'POST', url: ADD, payload: {} })).statusCode).toBe(404);
    const stray = await plain.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { notes: {} } });
    expect(stray.statusCode).toBe(400);
  });
});
