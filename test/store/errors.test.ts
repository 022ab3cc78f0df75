import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { describeStorageFault, storageFault } from '../../src/store/errors.js';

const sqlite = (code: string) => new Database.SqliteError('message from SQLite', code);

describe('storage failures in words', () => {
  it.each([
    ['SQLITE_FULL', 'disk full'],
    ['SQLITE_BUSY', 'database locked'],
    ['SQLITE_BUSY_SNAPSHOT', 'database locked'],
    ['SQLITE_LOCKED', 'database locked'],
    ['SQLITE_READONLY_DBMOVED', 'database read-only'],
    ['SQLITE_IOERR_WRITE', 'I/O error'],
    ['SQLITE_CORRUPT', 'database damaged'],
  ])('names SQLite code %s as %s, with the code itself', (code, label) => {
    expect(storageFault(sqlite(code))).toMatchObject({ code, label });
    expect(describeStorageFault(sqlite(code))).toMatch(new RegExp(`^${label} \\(${code}\\): `));
  });

  it('names file-system failures (a full disk when the sandbox writes a file) and looks through causes', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(storageFault(enospc)).toMatchObject({ code: 'ENOSPC', label: 'disk full' });
    const efbig = Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG' });
    expect(describeStorageFault(efbig)).toMatch(/^file too large \(EFBIG\): .*file-size limit/);
    // SQLite reports a write the file-size limit refused as an I/O error, without the errno: the
    // text names that cause among the possible ones, never as the one that happened.
    expect(describeStorageFault(sqlite('SQLITE_IOERR_WRITE'))).toMatch(/^I\/O error \(SQLITE_IOERR_WRITE\): .*file-size limit.*SQLite does not tell which/);
    expect(storageFault(new Error('the import failed', { cause: sqlite('SQLITE_FULL') }))).toMatchObject({ code: 'SQLITE_FULL' });
  });

  it.each([
    ['EFBIG', 'file too large'],
    ['EMFILE', 'too many open files'],
    ['ENFILE', 'too many open files'],
    ['ENOENT', 'folder missing'],
    ['ENOTDIR', 'folder missing'],
    ['EROFS', 'read-only file system'],
  ])('names file-system code %s as %s, with the code itself', (code, label) => {
    const err = Object.assign(new Error(`${code}: from the file system`), { code });
    expect(describeStorageFault(err)).toMatch(new RegExp(`^${label} \\(${code}\\): `));
  });

  it('is no storage failure for anything else: a constraint, a plain error, a code from elsewhere', () => {
    expect(storageFault(sqlite('SQLITE_CONSTRAINT_UNIQUE'))).toBeUndefined();
    expect(storageFault(new TypeError('boom'))).toBeUndefined();
    expect(storageFault(Object.assign(new Error('x'), { code: 'SQLITE_FULL' }))).toBeUndefined();
    expect(storageFault('SQLITE_FULL')).toBeUndefined();
  });
});
