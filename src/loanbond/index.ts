// Emulates the loan-bond (CCB) registration interface: records with signers, signatures, PDFs.
// Differs from the real service where the README's assumptions table says (interface "loanbond").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setupInterface } from '../http/interface-plugin.js';
import { operations } from './operations.js';

export const loanbondPlugin: FastifyPluginAsyncTypebox = async (app) => {
  setupInterface(app, { id: 'loanbond', shape: 'standard', operations, statuses: [400, 401] });
  // The documented route lands with the loan-bond issue; until then it answers 501.
};
