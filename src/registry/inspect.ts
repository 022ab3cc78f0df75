// Inspection of the registry interface's state, mounted under /_sandbox/registry (admin-token rule
// applies). It is how a user learns the keys the named-only query operations would return.
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { toIsoUtc } from '../domain/dates.js';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { SandboxError, validationError } from '../http/errors.js';
import { decodeCursor, NextCursor, PAGE_BYTES, pageByKey, pageOf, pageQuery } from '../http/paging.js';
import { parseStoredJson } from '../http/json.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from './assumptions.js';
import { type HeldFields, heldToView } from './documents.js';
import { reconciliationDue } from './overdue.js';
import { BatchView, type Divergence, ParticipantView, ReconciliationView, type Warning } from './schemas.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import type { FastifyRequest } from 'fastify';
import type { Keyset } from '../store/registry.js';

const assumed = assumptionLookup(assumptions);
const TAG = [CONTROL_TAG.name];
const errors = { 400: StandardError, 401: StandardError, 404: StandardError };
/** Items per page of a registry view; a page also stops at PAGE_BYTES (http/paging.ts). */
const PAGE = 100;
const PAGE_MAX = 1000;
/** Overdue participants the overview names one by one; the rest are counted. */
const OVERDUE_SHOWN = 20;

type Reported = {
  cancelado?: string;
  dataCancelamento?: string;
  motivoCancelamento?: string;
  statusPagamento?: number;
};

const storeOf = (request: FastifyRequest) => runtimeOf(request).store.registry;

export const registryInspection: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/batches/:chaveRemessa',
    {
      schema: {
        operationId: 'inspectRegistryBatch',
        description:
          'A registered batch: every document with the chaveRegistro it was given, and the domain checks that failed as warnings.',
        tags: TAG,
        summary: 'A registered batch: its documents with their chaveRegistro, and its domain warnings',
        params: Type.Object({ chaveRemessa: Type.String() }),
        querystring: Type.Object(pageQuery(PAGE, PAGE_MAX), { additionalProperties: false }),
        response: { 200: BatchView, ...errors },
        'x-sandbox-assumption': assumed('registry-domain-warnings', 'registry-documento-digest'),
      },
    },
    (request) => {
      const store = storeOf(request);
      const batch = store.batch(request.params.chaveRemessa);
      if (!batch) throw new SandboxError(404, 'no registry batch has this chaveRemessa');
      const { limit = PAGE, cursor } = request.query;
      const after = cursor === undefined ? -1 : Number(decodeCursor(cursor, ['number'])[0]);
      const page = pageOf(store.batchDocuments(batch.batchKey, after, limit + 1), limit, (d) => [d.itemIndex], (d) => ({
        index: d.itemIndex,
        chaveRegistro: d.registryKey,
        dataRegistro: d.registrationDate,
        document: heldToView(parseStoredJson(d.fields) as HeldFields),
      }));
      return {
        chaveRemessa: batch.batchKey,
        participantId: batch.participantId,
        registeredAt: batch.registeredAt,
        dataRegistro: batch.registrationDate,
        documentCount: batch.documentCount,
        warnings: JSON.parse(batch.warnings) as Warning[],
        documents: page.items,
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/reconciliations/:chaveConciliacao',
    {
      schema: {
        operationId: 'inspectRegistryReconciliation',
        description:
          'A reconciliation: for each item matched, diverging (with the fields that differ) or unknown, and what the participant reported.',
        tags: TAG,
        summary: 'A reconciliation: the result of each item (matched, diverging with the fields, unknown)',
        params: Type.Object({ chaveConciliacao: Type.String() }),
        querystring: Type.Object(pageQuery(PAGE, PAGE_MAX), { additionalProperties: false }),
        response: { 200: ReconciliationView, ...errors },
        'x-sandbox-assumption': assumed('registry-reconcile-compare'),
      },
    },
    (request) => {
      const store = storeOf(request);
      const r = store.reconciliation(request.params.chaveConciliacao);
      if (!r) throw new SandboxError(404, 'no registry reconciliation has this chaveConciliacao');
      const { limit = PAGE, cursor } = request.query;
      const after = cursor === undefined ? -1 : Number(decodeCursor(cursor, ['number'])[0]);
      const page = pageOf(store.reconciliationItems(r.reconciliationKey, after, limit + 1), limit, (i) => [i.itemIndex], (item) => ({
        index: item.itemIndex,
        chaveRegistro: item.registryKey,
        result: item.result,
        message: item.message,
        divergences: parseStoredJson(item.divergences) as Divergence[],
        reported: parseStoredJson(item.reported) as Reported,
      }));
      return {
        chaveConciliacao: r.reconciliationKey,
        participantId: r.participantId,
        reconciledAt: r.reconciledAt,
        counts: { matched: r.matched, diverging: r.diverging, unknown: r.unknown },
        itemCount: r.itemCount,
        warnings: JSON.parse(r.warnings) as Warning[],
        nextCursor: page.nextCursor,
        items: page.items,
      };
    },
  );

  app.get(
    '/participants',
    {
      schema: {
        operationId: 'inspectRegistryParticipants',
        description:
          'Every registry participant (never its token) with its document count and whether its monthly reconciliation is overdue.',
        tags: TAG,
        summary: 'Every registry participant (never its token) with its document count and overdue flag',
        querystring: Type.Object(pageQuery(PAGE, PAGE_MAX), { additionalProperties: false }),
        response: {
          200: Type.Object({
            now: Type.String(),
            total: Type.Integer({ description: 'participants in all' }),
            nextCursor: NextCursor,
            participants: Type.Array(
              Type.Object({
                participantId: Type.String(),
                documentCount: Type.Integer(),
                reconciliationDueBy: Type.Union([Type.String(), Type.Null()]),
                overdue: Type.Boolean(),
              }),
            ),
          }),
          401: StandardError,
        },
        'x-sandbox-assumption': assumed('registry-overdue'),
      },
    },
    (request) => {
      const runtime = runtimeOf(request);
      const store = runtime.store.registry;
      const now = runtime.clock.now();
      const page = pageByKey(request.query, PAGE, (after, rows) => store.participantIdsAfter(after, rows), (id) => id);
      return {
        now: toIsoUtc(now),
        total: store.participantCount(),
        nextCursor: page.nextCursor,
        participants: page.items.map((participantId) => {
          const activity = store.activity(participantId);
          const last = store.lastReconciliation(participantId);
          const due = reconciliationDue(activity.firstRegistrationAt, last?.reconciledAt ?? null, now);
          return {
            participantId,
            documentCount: activity.documentCount,
            reconciliationDueBy: due.dueBy ? toIsoUtc(due.dueBy) : null,
            overdue: due.overdue,
          };
        }),
      };
    },
  );

  app.get(
    '/participants/:participantId',
    {
      schema: {
        operationId: 'inspectRegistryParticipant',
        description:
          'A participant: its batches and reconciliations, when its next reconciliation is due, and whether it is overdue by the sandbox clock.',
        tags: TAG,
        summary:
          'A participant: its batches and reconciliations, and whether its monthly reconciliation is overdue',
        params: Type.Object({ participantId: Type.String() }),
        querystring: Type.Object(
          {
            limit: pageQuery(PAGE, PAGE_MAX).limit,
            batchesCursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'batchesNextCursor of the previous page' })),
            reconciliationsCursor: Type.Optional(
              Type.String({ minLength: 1, maxLength: 2000, description: 'reconciliationsNextCursor of the previous page' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: ParticipantView, ...errors },
        'x-sandbox-assumption': assumed('registry-overdue'),
      },
    },
    (request) => {
      const { participantId } = request.params;
      const runtime = runtimeOf(request);
      const store = runtime.store.registry;
      if (!store.participantExists(participantId)) {
        throw new SandboxError(404, 'no registry participant has this participantId');
      }
      const now = runtime.clock.now();
      const activity = store.activity(participantId);
      const last = store.lastReconciliation(participantId);
      const due = reconciliationDue(activity.firstRegistrationAt, last?.reconciledAt ?? null, now);
      const { limit = PAGE, batchesCursor, reconciliationsCursor } = request.query;
      const keyset = (cursor: string | undefined, name: string): Keyset | undefined => {
        if (cursor === undefined) return undefined;
        try {
          const [at, seq] = decodeCursor(cursor, ['string', 'number']);
          return [String(at), Number(seq)];
        } catch {
          throw validationError([{ path: `/${name}`, message: `query parameter ${name} is not one this view gave: pass it as it came` }]);
        }
      };
      const totals = store.participantTotals(participantId);
      // Two lists in one answer: each takes half the bytes of a page.
      const batches = pageOf(
        store.participantBatches(participantId, keyset(batchesCursor, 'batchesCursor'), limit + 1),
        limit,
        (b) => [b.registeredAt, b.seq],
        (b) => ({ chaveRemessa: b.batchKey, registeredAt: b.registeredAt, documentCount: b.documentCount }),
        PAGE_BYTES / 2,
      );
      const reconciliations = pageOf(
        store.participantReconciliations(participantId, keyset(reconciliationsCursor, 'reconciliationsCursor'), limit + 1),
        limit,
        (r) => [r.reconciledAt, r.seq],
        (r) => ({ chaveConciliacao: r.reconciliationKey, reconciledAt: r.reconciledAt, itemCount: r.itemCount }),
        PAGE_BYTES / 2,
      );
      return {
        participantId,
        now: toIsoUtc(now),
        documentCount: activity.documentCount,
        firstRegistrationAt: activity.firstRegistrationAt,
        lastReconciliation: last
          ? { chaveConciliacao: last.reconciliationKey, reconciledAt: last.reconciledAt }
          : null,
        reconciliationDueBy: due.dueBy ? toIsoUtc(due.dueBy) : null,
        overdue: due.overdue,
        batchCount: totals.batches,
        batches: batches.items,
        batchesNextCursor: batches.nextCursor,
        reconciliationCount: totals.reconciliations,
        reconciliations: reconciliations.items,
        reconciliationsNextCursor: reconciliations.nextCursor,
      };
    },
  );
};

/** What the inspector's overview shows of the registry. */
export const registryOverview = {
  tables: {
    rg_participants: 'participants',
    rg_batches: 'batches',
    rg_documents: 'documents',
    rg_reconciliations: 'reconciliations',
    rg_reconciliation_items: 'reconciled items',
  },
  warnings(runtime: Runtime): string[] {
    // Two index lookups per participant (participants come from fixtures), at most OVERDUE_SHOWN named.
    const overdue: string[] = [];
    const now = runtime.clock.now();
    const registry = runtime.store.registry;
    for (const participantId of registry.participantIds()) {
      const first = registry.activity(participantId).firstRegistrationAt;
      const last = registry.lastReconciliation(participantId);
      const due = reconciliationDue(first, last?.reconciledAt ?? null, now);
      if (due.overdue && due.dueBy)
        overdue.push(`registry: participant ${participantId} is overdue for its monthly reconciliation (due by ${toIsoUtc(due.dueBy)})`);
    }
    const warnings = overdue.slice(0, OVERDUE_SHOWN);
    if (overdue.length > OVERDUE_SHOWN)
      warnings.push(`registry: ${overdue.length - OVERDUE_SHOWN} more participant(s) overdue (GET /_sandbox/registry/participants)`);
    return warnings;
  },
};
