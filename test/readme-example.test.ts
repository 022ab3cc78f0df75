// The README's "In-process use" example, run as a test of the project: the code between the markers
// must equal the README's block, with the package name in place of the relative import.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { docFiles, readmeBlock } from './readme.js';

// README example: begin
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { DEMO_FIXTURES, type Sandbox, startSandbox } from '../src/index.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ fixtures: DEMO_FIXTURES, seed: 'my-suite' });
  await sandbox.snapshot('baseline');
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await sandbox.restore('baseline'); // data, clock and key sequence as saved, in milliseconds
  await sandbox.clearFaults();
});

it('lets my client see the registry fail once', async () => {
  await sandbox.fault({ path: '/api/v1.0/service/dup/registrar_documentos', status: 500, times: 1 });
  const send = () =>
    fetch(`${sandbox.url}/api/v1.0/service/dup/registrar_documentos`, {
      method: 'POST',
      headers: { authorization: 'Bearer rg-demo-token-1', 'content-type': 'application/json' },
      body: JSON.stringify({ registros: [] }),
    });
  expect((await send()).status).toBe(500);
  expect((await send()).status).not.toBe(500); // the rule was for one request

  const [second, first] = await sandbox.requests({ interface: 'registry' });
  expect(first?.fault).not.toBeNull();
  expect(second?.fault).toBeNull();
  expect(JSON.stringify(first)).not.toContain('rg-demo-token-1'); // the journal keeps no secret
});

it('moves time a month on', async () => {
  await sandbox.clock({ now: '2026-12-01T12:00:00Z', freeze: true });
  const later = await sandbox.clock({ advance: 'P31D' });
  expect(later.now).toBe('2027-01-01T12:00:00.000Z');
});
// README example: end

it('is the code the README shows', () => {
  const own = readFileSync(fileURLToPath(import.meta.url), 'utf8');
  const region = own.split('// README example: begin\n')[1]?.split('// README example: end')[0] ?? '';
  expect(region.replace("'../src/index.js'", "'tradebill-sandbox'")).toBe(readmeBlock('### Vitest', 'ts'));
});

it("shows the Jest example's files exactly as test/package.test.ts runs them", () => {
  const shown = docFiles('docs/in-process.md', '## Jest (CommonJS)', 'js');
  const files = readdirSync('test/package/jest').sort();
  expect([...shown.keys()].sort()).toEqual(files);
  for (const f of files) expect(shown.get(f)).toBe(readFileSync(`test/package/jest/${f}`, 'utf8'));
});
