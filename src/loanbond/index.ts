// The loan-bond interface as the rest of the sandbox sees it (http/interface-module.ts): the one
// module outside code imports from this folder.
import type { InterfaceModule } from '../http/interface-module.js';
import { assumptions } from './assumptions.js';
import { EVENT_TYPES } from './events.js';
import { contract } from './contract.js';
import { loanbondFixtureSection } from './fixtures.js';
import { loanbondInspection, loanbondOverview } from './inspect.js';
import { loanbondPlugin } from './routes.js';
import { registrationWork } from './runner.js';

/** The registration's default body limit (lb-body-limit), for the configuration's default. */
export { DEFAULT_REGISTRATION_BODY_LIMIT } from './schemas.js';

export const loanbond = {
  contract,
  routes: loanbondPlugin,
  openapi: {
    tag: { name: 'loanbond', description: 'loan-bond (CCB) registration' },
    // The token travels in the body (a required field): no security scheme beyond it.
    security: [],
  },
  assumptions,
  fixtures: loanbondFixtureSection,
  events: EVENT_TYPES,
  work: [registrationWork],
  inspection: {
    routes: loanbondInspection,
    ...loanbondOverview,
    panel: { title: 'Loan-bond', script: 'loanbond.js' },
  },
} satisfies InterfaceModule<'loanbond'>;
