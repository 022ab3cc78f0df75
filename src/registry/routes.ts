// Emulates the trade-bill registry interface: document registration and monthly reconciliation.
// Differs from the real service where docs/assumptions.md says (interface "registry").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { bearerToken } from '../http/bearer.js';
import { SandboxError } from '../http/errors.js';
import { serveInterface } from '../http/interface-plugin.js';
import { BEARER_CHALLENGE, errorResponses, NoQuery, StandardError, StrictHeaders } from '../http/schema.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { runtimeOf } from '../runtime/index.js';
import { strictFor } from '../runtime/strict.js';
import { assumptions } from './assumptions.js';
import { refusedBodyProblems } from './checks.js';
import { contract } from './contract.js';
import { outcome } from './outcomes.js';
import { reconcileDocuments } from './reconcile.js';
import { registerDocuments, type RegistryContext, type RegistryResult } from './register.js';
import { ReconcileBody, ReconcileResponse, RegisterBody, RegisterResponse } from './schemas.js';

const assumed = assumptionLookup([...sandboxAssumptions, ...assumptions]);
const REGISTER = contract.route('register-documents');
const RECONCILE = contract.route('reconcile-documents');

/** What registration and reconciliation check beyond the schema, on a body the schema refused. */
const refusedBodyChecks = (request: FastifyRequest) => ({ details: refusedBodyProblems(request.body, strictFor(request)) });
const WARNINGS_HEADER = 'sandbox-warnings';

export const registryPlugin: FastifyPluginAsyncTypebox = async (app) => {
  serveInterface(app, contract);

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
      ).tag(outcome('token-unknown'));
    }
    participants.set(request, participantId);
  };

  // What both rules are given: the authenticated participant and the request's state.
  const contextOf = (request: FastifyRequest): RegistryContext => {
    const participantId = participants.get(request);
    if (participantId === undefined) throw new SandboxError(500, 'the request reached a registry route unauthenticated');
    const { store, ids, clock, events } = runtimeOf(request);
    return { store, ids, now: clock.now(), strict: strictFor(request), participantId, events };
  };

  // Both answers count their domain warnings in a header and name their outcome.
  const answer = <R>(request: FastifyRequest, reply: FastifyReply, result: RegistryResult<R>): R => {
    reply.header(WARNINGS_HEADER, String(result.warnings));
    request.outcome = result.outcome;
    return result.response;
  };

  const common = {
    tags: [contract.id],
    querystring: NoQuery(),
    headers: StrictHeaders(assumed('registry-domain-warnings')),
    'x-sandbox-assumption': assumed(
      'registry-bearer',
      'registry-batch-atomic',
      'registry-domain-warnings',
      'query-on-body-operations',
    ),
  };
  const errors = errorResponses(contract.statuses, StandardError, assumed('error-body'), BEARER_CHALLENGE);

  app.post(
    REGISTER.url,
    {
      config: { ...REGISTER.config, refusedBodyChecks },
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
      const ctx = contextOf(request);
      const result = registerDocuments(request.body, ctx);
      request.log.debug(
        { participantId: ctx.participantId, batch: result.response.chaveRemessa, documents: request.body.registros.length, warnings: result.warnings },
        'documents registered',
      );
      return answer(request, reply, result);
    },
  );

  app.post(
    RECONCILE.url,
    {
      config: { ...RECONCILE.config, refusedBodyChecks },
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
      const ctx = contextOf(request);
      const result = reconcileDocuments(request.body, ctx);
      request.log.debug(
        { participantId: ctx.participantId, reconciliation: result.response.chaveConciliacao, ...result.counts, warnings: result.warnings },
        'documents reconciled',
      );
      return answer(request, reply, result);
    },
  );
};
