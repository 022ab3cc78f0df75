// Emulates the receivables management interface: CNAB 400/444 operation files, processed asynchronously.
// Differs from the real service where the README's assumptions table says (interface "receivables").
import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { decodeBase64 } from '../domain/base64.js';
import { checkTaxId } from '../domain/tax-id.js';
import { assumptionLookup } from '../http/assumptions.js';
import { SandboxError, validationError } from '../http/errors.js';
import { setupInterface } from '../http/interface-plugin.js';
import { strictFor } from '../runtime/strict.js';
import { INTERFACES } from '../interfaces.js';
import { EnvelopeError, errorResponses, StrictHeaders } from '../http/schema.js';
import { assumptions } from './assumptions.js';
import { scanLines } from './cnab.js';
import { importWork } from './runner.js';
import { ImportCnabBody, NoBody } from './schemas.js';
import { runtimeOf } from '../runtime/index.js';

const a = assumptionLookup(assumptions);

function sameSecret(given: string, expected: string): boolean {
  const x = Buffer.from(given);
  const y = Buffer.from(expected);
  return x.length === y.length && timingSafeEqual(x, y);
}

function invalidToken(message: string, outcome: string): SandboxError {
  return new SandboxError(400, message, { code: 'InvalidToken', details: [{ path: '/token', message }], outcome });
}

function badFile(message: string, outcome: string): SandboxError {
  return validationError([{ path: '/operationFile', message }], `operationFile ${message}`).tag(outcome);
}

export const receivablesPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.receivables);

  app.post(
    '/import-cnab',
    {
      config: { interface: 'receivables', operation: 'import-cnab' },
      schema: {
        tags: ['receivables'],
        summary: 'Submit an operation (remessa) file in CNAB 400 or CNAB 444 layout',
        description:
          'The file is checked at once (base64, not empty, every line 400 or 444 bytes) and stored; the 200 ' +
          'comes before processing, which runs asynchronously (see /_sandbox/receivables for the outcome).',
        headers: StrictHeaders(a('rc-cnab-rules')),
        body: ImportCnabBody,
        response: {
          200: NoBody,
          ...errorResponses(
            INTERFACES.receivables.statuses,
            EnvelopeError,
            a('rc-validation-error', 'rc-error-precedence'),
          ),
        },
        'x-sandbox-assumption': a(
          'rc-error-precedence',
          'rc-statuses',
          'rc-cnab-rules',
          'rc-record-types',
          'rc-bank-layouts',
          'rc-fidc-records',
          'rc-return-file',
          'rc-import-id-header',
          'rc-no-webhook',
        ),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const runtime = runtimeOf(request);
      const store = runtime.store.receivables;
      const cnpj = checkTaxId(body.fundCnpj, { kinds: ['cnpj'] });
      if (!cnpj.ok)
        throw validationError([{ path: '/fundCnpj', message: cnpj.reason }], `fundCnpj ${cnpj.reason}`).tag(
          'fund-cnpj-invalid',
        );

      const fund = store.fund(cnpj.value);
      if (!fund) {
        throw invalidToken(
          `no fund with CNPJ ${cnpj.value} (the body field fundCnpj) is known to this sandbox (fixtures: receivables.funds), so the body field token cannot be valid`,
          'token-unknown-fund',
        );
      }
      if (fund.token === null) {
        throw invalidToken(
          `the fund ${cnpj.value} (the body field fundCnpj) has no token: generate one in the management system (fixtures: receivables.funds[].token)`,
          'token-not-issued',
        );
      }
      if (!sameSecret(body.token, fund.token)) {
        throw invalidToken(
          `the body field token is not the token of the fund ${cnpj.value} (the value sent is not echoed)`,
          'token-mismatch',
        );
      }

      const decoded = decodeBase64(body.operationFile);
      if (!decoded.ok) throw badFile(`is not base64 text: ${decoded.reason}`, 'file-not-base64');
      if (decoded.bytes.length === 0) throw badFile('is empty', 'file-empty');
      const scan = scanLines(decoded.bytes);
      if (!scan.ok) throw badFile(`is not a CNAB 400/444 file: ${scan.reason}`, 'file-not-cnab');

      const importId = runtime.ids.newId('CNAB-');
      store.insertImport({
        importId,
        fundCnpj: cnpj.value,
        fileName: body.fileName,
        additiveNumber: body.additiveNumber,
        receivedAt: runtime.clock.now().toISOString(),
        file: decoded.bytes,
        lineCount: scan.lines.count,
        strict: strictFor(request),
      });
      runtime.workOf(importWork).handOff(importId, decoded.bytes);
      runtime.work.kick(importWork.name);
      request.log.debug({ importId, lines: scan.lines.count }, 'CNAB import stored, pending');
      request.outcome = 'accepted';
      // No body at all (not "null"): the typed reply only knows the schema's null, so widen it.
      return (reply as FastifyReply).code(200).header('sandbox-import-id', importId).send();
    },
  );
};
