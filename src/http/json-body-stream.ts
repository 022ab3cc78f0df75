// A JSON body read from its stream in slices, other requests taking their turn between them: the
// loan-bond registration (up to about 1 GB) and the receivables submission (up to the body limit)
// read their bodies so. While the client sends faster than the server reads, the stream always holds
// the next chunk (megabytes of it when the server fell behind), and a loop that only awaited the
// stream would never leave the event loop to anyone else. The loop gives the others a turn once it
// has read for TURN_MS: a turn after each 64 KiB chunk (a thousand turns in a 67 MB registration)
// cost 13% of that registration's time, measured in docs/benchmarks.md.
import type { Readable } from 'node:stream';
import { emptyBodyError, malformedBodyError } from './json.js';
import { JsonReadError, type JsonStreamReader } from './json-stream.js';

/** Body bytes read (scanned, decoded, checked) at most before the clock is looked at. */
export const SLICE_BYTES = 128 * 1024;
/** Milliseconds of reading before other requests (and timers) get their turn. */
export const TURN_MS = 2;

/** Lets the other requests (and timers) waiting on the event loop run. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

export interface SlicedReadOptions {
  /** Most bytes of the body: past it, `tooLarge()` is thrown as soon as a chunk would pass it. */
  limit: number;
  tooLarge(): Error;
  /** Called with each slice once the reader has it (a check of its own, a back-pressure wait). */
  slice?(bytes: Buffer): void | Promise<void>;
}

/** Pushes the whole body into `reader`, slice by slice, yielding whenever TURN_MS of reading went by. */
export async function readSliced(payload: Readable, reader: JsonStreamReader, options: SlicedReadOptions): Promise<void> {
  let since = performance.now();
  for await (const chunk of payload as AsyncIterable<Buffer>) {
    if (reader.bytesRead + chunk.length > options.limit) throw options.tooLarge();
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
      if (performance.now() - since >= TURN_MS) {
        await nextTurn();
        since = performance.now();
      }
      const slice = chunk.subarray(at, at + SLICE_BYTES);
      reader.push(slice);
      await options.slice?.(slice);
    }
  }
}

/**
 * The reader's kept text once the whole body was read, or the 400 a body read whole gets: empty, or
 * malformed with its position.
 */
export function endReading(reader: JsonStreamReader): Buffer {
  try {
    return reader.end();
  } catch (err) {
    if (!(err instanceof JsonReadError)) throw err;
    throw reader.bytesRead === 0 ? emptyBodyError() : malformedBodyError(err);
  }
}
