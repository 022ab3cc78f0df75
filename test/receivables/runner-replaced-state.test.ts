// A snapshot restored (or a reset) while the CNAB runner is half way through a file: the runner's job
// and the bytes handed over to it belong to the state that was replaced. The import comes to what it
// would have without the restore, and a file submitted after it under a key the restore gave again (a
// seeded sequence) is judged on its own bytes.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { INTERFACE_MODULES } from '../../src/interfaces.js';
import { CHUNK_LINES, importWork, importWorkWithTurns, MAX_DIAGNOSTICS } from '../../src/receivables/runner.js';
import { asTurn } from '../../src/runtime/work.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { cnabBytes } from './helpers.js';

const FUND = '11222333000181';
/** Every title's drawee CNPJ has wrong check digits: a warning each. */
const WARNED = cnabBytes('cnab400', Array.from({ length: 3 * CHUNK_LINES }, () => ({ draweeCode: '02', draweeId: '11222333000100' })));
const SMALL = cnabBytes('cnab400', [{}, {}]);

/** A sandbox whose runner checks one chunk of lines per turn (so a test can stop it mid-file), work held. */
async function app(): Promise<FastifyInstance> {
  const interfaces = INTERFACE_MODULES.map((m) =>
    m.contract.id === 'receivables' ? { ...m, work: [importWorkWithTurns(0)] } : m,
  );
  const a = await testApp({ fixtures: BASE_FIXTURES, seed: 'replaced', interfaces });
  await a.inject({ method: 'POST', url: '/_sandbox/work', payload: { held: true } });
  return a;
}

async function submit(a: FastifyInstance, file: Buffer): Promise<string> {
  const res = await a.inject({
    method: 'POST',
    url: '/v1/import-cnab',
    payload: { token: 'rc-token-1', fundCnpj: FUND, operationFile: file.toString('base64'), fileName: 'f.rem', additiveNumber: 1 },
  });
  expect(res.statusCode).toBe(200);
  return String(res.headers['sandbox-import-id']);
}

/** Turns of the sandbox's own runner (work is held: nothing else runs it). */
async function turns(a: FastifyInstance, n = Number.POSITIVE_INFINITY): Promise<void> {
  const runner = a.runtime.workOf(importWork);
  for (let i = 0; i < n; i++) if (!asTurn(await runner.run()).worked) return;
}

async function result(a: FastifyInstance, id: string) {
  const res = await a.inject({ url: `/_sandbox/receivables/imports/${id}?titlesLimit=1` });
  expect(res.statusCode).toBe(200);
  const { processedAt: _p, receivedAt: _r, titles: _t, ...rest } = res.json() as Record<string, unknown> & { diagnostics: unknown[] };
  return rest as Record<string, unknown> & { diagnostics: unknown[] };
}

describe('the CNAB runner when the state is replaced under it', () => {
  it('a restore mid-file: the import comes to what it does without the restore', async () => {
    const clean = await app();
    const cleanId = await submit(clean, WARNED);
    await turns(clean);
    const expected = await result(clean, cleanId);
    expect(expected.status).toBe('processed');
    expect(expected.warningCount).toBe(3 * CHUNK_LINES);
    expect(expected.diagnostics).toHaveLength(MAX_DIAGNOSTICS);

    const a = await app();
    const id = await submit(a, WARNED);
    await a.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 's' } });
    await turns(a, 3); // opening, then two chunks: the diagnostics' cap reached
    expect((await a.inject({ method: 'POST', url: '/_sandbox/snapshots/s/restore' })).statusCode).toBe(200);
    await turns(a);
    expect(await result(a, id)).toEqual(expected);
  });

  it.each([
    ['a restore', { method: 'POST', url: '/_sandbox/snapshots/s0/restore' }],
    ['a reset with the seed', { method: 'POST', url: '/_sandbox/reset', payload: { fixtures: 'default', seed: 'replaced' } }],
  ] as const)('%s mid-file, then another file under the same key: judged on its own bytes', async (_name, replace) => {
    const a = await app();
    // A runner of its own, which only this test turns (a reset releases the sandbox's held work).
    const runner = importWorkWithTurns(0).create(a.runtime);
    const turn = async (n = Number.POSITIVE_INFINITY) => {
      for (let i = 0; i < n; i++) if (!asTurn(await runner.run()).worked) return;
    };
    await a.inject({ method: 'POST', url: '/_sandbox/snapshots', payload: { name: 's0' } });
    const first = await submit(a, WARNED);
    await turn(2);
    expect((await a.inject(replace)).statusCode).toBe(200);
    await a.inject({ method: 'POST', url: '/_sandbox/work', payload: { held: true } });
    const second = await submit(a, SMALL);
    expect(second).toBe(first); // the seeded sequence gave the key again
    await turn();
    const got = await result(a, second);
    expect(got).toMatchObject({ status: 'processed', lineCount: 4, titleCount: 2, warningCount: 0, errorCount: 0 });
    expect(got.diagnostics).toEqual([]);
  });
});
