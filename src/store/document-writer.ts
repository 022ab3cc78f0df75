// Loan-bond files written, and their SHA-256 computed, on a worker thread. A registration streams in
// up to 750 MB of documents, read on the event loop (scanned, decoded, checked: upload.ts). Hashing
// them there as well (SHA-256 runs at about 1.5 GB/s with the CPU's SHA extensions, 36 ms for the
// 50 MiB of the 50 x 1 MiB bench row) and handing each write to libuv's thread pool kept the event
// loop busy the whole request while the other core sat mostly idle: the benchmark's client used about
// 15 ms of CPU per 67 MB request. One worker thread for the whole process hashes and writes the files
// instead, each in the order its bytes were decoded. The event loop copies a file's decoded bytes into
// a batch of BATCH_BYTES and transfers it to the worker (no second copy), which writes it, hashes it
// and transfers it back to be filled again (a pool of POOL_BUFFERS: no garbage per batch). What is
// waiting for the worker counts as the file's backlog, which the reader's back-pressure bounds.
//
// A file of at most INLINE_BYTES, whole in its first batch, is hashed and written on the main thread
// (IncomingFile in documents.ts): starting the thread (about 40 ms) would cost a small registration
// more than hashing it. The thread starts with the first larger file, outlives its last file by
// WRITER_LINGER_MS and never keeps the process alive. Should it end under a file (it has no reason
// to), that file fails with the cause, its request is refused as a fault of the sandbox, and the next
// file starts another thread. Tests make its writes fail as the file system would (failWrites).
import { Worker } from 'node:worker_threads';

/** How long the worker thread outlives the last open file (a burst of registrations reuses it). */
export const WRITER_LINGER_MS = 30_000;

/** Bytes sent to the worker at once: few messages, and a bounded amount of memory per file. */
export const BATCH_BYTES = 1024 * 1024;
/** A file at most this big, whole in its first batch, is hashed and written on the main thread (documents.ts). */
export const INLINE_BYTES = 256 * 1024;
/** Buffers kept for reuse once written (more are made when needed, and left to the collector). */
const POOL_BUFFERS = 16;

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, writeSync, closeSync, unlinkSync } = require('node:fs');
const { createHash } = require('node:crypto');
const files = new Map();
const fault = (e) => ({ message: String(e && e.message), code: e && e.code, syscall: e && e.syscall });
function opened(m) {
  let f = files.get(m.id);
  if (f) return f;
  f = { fd: -1, hash: createHash('sha256'), error: undefined };
  files.set(m.id, f);
  try { f.fd = openSync(m.path, 'wx'); } catch (e) { f.error = fault(e); }
  return f;
}
function close(f) {
  if (f.fd < 0) return undefined;
  const fd = f.fd;
  f.fd = -1;
  try { closeSync(fd); } catch (e) { return fault(e); }
  return undefined;
}
function finish(m, f) {
  files.delete(m.id);
  const error = f.error || close(f);
  return error ? { finished: true, error } : { finished: true, sha256: f.hash.digest('hex') };
}
parentPort.on('message', (m) => {
  if (m.op === 'write') {
    const f = opened(m);
    const bytes = new Uint8Array(m.buffer, 0, m.length);
    if (f.error === undefined) {
      try {
        if (m.fail) throw Object.assign(new Error(m.fail + ': injected, write'), { code: m.fail, syscall: 'write' });
        f.hash.update(bytes);
        for (let at = 0; at < bytes.length; ) at += writeSync(f.fd, bytes, at, bytes.length - at);
      } catch (e) { f.error = fault(e); }
    }
    // The buffer goes back to the main thread, which fills it again; a file's last batch closes it.
    const answer = { op: 'written', id: m.id, bytes: m.length, buffer: m.buffer, error: f.error };
    parentPort.postMessage(m.last ? { ...answer, ...finish(m, f) } : answer, [m.buffer]);
  } else if (m.op === 'finish') {
    parentPort.postMessage({ op: 'written', id: m.id, bytes: 0, ...finish(m, opened(m)) });
  } else if (m.op === 'abandon') {
    const f = files.get(m.file);
    files.delete(m.file);
    if (f) close(f);
    try { unlinkSync(m.path); } catch (e) { /* never made, or gone already */ }
    parentPort.postMessage({ op: 'abandoned', id: m.id });
  }
});
`;

/** A file system error as the worker saw it. */
interface Fault {
  message: string;
  code?: string;
  syscall?: string;
}

type Answer =
  | { op: 'written'; id: number; bytes: number; buffer?: ArrayBuffer; error?: Fault; finished?: true; sha256?: string }
  | { op: 'abandoned'; id: number };

/** What a file hears from the worker. */
export interface WriterClient {
  /** `bytes` more of the file are written, or could not be (`error`: nothing more of it is). */
  written(bytes: number, error: Error | undefined): void;
  /** The file is closed: its SHA-256, or why it could not be written whole. */
  finished(sha256: string | undefined, error: Error | undefined): void;
  /** The worker ended before it answered (`cause`). */
  ended(cause: Error): void;
}

/** The failure `failWrites` asks for, as the file system gives it (the worker's source builds the same). */
export function injectedWriteFault(code: string): Error {
  return asError({ message: `${code}: injected, write`, code, syscall: 'write' });
}

/** The error a fault stands for: its message and code, as the main thread's own fs calls give them. */
function asError(f: Fault): Error {
  const err: Error & { code?: string; syscall?: string } = new Error(f.message);
  if (f.code !== undefined) err.code = f.code;
  if (f.syscall !== undefined) err.syscall = f.syscall;
  return err;
}

class DocumentWriter {
  private worker: Worker | undefined;
  private linger: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly clients = new Map<number, WriterClient>();
  /** Buffers the worker gave back, to be filled again. */
  private readonly free: ArrayBuffer[] = [];
  /** Worker threads started since the process began (tests). */
  threadsStarted = 0;
  /**
   * Tests only: every write fails with this code (ENOSPC, EFBIG...) while it is set, as the file
   * system would fail it. Sent with each write, so it holds whatever thread takes the write.
   */
  failWrites: string | undefined;
  /** How long the thread outlives its last file (tests shorten it). */
  lingerMs = WRITER_LINGER_MS;

  register(client: WriterClient): number {
    const id = this.nextId++;
    this.clients.set(id, client);
    return id;
  }

  /** A buffer of BATCH_BYTES to fill with a file's bytes (one the worker gave back, when there is one). */
  buffer(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.free.pop() ?? new ArrayBuffer(BATCH_BYTES));
  }

  /** Gives back a buffer from buffer() that was not sent. */
  release(buffer: Uint8Array<ArrayBuffer>): void {
    if (this.free.length < POOL_BUFFERS) this.free.push(buffer.buffer);
  }

  /**
   * Sends the first `length` bytes of `buffer` (from buffer()) to be written: it is the worker's now.
   * `last`: the file's last bytes, the worker closes it after them (the client hears finished()).
   */
  write(id: number, path: string, buffer: Uint8Array<ArrayBuffer>, length: number, last: boolean): void {
    const message = { op: 'write', id, path, buffer: buffer.buffer, length, last, fail: this.failWrites };
    this.thread().postMessage(message, [buffer.buffer]);
  }

  /** Closes the file once what was sent is written (made empty if nothing was); the client hears finished(). */
  finish(id: number, path: string): void {
    this.thread().postMessage({ op: 'finish', id, path });
  }

  /**
   * Closes the file `id` if it is open and removes it. Resolves true once the worker did, false if
   * the worker ended first (the caller removes the file itself); never rejects.
   */
  abandon(id: number, path: string): Promise<boolean> {
    this.clients.delete(id);
    return new Promise((resolve) => {
      const answer = this.register({
        written: () => undefined,
        finished: () => resolve(true),
        ended: () => resolve(false),
      });
      this.thread().postMessage({ op: 'abandon', id: answer, file: id, path });
    });
  }

  /** Whether the worker thread runs now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Ends the thread now, as if it died (tests: its files fail with that cause). */
  async terminate(): Promise<void> {
    await this.worker?.terminate();
  }

  private thread(): Worker {
    if (this.linger) {
      clearTimeout(this.linger);
      this.linger = undefined;
    }
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    this.threadsStarted++;
    // Never what keeps the process alive: a request in flight does that.
    worker.unref();
    worker.on('message', (m: Answer) => this.answer(m));
    worker.on('error', () => undefined);
    worker.once('exit', (code) => {
      // A thread let go when idle (lingerIfIdle) had no files; its end, reported a few milliseconds
      // later, must not touch the files of a thread started meanwhile.
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Files it had open stay open (their descriptors belong to the process); none had a reason to.
      const cause = new Error(`the thread writing the documents ended (exit code ${code})`);
      const clients = [...this.clients.values()];
      this.clients.clear();
      for (const c of clients) c.ended(cause);
    });
    this.worker = worker;
    return worker;
  }

  private answer(m: Answer): void {
    const client = this.clients.get(m.id);
    if (m.op === 'abandoned') {
      this.clients.delete(m.id);
      client?.finished(undefined, undefined);
    } else {
      if (m.buffer && this.free.length < POOL_BUFFERS) this.free.push(m.buffer);
      const error = m.error && asError(m.error);
      client?.written(m.bytes, error);
      if (m.finished) {
        this.clients.delete(m.id);
        client?.finished(m.sha256, error);
      }
    }
    if (this.clients.size === 0) this.lingerIfIdle();
  }

  private lingerIfIdle(): void {
    if (!this.worker || this.linger) return;
    this.linger = setTimeout(() => {
      this.linger = undefined;
      if (!this.worker || this.clients.size > 0) return;
      const worker = this.worker;
      this.worker = undefined;
      void worker.terminate();
    }, this.lingerMs);
    this.linger.unref();
  }
}

/** The process's one writer. */
export const documentWriter = new DocumentWriter();
