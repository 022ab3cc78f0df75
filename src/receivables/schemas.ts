// Wire format of the receivables interface, as the specification's submission table.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { Strict } from '../http/schema.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';

const assumed = assumptionLookup(assumptions);
const assumedSandbox = assumptionLookup(sandboxAssumptions);

export const ImportCnabBody = Strict(
  {
    token: Type.String({
      maxLength: 64,
      description: 'token generated in the management system',
      'x-sandbox-assumption': assumedSandbox('token-lifetime'),
    }),
    fundCnpj: Type.String({
      maxLength: 18,
      description: 'fund tax id, with or without punctuation (bare, or NN.NNN.NNN/NNNN-NN); alphanumeric CNPJ accepted',
      'x-sandbox-assumption': assumedSandbox('tax-id-forms'),
    }),
    operationFile: Type.String({
      description: 'file in CNAB400 or CNAB444 layout, per the layout of the custodian bank, as base64 text',
      contentEncoding: 'base64',
      'x-sandbox-assumption': assumed('rc-file-base64', 'rc-layouts', 'rc-file-encoding'),
    }),
    fileName: Type.String({
      minLength: 1,
      maxLength: 150,
      description: 'name of the operation file',
      'x-sandbox-assumption': assumed('rc-validation-error'),
    }),
    additiveNumber: Type.Number({ description: "identifier of the operation in the client's own system" }),
  },
  {
    title: 'ImportCnabBody',
    description: 'each field occurs exactly once (1:1): a field sent twice is a ValidationError naming it',
  },
);
export type ImportCnabBody = Static<typeof ImportCnabBody>;

export const NoBody = Type.Null({
  description: 'success, no body; processing is asynchronous',
  'x-sandbox-assumption': assumed('rc-import-id-header', 'rc-no-webhook'),
  // Read by @fastify/swagger into the response's headers.
  headers: {
    'Sandbox-Import-Id': {
      type: 'string',
      'x-required': true,
      'x-sandbox-assumption': assumed('rc-import-id-header'),
      description: 'the handle on this import: GET /_sandbox/receivables/imports/{importId} shows its processing',
    },
  },
});
