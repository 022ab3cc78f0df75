// Builds dist/ once before the suite, as `npm run build` does: the tests that run the sandbox as a
// user would (a child process, SIGTERM, --help) run the built server (one module), not the sources.
//
// It also gives the run a temporary folder of its own: TMPDIR is set here, before the workers start,
// so os.tmpdir() in every test file and in every process a test starts (the built server, tsc, the
// browser) is that folder. The teardown names on stderr whatever was left in it, so a test that does
// not clean up after itself can be found, then removes the folder whole; leftovers never fail the run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    stdio: 'inherit',
  });
  const outer = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'tradebill-tests-'));
  process.env.TMPDIR = dir;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    try {
      const left = readdirSync(dir).sort();
      if (left.length > 0) process.stderr.write(`The tests left ${left.length} in ${dir}: ${left.join(' ')}\n`);
    } catch {
      // Gone already, or unreadable: the removal below says which.
    }
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      process.stderr.write(`The tests' temporary folder ${dir} could not be removed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  };
}
