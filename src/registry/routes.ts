// Emulates the trade-bill registry interface: document registration and monthly reconciliation.
// Differs from the real service where the README's assumptions table says (interface "registry").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toIsoDate, toIsoUtc } from '../domain/dates.js';
import { assumptionLookup } from '../http/assumptions.js';
import { bearerToken } from '../http/bearer.js';
import { strictFor } from '../runtime/strict.js';
import { type ErrorDetail, pointer, SandboxError } from '../http/errors.js';
import { setupInterface } from '../http/interface-plugin.js';
import { INTERFACES } from '../interfaces.js';
import { BEARER_CHALLENGE, errorResponses, StandardError, StrictHeaders } from '../http/schema.js';
import { MAX_DETAILS } from '../http/validation.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import type { DocumentRow, ReconciliationItemRow } from '../store/registry.js';
import { assumptions } from './assumptions.js';
import { checkDocument, strictDetails } from './checks.js';
import { compareWithRegistration, type Digest, digestBase64, type HeldFields, toHeld } from './documents.js';
import {
  ReconcileBody,
  ReconcileResponse,
  type ReconciliationDocument,
  RegisterBody,
  RegisterResponse,
  type RegistryDocument,
  type Warning,
} from './schemas.js';
import { runtimeOf } from '../runtime/index.js';

const a = assumptionLookup([...sandboxAssumptions, ...assumptions]);
const WARNINGS_HEADER = 'sandbox-warnings';

/** A 400 listing at most MAX_DETAILS problems, whose message still counts them all. */
function refuse(details: ErrorDetail[], outcome: string): SandboxError {
  const first = details[0];
  const head = first ? `${first.path}: ${first.message}` : 'the request is invalid';
  const more =
    details.length > 1
      ? ` (and ${details.length - 1} more problems${details.length > MAX_DETAILS ? `; the first ${MAX_DETAILS} are listed` : ''})`
      : '';
  return new SandboxError(400, `${head}${more}`, { details: details.slice(0, MAX_DETAILS), outcome });
}

/**
 * The digest of every `documento` and the domain warnings of a batch. Text that is not base64 refuses
 * the batch; so do the warnings in strict mode, in one 400 with every problem in item order.
 */
function examine(
  registros: ReadonlyArray<RegistryDocument | ReconciliationDocument>,
  strict: boolean,
): { digests: Array<Digest | undefined>; warnings: Warning[] } {
  const problems: ErrorDetail[] = [];
  const warnings: Warning[] = [];
  // The first problem in item order names the outcome.
  let outcome: string | undefined;
  const digests = registros.map((doc, i) => {
    let digest: Digest | undefined;
    if (doc.documento !== undefined) {
      const r = digestBase64(doc.documento);
      if (r.ok) digest = r.digest;
      else {
        problems.push({
          path: pointer('registros', i, 'documento'),
          message: `must be standard base64: ${r.reason}`,
        });
        outcome ??= 'documento-not-base64';
      }
    }
    const found = checkDocument(doc, i);
    warnings.push(...found);
    if (strict && found.length > 0) {
      problems.push(...strictDetails(found));
      outcome ??= 'strict-refused';
    }
    return digest;
  });
  if (problems.length > 0) throw refuse(problems, outcome ?? 'strict-refused');
  return { digests, warnings };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export const registryPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.registry);

  // The participant behind each authenticated request.
  const participants = new WeakMap<FastifyRequest, string>();

  // Before the body is read: a caller without credentials learns that first.
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const challenge = 'Bearer realm="registry"';
    const token = bearerToken(request, reply, 'a registry participant', challenge);
    const participantId = runtimeOf(request).store.registry.participantByToken(token);
    if (participantId === undefined) {
      reply.header('www-authenticate', challenge);
      throw new SandboxError(
        401,
        'the bearer token sent in the Authorization header is not the accessToken of any registry participant (fixtures: registry.participants[].accessToken)',
      ).tag('token-unknown');
    }
    participants.set(request, participantId);
  };

  const participantOf = (request: FastifyRequest): string => {
    const id = participants.get(request);
    if (id === undefined) throw new SandboxError(500, 'the request reached a registry route unauthenticated');
    return id;
  };


  const common = {
    tags: ['registry'],
    headers: StrictHeaders(a('registry-domain-warnings')),
    'x-sandbox-assumption': a('registry-bearer', 'registry-batch-atomic', 'registry-domain-warnings'),
  };
  const errors = errorResponses([400, 401, 500], StandardError, a('error-body'), BEARER_CHALLENGE);

  app.post(
    '/registrar_documentos',
    {
      config: { interface: 'registry', operation: 'register-documents' },
      onRequest: authenticate,
      schema: {
        ...common,
        summary: 'Register a batch (remessa) of trade-bill documents',
        description:
          'All or nothing. Domain checks (CPF/CNPJ, NF-e key, IBGE code, due date) warn by default: the ' +
          'Sandbox-Warnings response header counts them and GET /_sandbox/registry/batches/{chaveRemessa} ' +
          'lists them; with Sandbox-Strict: true (or SANDBOX_STRICT=true) they are a 400.',
        body: RegisterBody,
        response: { 200: RegisterResponse, ...errors },
      },
    },
    async (request, reply) => {
      const participantId = participantOf(request);
      const { registros } = request.body;
      const { digests, warnings } = examine(registros, strictFor(request));

      const runtime = runtimeOf(request);
      const now = runtime.clock.now();
      const registeredAt = toIsoUtc(now);
      const registrationDate = toIsoDate(now);
      const batchKey = runtime.ids.newId('RM');
      const documents: DocumentRow[] = registros.map((doc, i) => ({
        registryKey: runtime.ids.newId('RG'),
        batchKey,
        itemIndex: i,
        participantId,
        registeredAt,
        registrationDate,
        fields: JSON.stringify(toHeld(doc, digests[i])),
      }));
      runtime.store.transaction(() =>
        runtime.store.registry.insertBatch(
          {
            batchKey,
            participantId,
            registeredAt,
            registrationDate,
            documentCount: documents.length,
            warnings: JSON.stringify(warnings),
          },
          documents,
        ),
      );
      request.log.debug(
        { participantId, batch: batchKey, documents: documents.length, warnings: warnings.length },
        'documents registered',
      );
      reply.header(WARNINGS_HEADER, String(warnings.length));
      request.outcome = warnings.length > 0 ? 'registered-with-warnings' : 'registered';
      return {
        mensagem: `${plural(documents.length, 'document')} registered`,
        chaveRemessa: batchKey,
      };
    },
  );

  app.post(
    '/conciliar_documentos',
    {
      config: { interface: 'registry', operation: 'reconcile-documents' },
      onRequest: authenticate,
      schema: {
        ...common,
        summary: "Reconcile documents with the participant's registrations (at least once a month)",
        description:
          'Each item is compared by chaveRegistro with what the sandbox holds for the caller: matched, diverging ' +
          '(fields named) or unknown; GET /_sandbox/registry/reconciliations/{chaveConciliacao} shows the result. ' +
          'Domain checks warn or refuse as in registration.',
        body: ReconcileBody,
        response: { 200: ReconcileResponse, ...errors },
      },
    },
    async (request, reply) => {
      const participantId = participantOf(request);
      const { registros } = request.body;
      const { digests, warnings } = examine(registros, strictFor(request));

      const runtime = runtimeOf(request);
      const reconciliationKey = runtime.ids.newId('CC');
      const counts = { matched: 0, diverging: 0, unknown: 0 };
      const items: ReconciliationItemRow[] = registros.map((item, i) => {
        const reported = {
          cancelado: item.cancelado,
          dataCancelamento: item.dataCancelamento,
          motivoCancelamento: item.motivoCancelamento,
          statusPagamento: item.statusPagamento,
        };
        const base = { reconciliationKey, itemIndex: i, reported: JSON.stringify(reported) };
        const key = item.chaveRegistro;
        const held =
          key === undefined ? undefined : runtime.store.registry.participantDocument(key, participantId);
        if (key === undefined || held === undefined) {
          counts.unknown++;
          return {
            ...base,
            registryKey: key ?? null,
            result: 'unknown',
            message:
              key === undefined
                ? 'the item has no chaveRegistro: there is no registration to compare it with'
                : 'no registration of this participant has this chaveRegistro',
            divergences: '[]',
          };
        }
        const fields = JSON.parse(held.fields) as HeldFields;
        const divergences = compareWithRegistration(fields, held.registrationDate, item, digests[i]);
        const matched = divergences.length === 0;
        counts[matched ? 'matched' : 'diverging']++;
        return {
          ...base,
          registryKey: key,
          result: matched ? 'matched' : 'diverging',
          message: matched
            ? 'every field sent equals the registration'
            : `${plural(divergences.length, 'field')} differ from the registration: ${divergences.map((d) => d.field).join(', ')}`,
          divergences: JSON.stringify(divergences),
        };
      });

      const reconciledAt = toIsoUtc(runtime.clock.now());
      runtime.store.transaction(() =>
        runtime.store.registry.insertReconciliation(
          {
            reconciliationKey,
            participantId,
            reconciledAt,
            itemCount: items.length,
            ...counts,
            warnings: JSON.stringify(warnings),
          },
          items,
        ),
      );
      request.log.debug(
        { participantId, reconciliation: reconciliationKey, ...counts, warnings: warnings.length },
        'documents reconciled',
      );
      reply.header(WARNINGS_HEADER, String(warnings.length));
      request.outcome =
        counts.unknown > 0
          ? 'reconciled-with-unknown'
          : counts.diverging > 0
            ? 'reconciled-with-divergences'
            : 'reconciled-matched';
      return {
        mensagem: `${plural(items.length, 'document')} reconciled: ${counts.matched} matched, ${counts.diverging} diverging, ${counts.unknown} unknown`,
        chaveConciliacao: reconciliationKey,
      };
    },
  );
};
