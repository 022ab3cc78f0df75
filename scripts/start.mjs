// npm start [-- flags]: builds only when a source is newer than dist/, then runs the server in this
// very process (no second node), so `npm start` costs one node start once built.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { needsBuild } from './stale.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (needsBuild(root)) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
await import(pathToFileURL(join(root, 'dist/server.js')).href);
