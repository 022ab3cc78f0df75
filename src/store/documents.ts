// Loan-bond files kept out of the JavaScript heap and out of SQLite: one file per distinct content,
// named by its SHA-256 and size, in a folder beside the database (`<db>-documents/`; for :memory:, a
// temporary folder removed when the state closes or the process exits, or by the next process if
// this one was killed: temporaryRoot). lb_documents rows refer to them. A file arrives as an
// IncomingFile (written while the request streams in), becomes a stored file only inside the
// transaction that inserts its row (adopt, a rename), and is removed once no row refers to it: not
// the current state's, not any snapshot's (sweep, after a reset, a restore, a snapshot dropped, a
// failed transaction, and at open for what a crash left behind).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPdf } from '../domain/pdf.js';
import { type Db, holdFileLock, isInMemoryPath } from './db.js';
import { documentWriter, type FileEnd, type FileFacts, INLINE_BYTES, injectedWriteFault, type WriterClient } from './document-writer.js';

export interface DocumentKey {
  sha256: string;
  size: number;
}

const INCOMING = '.incoming-';

/** The folder of a database file's documents. */
export function documentsDir(dbPath: string): string {
  return `${dbPath}-documents`;
}

export function documentFileName(key: DocumentKey): string {
  return `${key.sha256}-${key.size}.pdf`;
}

/**
 * The temp folder of this process: `tradebill-sandbox-<random>/` under the system's temp folder, with
 * a folder per in-memory state that stored a file. The process holds `<folder>/.lock` while it lives
 * (holdFileLock), so a folder whose lock can be taken was left by a process that is gone, however it
 * ended (SIGKILL runs no exit handler): the first in-memory state of the next process removes it. A
 * lock, not a process id: a process in another PID namespace (a container sharing the folder) may
 * have any id. The folder is made under another name and renamed once locked, so a folder found
 * under its own name always has a lock to try.
 */
const ROOT_PREFIX = 'tradebill-sandbox-';
const STAGING_PREFIX = '.tradebill-sandbox-new-';
const LOCK = '.lock';
/** A staging folder older than this was left by a process that died between making and renaming it. */
const STAGING_STALE_MS = 60_000;
let root: { path: string; lock: Db } | undefined;
let swept = false;

function temporaryRoot(): string {
  if (root) return root.path;
  const base = tmpdir();
  for (;;) {
    const staging = mkdtempSync(join(base, STAGING_PREFIX));
    const lock = holdFileLock(join(staging, LOCK));
    if (lock === undefined) throw new Error(`the new folder ${staging} was locked by another process`);
    const path = join(base, ROOT_PREFIX + staging.slice(join(base, STAGING_PREFIX).length));
    try {
      renameSync(staging, path);
    } catch (err) {
      lock.close();
      rmSync(staging, { recursive: true, force: true });
      // Another process's folder has that name (random, so a rare coincidence): another name.
      if ((err as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    root = { path, lock };
    process.once('exit', () => rmSync(path, { recursive: true, force: true }));
    return path;
  }
}

/** Removes, once per process, the temp folders of processes that are gone (see temporaryRoot). */
function sweepTemporaryRoots(): void {
  if (swept) return;
  swept = true;
  const base = tmpdir();
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(base, name);
    try {
      if (name.startsWith(STAGING_PREFIX)) {
        if (Date.now() - statSync(path).mtimeMs > STAGING_STALE_MS) rmSync(path, { recursive: true, force: true });
        continue;
      }
      // This process's own folder is made after this sweep, never found by it.
      if (!name.startsWith(ROOT_PREFIX)) continue;
      // No lock file: not one of these folders (an older sandbox's, or someone else's): left alone.
      const lock = holdFileLock(join(path, LOCK), false);
      if (lock === undefined) continue;
      lock.close();
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process removing it at the same time, or a folder not ours to read: left as it is.
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface IncomingOptions {
  /** Checked as a PDF (rules 3-5: domain/pdf.ts) up to this size, on the thread that writes it. */
  check?: number;
  /** False: only checked, never written (its request will be refused). */
  store?: boolean;
}

/**
 * A file being checked and written while its request streams in, by the process's document writer
 * (a worker thread: document-writer.ts), which also computes its SHA-256. Writes are gathered into
 * batches; `backlog` says how many bytes wait, so that the reader can pause the request until they
 * are written. Once it is not to be stored (stopStoring) it is only checked: what was written goes.
 */
export class IncomingFile implements WriterClient {
  /** Its number with the writer, once something was sent (registered then: a file never sent costs nothing). */
  private id: number | undefined;
  /** The batch being filled, and how much of it is. */
  private batch: Uint8Array<ArrayBuffer> | undefined;
  private filled = 0;
  private inFlight = 0;
  private error: Error | undefined;
  private closed = false;
  private storing: boolean;
  private readonly check: number | undefined;
  /** The check found a broken rule before the end: nothing more needs sending. */
  private checkFailed = false;
  /** Written from the main thread (writeInline): the file may exist without the writer knowing it. */
  private inline = false;
  /** The worker closed the file (finished, or it ended): removing it is the main thread's. */
  private closedByWriter = false;
  /** Renamed to a stored file's name (DocumentFiles.adopt): no longer this incoming file's to remove. */
  adopted = false;
  private waiters: Array<() => void> = [];
  private finishing: { resolve: (end: FileEnd) => void; reject: (err: Error) => void } | undefined;

  constructor(
    readonly path: string,
    options: IncomingOptions = {},
  ) {
    this.storing = options.store ?? true;
    this.check = options.check;
  }

  /** Bytes accepted but not yet written. */
  get backlog(): number {
    return this.filled + this.inFlight;
  }

  /** The check found, before the end, that the file breaks a rule (the verdict says which). */
  get failedEarly(): boolean {
    return this.checkFailed;
  }

  write(bytes: Buffer): void {
    if (this.closed) throw new Error('write after the incoming file was closed');
    // A file that failed is neither written nor checked any more: its request is refused for that.
    if (this.error !== undefined) return;
    for (let at = 0; at < bytes.length; ) {
      const batch = (this.batch ??= documentWriter.buffer());
      const n = Math.min(bytes.length - at, batch.length - this.filled);
      batch.set(n === bytes.length ? bytes : bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === batch.length) this.flush();
    }
  }

  /** Nothing more of it is written, and what was goes; it is still checked. */
  stopStoring(): void {
    this.storing = false;
  }

  /** Why a write (or the opening) failed, once one did: nothing more is written then. */
  get failure(): unknown {
    return this.error;
  }

  /** Resolves once what was accepted so far is written (rejects if a write failed). */
  async drained(): Promise<void> {
    this.flush();
    while (this.inFlight > 0 && this.error === undefined) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.error !== undefined) throw this.error;
  }

  /** Writes (or checks) what is left and closes the file; resolves with its SHA-256 and its verdict. */
  finish(): Promise<FileEnd> {
    this.closed = true;
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.id === undefined && this.filled <= INLINE_BYTES) return this.writeInline();
    return new Promise((resolve, reject) => {
      this.finishing = { resolve, reject };
      if (this.filled > 0) this.flush(true);
      else documentWriter.finish(this.facts());
    });
  }

  /** Closes and removes the file (nothing of it stays, unless it became a stored file); never rejects. */
  async abandon(): Promise<void> {
    this.closed = true;
    if (this.batch) documentWriter.release(this.batch);
    this.batch = undefined;
    this.filled = 0;
    if (this.adopted) return;
    if (this.id !== undefined && !this.closedByWriter) {
      // Maybe still open in the worker: it closes the file (its descriptor would stay open otherwise) and removes it.
      if (await documentWriter.abandon(this.id, this.path)) return;
    } else if (this.id === undefined && !this.inline) {
      // Nothing was ever sent nor written: no file was made.
      return;
    }
    if (this.path !== '') await unlink(this.path).catch(() => undefined);
  }

  written(bytes: number, error: Error | undefined, failed: boolean): void {
    this.inFlight -= bytes;
    if (failed) this.checkFailed = true;
    if (error !== undefined) this.error ??= error;
    if (this.inFlight <= 0 || this.error !== undefined) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  finished(end: FileEnd, error: Error | undefined): void {
    this.closedByWriter = true;
    const f = this.finishing;
    this.finishing = undefined;
    if (error !== undefined) this.error ??= error;
    if (this.error === undefined && (end.sha256 !== undefined || !this.storing)) f?.resolve(end);
    else f?.reject(this.error ?? new Error('the document writer gave no digest'));
  }

  ended(cause: Error): void {
    this.written(this.inFlight, cause, false);
    this.finished({}, cause);
  }

  /**
   * A small file, whole in its first batch, is checked, hashed and written from here: the worker's
   * start (40-60 ms when it is not running) and round trip cost more than that work on 256 KiB (under 1 ms).
   * A file that breaks a rule is not written.
   */
  private async writeInline(): Promise<FileEnd> {
    const batch = this.batch;
    const bytes = batch?.subarray(0, this.filled) ?? new Uint8Array(0);
    this.inFlight += this.filled;
    this.filled = 0;
    this.batch = undefined;
    try {
      const verdict = this.check === undefined ? undefined : checkPdf(bytes, this.check);
      if (!this.storing || verdict?.ok === false) return { sha256: undefined, verdict };
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      this.inline = true;
      const fault = documentWriter.failWrites;
      if (fault !== undefined) throw injectedWriteFault(fault);
      await writeFile(this.path, bytes, { flag: 'wx' });
      return { sha256, verdict };
    } catch (err) {
      this.error ??= err as Error;
      throw err;
    } finally {
      if (batch) documentWriter.release(batch);
      this.written(bytes.length, undefined, false);
    }
  }

  private writerId(): number {
    return (this.id ??= documentWriter.register(this));
  }

  /** What each message to the writer says of the file. */
  private facts(): FileFacts {
    return { id: this.writerId(), path: this.path, store: this.storing, check: this.check };
  }

  private flush(last = false): void {
    const batch = this.batch;
    if (batch === undefined || this.filled === 0) return;
    this.inFlight += this.filled;
    documentWriter.write(this.facts(), batch, this.filled, last);
    this.batch = undefined;
    this.filled = 0;
  }
}

export class DocumentFiles {
  private folder: string | undefined;
  /** Set by close(): the folder may be gone (a workspace removed), so nothing is written to it any more. */
  private closed = false;
  /** Stored files in the folder (names), as this process knows them. */
  private readonly known = new Set<string>();
  private readonly referenced;

  /**
   * `dir`: the folder of a database file, or undefined for :memory: (a temporary folder, made on
   * first use). `snapshotCopies` names the snapshot copies of lb_documents (their rows count too).
   * Call sweep() once the state is open: files a crash left behind go.
   */
  constructor(
    private readonly db: Db,
    private readonly dir: string | undefined,
    private readonly snapshotCopies: () => readonly string[] = () => [],
  ) {
    this.referenced = db.prepare('SELECT sha256, size FROM main.lb_documents');
    if (dir === undefined) sweepTemporaryRoots();
    if (dir !== undefined && existsSync(dir)) {
      this.folder = dir;
      for (const name of readdirSync(dir)) {
        if (name.startsWith(INCOMING)) {
          // Left by a process that died while a request streamed in; a live one's are still in use.
          const pid = Number(name.slice(INCOMING.length).split('-')[0]);
          if (!processAlive(pid)) rmSync(join(dir, name), { force: true });
        } else {
          this.known.add(name);
        }
      }
    }
  }

  /** The folder, made when first needed. */
  private folderPath(): string {
    if (this.closed) throw new Error('the documents folder of a closed state was used');
    if (this.folder === undefined) {
      if (this.dir === undefined) {
        this.folder = mkdtempSync(join(temporaryRoot(), 'documents-'));
      } else {
        mkdirSync(this.dir, { recursive: true });
        this.folder = this.dir;
      }
    }
    return this.folder;
  }

  /** Where the folder is (undefined while nothing was ever stored in an in-memory state). */
  get location(): string | undefined {
    return this.folder ?? this.dir;
  }

  path(key: DocumentKey): string {
    return join(this.folderPath(), documentFileName(key));
  }

  /** A file to receive; one only checked (`store: false`) has no path, and needs no folder. */
  incoming(options: IncomingOptions = {}): IncomingFile {
    if (options.store === false) return new IncomingFile('', options);
    return new IncomingFile(join(this.folderPath(), `${INCOMING}${process.pid}-${randomUUID()}`), options);
  }

  /**
   * Makes a finished incoming file the stored file of `key` (synchronous: call it inside the
   * transaction that inserts the row, so no sweep runs in between).
   */
  adopt(file: IncomingFile, key: DocumentKey): void {
    const name = documentFileName(key);
    renameSync(file.path, join(this.folderPath(), name));
    file.adopted = true;
    this.known.add(name);
  }

  /** Removes every stored file no row refers to, in the state or in any snapshot. */
  sweep(): void {
    if (this.known.size === 0 || this.folder === undefined) return;
    const keep = new Set<string>();
    const add = (rows: unknown[]) => {
      for (const r of rows as DocumentKey[]) keep.add(documentFileName(r));
    };
    add(this.referenced.all());
    for (const copy of this.snapshotCopies()) add(this.db.prepare(`SELECT sha256, size FROM ${copy}`).all());
    for (const name of [...this.known]) {
      if (keep.has(name)) continue;
      try {
        unlinkSync(join(this.folder, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      this.known.delete(name);
    }
  }

  /** Stored files, as this process knows them. */
  get count(): number {
    return this.known.size;
  }

  /** An in-memory state's folder goes with it; a database file's stays with the file. */
  close(): void {
    this.closed = true;
    if (this.dir !== undefined || this.folder === undefined) return;
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/**
 * Migration step of a database written before files left it: every BLOB of lb_documents becomes its
 * file (content-addressed, so running it again after a failed migration rewrites the same files).
 */
export function moveDocumentBlobs(db: Db, dbPath: string): void {
  const rows = db.prepare('SELECT sha256, size, bytes FROM lb_documents').iterate() as IterableIterator<
    DocumentKey & { bytes: Buffer }
  >;
  let dir: string | undefined;
  for (const row of rows) {
    if (isInMemoryPath(dbPath)) throw new Error('an in-memory database holds no older loan-bond files');
    if (dir === undefined) {
      dir = documentsDir(dbPath);
      mkdirSync(dir, { recursive: true });
    }
    writeFileSync(join(dir, documentFileName(row)), row.bytes);
  }
}
