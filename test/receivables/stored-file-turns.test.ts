// A stored file near the body limit is read back over many turns of the event loop, never in one:
// by the inspection views (the import's view, its lines) and by the runner after a restart
// (src/receivables/inspect.ts, runner.ts; the file's parts a step each, then its scan and its text in
// steps: CnabFile.openSteps). What is read is what a read at once gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { whole } from '../../src/domain/steps.js';
import { INTERFACE_MODULES } from '../../src/interfaces.js';
import { CnabFile } from '../../src/receivables/cnab-record.js';
import { CHUNK_LINES, importWorkWithTurns, type ImportWork } from '../../src/receivables/runner.js';
import type { WorkKind } from '../../src/runtime/index.js';
import { asTurn } from '../../src/runtime/work.js';
import { FILE_PART_BYTES } from '../../src/store/receivables.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { bigCnab444, cnabBytes } from './helpers.js';

const FUND = '11222333000181';
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

async function submit(app: FastifyInstance, file: Buffer): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/import-cnab',
    payload: { token: 'rc-token-1', fundCnpj: FUND, operationFile: file.toString('base64'), fileName: 'big.rem', additiveNumber: 1 },
  });
  expect(res.statusCode).toBe(200);
  return String(res.headers['sandbox-import-id']);
}

/** The answer to a GET, and how many turns of the event loop went by while it was answered. */
async function getCountingTurns(app: FastifyInstance, url: string): Promise<{ body: unknown; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    turns++;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  const res = await app.inject({ url });
  done = true;
  expect(res.statusCode).toBe(200);
  return { body: res.json(), turns };
}

/** The lines view's reading of a file, as it read the file whole before it was read in turns. */
function linesReadWhole(bytes: Buffer): string[] {
  let text = bytes.toString('latin1');
  if (text.endsWith('\x1a')) text = text.slice(0, -1);
  if (text.endsWith('\n')) text = text.slice(0, -1);
  return text === '' ? [] : text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** A file of `parts` parts and a little more (CNAB 444 lines of 446 bytes). */
function fileOfParts(parts: number): Buffer {
  return bigCnab444(Math.ceil(((parts - 1) * FILE_PART_BYTES + 1000) / 446));
}

describe('the inspection views of a large stored file', () => {
  it('read it over many turns, and answer what a read at once answers', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const file = fileOfParts(4);
    const parts = Math.ceil(file.length / FILE_PART_BYTES);
    expect(parts).toBe(4);
    const id = await submit(app, file);
    await app.runtime.work.drain();

    const view = await getCountingTurns(app, `/_sandbox/receivables/imports/${id}?titlesOffset=5000&titlesLimit=3`);
    // At least a turn per part read, and more for the scan and the text.
    expect(view.turns).toBeGreaterThanOrEqual(parts);
    const opened = CnabFile.open(file);
    if (!opened.ok) throw new Error(opened.reason);
    const titles = opened.file.titleIndexes();
    expect(view.body).toMatchObject({
      status: 'processed',
      titleCount: titles.length,
      recordLayout: { id: 'fidc-444', bankCode: opened.file.bankCode, returnFile: false },
      titles: titles.slice(5000, 5003).map((i) => ({ line: i + 1, titleId: opened.file.title(i).titleId })),
    });

    const lines = await getCountingTurns(app, `/_sandbox/receivables/imports/${id}/lines?offset=7000&limit=4`);
    const all = linesReadWhole(file);
    expect(lines.body).toEqual({
      importId: id,
      lineCount: all.length,
      lines: all.slice(7000, 7004).map((text, i) => ({ line: 7001 + i, text })),
    });
  });

  it.each([
    ['CR LF ends', cnabBytes('cnab400', [{}, {}])],
    ['LF ends, an EOF byte', cnabBytes('cnab400', [{}], { eol: '\n', tail: '\x1a' })],
    ['blank lines after the trailer', cnabBytes('cnab444-fidc', [{}, {}], { tail: '\r\n   \r\n\r\n' })],
    ['no final line end', Buffer.from(cnabBytes('cnab400', [{}]).toString('latin1').replace(/\r\n$/, ''), 'latin1')],
  ])('number the lines of a file with %s as the file read whole does', async (_name, file) => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const id = await submit(app, file);
    const all = linesReadWhole(file);
    for (const [offset, limit] of [
      [0, 1000],
      [1, 2],
      [all.length - 1, 5],
      [all.length, 5],
    ] as const) {
      const res = await app.inject({ url: `/_sandbox/receivables/imports/${id}/lines?offset=${offset}&limit=${limit}` });
      expect(res.json()).toEqual({
        importId: id,
        lineCount: all.length,
        lines: all.slice(offset, offset + limit).map((text, i) => ({ line: offset + i + 1, text })),
      });
    }
  });
});

/**
 * Interfaces whose CNAB runner ends each turn after one step of work (turns of 0 ms), and the count
 * of its turns that did work.
 */
function countedRunner() {
  const counter = { turns: 0 };
  const counted: WorkKind<ImportWork> = {
    name: 'receivables',
    create: (ctx) => {
      const work = importWorkWithTurns(0).create(ctx);
      const run = async () => {
        const turn = asTurn(await work.run());
        if (turn.worked) counter.turns++;
        return turn;
      };
      return { ...work, run };
    },
  };
  return { counter, interfaces: INTERFACE_MODULES.map((m) => (m.contract.id === 'receivables' ? { ...m, work: [counted] } : m)) };
}

/** The import's view without what differs between two sandboxes (its id, its times). */
async function outcomeOf(app: FastifyInstance, id: string) {
  const res = await app.inject({ url: `/_sandbox/receivables/imports/${id}?titlesLimit=5` });
  const { processedAt: _p, receivedAt: _r, importId: _i, ...outcome } = res.json() as Record<string, unknown>;
  return outcome;
}

describe('the file the inspection keeps', () => {
  it('is of the state it was read in: after a restore, an id the key sequence gives again shows its new file', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES, seed: 'kept' });
    await app.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 'empty' } });
    const first = await submit(app, cnabBytes('cnab400', [{ titleId: 'FIRST-FILE' }]));
    const view = async () => (await app.inject({ url: `/_sandbox/receivables/imports/${first}` })).json() as { titles: Array<{ titleId: string }> };
    expect((await view()).titles.map((t) => t.titleId)).toEqual(['FIRST-FILE']);
    expect((await app.inject({ method: 'POST', url: '/_sandbox/snapshots/empty/restore' })).statusCode).toBe(200);
    // The restored key sequence gives the same id to the next import.
    expect(await submit(app, cnabBytes('cnab400', [{ titleId: 'SECOND-FILE' }]))).toBe(first);
    expect((await view()).titles.map((t) => t.titleId)).toEqual(['SECOND-FILE']);
  });
});

describe('a large import still pending when the sandbox restarts', () => {
  it('is read back a part per turn of the runner, and comes to what it comes to when handed over', async () => {
    const file = fileOfParts(4);
    const parts = Math.ceil(file.length / FILE_PART_BYTES);
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-readback-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');

    // The reference: the same file processed from the bytes handed over at submission.
    const reference = countedRunner();
    const handed = await testApp({ fixtures: BASE_FIXTURES, interfaces: reference.interfaces });
    const handedId = await submit(handed, file);
    await handed.runtime.work.drain();
    const expected = await outcomeOf(handed, handedId);
    expect(expected.status).toBe('processed');

    const before = await testApp({ db, fixtures: BASE_FIXTURES });
    await before.inject({ method: 'POST', url: '/_sandbox/work', payload: { held: true } });
    const id = await submit(before, file);
    await before.close();
    const restarted = countedRunner();
    const after = await testApp({ db, fixtures: BASE_FIXTURES, interfaces: restarted.interfaces });
    await after.runtime.work.drain();
    expect(await outcomeOf(after, id)).toEqual(expected);
    // The same steps as from the bytes handed over, after a turn for each part read back (the last
    // part's turn goes on with the scan).
    expect(restarted.counter.turns - reference.counter.turns).toBeGreaterThanOrEqual(parts - 1);
    expect(reference.counter.turns).toBeGreaterThan(Math.ceil(file.length / 446 / CHUNK_LINES));
  });
});

describe('CnabFile.openSteps', () => {
  const base = cnabBytes('cnab400', [{}, {}, {}, {}]);
  /** `bytes` written over the drawee name (235-274) of the title on line `line` (1-based). */
  const withBytes = (line: number, bytes: number[], file = base) => {
    const out = Buffer.from(file);
    out.set(bytes, (line - 1) * 402 + 240);
    return out;
  };
  const files: Array<[string, Buffer]> = [
    ['ASCII', base],
    ['UTF-8 (É as C3 89) on line 2', withBytes(2, [0xc3, 0x89])],
    ['UTF-8 on lines 2 and 5', withBytes(5, [0xe2, 0x82, 0xac], withBytes(2, [0xc3, 0x89]))],
    ['Latin-1 (É as C9) after UTF-8', withBytes(4, [0xc9], withBytes(2, [0xc3, 0x89]))],
    ['a UTF-8 lead byte cut short', withBytes(3, [0xe2, 0x82, 0x41], withBytes(2, [0xc3, 0x89]))],
    ['a NUL in a record', withBytes(3, [0x00])],
    ['a CR alone in a record', withBytes(4, [0x0d])],
    ['a TAB after the trailer only', Buffer.concat([base, Buffer.from('\t\r\n')])],
  ];

  it.each(files)('finds what open() finds, whatever the step: %s', (_name, file) => {
    const once = CnabFile.open(file);
    if (!once.ok) throw new Error(once.reason);
    const facts = (f: CnabFile) => ({
      layout: f.layout,
      encoding: f.encoding,
      firstMultiByte: f.firstMultiByte,
      hasControls: f.hasControls,
      blankAfterTrailer: f.blankAfterTrailer,
      titles: f.titleIndexes(),
      lines: f.lines,
      text: f.text,
    });
    for (const step of [8, 13, 64, 401, 402, 1000]) {
      const inSteps = whole(CnabFile.openSteps(file, undefined, step));
      if (!inSteps.ok) throw new Error(inSteps.reason);
      expect(facts(inSteps.file), `step ${step}`).toEqual(facts(once.file));
    }
  });

  it('judges a file read in steps as it judges it read at once: the encodings differ between the cases', () => {
    const judged = files.map(([, f]) => {
      const opened = CnabFile.open(f);
      return opened.ok ? [opened.file.encoding, opened.file.hasControls] : opened.reason;
    });
    expect(judged).toEqual([
      ['latin1', false],
      ['utf8', false],
      ['utf8', false],
      ['latin1', false],
      ['latin1', false],
      ['latin1', true],
      ['latin1', true],
      ['latin1', false],
    ]);
  });
});
