// npm run build (and prepare, so installing from a git URL or a path builds too): a clean dist/ from
// src/ and the inspector's static files, and dist/server.js as one file. Plain JavaScript: it runs
// before anything is compiled.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Emptied first: a file deleted from src/ must not live on in dist/ (nor in the package).
rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
cpSync(join(root, 'src/control/ui/assets'), join(root, 'dist/control/ui/assets'), { recursive: true });

// The server started by `node dist/server.js` (and the package's bin) is one module: Node's loader
// spends most of a start-up resolving and reading modules one by one, and TypeBox alone is some 270
// small ones, of which the server uses the schema builder. The packages stay outside the bundle (they
// are loaded from node_modules as before: native addons, files found beside them, plugins loaded on
// first use) but TypeBox. The rest of dist/ stays as tsc wrote it: the library (dist/index.js) and its types.
const bundle = await rolldown({
  input: join(root, 'dist/server.js'),
  platform: 'node',
  external: (id) => !/^[./]/.test(id) && !/^(@sinclair\/typebox|@fastify\/type-provider-typebox)(\/|$)/.test(id),
  logLevel: 'warn',
});
await bundle.write({ file: join(root, 'dist/server.js'), format: 'esm', sourcemap: true });
await bundle.close();
