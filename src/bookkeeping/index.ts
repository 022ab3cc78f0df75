// The bookkeeping interface as the rest of the sandbox sees it (http/interface-module.ts): the one
// module outside code imports from this folder.
import { assumptionLookup } from '../http/assumption-catalog.js';
import type { InterfaceModule } from '../http/interface-module.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';
import { EVENT_TYPES } from './events.js';
import { contract } from './contract.js';
import { bookkeepingFixtureSection } from './fixtures.js';
import { bookkeepingInspection, bookkeepingOverview } from './inspect.js';
import { bookkeepingPlugin } from './routes.js';

export const bookkeeping = {
  contract,
  routes: bookkeepingPlugin,
  openapi: {
    tag: { name: 'bookkeeping', description: 'trade-bill bookkeeping (duplicatas escriturais)' },
    security: [{ bookkeepingBearer: [] }],
    securitySchemes: {
      bookkeepingBearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'the accessToken of a bookkeeping user (fixtures: bookkeeping.users), as Authorization: Bearer <token>',
        'x-sandbox-assumption': assumptionLookup(sandboxAssumptions)('token-lifetime'),
      },
    },
  },
  assumptions,
  fixtures: bookkeepingFixtureSection,
  events: EVENT_TYPES,
  work: [],
  inspection: {
    routes: bookkeepingInspection,
    ...bookkeepingOverview,
    panel: { title: 'Bookkeeping', script: 'bookkeeping.js' },
  },
} satisfies InterfaceModule<'bookkeeping'>;
