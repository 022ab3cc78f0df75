// Emulates the trade-bill registry interface: document registration and monthly reconciliation.
// Differs from the real service where the README's assumptions table says (interface "registry").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setupInterface } from '../http/interface-plugin.js';
import { INTERFACES } from '../http/interfaces.js';

export const registryPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.registry);
  // The documented routes land with the registry issue; until then they answer 501.
};
