// Whether dist/ must be built again: missing, or older than a source (a file, or a directory whose
// time changed because a file in it was added, deleted or renamed). Used by scripts/start.mjs.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

export function needsBuild(root) {
  const entry = join(root, 'dist/server.js');
  if (!existsSync(entry)) return true;
  const inputs = INPUTS.map((p) => join(root, p)).filter((p) => existsSync(p));
  return Math.max(...inputs.map(newest)) > statSync(entry).mtimeMs;
}
