// The distinct answers of the two documented registry operations (see http/outcomes.ts), each set
// where its rule decides in routes.ts.
import { operationOutcomes } from '../http/outcomes.js';

const FAULTS = [400, 401, 500] as const;

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

const OPTIONS = { body: true, headers: true, faults: FAULTS } as const;

export const outcomes = [
  ...operationOutcomes(
    'registry',
    'register-documents',
    {
      registered: [200, 'the batch is registered, every domain check passing'],
      'registered-with-warnings': [
        200,
        'the batch is registered with domain warnings (Sandbox-Warnings counts them; strict mode would refuse)',
      ],
      ...COMMON,
    },
    OPTIONS,
  ),
  ...operationOutcomes(
    'registry',
    'reconcile-documents',
    {
      'reconciled-matched': [200, 'every item matches its registration'],
      'reconciled-with-divergences': [200, 'some items differ from their registration (fields named), none unknown'],
      'reconciled-with-unknown': [200, 'some items name no registration of the participant (or no chaveRegistro)'],
      ...COMMON,
    },
    OPTIONS,
  ),
];
