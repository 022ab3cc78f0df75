// GET /_sandbox/coverage and DELETE /_sandbox/coverage: which outcomes of the documented operations
// clients have met since the last reset, as JSON, JUnit XML (for CI dashboards) or Markdown (for a
// pull-request comment).
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { StandardError } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { runtimeOf } from '../runtime/index.js';
import { userDefinedOperation } from '../stubs/stub-set.js';
import { toJunit, toMarkdown } from './coverage-formats.js';
import { interfaceSchemas } from './schemas.js';

const TAG = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);

export const JUNIT_TYPE = 'application/xml; charset=utf-8';
export const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';

export const coverageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { CoverageQuery, CoverageReport: CoverageReportSchema } = interfaceSchemas(app.interfaces);
  app.get(
    '/coverage',
    {
      schema: {
        tags: TAG,
        operationId: 'getCoverage',
        summary: 'Client coverage: every outcome of the documented operations, with its hits since the last reset',
        description:
          'An outcome is a documented status split by the rule that decides it (a partial payment accepted, a 401 for a ' +
          'missing token, a CNAB file rejected for its trailer count...). Every answer of a documented operation names ' +
          'its outcome in the Sandbox-Outcome header and in the journal; this report counts them. ?format=junit gives JUnit ' +
          'XML (uncovered outcomes skipped), ?format=markdown a table for a pull-request comment.',
        querystring: CoverageQuery,
        response: {
          200: {
            description: 'the report, in the format asked for',
            content: {
              'application/json': { schema: CoverageReportSchema },
              'application/xml': { schema: Type.String({ description: 'JUnit XML' }) },
              'text/markdown': { schema: Type.String({ description: 'Markdown' }) },
            },
          },
          400: StandardError,
          401: StandardError,
        },
        'x-sandbox-assumption': assumed('coverage-outcomes', 'coverage-scope', 'coverage-junit'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const userDefined = app.userOperations.stubs.all(runtime).map(userDefinedOperation);
      const report = runtime.coverage.report(request.query.interface, userDefined);
      switch (request.query.format) {
        case 'junit':
          return reply.type(JUNIT_TYPE).send(toJunit(report));
        case 'markdown':
          return reply.type(MARKDOWN_TYPE).send(toMarkdown(report));
        default:
          return reply.type('application/json; charset=utf-8').send(report);
      }
    },
  );

  app.delete(
    '/coverage',
    {
      schema: {
        tags: TAG,
        operationId: 'clearCoverage',
        summary: 'Start counting coverage again from zero (POST /_sandbox/reset does it too)',
        description: 'Every hit count, first and last time back to nothing; the catalog of outcomes stays.',
        response: {
          200: Type.Object({
            cleared: Type.Integer({ description: 'answers that had been counted' }),
            since: Type.String({ description: 'counting starts again now (sandbox clock)' }),
          }),
          401: StandardError,
        },
        'x-sandbox-assumption': assumed('coverage-scope'),
      },
    },
    async (request) => {
      const { coverage } = runtimeOf(request);
      const cleared = coverage.clear();
      return { cleared, since: coverage.since };
    },
  );
};
