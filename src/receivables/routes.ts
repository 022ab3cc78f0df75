// Emulates the receivables management interface: CNAB 400/444 operation files, processed asynchronously.
// Differs from the real service where docs/assumptions.md says (interface "receivables").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { SandboxError } from '../http/errors.js';
import { serveInterface } from '../http/interface-plugin.js';
import { bodyHeadersError } from '../http/json.js';
import { strictFor } from '../runtime/strict.js';
import { EnvelopeError, errorResponses, NoQuery, StrictHeaders } from '../http/schema.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';
import { contract } from './contract.js';
import { outcome } from './outcomes.js';
import { importWork } from './runner.js';
import { ImportCnabBody, NoBody } from './schemas.js';
import { refusedImportProblems, submitImport } from './submit.js';
import { resolvedRuntimeOf, runtimeOf } from '../runtime/index.js';
import { readImportBody, receivedFileOf } from './upload.js';

const assumed = assumptionLookup(assumptions);
const IMPORT = contract.route('import-cnab');
const assumedSandbox = assumptionLookup(sandboxAssumptions);

export const receivablesPlugin: FastifyPluginAsyncTypebox = async (app) => {
  serveInterface(app, contract);
  await app.register(importRoute);
};

/**
 * The submission, in a context of its own: its body is read as a stream (upload.ts), so that a file
 * near the body limit never holds the event loop for more than a slice of it.
 */
const importRoute: FastifyPluginAsyncTypebox = async (app) => {
  const parse = app.getDefaultJsonParser('error', 'error');
  const limit = app.settings.bodyLimit;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const refused = bodyHeadersError(request);
    if (refused) return done(refused, undefined);
    readImportBody(request, payload, { limit, parse }).then(
      (body) => done(null, body),
      (err: Error) => done(err, undefined),
    );
  });

  app.post(
    IMPORT.url,
    {
      config: {
        ...IMPORT.config,
        refusedBodyChecks: (request: FastifyRequest) => ({
          details: refusedImportProblems(request.body, runtimeOf(request).store, receivedFileOf(request)),
        }),
      },
      schema: {
        tags: [contract.id],
        summary: 'Submit an operation (remessa) file in CNAB 400 or CNAB 444 layout',
        description:
          'The file is checked at once (base64, not empty, every line 400 or 444 bytes) and stored; the 200 ' +
          'comes before processing, which runs asynchronously (see /_sandbox/receivables for the outcome).',
        querystring: NoQuery(),
        headers: StrictHeaders(assumed('rc-cnab-rules')),
        body: ImportCnabBody,
        response: {
          200: NoBody,
          ...errorResponses(
            contract.statuses,
            EnvelopeError,
            assumed('rc-validation-error', 'rc-error-precedence'),
          ),
        },
        'x-sandbox-assumption': `${assumed(
          'rc-error-precedence',
          'rc-statuses',
          'rc-cnab-rules',
          'rc-record-types',
          'rc-bank-layouts',
          'rc-fidc-records',
          'rc-return-file',
          'rc-import-id-header',
          'rc-import-order',
          'rc-no-webhook',
        )} ${assumedSandbox('work-backlog', 'query-on-body-operations')}`,
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const { store, ids, clock, events } = runtime;
      const admit = () => {
        const refusal = runtime.work.refusal(importWork.name, 'CNAB imports');
        if (refusal) throw new SandboxError(400, refusal, { code: 'SandboxBusy', outcome: outcome('backlog-full') });
      };
      const file = receivedFileOf(request);
      const submitted = await submitImport(request.body, { store, ids, now: () => clock.now(), strict: strictFor(request), events, admit, file }).catch(
        // A workspace removed while the file was written: that, not the failed write, is the answer.
        (err: unknown) => {
          throw resolvedRuntimeOf(request).retired ?? err;
        },
      );
      const { importId } = submitted;
      runtime.workOf(importWork).handOff(importId, submitted.file, submitted.lines);
      runtime.schedule(importWork.name);
      request.log.debug({ importId, lines: submitted.lines.count }, 'CNAB import stored, pending');
      request.outcome = outcome('accepted');
      // No body at all (not "null"): the typed reply only knows the schema's null, so widen it.
      return (reply as FastifyReply).code(200).header('sandbox-import-id', importId).send();
    },
  );
};
