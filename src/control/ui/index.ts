// The inspector: GET /_sandbox/ui, one page that shows the sandbox's state in a browser, and
// GET /_sandbox/overview, the counts it opens with. The page is static (HTML, CSS, plain ES modules
// under ./assets, served from here: no CDN, no build step) and reads everything through the
// /_sandbox API. Its static files hold no state, so they are served without the admin token; every
// call the page makes for data sends it (see assets/api.js).
import { CONTROL_TAG } from '../../http/openapi.js';
import { existsSync, readFileSync } from 'node:fs';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../../http/assumption-catalog.js';
import { SandboxError } from '../../http/errors.js';
import { StandardError } from '../../http/schema.js';
import { assumptions } from '../../http/sandbox-assumptions.js';
import { runtimeOf } from '../../runtime/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the admin token: static files that carry no state. */
    sandboxPublic?: boolean;
  }
}

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

const SCRIPT = 'text/javascript; charset=utf-8';

/** The page's own files; each interface's panel script (its module's inspection.panel) is added to them. */
const PAGE_ASSETS: Record<string, string> = {
  'app.js': SCRIPT,
  'api.js': SCRIPT,
  'dom.js': SCRIPT,
  'page.js': SCRIPT,
  'workspaces.js': SCRIPT,
  'coverage.js': SCRIPT,
  'events.js': SCRIPT,
  'style.css': 'text/css; charset=utf-8',
};

const Overview = Type.Object({
  clock: Type.Object({
    now: Type.String(),
    realNow: Type.String(),
    offsetMs: Type.Number(),
    frozen: Type.Boolean(),
  }),
  lastReset: Type.Union([Type.String(), Type.Null()], {
    description: 'when POST /_sandbox/reset last ran on this database; null: never',
  }),
  counts: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
    description: 'rows per interface and kind',
  }),
  journal: Type.Object({ capacity: Type.Integer(), count: Type.Integer(), dropped: Type.Integer() }),
  events: Type.Object(
    { lastId: Type.Integer(), count: Type.Integer(), capacity: Type.Integer(), waiting: Type.Integer() },
    { description: 'the event feed: the last id issued, events held, long polls and waits under way' },
  ),
  subscriptions: Type.Object(
    { count: Type.Integer(), pending: Type.Integer(), delivered: Type.Integer(), failed: Type.Integer() },
    { description: 'subscriptions and their deliveries, added up' },
  ),
  warnings: Type.Array(Type.String(), { description: 'what deserves a look: overdue, rejected, pending' }),
  interfaces: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      panel: Type.Union([Type.String(), Type.Null()], {
        description: 'the script under /_sandbox/ui/assets/ that draws its section; null: the counts only',
      }),
    }),
    { description: 'the emulated interfaces, in order: one section of the page each' },
  ),
});

// Next to this module after `npm run build` (which copies them), or below dist/ for dist/server.js, the
// server built as one module; from the sources when this module was compiled elsewhere without them
// (the test suite's dist/, the benchmark's dist-bench/).
const ASSET_DIRS = ['./assets/', './control/ui/assets/', '../../../src/control/ui/assets/', '../../../../src/control/ui/assets/'];

/** The first place holding every file of the page (a copy left by an older build may lack new ones). */
function assetDir(names: readonly string[]): URL | undefined {
  return ASSET_DIRS.map((d) => new URL(d, import.meta.url)).find((u) => names.every((n) => existsSync(new URL(n, u))));
}

export const uiPlugin: FastifyPluginAsyncTypebox = async (app) => {
  // Read once at start: the files are small and never change while the sandbox runs. Without them the
  // sandbox still serves everything else; the page then says what is missing.
  const { modules } = app.interfaces;
  const files: Record<string, string> = { ...PAGE_ASSETS };
  for (const m of modules) if (m.inspection.panel.script) files[m.inspection.panel.script] = SCRIPT;
  const dir = assetDir(['index.html', ...Object.keys(files)]);
  const read = (name: string) => (dir ? readFileSync(new URL(name, dir)) : undefined);
  const page = read('index.html');
  const assets = new Map(Object.entries(files).map(([name, type]) => [name, { type, body: read(name) }]));
  const sections = modules.map((m) => ({
    id: m.contract.id,
    title: m.inspection.panel.title,
    panel: m.inspection.panel.script ?? null,
  }));

  app.get(
    '/ui',
    { config: { sandboxPublic: true }, schema: { hide: true } },
    async (_request, reply) => {
      if (!page)
        throw new SandboxError(503, "the inspector's files are missing next to the compiled code: run npm run build");
      return reply
        .type('text/html; charset=utf-8')
        // The page loads nothing from elsewhere; the policy makes sure of it.
        .header(
          'content-security-policy',
          "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
        )
        .header('cache-control', 'no-store')
        .send(page);
    },
  );

  app.get(
    '/ui/assets/:name',
    {
      config: { sandboxPublic: true },
      schema: { hide: true, params: Type.Object({ name: Type.String() }) },
    },
    async (request, reply) => {
      const asset = assets.get(request.params.name);
      if (!asset?.body) return reply.callNotFound();
      return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
    },
  );

  app.get(
    '/overview',
    {
      schema: {
        operationId: 'getOverview',
        description:
          'What the inspector page shows first: row counts per interface, the sandbox clock, when the state was last reset, and the domain warnings recorded.',
        tags: TAG,
        summary: 'The inspector overview: rows per interface, the clock, the last reset, warnings',
        response: { 200: Overview, 401: StandardError },
        'x-sandbox-assumption': assumed('inspector-token'),
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const tables = runtime.store.tableCounts();
      const counts: Record<string, Record<string, number>> = {};
      const warnings: string[] = [];
      for (const { contract, inspection } of modules) {
        const own: Record<string, number> = { ...inspection.counts?.(runtime) };
        for (const [table, label] of Object.entries(inspection.tables)) {
          const n = tables[table];
          if (n !== undefined) own[label] = n;
        }
        counts[contract.id] = own;
        warnings.push(...inspection.warnings(runtime));
      }
      if (runtime.journal.dropped > 0)
        warnings.push(`journal: ${runtime.journal.dropped} older request(s) no longer kept`);
      const subs = runtime.subscriptions.list();
      const deliveries = { pending: 0, delivered: 0, failed: 0 };
      for (const sub of subs) {
        deliveries.pending += sub.deliveries.pending;
        deliveries.delivered += sub.deliveries.delivered;
        deliveries.failed += sub.deliveries.failed;
      }
      if (deliveries.failed > 0) warnings.push(`subscriptions: ${deliveries.failed} message(s) given up after every retry`);

      return {
        clock: runtime.clock.describe(),
        lastReset: runtime.store.meta('lastReset') ?? null,
        counts,
        journal: { capacity: runtime.journal.capacity, count: runtime.journal.count, dropped: runtime.journal.dropped },
        events: {
          lastId: runtime.events.lastId,
          count: runtime.events.count,
          capacity: runtime.events.capacity,
          waiting: runtime.events.waiting,
        },
        subscriptions: { count: subs.length, ...deliveries },
        warnings,
        interfaces: sections,
      };
    },
  );
};
