// Emulates the loan-bond (CCB) registration interface: records with signers, signatures, PDFs.
// Differs from the real service where the README's assumptions table says (interface "loanbond").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setupInterface } from '../http/interface-plugin.js';
import { INTERFACES } from '../http/interfaces.js';

export const loanbondPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, INTERFACES.loanbond);
  // The documented route lands with the loan-bond issue; until then it answers 501.
};
