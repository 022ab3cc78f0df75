// The document writer's thread (started by document-writer.ts, which says why there is one): for
// each file, in the order its bytes were decoded, the check of rules 3-5 (domain/pdf.ts: the file's
// header, container and structure, read as they arrive), its SHA-256 and its writing. A file that is
// no longer to be stored (its request will be refused) is closed and removed at once, and only
// checked from then on: the refusal names every file's problem. A file whose check failed early is
// said so in the answer, so the main thread sends no more of it.
//
// A file's bytes past its first MiB (documentWriter.directAfter) are written around the page cache
// (O_DIRECT) where the system has it and the file system takes it: they are written once and seldom
// read, and on a virtual machine whose free memory goes back to its host (this project's machines)
// every page the cache takes anew is a fault on the host: 715 MB written through the cache cost 2.3-3.2 s
// of system time against 0.15 s written directly (docs/benchmarks.md). A direct write must start and
// end on a block boundary and come from aligned memory: each batch is copied into a buffer aligned to a
// page (a WebAssembly memory's, which V8 maps whole pages for), the whole blocks written and the rest
// carried over to the next batch; the file's last block is written padded with zeros and the file cut
// to its size. Where the system has no O_DIRECT (macOS), the file system refuses it (EINVAL), or
// --no-direct-writes is given, the file is written through the cache.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { PdfFileCheck } from '../domain/pdf.js';
import type { Answer, Order, RefuseDirect } from './document-writer.js';
import { type Fault, faultOf, injectedFault } from './write-fault.js';

interface OpenFile {
  path: string;
  /** Its descriptor, once made (-1 before, and once closed). */
  fd: number;
  /** Written around the page cache (O_DIRECT) now: whole blocks only, from the aligned buffer. */
  direct: boolean;
  /** Past this many bytes it goes direct (undefined: never, or it went already). */
  directAfter: number | undefined;
  /** Tests: direct writes refused (documentWriter.refuseDirect), and how many were made. */
  refuseDirect: RefuseDirect;
  directWrites: number;
  /** Bytes on disk: where the next write goes. */
  size: number;
  /** The bytes after the last whole block, waiting for the next batch (direct only). */
  carry: Uint8Array | undefined;
  carried: number;
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
      direct: false,
      directAfter: m.op === 'write' && DIRECT !== undefined ? m.directAfter : undefined,
      refuseDirect: m.op === 'write' ? m.refuseDirect : undefined,
      directWrites: 0,
      size: 0,
      carry: undefined,
      carried: 0,
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

// The one part of WebAssembly used here (the project's TypeScript libraries do not declare it).
declare const WebAssembly: { Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer } };

/** O_DIRECT, where the system has it (Linux). */
const DIRECT: number | undefined = (constants as { O_DIRECT?: number }).O_DIRECT;
/** What a direct write's position, length and memory are multiples of: a page, which every block size up to 4 KiB divides. */
const ALIGN = 4096;
/** The aligned buffer's usual size: a batch (BATCH_BYTES in document-writer.ts, 1 MiB) and a carried block, in 64 KiB pages. */
const STAGING_BYTES = 17 * 65536;
/** Where each batch (with the block carried before it) is copied to be written directly, aligned to a page. */
let staging: Uint8Array | undefined;

/** The aligned buffer, at least `size` bytes: made once per thread, as a batch and a block always fit it. */
function stagingBuffer(size: number): Uint8Array {
  // A WebAssembly memory is whole 64 KiB pages mapped for it, so its first byte is page-aligned.
  if (staging === undefined || staging.length < size)
    staging = new Uint8Array(new WebAssembly.Memory({ initial: Math.ceil(Math.max(size, STAGING_BYTES) / 65536) }).buffer);
  return staging;
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

/** The refusal documentWriter.refuseDirect asks for (tests), as the file system gives it. */
function refused(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EINVAL: invalid argument, ${syscall} (injected)`), { code: 'EINVAL', syscall });
}

/** From here on the file is written directly, if the file system takes it (else through the cache, as so far). */
function goDirect(f: OpenFile): void {
  f.directAfter = undefined;
  if (DIRECT === undefined) return;
  let fd: number;
  try {
    if (f.refuseDirect === 'open') throw refused('open');
    fd = openSync(f.path, constants.O_WRONLY | DIRECT);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EINVAL') return;
    throw e;
  }
  const buffered = f.fd;
  f.fd = fd;
  f.direct = true;
  closeSync(buffered);
}

/** Writes `from`-`to` of `bytes` at the file's end, through the page cache. */
function writeAt(f: OpenFile, bytes: Uint8Array, from: number, to: number): void {
  for (let at = from; at < to; ) {
    const n = writeSync(f.fd, bytes, at, to - at, f.size);
    at += n;
    f.size += n;
  }
}

/**
 * Writes the staging buffer's first `blocks` bytes (whole blocks) directly. If the file system refuses
 * (EINVAL: a block size above ALIGN, say), the file is opened again through the page cache and goes on
 * that way, starting with the staged bytes not yet written, up to `data`.
 */
function writeStaged(f: OpenFile, blocks: number, data: number): void {
  const buffer = stagingBuffer(data);
  let at = 0;
  try {
    while (at < blocks) {
      if (typeof f.refuseDirect === 'number' && f.directWrites++ >= f.refuseDirect) throw refused('write');
      const n = writeSync(f.fd, buffer, at, blocks - at, f.size);
      at += n;
      f.size += n;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw e;
    closeSync(f.fd);
    f.fd = -1;
    f.direct = false;
    f.fd = openSync(f.path, 'r+');
    writeAt(f, buffer, at, data);
  }
}

/** A batch written directly: whole blocks now, the rest carried to the next batch (or the file's end). */
function writeDirect(f: OpenFile, bytes: Uint8Array): void {
  const filled = f.carried + bytes.length;
  const buffer = stagingBuffer(filled);
  if (f.carried > 0 && f.carry !== undefined) buffer.set(f.carry.subarray(0, f.carried));
  buffer.set(bytes, f.carried);
  const whole = filled - (filled % ALIGN);
  f.carried = 0;
  writeStaged(f, whole, filled);
  // Opened again through the cache: every staged byte went that way.
  if (!f.direct) return;
  f.carry ??= new Uint8Array(ALIGN);
  f.carry.set(buffer.subarray(whole, filled));
  f.carried = filled - whole;
}

/** The file's last bytes, carried: a block padded with zeros, and the file cut to its size. */
function writeCarried(f: OpenFile): void {
  if (f.carried === 0 || f.carry === undefined) return;
  const buffer = stagingBuffer(ALIGN);
  const end = f.size + f.carried;
  buffer.set(f.carry.subarray(0, f.carried));
  buffer.fill(0, f.carried, ALIGN);
  writeStaged(f, ALIGN, f.carried);
  f.carried = 0;
  if (f.size === end) return;
  f.size = end;
  ftruncateSync(f.fd, end);
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
    if (f.direct) writeDirect(f, bytes);
    else if (f.directAfter !== undefined && f.size + bytes.length > f.directAfter) {
      // The bytes up to the first block boundary at or past directAfter through the cache, the rest directly.
      const head = Math.ceil(Math.max(f.directAfter, f.size) / ALIGN) * ALIGN - f.size;
      writeAt(f, bytes, 0, Math.min(head, bytes.length));
      if (head < bytes.length) {
        goDirect(f);
        if (f.direct) writeDirect(f, bytes.subarray(head));
        else writeAt(f, bytes, head, bytes.length);
      }
    } else writeAt(f, bytes, 0, bytes.length);
  } catch (e) {
    f.error = faultOf(e);
  }
}

function finish(id: number, f: OpenFile): Pick<Extract<Answer, { op: 'written' }>, 'finished' | 'error' | 'sha256' | 'verdict'> {
  files.delete(id);
  // A stored file nothing was sent for is made empty.
  if (f.storing) open(f);
  if (f.storing && f.error === undefined && f.direct) {
    try {
      writeCarried(f);
    } catch (e) {
      f.error = faultOf(e);
    }
  }
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
