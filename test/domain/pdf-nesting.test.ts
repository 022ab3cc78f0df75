// A file may nest as deep as its bytes allow: 15 MB of "[" or "<<" is 15 or 7.5 million containers.
// The reader of rule 3 kept an object per open container, about 1.9 GB for such a file on the
// thread that checks every registration's files; three at once ended the process. It keeps only the
// outermost containers' details now, and the kinds of the others one bit each (domain/kind-stack.ts):
// a process whose heap is capped far below the old cost reads such files whole and judges them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The built reader (test/global-setup.ts builds dist/ first), run in a process with `heapMiB` of heap. */
function judgeInCappedHeap(body: string, heapMiB: number): { status: number | null; out: string; err: string } {
  const pdf = pathToFileURL(join(process.cwd(), 'dist/domain/pdf.js')).href;
  const script = `
    import { checkPdf, MAX_FILE_BYTES } from ${JSON.stringify(pdf)};
    const head = Buffer.from('%PDF-1.7\\n1 0 obj\\n', 'latin1');
    const tail = Buffer.from('\\nendobj\\ntrailer\\n<< /Root 1 0 R >>\\n%%EOF\\n', 'latin1');
    const unit = Buffer.from(${JSON.stringify(body)}, 'latin1');
    const file = Buffer.alloc(MAX_FILE_BYTES);
    head.copy(file);
    file.fill(unit, head.length, MAX_FILE_BYTES - tail.length);
    tail.copy(file, MAX_FILE_BYTES - tail.length);
    const verdict = checkPdf(file, MAX_FILE_BYTES);
    process.stdout.write(JSON.stringify(verdict));
  `;
  const run = spawnSync(process.execPath, [`--max-old-space-size=${heapMiB}`, '--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout, err: run.stderr.slice(0, 400) };
}

describe('rule 3 on a file of 15 000 000 bytes nested as deep as it can be, in bounded memory', () => {
  it.each([
    ['arrays', '['],
    ['dictionaries', '<<'],
    ['both', '[<<'],
  ])('%s: judged whole (not encrypted) with a heap of 64 MiB', (_name, unit) => {
    const run = judgeInCappedHeap(unit, 64);
    expect(run.err).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ ok: true });
  });
});
