// Loan-bond files written around the page cache (src/store/document-worker.ts): past
// documentWriter.directAfter bytes, a file is written with O_DIRECT where the file system takes it,
// whole blocks from an aligned buffer, the rest carried to the next batch, the last block padded and
// the file cut to its size. The stored file must be the document byte for byte wherever the switch,
// the blocks and the batches fall; and the kernel, not the sandbox, says how the file is open: its
// descriptor's flags in /proc/self/fdinfo (the worker's descriptors are the process's).
import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_BYTES, DIRECT_AFTER_BYTES, documentWriter, INLINE_BYTES, type RefuseDirect } from '../../src/store/document-writer.js';
import { IncomingFile } from '../../src/store/documents.js';
import { noise, tempFolder, until } from '../helpers.js';

const O_DIRECT = (constants as { O_DIRECT?: number }).O_DIRECT;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The flags of the process's descriptor open on `path` (octal in fdinfo), or undefined if none is. */
function openFlags(path: string): number | undefined {
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== path) continue;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
    if (flags !== undefined) return Number.parseInt(flags, 8);
  }
  return undefined;
}

/**
 * O_DIRECT's bit when the folder's file system takes direct writes, else 0: the kernel says, opening a
 * file there with it (a tmpfs of a kernel before 6.6 refuses, and the sandbox then writes through the cache).
 */
function directBit(folder: string): number {
  if (O_DIRECT === undefined) return 0;
  try {
    closeSync(openSync(join(folder, 'probe'), constants.O_WRONLY | constants.O_CREAT | O_DIRECT));
    return O_DIRECT;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EINVAL') return 0;
    throw e;
  }
}

afterEach(() => {
  documentWriter.directAfter = DIRECT_AFTER_BYTES;
  documentWriter.refuseDirect = undefined;
});

describe('files written around the page cache', () => {
  it('stores each file byte for byte wherever the switch, the blocks and the batches fall', async () => {
    const folder = realpathSync(tempFolder('direct-writes-'));
    const sizes = [INLINE_BYTES + 1, BATCH_BYTES, BATCH_BYTES + 1, 2 * BATCH_BYTES + 4095, 3 * BATCH_BYTES + 4096, 5 * BATCH_BYTES - 1];
    // From the first byte, past a block and a byte, in the middle of the second batch, the default (the first batch).
    const switches = [0, 4097, BATCH_BYTES + 100, DIRECT_AFTER_BYTES];
    let n = 0;
    for (const directAfter of switches) {
      documentWriter.directAfter = directAfter;
      for (const size of sizes) {
        for (const piece of [65_536, 70_001]) {
          const bytes = noise(size, ++n);
          const path = join(folder, `f${n}`);
          const file = new IncomingFile(path);
          for (let at = 0; at < size; at += piece) file.write(bytes.subarray(at, at + piece));
          const end = await file.finish();
          const label = `${size} bytes in pieces of ${piece}, direct after ${directAfter}`;
          expect(end.sha256, label).toBe(sha256(bytes));
          const stored = readFileSync(path);
          expect(stored.length, label).toBe(size);
          expect(stored.equals(bytes), label).toBe(true);
        }
      }
    }
  });

  it('opens the file with O_DIRECT once past the switch, and never when it is off or not reached', async () => {
    const folder = realpathSync(tempFolder('direct-writes-'));
    // Linux has O_DIRECT (CI's machines); elsewhere every file goes through the cache.
    expect(process.platform !== 'linux' || O_DIRECT !== undefined).toBe(true);
    const on = directBit(folder);
    expect(await flagsAfterThreeBatches(folder, 'from-the-start', 0)).toBe(on);
    expect(await flagsAfterThreeBatches(folder, 'after-a-block-and-a-byte', 4097)).toBe(on);
    expect(await flagsAfterThreeBatches(folder, 'in-the-second-batch', BATCH_BYTES + 100)).toBe(on);
    expect(await flagsAfterThreeBatches(folder, 'the-default', DIRECT_AFTER_BYTES)).toBe(on);
    expect(await flagsAfterThreeBatches(folder, 'not-reached', 4 * BATCH_BYTES)).toBe(0);
    expect(await flagsAfterThreeBatches(folder, 'turned-off', undefined)).toBe(0);
  });

  it('goes on through the cache, byte for byte, when the file system refuses direct writes: at the switch, in the middle, at the last block', async () => {
    const folder = realpathSync(tempFolder('direct-writes-'));
    const on = directBit(folder);
    // Opening for direct writes refused: from the start, and past a block and a byte.
    expect(await flagsAfterThreeBatches(folder, 'open-refused', 0, 'open')).toBe(0);
    expect(await flagsAfterThreeBatches(folder, 'open-refused-later', 4097, 'open')).toBe(0);
    // The first direct write refused; the second (the third batch, the switch in the second).
    expect(await flagsAfterThreeBatches(folder, 'first-refused', 0, 0)).toBe(0);
    expect(await flagsAfterThreeBatches(folder, 'second-refused', BATCH_BYTES + 100, 1)).toBe(0);
    // Three batches written directly, the padded last block refused once the file ends.
    expect(await flagsAfterThreeBatches(folder, 'last-block-refused', 0, 3)).toBe(on);
  });
});

/**
 * Writes a file of three batches and 17 bytes, and says how it is open (its O_DIRECT bit) once three
 * whole batches are written and before its end; then checks it is stored byte for byte.
 */
async function flagsAfterThreeBatches(folder: string, name: string, directAfter: number | undefined, refuse?: RefuseDirect): Promise<number> {
  documentWriter.directAfter = directAfter;
  documentWriter.refuseDirect = refuse;
  const path = join(folder, name);
  const bytes = noise(3 * BATCH_BYTES + 17, name.length);
  const file = new IncomingFile(path);
  file.write(bytes.subarray(0, 3 * BATCH_BYTES));
  await until('the three batches written', () => file.backlog === 0);
  const flags = openFlags(path);
  file.write(bytes.subarray(3 * BATCH_BYTES));
  expect((await file.finish()).sha256, name).toBe(sha256(bytes));
  const stored = readFileSync(path);
  expect(stored.length, name).toBe(bytes.length);
  expect(stored.equals(bytes), name).toBe(true);
  expect(flags, `${name}: the file is open while it is written`).toBeDefined();
  return (flags ?? 0) & (O_DIRECT ?? 0);
}
