import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSliced, TURN_MS } from '../../src/http/json-body-stream.js';
import { JsonStreamReader } from '../../src/http/json-stream.js';

/** A JSON array of `n` strings of 64 KiB, as chunks of 64 KiB the stream holds at once. */
function chunks(n: number): Buffer[] {
  const text = Buffer.from(`[${Array.from({ length: n }, () => `"${'A'.repeat(64 * 1024 - 3)}"`).join(',')}]`);
  const out: Buffer[] = [];
  for (let at = 0; at < text.length; at += 64 * 1024) out.push(text.subarray(at, at + 64 * 1024));
  return out;
}

/** Reads the chunks with `work` done per slice; how many turns other work got meanwhile. */
async function turnsWhileReading(parts: Buffer[], work: () => void): Promise<number> {
  // Each string to a sink that takes its bytes as they are: the reading is the scan for the quotes.
  let taken = 0;
  const sink = { fast: (b: Buffer) => ((taken += b.length), true), slow: () => undefined, text: () => undefined, end: () => undefined };
  const reader = new JsonStreamReader({ sinkFor: () => sink, keepLimit: 1 << 20 });
  let turns = 0;
  let reading = true;
  const other = () => {
    turns++;
    if (reading) setImmediate(other);
  };
  setImmediate(other);
  await readSliced(Readable.from(parts), reader, { limit: 1 << 30, tooLarge: () => new Error('too large'), slice: work });
  reading = false;
  expect(reader.end().toString()).toMatch(/^\[(?:"",)*""\]$/);
  expect(taken).toBe(parts.reduce((sum, p) => sum + p.toString().replace(/[^A]/g, '').length, 0));
  return turns;
}

describe('readSliced: other work gets a turn once the reading took TURN_MS', () => {
  it('yields while a body whose slices take a millisecond each is read', async () => {
    const busy = () => {
      const until = performance.now() + 1;
      while (performance.now() < until);
    };
    // 40 slices of at least 1 ms each: a turn at least every TURN_MS of them.
    const turns = await turnsWhileReading(chunks(40), busy);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(40 / (TURN_MS + 1)));
  });

  it('does not yield after each chunk when the reading is quick (a turn costs more than the slice)', async () => {
    let slices = 0;
    const parts = chunks(200);
    const turns = await turnsWhileReading(parts, () => void slices++);
    expect(slices).toBe(parts.length);
    // Scanning 13 MB for quotes takes a few milliseconds: a few turns, not one per chunk.
    expect(turns).toBeLessThan(slices / 4);
  });
});
