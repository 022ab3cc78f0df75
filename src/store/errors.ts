// What a storage failure means, in words a user of the sandbox can act on: SQLite's result codes
// (better-sqlite3 throws a SqliteError whose `code` is the extended code, e.g. SQLITE_IOERR_WRITE)
// and the file system's errors when the sandbox writes a file itself. The text names the cause and
// its code, never a path, a statement or a value: it goes into answers and the control plane.
import Database from 'better-sqlite3';

/** A storage failure: its code as reported (SQLITE_FULL, SQLITE_BUSY_SNAPSHOT, ENOSPC...) and what it means. */
export interface StorageFault {
  code: string;
  /** A few words: "disk full", "database locked". */
  label: string;
  /** What happened and what helps. */
  detail: string;
}

type Meaning = [label: string, detail: string];

const SQLITE: ReadonlyArray<[prefix: string, meaning: Meaning]> = [
  ['SQLITE_FULL', ['disk full', "the disk holding the sandbox's database has no space left, or the database reached its size limit"]],
  [
    'SQLITE_BUSY',
    ['database locked', 'another connection to the database file held its write lock longer than the busy timeout (5 s); retry once it is released'],
  ],
  ['SQLITE_LOCKED', ['database locked', 'a table was locked by another statement of the same connection; retry']],
  ['SQLITE_READONLY', ['database read-only', 'the database file, its folder or the volume holding them cannot be written']],
  // SQLite reports a write the file system refused (EFBIG under a file-size limit, EIO) as IOERR, and
  // better-sqlite3 does not pass the errno on: the causes are named as possible ones.
  [
    'SQLITE_IOERR',
    [
      'I/O error',
      'the disk or file system failed or refused a read or write of the database: a failing disk, a volume that went away, or a file-size limit (ulimit -f) the file reached; SQLite does not tell which',
    ],
  ],
  ['SQLITE_CORRUPT', ['database damaged', 'the database file is corrupt']],
  ['SQLITE_NOTADB', ['not a database', 'the database file is not an SQLite database']],
  ['SQLITE_CANTOPEN', ['database unavailable', 'the database file cannot be opened']],
  ['SQLITE_NOMEM', ['out of memory', 'SQLite could not allocate memory']],
];

const FILE_SYSTEM: Readonly<Record<string, Meaning>> = {
  ENOSPC: ['disk full', "the disk holding the sandbox's files has no space left"],
  EDQUOT: ['disk quota exhausted', "the disk quota of the sandbox's files is used up"],
  EROFS: ['read-only file system', "the sandbox's files are on a read-only file system"],
  EACCES: ['permission denied', 'the sandbox may not write its files'],
  EPERM: ['permission denied', 'the sandbox may not write its files'],
  EIO: ['I/O error', "the disk or file system failed while the sandbox's files were read or written"],
  EFBIG: ['file too large', "a file of the sandbox reached the file-size limit of its process (ulimit -f) or of its file system"],
  EMFILE: ['too many open files', 'the sandbox process reached its limit of open files (ulimit -n)'],
  ENFILE: ['too many open files', 'the system reached its limit of open files'],
  ENOENT: ['folder missing', "a folder of the sandbox's files was removed or moved while the sandbox used it"],
  ENOTDIR: ['folder missing', "a folder of the sandbox's files was replaced by a file while the sandbox used it"],
};

/** The storage failure `err` is (the error itself or one of its causes), or undefined when it is none. */
export function storageFault(err: unknown): StorageFault | undefined {
  let e = err;
  for (let depth = 0; e instanceof Error && depth < 4; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const meaning =
      e instanceof Database.SqliteError
        ? SQLITE.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`))?.[1]
        : FILE_SYSTEM[code];
    if (meaning) return { code, label: meaning[0], detail: meaning[1] };
  }
  return undefined;
}

/** "disk full (SQLITE_FULL): <detail>", or undefined when `err` is no storage failure. */
export function describeStorageFault(err: unknown): string | undefined {
  const fault = storageFault(err);
  return fault && `${fault.label} (${fault.code}): ${fault.detail}`;
}
