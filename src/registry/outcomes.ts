// The distinct answers of the two documented registry operations (see http/outcomes.ts), each set
// where its rule decides (routes.ts, register.ts, reconcile.ts, checks.ts) through outcome() below,
// so that a misspelt slug fails to compile.
import type { OperationOutcomes, OwnSlug } from '../http/outcomes.js';

/** Credentials and the checks both operations make on every batch. */
const COMMON = {
  'token-missing': [401, 'no Authorization header (or an empty one): the Bearer token of a participant is required'],
  'token-malformed': [401, 'the Authorization header is not "Bearer <accessToken>"'],
  'token-unknown': [401, 'the bearer token is not the accessToken of any registry participant'],
  'documento-not-base64': [400, 'a documento is not standard base64 text'],
  'strict-refused': [
    400,
    'in strict mode, a domain check fails (tax-id check digits, NF-e key, IBGE code, due date before issue date)',
  ],
} as const;

export const outcomes = {
  'register-documents': {
    own: {
      registered: [200, 'the batch is registered, every domain check passing'],
      'registered-with-warnings': [
        200,
        'the batch is registered with domain warnings (Sandbox-Warnings counts them; strict mode would refuse)',
      ],
      ...COMMON,
    },
    body: true,
    query: true,
    headers: true,
  },
  'reconcile-documents': {
    own: {
      'reconciled-matched': [200, 'every item matches its registration'],
      'reconciled-with-divergences': [200, 'some items differ from their registration (fields named), none unknown'],
      'reconciled-with-unknown': [200, 'some items name no registration of the participant (or no chaveRegistro)'],
      ...COMMON,
    },
    body: true,
    query: true,
    headers: true,
  },
} as const satisfies Readonly<Record<string, OperationOutcomes>>;

export type RegistryOutcome = OwnSlug<typeof outcomes>;

/** An outcome slug of this interface, checked against the catalog above when compiled. */
export const outcome = (slug: RegistryOutcome): RegistryOutcome => slug;
