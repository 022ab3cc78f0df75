// The document writer's thread (started by document-writer.ts, which says why there is one): for
// each file, in the order its bytes were decoded, the check of rules 3-5 (domain/pdf.ts: the file's
// header, container and structure, read as they arrive), its SHA-256 and its writing. A file that is
// no longer to be stored (its request will be refused) is closed and removed at once, and only
// checked from then on: the refusal names every file's problem. A file whose check failed early is
// said so in the answer, so the main thread sends no more of it.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { PdfFileCheck } from '../domain/pdf.js';
import type { Answer, Order } from './document-writer.js';
import { type Fault, faultOf, injectedFault } from './write-fault.js';

interface OpenFile {
  path: string;
  /** Its descriptor, once made (-1 before, and once closed). */
  fd: number;
  /** Made on disk (so removed if it stops being stored). */
  made: boolean;
  storing: boolean;
  hash: Hash | undefined;
  check: PdfFileCheck | undefined;
  error: Fault | undefined;
}

const files = new Map<number, OpenFile>();

type FileOrder = Extract<Order, { op: 'write' | 'finish' }>;

function fileOf(m: FileOrder): OpenFile {
  let f = files.get(m.id);
  if (f === undefined) {
    f = {
      path: m.path,
      fd: -1,
      made: false,
      storing: m.store,
      hash: m.store ? createHash('sha256') : undefined,
      check: m.check === undefined ? undefined : new PdfFileCheck(m.check),
      error: undefined,
    };
    files.set(m.id, f);
  }
  if (f.storing && !m.store) stopStoring(f);
  return f;
}

function open(f: OpenFile): void {
  if (f.fd >= 0 || f.error !== undefined) return;
  try {
    f.fd = openSync(f.path, 'wx');
    f.made = true;
  } catch (e) {
    f.error = faultOf(e);
  }
}

function close(f: OpenFile): Fault | undefined {
  if (f.fd < 0) return undefined;
  const fd = f.fd;
  f.fd = -1;
  try {
    closeSync(fd);
  } catch (e) {
    return faultOf(e);
  }
  return undefined;
}

/** Nothing more of it is written; what was is removed. */
function stopStoring(f: OpenFile): void {
  f.storing = false;
  f.hash = undefined;
  close(f);
  if (f.made) remove(f.path);
}

function remove(path: string): void {
  if (path === '') return;
  try {
    unlinkSync(path);
  } catch {
    // Never made, or gone already.
  }
}

function write(f: OpenFile, bytes: Uint8Array, fail: string | undefined): void {
  if (!f.storing || f.error !== undefined) return;
  open(f);
  if (f.error !== undefined) return;
  try {
    if (fail !== undefined) throw injectedFault(fail);
    f.hash?.update(bytes);
    for (let at = 0; at < bytes.length; ) at += writeSync(f.fd, bytes, at, bytes.length - at);
  } catch (e) {
    f.error = faultOf(e);
  }
}

function finish(id: number, f: OpenFile): Pick<Extract<Answer, { op: 'written' }>, 'finished' | 'error' | 'sha256' | 'verdict'> {
  files.delete(id);
  // A stored file nothing was sent for is made empty.
  if (f.storing) open(f);
  const error = f.error ?? close(f);
  const verdict = f.check?.result();
  if (error !== undefined) return { finished: true, error, verdict };
  return { finished: true, sha256: f.hash?.digest('hex'), verdict };
}

function answer(m: Order): void {
  const port = parentPort;
  if (port === null) return;
  if (m.op === 'write') {
    const f = fileOf(m);
    const bytes = new Uint8Array(m.buffer, 0, m.length);
    f.check?.push(bytes);
    write(f, bytes, m.fail);
    // The buffer goes back to the main thread, which fills it again; a file's last batch closes it.
    const written: Answer = { op: 'written', id: m.id, bytes: m.length, buffer: m.buffer, error: f.error, failed: f.check?.failed !== undefined };
    port.postMessage(m.last ? { ...written, ...finish(m.id, f) } : written, [m.buffer]);
  } else if (m.op === 'finish') {
    port.postMessage({ op: 'written', id: m.id, bytes: 0, ...finish(m.id, fileOf(m)) } satisfies Answer);
  } else {
    const f = files.get(m.file);
    files.delete(m.file);
    if (f !== undefined) close(f);
    remove(m.path);
    port.postMessage({ op: 'abandoned', id: m.id } satisfies Answer);
  }
}

parentPort?.on('message', answer);
