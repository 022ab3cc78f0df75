// Loan-bond files kept out of the JavaScript heap and out of SQLite: one file per distinct content,
// named by its SHA-256 and size, in a folder beside the database (`<db>-documents/`; for :memory:, a
// temporary folder removed when the state closes or the process exits, or by the next process if
// this one was killed: temporaryRoot). lb_documents rows refer to them. A file arrives as an
// IncomingFile (written while the request streams in), becomes a stored file only inside the
// transaction that inserts its row (adopt, a rename), and is removed once no row refers to it: not
// the current state's, not any snapshot's (sweep, after a reset, a restore, a snapshot dropped, a
// failed transaction, and at open for what a crash left behind).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Db, holdFileLock, isInMemoryPath } from './db.js';

export interface DocumentKey {
  sha256: string;
  size: number;
}

const INCOMING = '.incoming-';
/** Bytes gathered before one write: few system calls, a bounded amount of memory per file. */
const WRITE_BATCH = 1024 * 1024;

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

/**
 * A file being written while its request streams in. Writes are queued and gathered; `backlog` says
 * how many bytes wait, so that the reader can pause the request until they are written.
 */
export class IncomingFile {
  private handle: Promise<FileHandle> | undefined;
  private queue: Buffer[] = [];
  private queued = 0;
  private inFlight = 0;
  private writing: Promise<void> = Promise.resolve();
  private error: unknown;
  private closed = false;

  constructor(readonly path: string) {}

  /** Bytes accepted but not yet written. */
  get backlog(): number {
    return this.queued + this.inFlight;
  }

  write(bytes: Buffer): void {
    if (this.closed) throw new Error('write after the incoming file was closed');
    this.queue.push(bytes);
    this.queued += bytes.length;
    if (this.queued >= WRITE_BATCH) this.flush();
  }

  /** Why a write (or the opening) failed, once one did: nothing more is written then. */
  get failure(): unknown {
    return this.error;
  }

  /** Resolves once what was accepted so far is written (rejects if a write failed). */
  async drained(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.error !== undefined) throw this.error;
  }

  /** Writes what is left and closes the file. */
  async finish(): Promise<void> {
    const handle = this.opened();
    await this.drained();
    this.closed = true;
    await (await handle).close();
    this.handle = undefined;
  }

  /** Closes and removes the file (nothing of it stays); never rejects. */
  async abandon(): Promise<void> {
    this.closed = true;
    this.queue = [];
    this.queued = 0;
    await this.writing.catch(() => undefined);
    // A file that could not be opened has no handle to close (and maybe no file to remove).
    const handle = await this.handle?.catch(() => undefined);
    await handle?.close().catch(() => undefined);
    this.handle = undefined;
    await unlink(this.path).catch(() => undefined);
  }

  /**
   * The file's handle, opened on first use. Its promise is awaited only once the writes before it
   * are done: a failed opening must not count as unhandled meanwhile (it is reported by drained()).
   */
  private opened(): Promise<FileHandle> {
    if (!this.handle) {
      this.handle = open(this.path, 'wx');
      this.handle.catch(() => undefined);
    }
    return this.handle;
  }

  private flush(): void {
    if (this.queued === 0) return;
    const batch = this.queue;
    const bytes = this.queued;
    this.queue = [];
    this.queued = 0;
    this.inFlight += bytes;
    const handle = this.opened();
    this.writing = this.writing.then(async () => {
      if (this.error !== undefined) return;
      try {
        const h = await handle;
        let left = batch;
        while (left.length > 0) {
          const { bytesWritten } = await h.writev(left);
          left = remaining(left, bytesWritten);
        }
      } catch (err) {
        this.error = err;
      } finally {
        this.inFlight -= bytes;
      }
    });
  }
}

/** The buffers of `list` after its first `written` bytes. */
function remaining(list: Buffer[], written: number): Buffer[] {
  let skip = written;
  const out: Buffer[] = [];
  for (const b of list) {
    if (skip >= b.length) {
      skip -= b.length;
      continue;
    }
    out.push(skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return out;
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

  incoming(): IncomingFile {
    return new IncomingFile(join(this.folderPath(), `${INCOMING}${process.pid}-${randomUUID()}`));
  }

  /**
   * Makes a finished incoming file the stored file of `key` (synchronous: call it inside the
   * transaction that inserts the row, so no sweep runs in between).
   */
  adopt(file: IncomingFile, key: DocumentKey): void {
    const name = documentFileName(key);
    renameSync(file.path, join(this.folderPath(), name));
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
