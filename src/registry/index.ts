// The registry interface as the rest of the sandbox sees it (http/interface-module.ts): the one
// module outside code imports from this folder.
import { assumptionLookup } from '../http/assumption-catalog.js';
import type { InterfaceModule } from '../http/interface-module.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';
import { EVENT_TYPES } from './events.js';
import { contract } from './contract.js';
import { registryFixtureSection } from './fixtures.js';
import { registryInspection, registryOverview } from './inspect.js';
import { registryPlugin } from './routes.js';

export const registry = {
  contract,
  routes: registryPlugin,
  openapi: {
    tag: { name: 'registry', description: 'trade-bill registry' },
    security: [{ registryBearer: [] }],
    securitySchemes: {
      registryBearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'the accessToken of a registry participant (fixtures: registry.participants), as Authorization: Bearer <token>',
        'x-sandbox-assumption': assumptionLookup(sandboxAssumptions)('token-lifetime'),
      },
    },
  },
  assumptions,
  fixtures: registryFixtureSection,
  events: EVENT_TYPES,
  work: [],
  inspection: {
    routes: registryInspection,
    ...registryOverview,
    panel: { title: 'Registry', script: 'registry.js' },
  },
} satisfies InterfaceModule<'registry'>;
