// Inspection of the bookkeeping interface's state, mounted under /_sandbox/bookkeeping (admin-token rule applies).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const bookkeepingInspection: FastifyPluginAsyncTypebox = async (_app) => {
  // Inspection routes land with the bookkeeping issue.
};
