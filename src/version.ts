// The sandbox's version, read from package.json: the one place it is written.
import { readFileSync } from 'node:fs';

/**
 * package.json beside the compiled tree: one folder up from src/ and dist/, two from the benchmark's
 * dist-bench/src/.
 */
function readVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tradebill-sandbox' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Not there: the next place.
    }
  }
  throw new Error('package.json of tradebill-sandbox not found beside the code');
}

export const VERSION = readVersion();
