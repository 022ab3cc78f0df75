// npm run build (and prepare, so installing from a git URL or a path builds too): a clean dist/ from
// src/ and the inspector's static files. Plain JavaScript: it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Emptied first: a file deleted from src/ must not live on in dist/ (nor in the package).
rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
cpSync(join(root, 'src/control/ui/assets'), join(root, 'dist/control/ui/assets'), { recursive: true });
