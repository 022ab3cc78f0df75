// Inspection of the registry interface's state, mounted under /_sandbox/registry (admin-token rule applies).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const registryInspection: FastifyPluginAsyncTypebox = async (_app) => {
  // Inspection routes land with the registry issue.
};
