// The inspector: GET /_sandbox/ui, one page that shows the sandbox's state in a browser, and
// GET /_sandbox/overview, the counts it opens with. The page is static (HTML, CSS, plain ES modules
// under ./assets, served from here: no CDN, no build step) and reads everything through the
// /_sandbox API. Its static files hold no state, so they are served without the admin token; every
// call the page makes for data sends it (see assets/api.js).
import { existsSync, readFileSync } from 'node:fs';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { toIsoUtc } from '../../domain/dates.js';
import { assumptionLookup } from '../../http/assumptions.js';
import { SandboxError } from '../../http/errors.js';
import { StandardError } from '../../http/schema.js';
import { reconciliationDue } from '../../registry/overdue.js';
import { assumptions } from '../../http/sandbox-assumptions.js';
import { runtimeOf } from '../../runtime/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the admin token: static files that carry no state. */
    sandboxPublic?: boolean;
  }
}

const TAG = ['sandbox control plane'];
const a = assumptionLookup(assumptions);

const ASSETS: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'page.js': 'text/javascript; charset=utf-8',
  'bookkeeping.js': 'text/javascript; charset=utf-8',
  'registry.js': 'text/javascript; charset=utf-8',
  'receivables.js': 'text/javascript; charset=utf-8',
  'loanbond.js': 'text/javascript; charset=utf-8',
  'workspaces.js': 'text/javascript; charset=utf-8',
  'coverage.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

// Friendly names of the tables the overview counts; a table not named here shows by its own name.
const TABLE_LABELS: Record<string, [string, string]> = {
  bk_users: ['bookkeeping', 'users'],
  bk_trade_bills: ['bookkeeping', 'trade bills'],
  bk_payments: ['bookkeeping', 'payments'],
  bk_extract_requests: ['bookkeeping', 'extract requests'],
  rg_participants: ['registry', 'participants'],
  rg_batches: ['registry', 'batches'],
  rg_documents: ['registry', 'documents'],
  rg_reconciliations: ['registry', 'reconciliations'],
  rg_reconciliation_items: ['registry', 'reconciled items'],
  rc_funds: ['receivables', 'funds'],
  rc_imports: ['receivables', 'imports'],
  rc_diagnostics: ['receivables', 'diagnostics'],
  lb_callers: ['loanbond', 'callers'],
  lb_registrations: ['loanbond', 'registrations'],
  lb_documents: ['loanbond', 'stored files'],
  lb_additional_documents: ['loanbond', 'additional documents'],
};
const PREFIXES: Record<string, string> = {
  bk_: 'bookkeeping',
  rg_: 'registry',
  rc_: 'receivables',
  lb_: 'loanbond',
};
/** Overdue participants named one by one in the overview's warnings; the rest are counted. */
const OVERDUE_SHOWN = 20;
// Link tables and counters say nothing a user looks for.
const UNLISTED = new Set(['bk_user_tenants', 'bk_tenant_counters', 'sb_meta']);

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
  warnings: Type.Array(Type.String(), { description: 'what deserves a look: overdue, rejected, pending' }),
});

// Next to this module after `npm run build` (which copies them); from the sources when this module was
// compiled elsewhere without them (the test suite's dist/, the benchmark's dist-bench/).
const ASSET_DIRS = ['./assets/', '../../../src/control/ui/assets/', '../../../../src/control/ui/assets/'];

/** The first place holding every file of the page (a copy left by an older build may lack new ones). */
function assetDir(): URL | undefined {
  const names = ['index.html', ...Object.keys(ASSETS)];
  return ASSET_DIRS.map((d) => new URL(d, import.meta.url)).find((u) => names.every((n) => existsSync(new URL(n, u))));
}

export const uiPlugin: FastifyPluginAsyncTypebox = async (app) => {
  // Read once at start: the files are small and never change while the sandbox runs. Without them the
  // sandbox still serves everything else; the page then says what is missing.
  const dir = assetDir();
  const read = (name: string) => (dir ? readFileSync(new URL(name, dir)) : undefined);
  const page = read('index.html');
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: read(name) }]));

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
        'x-sandbox-assumption': a('inspector-token'),
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const counts: Record<string, Record<string, number>> = {
        bookkeeping: {},
        registry: {},
        receivables: {},
        loanbond: {},
      };
      for (const [table, n] of Object.entries(runtime.store.tableCounts())) {
        if (UNLISTED.has(table)) continue;
        const label = TABLE_LABELS[table];
        const iface = label?.[0] ?? PREFIXES[table.slice(0, 3)];
        if (!iface) continue;
        (counts[iface] ??= {})[label?.[1] ?? table] = n;
      }
      counts.bookkeeping = { tenants: runtime.store.bookkeeping.tenantCount(), ...counts.bookkeeping };

      // Every figure here is a maintained count or an index lookup: the overview costs the same on a
      // large database as on an empty one (the inspector asks for it every two seconds).
      const warnings: string[] = [];
      const now = runtime.clock.now();
      const registry = runtime.store.registry;
      const overdue: string[] = [];
      for (const participantId of registry.participantIds()) {
        const first = registry.activity(participantId).firstRegistrationAt;
        const last = registry.lastReconciliation(participantId);
        const due = reconciliationDue(first, last?.reconciledAt ?? null, now);
        if (due.overdue && due.dueBy)
          overdue.push(`registry: participant ${participantId} is overdue for its monthly reconciliation (due by ${toIsoUtc(due.dueBy)})`);
      }
      warnings.push(...overdue.slice(0, OVERDUE_SHOWN));
      if (overdue.length > OVERDUE_SHOWN)
        warnings.push(`registry: ${overdue.length - OVERDUE_SHOWN} more participant(s) overdue (GET /_sandbox/registry/participants)`);
      const { rejected, pending } = runtime.store.receivables.importStates();
      if (rejected > 0) warnings.push(`receivables: ${rejected} CNAB import(s) rejected`);
      if (pending > 0) warnings.push(`receivables: ${pending} CNAB import(s) still pending`);
      const registered = runtime.store.loanbond.unprocessedCount();
      if (registered > 0) warnings.push(`loan-bond: ${registered} registration(s) not yet processed`);
      if (runtime.journal.dropped > 0)
        warnings.push(`journal: ${runtime.journal.dropped} older request(s) no longer kept`);

      return {
        clock: runtime.clock.describe(),
        lastReset: runtime.store.meta('lastReset') ?? null,
        counts,
        journal: { capacity: runtime.journal.capacity, count: runtime.journal.count, dropped: runtime.journal.dropped },
        warnings,
      };
    },
  );
};
