// Builds dist/ once before the suite, as `npm run build` does: the tests that run the sandbox as a
// user would (a child process, SIGTERM, --help) run the built server (one module), not the sources.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    stdio: 'inherit',
  });
}
