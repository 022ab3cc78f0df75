// The route checks a file's lines and hands the line index to the runner with the bytes: a file of
// tens of megabytes is scanned once per submission, not once more when processed.
import { describe, expect, it, vi } from 'vitest';
import { CnabFile } from '../../src/receivables/cnab-record.js';
import * as scanner from '../../src/receivables/cnab-scan.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { cnabBytes } from './helpers.js';

vi.mock('../../src/receivables/cnab-scan.js', async (importOriginal) => {
  const actual = await importOriginal<typeof scanner>();
  return { ...actual, scanLines: vi.fn(actual.scanLines), scanLinesInTurns: vi.fn(actual.scanLinesInTurns) };
});

describe('CNAB submission and processing', () => {
  it('scans the file once: the runner reads the line index the route found', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    // The route scans in turns (scanLinesInTurns), anything else at once (scanLines): one scan in all.
    const scans = vi.mocked(scanner.scanLines);
    const scansInTurns = vi.mocked(scanner.scanLinesInTurns);
    scans.mockClear();
    scansInTurns.mockClear();
    // Opening a stored file scans it again: counted on its own.
    const opens = vi.spyOn(CnabFile, 'open');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: {
        token: 'rc-token-1',
        fundCnpj: '11222333000181',
        operationFile: cnabBytes('cnab400', [{}, {}]).toString('base64'),
        fileName: 'remessa-001.rem',
        additiveNumber: 1,
      },
    });
    expect(res.statusCode).toBe(200);
    await app.runtime.work.drain();
    expect(scans.mock.calls.length + scansInTurns.mock.calls.length).toBe(1);
    expect(opens).not.toHaveBeenCalled();
    const detail = await app.inject({ url: `/_sandbox/receivables/imports/${String(res.headers['sandbox-import-id'])}` });
    expect(detail.json()).toMatchObject({ status: 'processed', lineCount: 4 });
  });
});
