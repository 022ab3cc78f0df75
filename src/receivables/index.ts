// Emulates the receivables management interface: CNAB 400/444 operation files, processed asynchronously.
// Differs from the real service where the README's assumptions table says (interface "receivables").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setupInterface } from '../http/interface-plugin.js';
import { INTERFACES } from '../http/interfaces.js';

export const receivablesPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.receivables);
  // The documented route lands with the receivables issue; until then it answers 501.
};
