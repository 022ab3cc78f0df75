// Builds dist/ once before the suite: the tests that run the sandbox as a user would (a child
// process, SIGTERM, --help) run the compiled server, not the sources.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
