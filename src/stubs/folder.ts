// The --stubs folder (SANDBOX_STUBS), read once at start: WireMock's layout (mappings/*.json, bodies
// under __files/) or a folder of mapping files itself. Each file holds one mapping or
// {"mappings": [...]}; files are read in path order, so a later mapping wins a tie of priority, as in
// WireMock. A mapping without an id gets one derived from its file and position, the same at every
// start. Any problem stops the start with the file, the JSON pointer and the rule.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseJsonAsWritten } from '../http/json.js';
import { type ReadContext, readMapping, type Stub } from './mapping.js';
import { MAX_MAPPINGS_PER_WORKSPACE } from './stub-set.js';

export class StubFolderError extends Error {
  override name = 'StubFolderError';
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return jsonFiles(path);
      return e.isFile() && e.name.toLowerCase().endsWith('.json') ? [path] : [];
    })
    .sort();
}

/** A UUID-shaped id from a file's path and a mapping's place in it: stable across starts. */
function stableId(file: string, index: number): string {
  const h = createHash('sha256').update(`${file}#${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16] ?? '0', 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** " at line L, column C" from the position JSON.parse names in its message ('' when it names none). */
function whereInText(source: string, message: string): string {
  const m = /at position (\d+)/.exec(message);
  if (!m) return message.includes('end of JSON input') ? ' at its end' : '';
  const before = source.slice(0, Number(m[1])).split('\n');
  return ` at line ${before.length}, column ${(before[before.length - 1] ?? '').length + 1}`;
}

/** Reads every mapping of the folder; throws StubFolderError naming every problem. */
export function readStubFolder(dir: string, context: Pick<ReadContext, 'operations' | 'interfaceOfPath'>): Stub[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new StubFolderError(`the stub folder ${dir} is not a folder`);
  const mappingsDir = existsSync(join(dir, 'mappings')) ? join(dir, 'mappings') : dir;
  const filesDir = join(dir, '__files');
  const stubs: Stub[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const path of jsonFiles(mappingsDir)) {
    if (path.startsWith(`${filesDir}/`)) continue;
    const file = relative(dir, path);
    let doc: unknown;
    // A byte order mark (editors on Windows write one) is read past, as WireMock's JSON reader does.
    const source = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
    try {
      // Numbers as written (1.10, 1E+2): a mapping sends and shows them so, and compares them by value (stub-set.ts stores them so too).
      doc = parseJsonAsWritten(source);
    } catch (err) {
      problems.push(`${file}: not JSON${whereInText(source, (err as Error).message)} (${(err as Error).message})`);
      continue;
    }
    const list =
      doc !== null && typeof doc === 'object' && !Array.isArray(doc) && Array.isArray((doc as { mappings?: unknown }).mappings)
        ? ((doc as { mappings: unknown[] }).mappings.map((m, i) => [m, `/mappings/${i}`, i]) as Array<[unknown, string, number]>)
        : ([[doc, '', 0]] as Array<[unknown, string, number]>);
    for (const [raw, at, index] of list) {
      const result = readMapping(raw, at, { ...context, source: 'folder', file, filesDir, newId: () => stableId(file, index) });
      if ('problems' in result) {
        for (const p of result.problems) problems.push(`${file}: ${p.path || '/'}: ${p.message}`);
        continue;
      }
      const other = seen.get(result.stub.id);
      if (other !== undefined) {
        problems.push(`${file}: ${at}/id: ${result.stub.id} is also the id of a mapping in ${other}`);
        continue;
      }
      seen.set(result.stub.id, file);
      stubs.push(result.stub);
    }
  }
  if (stubs.length > MAX_MAPPINGS_PER_WORKSPACE) {
    problems.push(`${mappingsDir}: holds ${stubs.length} mappings: at most ${MAX_MAPPINGS_PER_WORKSPACE}, the most a workspace holds (the folder's are in every one)`);
  }
  if (problems.length > 0) {
    throw new StubFolderError(`the stub folder ${dir} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n  ${problems.slice(0, 100).join('\n  ')}`);
  }
  return stubs;
}
