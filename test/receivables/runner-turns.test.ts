// The CNAB runner yields to requests after about TURN_MS: where its turns and its slices (one
// transaction each) end depends on how fast the machine is. What an import comes to must not: the
// same files processed in the fewest turns (work/run on the sandbox's own runner) and in the most (a
// runner whose turns end after one chunk of lines) give the same statuses, counts and diagnostics.
import { describe, expect, it } from 'vitest';
import { CHUNK_LINES, importWorkWithTurns } from '../../src/receivables/runner.js';
import { asTurn } from '../../src/runtime/work.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { cnabBytes, type TitleSpec } from './helpers.js';

const FUND = '11222333000181';

/** Titles with an error or a warning scattered over several chunks of lines. */
function titles(count: number): TitleSpec[] {
  return Array.from({ length: count }, (_, i) => {
    if (i % 251 === 7) return { due: '310226' };
    if (i % 317 === 11) return { valueCents: 0 };
    if (i % 199 === 3) return { draweeCode: '01', draweeId: '52998224724' };
    return {};
  });
}

const FILES = [
  cnabBytes('cnab444-fidc', titles(3 * CHUNK_LINES + 17)),
  cnabBytes('cnab400', [{}, {}]),
  cnabBytes('cnab400', titles(CHUNK_LINES - 2)),
  cnabBytes('cnab444-fidc', titles(CHUNK_LINES + 1)),
];

async function submitAll(seed: string) {
  // The same seed on both sides: the same import ids, so the two sandboxes can be compared id by id.
  const app = await testApp({ fixtures: BASE_FIXTURES, seed });
  await app.inject({ method: 'POST', url: '/_sandbox/work', payload: { held: true } });
  const ids: string[] = [];
  for (const [i, file] of FILES.entries()) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: { token: 'rc-token-1', fundCnpj: FUND, operationFile: file.toString('base64'), fileName: `r${i}.rem`, additiveNumber: 1 },
    });
    expect(res.statusCode).toBe(200);
    ids.push(String(res.headers['sandbox-import-id']));
  }
  return { app, ids };
}

async function outcomes(app: Awaited<ReturnType<typeof testApp>>, ids: string[]) {
  const out = [];
  for (const id of ids) {
    const res = await app.inject({ url: `/_sandbox/receivables/imports/${id}?titlesLimit=1000` });
    expect(res.statusCode).toBe(200);
    const { processedAt: _processedAt, receivedAt: _receivedAt, ...rest } = res.json() as Record<string, unknown>;
    out.push(rest);
  }
  return out;
}

describe('CNAB runner turns', () => {
  it('stores the same outcome whether an import takes one turn or one per chunk of lines', async () => {
    const whole = await submitAll('turns');
    await whole.app.inject({ method: 'POST', url: '/_sandbox/work/run' });

    const chunked = await submitAll('turns');
    // Turns of 0 ms: each turn checks one chunk of lines (one slice, one transaction), then yields.
    const runner = importWorkWithTurns(0).create(chunked.app.runtime);
    let turns = 0;
    let finished = 0;
    for (;;) {
      const turn = asTurn(await runner.run());
      finished += turn.finished;
      if (!turn.worked) break;
      turns++;
    }
    expect(finished).toBe(FILES.length);
    const lines = FILES.reduce((n, f) => n + f.toString('latin1').split('\r\n').filter((l) => l !== '').length, 0);
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(lines / CHUNK_LINES));

    const expected = await outcomes(whole.app, whole.ids);
    expect(expected.map((o) => o.status)).toEqual(['rejected', 'processed', 'rejected', 'rejected']);
    expect(await outcomes(chunked.app, chunked.ids)).toEqual(expected);
  });

  it('counts imports, not lines, in what POST /_sandbox/work/run processed (an import is one item, as the backlog counts)', async () => {
    const { app } = await submitAll('count');
    expect((await app.inject({ url: '/_sandbox/work' })).json().runners.receivables.pending).toBe(FILES.length);
    const run = await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    expect(run.json().processed.receivables).toBe(FILES.length);
    expect((await app.inject({ method: 'POST', url: '/_sandbox/work/run' })).json().processed.receivables).toBe(0);
  });
});
