// Inspection of the receivables interface's state, mounted under /_sandbox/receivables (admin-token rule applies).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const receivablesInspection: FastifyPluginAsyncTypebox = async (_app) => {
  // Inspection routes land with the receivables issue.
};
