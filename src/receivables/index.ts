// The receivables interface as the rest of the sandbox sees it (http/interface-module.ts): the one
// module outside code imports from this folder.
import type { InterfaceModule } from '../http/interface-module.js';
import { assumptions } from './assumptions.js';
import { EVENT_TYPES } from './events.js';
import { contract } from './contract.js';
import { receivablesFixtureSection } from './fixtures.js';
import { receivablesInspection, receivablesOverview } from './inspect.js';
import { receivablesPlugin } from './routes.js';
import { importWork } from './runner.js';

export const receivables = {
  contract,
  routes: receivablesPlugin,
  openapi: {
    tag: { name: 'receivables', description: 'receivables management: CNAB operation files' },
    // The token travels in the body (a required field): no security scheme beyond it.
    security: [],
  },
  assumptions,
  fixtures: receivablesFixtureSection,
  events: EVENT_TYPES,
  work: [importWork],
  inspection: {
    routes: receivablesInspection,
    ...receivablesOverview,
    panel: { title: 'Receivables', script: 'receivables.js' },
  },
} satisfies InterfaceModule<'receivables'>;
