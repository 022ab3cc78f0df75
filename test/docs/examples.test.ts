// The shell examples of the README and docs/ run as written: every ```sh block of a page, in order, in
// one POSIX shell (dash where /bin/sh is dash), against a sandbox started with the demo fixtures and
// reset before each page. `SANDBOX` points at it; every `curl` fails the page on an HTTP error status.
// A block that installs, builds or starts something is not run here and says where it is checked.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, type Sandbox, startSandbox } from '../../src/index.js';
import { blocksOf, markdownFiles } from '../readme.js';

const run = promisify(execFile);

/** Blocks not run by this test, by file and first line: why, and what checks them instead. */
const NOT_RUN: Record<string, string> = {
  'README.md: npm ci && npm start':
    'installs, starts a server and runs this very suite: what every CI run does (test/server.test.ts starts `npm start`)',
  'README.md: docker build -t tradebill-sandbox .': 'needs a Docker daemon',
  'docs/image.md: docker build -t tradebill-sandbox .': 'needs a Docker daemon',
  'docs/configuration.md: npm start -- --port 4010 --fixtures none --db :memory:':
    'starts a server until stopped: test/server.test.ts starts `npm start` with these flags on a free port',
  'docs/inspector.md: npm start':
    'starts a server until stopped; test/inspector/browser.test.ts runs the same demo (runDemo) against one',
  'docs/openapi.md: npx --yes -p typescript@5.9 -p @hey-api/openapi-ts@0.95.0 openapi-ts -i openapi.json -o src/sandbox-client -c @hey-api/client-fetch':
    'downloads the generator and the linters from the registry: test/openapi/ runs the same generator version and the same rulesets offline',
  'docs/openapi.md: npx --yes @openapitools/openapi-generator-cli generate -i openapi-3.0.json -g java -o sandbox-client-java --additional-properties=library=native,invokerPackage=tradebill.sandbox,apiPackage=tradebill.sandbox.api,modelPackage=tradebill.sandbox.model':
    'openapi-generator needs a JVM and openapi-python-client needs Python, neither assumed by npm test: test/openapi/openapi-30.test.ts validates and lints the document they read and generates a client from it with openapi-typescript',
  'docs/reliability.md: npm run sustained':
    'a stream of CNAB submissions for 30 s or more against a child server: test/runtime/work.test.ts and test/reliability/async-work.test.ts check the scheduler and the backlog bound it relies on',
  'docs/reliability.md: npm run soak:service':
    'minutes of mixed traffic against a child server: test/control/workspaces.test.ts and test/reliability/ check the removal, locked creation and durability it exercises',
  'docs/reliability.md: npm run soak':
    'the long reliability run takes hours: test/reliability/ runs the same suites, shorter, in every run',
  'docs/in-process.md: npm pkg set allowScripts.better-sqlite3=true --json':
    'installs from the registry: test/package.test.ts runs its first line as written and installs the packed tarball',
  'docs/stubs.md: npm start -- --upstream https://homologation.example.com --record recorded --db :memory:':
    'needs the platform\'s homologation environment: test/upstream/proxy.test.ts runs the same flags against a fake platform',
  'docs/stubs.md: npm start -- --stubs recorded':
    'starts a server until stopped: test/upstream/proxy.test.ts replays a recorded folder with the same option',
  'CONTRIBUTING.md: npm ci':
    "the project's own commands: CI runs `npm ci && npm test`",
};

/** Every ```sh block, by file, with the key NOT_RUN knows it by: the file and its first command. */
function shellBlocks(): Array<{ file: string; key: string; code: string }> {
  return markdownFiles().flatMap((file) =>
    blocksOf(file, 'sh').map(({ code }) => ({ file, key: `${file}: ${(code.split('\n')[0] ?? '').replace(/\s+#.*$/, '')}`, code })),
  );
}

// A curl that fails on an HTTP error status also inside a pipeline or $(...), where `set -e` cannot see
// the failure: the wrapper notes it in a file the test reads.
const PRELUDE = `set -e
curl() { command curl --fail-with-body --max-time 20 "$@" || { echo "FAILED: curl $*" >> "$FAILURES"; return 1; }; }
`;

describe('the shell examples of the README and docs/', () => {
  let sandbox: Sandbox;
  let work: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });
    work = mkdtempSync(join(tmpdir(), 'sandbox-examples-'));
    // The examples run from a clone: fixtures/ holds the CNAB files they send.
    symlinkSync(resolve('fixtures'), join(work, 'fixtures'), 'dir');
  });

  afterAll(async () => {
    await sandbox?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('lists as not run only blocks that exist, each with its reason', () => {
    const keys = new Set(shellBlocks().map((b) => b.key));
    expect(Object.keys(NOT_RUN).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('read the address from $SANDBOX, with no jq and no GNU-only flags', () => {
    const shell = shellBlocks()
      .map((b) => b.code)
      .join('\n');
    expect(shell).toContain('SANDBOX=http://127.0.0.1:3000');
    const pinned = shell.split('\n').filter((l) => /127\.0\.0\.1:3\d{3}/.test(l) && !/^(SANDBOX=|npm )/.test(l));
    expect(pinned).toEqual([]);
    expect(shell).not.toMatch(/\bjq\b|base64 -w|sed -i|grep -P|readlink -f|date -d|xargs -r/);
  });

  const byFile = new Map<string, string[]>();
  for (const block of shellBlocks()) {
    if (NOT_RUN[block.key]) continue;
    byFile.set(block.file, [...(byFile.get(block.file) ?? []), block.code]);
  }

  for (const [file, blocks] of byFile) {
    it(`runs every shell example of ${file} as written`, async () => {
      await sandbox.reset('default');
      // The one line rewritten: the address the README tells the reader to set is this sandbox's.
      const script = blocks.join('').replace(/^SANDBOX=http:\/\/127\.0\.0\.1:3000$/m, ': SANDBOX is set');
      const failures = join(work, `failures-${file.replace(/\W/g, '-')}`);
      const { stdout } = await run('sh', ['-c', PRELUDE + script], {
        cwd: work,
        env: { ...process.env, SANDBOX: sandbox.url, FAILURES: failures },
        timeout: 60_000,
      }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`${file}: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
      });
      expect(readFileSync(failures, { flag: 'a+', encoding: 'utf8' }), stdout).toBe('');
    }, 60_000);
  }
});
