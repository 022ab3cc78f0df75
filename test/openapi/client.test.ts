// What an integrator does with the document: generate a TypeScript client with @hey-api/openapi-ts,
// type-check a program that uses it (TypeScript's own compiler), and run it against the sandbox.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, type Sandbox, startSandbox } from '../../src/index.js';
import { pdf } from '../loanbond/helpers.js';
import { blocksOf } from '../readme.js';

/** The program a user writes: the six documented operations by operationId, with the demo credentials. */
const PROGRAM = `
import { createClient } from './client/client/index.js';
import type { EnvelopeError, PaymentDeclaration, RegistryDocument, Signature, StandardError } from './client/index.js';
import {
  declarePayment, importCnab, inspectRegistryBatch, listExtractRequests, reconcileDocuments, registerDocuments,
  registerLoanBond,
} from './client/index.js';

export async function run(baseUrl: string, files: { cnab: string; pdf: string }) {
  const bookkeeping = createClient({ baseUrl, auth: 'bk-demo-token-7' });
  const tenantId = '11222333000181';
  const list = await listExtractRequests({ client: bookkeeping, path: { tenantId }, query: { pageSize: 5 } });
  // The wire's tables are named types (components.schemas), not anonymous shapes.
  const declaration: PaymentDeclaration = {
    type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 100.25,
  };
  const payment = await declarePayment({ client: bookkeeping, path: { tenantId, uid: 'IUD-0001' }, body: declaration });
  // Three decimal places: the types cannot refuse it (a number is a number); the sandbox does, with a 400.
  const tenths = await declarePayment({
    client: bookkeeping,
    path: { tenantId, uid: 'IUD-0001' },
    body: { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial: true, paymentValue: 1.234 },
  });
  const anonymous = await listExtractRequests({ baseUrl, path: { tenantId } });

  const registry = createClient({ baseUrl, auth: 'rg-demo-token-1' });
  const document: RegistryDocument = { numeroDuplicata: 'DUP-1', valorDuplicata: 1500.5, dataVencimento: '2026-12-01' };
  const registered = await registerDocuments({ client: registry, body: { registros: [document] } });
  const batch = registered.data
    ? await inspectRegistryBatch({ baseUrl, path: { chaveRemessa: registered.data.chaveRemessa } })
    : undefined;
  const chaveRegistro = batch?.data?.documents[0]?.chaveRegistro;
  const reconciled = await reconcileDocuments({
    client: registry,
    body: { registros: [{ chaveRegistro, numeroDuplicata: 'DUP-1', valorDuplicata: 1500.5 }] },
  });

  const imported = await importCnab({
    baseUrl,
    body: {
      token: 'rc-demo-token-1',
      fundCnpj: '11.222.333/0001-81',
      operationFile: files.cnab,
      fileName: 'cnab400-demo.rem',
      additiveNumber: 1,
    },
  });
  const bonds = await registerLoanBond({
    baseUrl,
    body: { versao: '1.0', token: 'lb-demo-token-1', registros: [{ nome_documento: 'ccb.pdf', documento: files.pdf }] },
  });

  const errorBodies: Array<StandardError | EnvelopeError | Signature> = [];
  if (tenths.error) errorBodies.push(tenths.error);
  return {
    named: errorBodies.length,
    list: { status: list.response.status, pagination: list.data?.pagination },
    payment: payment.response.status,
    tenths: { status: tenths.response.status, details: tenths.error?.details },
    anonymous: { status: anonymous.response.status, message: anonymous.error?.message },
    registered: { status: registered.response.status, key: registered.data?.chaveRemessa },
    reconciled: { status: reconciled.response.status, message: reconciled.data?.mensagem },
    imported: { status: imported.response.status, importId: imported.response.headers.get('sandbox-import-id') },
    bonds: { status: bonds.response.status, records: bonds.data?.registros.length },
  };
}
`;

/** Calls the types must refuse: each line marked WRONG is a compile error, and no other line. */
const WRONG = `
import { importCnab, registerLoanBond } from './client/index.js';

export async function wrong(baseUrl: string) {
  await registerLoanBond({
    baseUrl,
    body: { versao: '1.0', registros: [] }, // WRONG: no token
  });
  await importCnab({
    baseUrl,
    body: { fundCnpj: '11222333000181', operationFile: '', fileName: 'x.rem', additiveNumber: 1 }, // WRONG: no token
  });
  await importCnab({
    baseUrl,
    body: { token: 't', fundCnpj: '11222333000181', operationFile: '', fileName: 'x.rem', additiveNumber: '1' }, // WRONG: a string
  });
}
`;

let sandbox: Sandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });
  dir = mkdtempSync(join(tmpdir(), 'tradebill-client-'));
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function typeErrors(files: string[]): Array<{ file: string; line: number; text: string }> {
  const program = ts.createProgram(files, {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    skipLibCheck: true,
    noEmit: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file?.fileName ?? '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

/** A client generated from the served document into `dir/<folder>`: fetch client, types, SDK functions. */
async function generateClient(folder: string): Promise<void> {
  const document = (await (await fetch(`${sandbox.url}/openapi.json`)).json()) as Record<string, unknown>;
  await createClient({
    input: document,
    output: join(dir, folder),
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'silent', file: false },
  });
}

describe('a TypeScript client generated from the served document (@hey-api/openapi-ts)', () => {
  it('type-checks, calls the six documented operations by operationId with the demo credentials, and gets their answers', async () => {
    await generateClient('client');
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    writeFileSync(join(dir, 'wrong.ts'), WRONG);

    const errors = typeErrors([join(dir, 'program.ts'), join(dir, 'wrong.ts')]);
    expect(errors.filter((e) => !e.file.endsWith('wrong.ts'))).toEqual([]);
    const wrongLines = WRONG.split('\n').flatMap((text, i) => (text.includes('// WRONG') ? [i + 1] : []));
    expect([...new Set(errors.map((e) => e.line))].sort((x, y) => x - y)).toEqual(wrongLines);
    expect(errors.map((e) => e.text).join('\n')).toMatch(/Property 'token' is missing/);

    const { run } = (await import(join(dir, 'program.ts'))) as {
      run: (baseUrl: string, files: { cnab: string; pdf: string }) => Promise<Record<string, unknown>>;
    };
    const answers = await run(sandbox.url, {
      cnab: readFileSync('fixtures/cnab400-demo.rem').toString('base64'),
      pdf: pdf(),
    });
    expect(answers).toMatchObject({
      named: 1,
      list: { status: 200, pagination: { page: 1, size: 5 } },
      payment: 204,
      tenths: { status: 400, details: [{ path: '/paymentValue' }] },
      anonymous: { status: 401, message: expect.stringContaining('Authorization header is missing') },
      registered: { status: 200, key: expect.any(String) },
      reconciled: { status: 200, message: expect.stringContaining('1 matched') },
      imported: { status: 200, importId: expect.stringMatching(/^CNAB-/) },
      bonds: { status: 201, records: 1 },
    });
  }, 120_000);

  it('generates with the versions docs/openapi.md pins, and its example type-checks and pays a bill', async () => {
    // The page's command pins the generator and TypeScript: the versions this suite installs.
    const page = readFileSync('docs/openapi.md', 'utf8');
    const generator = (
      JSON.parse(readFileSync('node_modules/@hey-api/openapi-ts/package.json', 'utf8')) as { version: string }
    ).version;
    expect(page).toContain(`-p typescript@${ts.versionMajorMinor} -p @hey-api/openapi-ts@${generator} openapi-ts`);
    expect(page).toContain('-o src/sandbox-client -c @hey-api/client-fetch');

    await generateClient('sandbox-client');
    // The example as shown; the one change is the address, this sandbox's instead of port 3000.
    const [example] = blocksOf('docs/openapi.md', 'ts');
    const code = example?.code ?? '';
    expect(code).toContain("baseUrl: 'http://localhost:3000'");
    writeFileSync(join(dir, 'example.ts'), code.replace('http://localhost:3000', sandbox.url));
    expect(typeErrors([join(dir, 'example.ts')])).toEqual([]);

    await import(join(dir, 'example.ts'));
    const [payment] = await sandbox.requests({ interface: 'bookkeeping' });
    expect(payment).toMatchObject({ method: 'PUT', status: 204, operation: 'declare-payment' });
  }, 120_000);
});
