// Emulates the loan-bond (CCB) registration interface: records with signers, signatures, PDFs.
// Differs from the real service where docs/assumptions.md says (interface "loanbond").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { SandboxError, validationError } from '../http/errors.js';
import { partProblems, serveInterface } from '../http/interface-plugin.js';
import { bodyHeadersError } from '../http/json.js';
import { strictFor } from '../runtime/strict.js';
import { errorResponses, NoQuery, StandardError, StrictHeaders } from '../http/schema.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';
import { contract } from './contract.js';
import { outcome } from './outcomes.js';
import { registrationWork } from './runner.js';
import { refusedBodyProblems, register } from './register.js';
import { MAX_RECORDS, RegistrationRequest, RegistrationResponse } from './schemas.js';
import { resolvedRuntimeOf, runtimeOf } from '../runtime/index.js';
import { readRegistration, uploadOf } from './upload.js';

const assumed = assumptionLookup(assumptions);
const assumedSandbox = assumptionLookup(sandboxAssumptions);
const REGISTER = contract.route('register-loan-bond');

export const loanbondPlugin: FastifyPluginAsyncTypebox = async (app) => {
  serveInterface(app, contract);
  await app.register(registrationRoute);
};

/** The registration, in a context of its own: its body is read as a stream (upload.ts). */
const registrationRoute: FastifyPluginAsyncTypebox = async (app) => {
  const parse = app.getDefaultJsonParser('error', 'error');
  const limit = app.settings.loanbondBodyLimit;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const refused = bodyHeadersError(request);
    if (refused) return done(refused, undefined);
    readRegistration(request, payload, {
      documents: runtimeOf(request).store.documents,
      limit,
      setting: 'SANDBOX_LOANBOND_BODY_LIMIT',
      parse,
    }).then(
      (body) => done(null, body),
      // A workspace removed under the request takes its files' folder: that, not the failed write, is the answer.
      (err: Error) => done(resolvedRuntimeOf(request).retired ?? err, undefined),
    );
  });
  // Incoming files that did not become stored files go once the answer is ready, or the client left.
  const discard = async (request: FastifyRequest) => {
    await uploadOf(request)?.discard();
  };
  app.addHook('onSend', async (request, _reply, payload) => {
    await discard(request);
    return payload;
  });
  app.addHook('onRequestAbort', discard);
  app.addHook('onResponse', discard);

  app.post(
    REGISTER.url,
    {
      config: {
        ...REGISTER.config,
        refusedBodyChecks: (request: FastifyRequest) => ({
          details: refusedBodyProblems(request.body, {
            store: runtimeOf(request).store,
            strict: strictFor(request),
            files: (path) => uploadOf(request)?.file(path),
          }),
        }),
      },
      bodyLimit: limit,
      attachValidation: true,
      schema: {
        tags: [contract.id],
        summary: 'Register loan-bond (CCB) documents: up to 50 records, each with its PDF',
        description:
          'Rules 1-7 of the specification: the caller holds the electronic-signature and digital loan-bond ' +
          'products (else 401); every file is a PDF, not encrypted, at most 15 MB decoded; at most 50 records; ' +
          'signatures are imported only when assinado is true. All records are registered, or none.',
        querystring: NoQuery(),
        headers: StrictHeaders(assumed('lb-tax-ids')),
        body: RegistrationRequest,
        response: {
          201: RegistrationResponse,
          ...errorResponses(contract.statuses, StandardError, assumedSandbox('error-body')),
        },
        'x-sandbox-assumption': `${assumed(
          'lb-path',
          'lb-batch-atomic',
          'lb-body-limit',
          'lb-check-order',
          'lb-status-products',
          'lb-document-store',
          'lb-pdf-detection',
          'lb-pdf-damaged-syntax',
          'lb-pdf-containers',
        )} ${assumedSandbox('work-backlog', 'query-on-body-operations')}`,
      },
      // Rule 6 by name, before the schema would report it as a bare "more than 50 items".
      preValidation: async (request) => {
        const sent: unknown = request.body;
        const registros =
          typeof sent === 'object' && sent !== null ? (sent as { registros?: unknown }).registros : undefined;
        if (Array.isArray(registros) && registros.length > MAX_RECORDS) {
          throw validationError([
            {
              path: '/registros',
              message: `rule 6: a request holds at most ${MAX_RECORDS} records; this one holds ${registros.length}`,
            },
          ]).tag(outcome('rule-6-too-many-records'));
        }
      },
    },
    async (request, reply) => {
      const invalid = request.validationError;
      if (invalid) {
        // lb-check-order: every field type first (400), then the token (401): a body that is right but
        // for a missing token is the token's 401, not a schema 400, unless a part Fastify did not
        // judge after the body (a query parameter, the Sandbox-Strict header) is refused too: that
        // 400 names both.
        const onlyToken = ((invalid as FastifyError).validation ?? []).every(
          (e) => e.keyword === 'required' && e.instancePath === '' && e.params.missingProperty === 'token',
        );
        if (!onlyToken || partProblems(request, 'querystring').total > 0 || partProblems(request, 'headers').total > 0)
          throw invalid;
      }
      const runtime = runtimeOf(request);
      const upload = uploadOf(request);
      const result = register(request.body, {
        store: runtime.store,
        files: (path) => upload?.file(path),
        ids: runtime.ids,
        now: runtime.clock.now(),
        strict: strictFor(request),
        events: runtime.events,
        admit: (records) => {
          const refusal = runtime.work.refusal(registrationWork.name, 'loan-bond registrations', records);
          if (refusal) throw new SandboxError(400, refusal, { outcome: outcome('backlog-full') });
        },
      });
      runtime.schedule(registrationWork.name);
      request.outcome = result.outcome;
      request.log.debug(
        {
          callerId: result.callerId,
          batch: result.batch,
          records: result.response.registros.length,
          taxIdWarnings: result.warnings,
        },
        'loan-bonds registered',
      );
      return reply.code(201).send(result.response);
    },
  );
};
