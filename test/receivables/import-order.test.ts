// Which import is first when a small file is sent while a large one uploads (rc-import-order): an
// import is accepted when it is stored whole, and that moment gives its Sandbox-Import-Id (the next
// key of the sequence), its receivedAt, its place in the fund's list and in processing, and its
// received event. Ids, lists and processing agree, in the order the 200s were given.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { FILE_PART_BYTES } from '../../src/store/receivables.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { bigCnab444, cnabBytes } from './helpers.js';

const FUND = '11222333000181';
const SMALL = cnabBytes('cnab400', [{}, {}]);
/** A file of 12 parts: its upload writes one per turn of the event loop after its body was read. */
const LARGE = bigCnab444(Math.ceil((11 * FILE_PART_BYTES + 1000) / 446));

function submit(app: FastifyInstance, file: Buffer, fileName: string) {
  return app.inject({
    method: 'POST',
    url: '/v1/import-cnab',
    payload: { token: 'rc-token-1', fundCnpj: FUND, operationFile: file.toString('base64'), fileName, additiveNumber: 1 },
  });
}

async function seeded(): Promise<FastifyInstance> {
  const app = await testApp({ fixtures: BASE_FIXTURES, seed: 'import-order' });
  await app.inject({ method: 'POST', url: '/_sandbox/work', payload: { held: true } });
  return app;
}

describe('an import sent while a large one is being stored', () => {
  it('is accepted first, and has the earlier id, receivedAt, place in the list and turn in processing', async () => {
    const app = await seeded();
    const store = app.runtime.store;
    const answered: string[] = [];
    const large = submit(app, LARGE, 'large.rem').then((res) => (answered.push('large.rem'), res));
    // Once the large file's first part is stored (its body read, its import not yet accepted).
    while ((store.tableCounts().rc_import_file_parts ?? 0) === 0) await new Promise((r) => setImmediate(r));
    expect(store.receivables.importCount(FUND)).toBe(0);
    const small = await submit(app, SMALL, 'small.rem').then((res) => (answered.push('small.rem'), res));
    const largeRes = await large;
    expect([small.statusCode, largeRes.statusCode]).toEqual([200, 200]);
    expect(answered).toEqual(['small.rem', 'large.rem']);

    // The ids the key sequence gives two imports sent one after the other, small first.
    const reference = await seeded();
    const ids = [];
    for (const [file, name] of [
      [SMALL, 'small.rem'],
      [LARGE, 'large.rem'],
    ] as const)
      ids.push((await submit(reference, file, name)).headers['sandbox-import-id']);
    expect([small.headers['sandbox-import-id'], largeRes.headers['sandbox-import-id']]).toEqual(ids);

    const list = (await app.inject({ url: `/_sandbox/receivables/funds/${FUND}/imports` })).json() as {
      imports: Array<{ importId: string; fileName: string; receivedAt: string }>;
    };
    expect(list.imports.map((i) => [i.fileName, i.importId])).toEqual([
      ['small.rem', ids[0]],
      ['large.rem', ids[1]],
    ]);
    const [first, second] = list.imports.map((i) => i.receivedAt);
    expect((first ?? '') <= (second ?? '')).toBe(true);

    await app.inject({ method: 'POST', url: '/_sandbox/work/run' });
    const events = (
      await app.inject({ url: '/_sandbox/events?type=sandbox.receivables.import.received,sandbox.receivables.import.processed' })
    ).json() as { events: Array<{ type: string; data: { importId: string } }> };
    expect(events.events.map((e) => [e.type.split('.').pop(), e.data.importId])).toEqual([
      ['received', ids[0]],
      ['received', ids[1]],
      ['processed', ids[0]],
      ['processed', ids[1]],
    ]);
  });
});
