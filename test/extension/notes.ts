// A small interface that is not part of the sandbox, written the way a fifth interface would be: one
// module (the shape of src/<interface>/index.ts) with its contract, routes, tables, fixtures,
// asynchronous work, inspection and assumptions. extension.test.ts serves it next to the four by
// passing it in the `interfaces` list and nothing else.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { assumptionLookup, type Assumption } from '../../src/http/assumption-catalog.js';
import { defineContract } from '../../src/http/catalog.js';
import { pointer, SandboxError } from '../../src/http/errors.js';
import type { InterfaceModule } from '../../src/http/interface-module.js';
import { serveInterface } from '../../src/http/interface-plugin.js';
import { CONTROL_TAG } from '../../src/http/openapi.js';
import { errorResponses, StandardError, Strict } from '../../src/http/schema.js';
import type { EventType } from '../../src/runtime/events.js';
import { type FixtureSection, recordsOf, textOf, UniqueKeys } from '../../src/runtime/fixture-document.js';
import { type Runtime, runtimeOf, type WorkKind } from '../../src/runtime/index.js';
import type { StorePart } from '../../src/store/part.js';

const assumptions: Assumption[] = [
  {
    id: 'nt-filing',
    interface: 'notes',
    topic: 'When a note is filed',
    decision: 'a note is stored pending and filed by its asynchronous work when that runs (POST /_sandbox/work/run)',
    reason: 'to show an interface with work of its own',
  },
];
const assumed = assumptionLookup(assumptions);

const contract = defineContract({
  id: 'notes',
  prefix: '/api/notes',
  shape: 'standard',
  statuses: [400, 401],
  operations: [
    ['add-note', 'add note', 'POST', '/v1/notes'],
    ['list-notes-by-tag', 'list notes by tag', 'GET'],
  ],
  outcomes: {
    'add-note': {
      own: {
        added: [201, 'the note is stored, pending'],
        'token-unknown': [401, 'the token is not an author token'],
      },
      body: true,
    },
  },
});
const ADD_NOTE = contract.route('add-note');

/** The tables of the interface, with their statements (its SQL stays in the part, as store/ keeps the four's). */
interface NotesStore {
  hasAuthor(token: string): boolean;
  addAuthor(token: string): void;
  addNote(text: string): number;
  notes(): Array<{ id: number; text: string; filed: number }>;
  fileNext(): number;
}

const notesStore: StorePart<NotesStore> = {
  name: 'nt',
  migrations: [
    {
      name: 'authors and notes',
      sql: `
        CREATE TABLE nt_authors (token TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TABLE nt_notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, filed INTEGER NOT NULL DEFAULT 0);
      `,
    },
  ],
  open(db) {
    const hasAuthor = db.prepare('SELECT 1 FROM nt_authors WHERE token = ?').pluck();
    const addAuthor = db.prepare('INSERT INTO nt_authors (token) VALUES (?)');
    const addNote = db.prepare('INSERT INTO nt_notes (text) VALUES (?)');
    const notes = db.prepare('SELECT id, text, filed FROM nt_notes ORDER BY id');
    const fileNext = db.prepare('UPDATE nt_notes SET filed = 1 WHERE id = (SELECT min(id) FROM nt_notes WHERE filed = 0)');
    return {
      hasAuthor: (token) => hasAuthor.get(token) !== undefined,
      addAuthor: (token) => void addAuthor.run(token),
      addNote: (text) => Number(addNote.run(text).lastInsertRowid),
      notes: () => notes.all() as Array<{ id: number; text: string; filed: number }>,
      fileNext: () => fileNext.run().changes,
    };
  },
};

const storeOf = (runtime: Pick<Runtime, 'store'>) => runtime.store.part(notesStore);

const NotesFixtures = Strict({ authors: Type.Optional(Type.Array(Strict({ token: Type.String({ minLength: 1 }) }))) });

const fixtures: FixtureSection<typeof NotesFixtures> = {
  key: 'notes',
  schema: NotesFixtures,
  check(section, ctx) {
    const details: Array<{ path: string; message: string }> = [];
    const tokens = new UniqueKeys(details, 'author token', (t) => storeOf(ctx).hasAuthor(t), true);
    for (const [i, a] of recordsOf(section, 'authors')) {
      const token = textOf(a.token);
      if (token !== undefined) tokens.add(token, pointer('notes', 'authors', i, 'token'));
    }
    return details;
  },
  load(section, ctx) {
    for (const a of section.authors ?? []) storeOf(ctx).addAuthor(a.token);
    return { authors: section.authors?.length ?? 0 };
  },
};

const NOTE_FILED: EventType = {
  type: 'sandbox.notes.note.filed',
  subject: 'notes/notes',
  when: 'the filing work filed a note',
  data: ['filed'],
};

const filing: WorkKind = {
  name: 'notes',
  create: (ctx) => ({
    run: () => {
      const filed = ctx.store.transaction(() => storeOf(ctx).fileNext());
      if (filed > 0) ctx.events.emit(NOTE_FILED.type, NOTE_FILED.subject, { filed });
      return filed;
    },
  }),
};

const routes: FastifyPluginAsyncTypebox = async (app) => {
  serveInterface(app, contract);
  app.post(
    ADD_NOTE.url,
    {
      config: ADD_NOTE.config,
      schema: {
        tags: ['notes'],
        summary: 'Add a note',
        body: Strict({ token: Type.String(), text: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 201: Type.Object({ id: Type.Integer() }), ...errorResponses(contract.statuses, StandardError) },
        'x-sandbox-assumption': assumed('nt-filing'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const store = storeOf(runtime);
      if (!store.hasAuthor(request.body.token))
        throw new SandboxError(401, 'the token is not an author token (fixtures: notes.authors)').tag('token-unknown');
      // Not kicked: the note stays pending until the work is run, so a test sees both states.
      const id = runtime.store.transaction(() => store.addNote(request.body.text));
      request.outcome = 'added';
      return (reply as FastifyReply).code(201).send({ id });
    },
  );
};

const inspectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/notes',
    {
      schema: {
        tags: [CONTROL_TAG.name],
        summary: 'The notes stored',
        response: {
          200: Type.Object({ notes: Type.Array(Type.Object({ id: Type.Integer(), text: Type.String(), filed: Type.Boolean() })) }),
        },
      },
    },
    async (request) => ({
      notes: storeOf(runtimeOf(request)).notes().map((n) => ({ id: n.id, text: n.text, filed: n.filed === 1 })),
    }),
  );
};

export const notes = {
  contract,
  routes,
  openapi: { tag: { name: 'notes', description: 'notes: an interface added from outside src/' }, security: [] },
  assumptions,
  fixtures,
  work: [filing],
  events: [NOTE_FILED],
  store: notesStore,
  inspection: {
    routes: inspectionRoutes,
    tables: { nt_authors: 'authors', nt_notes: 'notes' },
    warnings: (runtime: Runtime) => {
      const pending = storeOf(runtime).notes().filter((n) => n.filed === 0).length;
      return pending > 0 ? [`notes: ${pending} note(s) not yet filed`] : [];
    },
    panel: { title: 'Notes' },
  },
} satisfies InterfaceModule<'notes'>;
