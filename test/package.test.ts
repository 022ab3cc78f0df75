// The package as a user gets it. A copy of the sources is packed (prepare builds dist/ there), the
// tarball is installed into a new project from the registry's packages (the npm cache first), and
// that project approves the install script of better-sqlite3 with the command docs/in-process.md
// gives, then runs `npx tradebill-sandbox`, the README's Vitest example, the Jest (CommonJS) example
// of docs/in-process.md and a strict type check of the public types, all against the installed package.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP } from '../src/config.js';
import { closesSoon, listeningPort } from './process.js';
import { docBlock, readmeBlock } from './readme.js';

const run = promisify(execFile);
const ROOT = resolve('.');
const JEST = '30.5.2';
const version = (pkg: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;

// The environment of a user's shell, not of the `npm test` that runs this file.
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle|config_(prefix|global))/i.test(k)),
);
const sh = async (cmd: string, args: string[], cwd: string) =>
  (await run(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout;

describe('the packed package, installed into another project', () => {
  let work: string;
  let clone: string;
  let project: string;
  let tarball: string;
  let packed: string[];
  /** What npm printed on stderr while installing the package. */
  let installWarnings = '';
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'sandbox-package-'));
    clone = join(work, 'clone');
    project = join(work, 'project');
    // Sources as a clone has them: tracked and untracked files, minus what .gitignore ignores.
    const files = (await sh('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT))
      .split('\0')
      .filter((f) => f !== '' && statSync(join(ROOT, f), { throwIfNoEntry: false })?.isFile());
    for (const f of files) {
      mkdirSync(dirname(join(clone, f)), { recursive: true });
      copyFileSync(join(ROOT, f), join(clone, f));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
    // `npm pack` runs prepare: the clone has no dist/ until then.
    const out = await sh('npm', ['pack', '--json', '--pack-destination', work], clone);
    const report = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, report[0]?.filename ?? '');
    packed = report[0]?.files.map((f) => f.path) ?? [];

    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    // The approval, as docs/in-process.md gives it: its first command, run as written.
    const approve = docBlock('docs/in-process.md', '## Installing', 'sh').split('\n')[0] ?? '';
    await sh('sh', ['-c', approve], project);
    const approved = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { allowScripts?: unknown };
    expect(approved.allowScripts).toEqual({ 'better-sqlite3': true });
    // The native addon is the one `npm ci` built for this checkout, at the same pinned version:
    // building it again (or looking for a prebuilt one off the registry) takes minutes here.
    const installed = await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        tarball,
        `better-sqlite3@${version('better-sqlite3')}`,
        `vitest@${version('vitest')}`,
        `typescript@${version('typescript')}`,
        `jest@${JEST}`,
      ],
      { cwd: project, env, maxBuffer: 64 * 1024 * 1024 },
    );
    installWarnings = installed.stderr;
    cpSync(
      join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
      join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    );
  }, 600_000);

  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs on this Node without an engine warning (no dependency wants a newer Node than package.json says)', () => {
    expect(installWarnings).not.toMatch(/EBADENGINE/);
  });

  it('ships only what runs: dist without maps, fixtures, the contract files, README, package.json', () => {
    expect(packed).toContain('dist/server.js');
    expect(packed).toContain('contract/openapi-3.0.json');
    expect(packed).toContain('dist/index.d.ts');
    expect(packed).toContain('dist/control/ui/assets/index.html');
    expect(packed).toContain('fixtures/demo.json');
    expect(packed).toContain('README.md');
    const outside = packed.filter(
      (f) => !/^(dist\/|fixtures\/|contract\/|README\.md$|LICENSE$|package\.json$)/.test(f) || f.endsWith('.map'),
    );
    expect(outside).toEqual([]);
  });

  it('runs `npx tradebill-sandbox --help` with the flags of `npm start -- --help`', async () => {
    expect(await sh('npx', ['--no-install', 'tradebill-sandbox', '--help'], project)).toBe(HELP);
  }, 180_000);

  it('serves through npx with --fixtures none on a free port, and leaves no listener after SIGTERM', async () => {
    const child = spawn('npx', ['--no-install', 'tradebill-sandbox', '--port', '0', '--fixtures', 'none'], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const port = await listeningPort(child).port;
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/_sandbox/health`)).json()).toEqual({ status: 'ok' });
    // The 3.0 rendition is a file of the package, found from the installed dist/.
    expect(await (await fetch(`${base}/openapi-3.0.json`)).json()).toMatchObject({ openapi: '3.0.3' });
    // Empty (--fixtures none): the registry knows no participant until fixtures add one.
    const register = () =>
      fetch(`${base}/api/v1.0/service/dup/registrar_documentos`, {
        method: 'POST',
        headers: { authorization: 'Bearer rg-1', 'content-type': 'application/json' },
        body: JSON.stringify({ registros: [{ numeroDuplicata: 'DUP-1' }] }),
      });
    expect((await register()).status).toBe(401);
    const load = await fetch(`${base}/_sandbox/fixtures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ registry: { participants: [{ participantId: 'P-1', accessToken: 'rg-1' }] } }),
    });
    expect(load.status).toBe(200);
    const registered = await register();
    expect(registered.status).toBe(200);
    expect(await registered.json()).toMatchObject({ chaveRemessa: expect.any(String) });

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    // npx stops at once; the server notices its parent is gone and closes (src/server.ts).
    expect(await closesSoon(`${base}/_sandbox/health`)).toBe(true);
  }, 180_000);

  it("runs the README's Vitest example against the installed package", async () => {
    writeFileSync(join(project, 'sandbox.test.mts'), readmeBlock('### Vitest', 'ts'));
    const out = await sh('npx', ['--no-install', 'vitest', 'run', 'sandbox.test.mts'], project);
    expect(out).toMatch(/Tests\s+.*2 passed/);
  }, 180_000);

  it("runs the Jest (CommonJS) example of docs/in-process.md against the installed package", async () => {
    for (const f of readdirSync(join(ROOT, 'test/package/jest')))
      copyFileSync(join(ROOT, 'test/package/jest', f), join(project, f));
    // Jest's cache goes with the rest of this file's work, not into the temporary folder's jest_<uid>.
    const { stderr } = await run('npx', ['--no-install', 'jest', '--ci', '--cacheDirectory', join(work, 'jest-cache'), 'registry.test.js'], {
      cwd: project,
      env,
    });
    expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
  }, 180_000);

  it('has public types that check strictly with no dev dependency of the sandbox installed', async () => {
    writeFileSync(
      join(project, 'types.mts'),
      [
        "import { DEMO_FIXTURES, type Sandbox, startSandbox } from 'tradebill-sandbox';",
        'const sandbox: Sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });',
        "const counts: Record<string, Record<string, number>> = await sandbox.reset('default');",
        'await sandbox.reset(DEMO_FIXTURES);',
        'await sandbox.close();',
        'export { counts };',
        '',
      ].join('\n'),
    );
    const args = ['--no-install', 'tsc', '--noEmit', '--strict', '--skipLibCheck', 'false'];
    args.push('--module', 'nodenext', '--target', 'es2022', 'types.mts');
    await expect(sh('npx', args, project)).resolves.toBe('');
  }, 180_000);

  it('runs `npm start`s entry from the clone without building again', async () => {
    const server = join(clone, 'dist/server.js');
    const built = statSync(server).mtimeMs;
    expect(await sh('node', ['scripts/start.mjs', '--help'], clone)).toBe(HELP);
    expect(statSync(server).mtimeMs).toBe(built);
  }, 180_000);
});
