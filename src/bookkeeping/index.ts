// Emulates the trade-bill bookkeeping interface (duplicatas escriturais): extract list and payment.
// Differs from the real service where the README's assumptions table says (interface "bookkeeping").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setupInterface } from '../http/interface-plugin.js';
import { INTERFACES } from '../http/interfaces.js';

export const bookkeepingPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.bookkeeping);
  // The documented routes land with the bookkeeping issue; until then they answer 501.
};
