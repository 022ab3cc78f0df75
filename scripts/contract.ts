// The contract files shipped in the package under contract/ and served by the sandbox: the OpenAPI 3.1
// document, its 3.0.3 rendition and the Postman collection and environment, all written from the one
// source (the route schemas, through the served /openapi.json) by `npm run docs`. They are files
// rather than computed at start-up because their converters are large development tools that the
// package and the image do without; test/openapi/contract.test.ts fails when a committed file differs
// from what this writes.
import { buildApp } from '../src/app.js';
import { toOpenApi30 } from './openapi-30.js';

export interface ContractFile {
  /** From the repository's root. */
  path: string;
  text: string;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The served 3.1 document, from an app built as the server builds it (no database on disk). */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const app = await buildApp({ db: ':memory:', logger: false });
  try {
    return (await app.inject({ url: '/openapi.json' })).json<Record<string, unknown>>();
  } finally {
    await app.close();
  }
}

/** Every contract file, in the order they are written. */
export async function contractFiles(): Promise<ContractFile[]> {
  const v31 = await servedDocument();
  return [
    { path: 'contract/openapi.json', text: json(v31) },
    { path: 'contract/openapi-3.0.json', text: json(toOpenApi30(v31)) },
  ];
}
