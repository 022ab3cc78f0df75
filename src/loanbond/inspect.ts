// Inspection of the loanbond interface's state, mounted under /_sandbox/loanbond (admin-token rule applies).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const loanbondInspection: FastifyPluginAsyncTypebox = async (_app) => {
  // Inspection routes land with the loanbond issue.
};
