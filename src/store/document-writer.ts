// Loan-bond files checked, hashed and written on a worker thread. A registration streams in up to
// 750 MB of documents, read on the event loop (scanned and decoded: loanbond/upload.ts). Checking
// them there as well (the PDF structure reader of rules 3-4, about 0.35 s for 50 files of 15 MB),
// hashing them (SHA-256 runs at about 1.5 GB/s with the CPU's SHA extensions, 36 ms for the 50 MiB
// of the 50 x 1 MiB bench row) and handing each write to libuv's thread pool kept the event loop busy
// the whole request while the other core sat mostly idle: the benchmark's client used about 15 ms of
// CPU per 67 MB request. One worker thread for the whole process (document-worker.ts) checks, hashes
// and writes the files instead, each in the order its bytes were decoded. The event loop copies a
// file's decoded bytes into a batch of BATCH_BYTES and transfers it to the worker (no second copy),
// which checks, hashes and writes it and transfers it back to be filled again (a pool of
// POOL_BUFFERS: no garbage per batch). What is waiting for the worker counts as the file's backlog,
// which the reader's back-pressure bounds. The verdict comes back with the file's last batch; a
// verdict known before (no header) comes back with the batch that decided it.
//
// A file of at most INLINE_BYTES, whole in its first batch, is checked, hashed and written on the main
// thread (IncomingFile in documents.ts): starting the thread (40-60 ms) would cost a small
// registration more than that work. The thread starts with the first larger file, outlives its last
// file by WRITER_LINGER_MS and never keeps the process alive. Should it end under a file (it has no
// reason to), that file fails with the cause, its request is refused as a fault of the sandbox, and
// the next file starts another thread. Tests make its writes fail as the file system would (failWrites).
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { PdfCheck } from '../domain/pdf.js';
import { type Fault, injectedFault } from './write-fault.js';

/** How long the worker thread outlives the last open file (a burst of registrations reuses it). */
export const WRITER_LINGER_MS = 30_000;

/** Bytes sent to the worker at once: few messages, and a bounded amount of memory per file. */
export const BATCH_BYTES = 1024 * 1024;
/** A file at most this big, whole in its first batch, is checked, hashed and written on the main thread (documents.ts). */
export const INLINE_BYTES = 256 * 1024;
/**
 * Past this many bytes (a file's first batch) a file is written around the page cache (O_DIRECT) where
 * the file system takes it (document-worker.ts says why). Up to it, through the cache: a small file's
 * pages come from memory just freed, and its write returns without waiting for the disk; written
 * directly, the bench's 50 x 1 MiB registration took 240-250 ms against 185-190 (docs/benchmarks.md).
 */
export const DIRECT_AFTER_BYTES = BATCH_BYTES;
/** Buffers kept for reuse once written (more are made when needed, and left to the collector). */
const POOL_BUFFERS = 16;

/**
 * The worker's module: beside this one when compiled (dist/store/, the library), under store/ beside
 * the one-file server (dist/server.js). Run from the sources (the tests), this module is TypeScript
 * Node cannot start as a thread: the compiled one in dist/, which the tests build first
 * (test/global-setup.ts), is taken.
 */
function workerModule(): URL {
  const candidates = ['./document-worker.js', './store/document-worker.js', '../../dist/store/document-worker.js'];
  for (const c of candidates) {
    const url = new URL(c, import.meta.url);
    if (existsSync(url)) return url;
  }
  throw new Error(`the document writer's module was not found beside ${import.meta.url} (npm run build makes it)`);
}

/**
 * What the worker is told about a file with each message: where it goes, whether it is still to be
 * stored (once not, the worker closes and removes what it wrote, and only checks the rest), and
 * whether its bytes are checked as a PDF (rules 3-5: domain/pdf.ts) and up to what size.
 */
export interface FileFacts {
  id: number;
  path: string;
  store: boolean;
  check: number | undefined;
}

/**
 * Tests only: the file system refuses direct writes (EINVAL) when opening a file for them ('open'),
 * or each direct write after the first n of a file (n), as one whose blocks the sandbox misjudged would.
 */
export type RefuseDirect = 'open' | number | undefined;

/** Messages to the worker (document-worker.ts). */
export type Order =
  | (FileFacts & { op: 'write'; buffer: ArrayBuffer; length: number; last: boolean; fail: string | undefined; directAfter: number | undefined; refuseDirect: RefuseDirect })
  | (FileFacts & { op: 'finish' })
  | { op: 'abandon'; id: number; file: number; path: string };

/** Messages from the worker. */
export type Answer =
  | {
      op: 'written';
      id: number;
      bytes: number;
      buffer?: ArrayBuffer;
      error?: Fault;
      /** The check found the file broke a rule before its end (no header): send no more of it. */
      failed?: boolean;
      finished?: true;
      sha256?: string;
      verdict?: PdfCheck;
    }
  | { op: 'abandoned'; id: number };

/** How a file ended: its SHA-256 if it was stored, its check's verdict if it was checked. */
export interface FileEnd {
  sha256?: string | undefined;
  verdict?: PdfCheck | undefined;
}

/** What a file hears from the worker. */
export interface WriterClient {
  /** `bytes` more of the file are written (and checked), or could not be (`error`: nothing more of it is). */
  written(bytes: number, error: Error | undefined, failed: boolean): void;
  /**
   * The file is closed: its SHA-256 (when it was stored) and its check's verdict (when it was
   * checked), or why it could not be written whole.
   */
  finished(end: FileEnd, error: Error | undefined): void;
  /** The worker ended before it answered (`cause`). */
  ended(cause: Error): void;
}

/** The failure `failWrites` asks for, as the file system gives it (the worker builds the same). */
export function injectedWriteFault(code: string): Error {
  return asError(injectedFault(code));
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
  /** Past this many bytes a file is written around the page cache (DIRECT_AFTER_BYTES); undefined: never (--no-direct-writes). */
  directAfter: number | undefined = DIRECT_AFTER_BYTES;
  /** Tests only: direct writes refused as a file system would (RefuseDirect). */
  refuseDirect: RefuseDirect;

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
  write(file: FileFacts, buffer: Uint8Array<ArrayBuffer>, length: number, last: boolean): void {
    const message: Order = { op: 'write', ...file, buffer: buffer.buffer, length, last, fail: this.failWrites, directAfter: this.directAfter, refuseDirect: this.refuseDirect };
    this.thread().postMessage(message, [buffer.buffer]);
  }

  /** Closes the file once what was sent is written (made empty if nothing was and it is stored); the client hears finished(). */
  finish(file: FileFacts): void {
    this.post({ op: 'finish', ...file });
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
      this.post({ op: 'abandon', id: answer, file: id, path });
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

  private post(order: Order): void {
    this.thread().postMessage(order);
  }

  private thread(): Worker {
    if (this.linger) {
      clearTimeout(this.linger);
      this.linger = undefined;
    }
    if (this.worker) return this.worker;
    const worker = new Worker(workerModule());
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
      client?.finished({}, undefined);
    } else {
      if (m.buffer && this.free.length < POOL_BUFFERS) this.free.push(m.buffer);
      const error = m.error && asError(m.error);
      client?.written(m.bytes, error, m.failed === true);
      if (m.finished) {
        this.clients.delete(m.id);
        client?.finished({ sha256: m.sha256, verdict: m.verdict }, error);
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
