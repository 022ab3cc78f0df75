// Recording a request the upstream answers differently each time (a client polling a status): each
// answer costs a bounded number of file writes however many came before, the folder replays the
// answers in order (the last repeating) and stays replayable if the recorder stops between two
// writes.
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import type { Exchange } from '../../src/upstream/proxy.js';
import { Recorder } from '../../src/upstream/record.js';
import { parseUpstreamUrl } from '../../src/upstream/upstreams.js';
import { tempFolder } from '../helpers.js';

const UPSTREAM = parseUpstreamUrl('http://127.0.0.1:9');

/** A new recording folder, removed after the test. */
const recordingDir = () => tempFolder('recorded-poll-');

/** The n-th answer of the upstream to a client polling one status URL. */
function poll(n: number, url = '/status/poll-1'): Exchange {
  return {
    upstream: UPSTREAM,
    method: 'GET',
    url,
    requestHeaders: new Map(),
    requestBody: Buffer.alloc(0),
    status: 200,
    statusMessage: 'OK',
    responseHeaders: [['Content-Type', 'application/json']],
    responseBody: Buffer.from(JSON.stringify({ n })),
    complete: true,
  };
}

/** Each file of the folder with what tells a write: a new inode (a write renames a new file into place) and its size. */
function filesOf(dir: string): Map<string, { ino: number; size: number; mtimeNs: bigint }> {
  const out = new Map<string, { ino: number; size: number; mtimeNs: bigint }>();
  for (const name of readdirSync(dir)) {
    const s = statSync(join(dir, name), { bigint: true });
    out.set(name, { ino: Number(s.ino), size: Number(s.size), mtimeNs: s.mtimeNs });
  }
  return out;
}

async function replay(dir: string, url: string, times: number): Promise<unknown[]> {
  const sandbox = await startSandbox({ fixtures: null, stubs: dir });
  try {
    const answers: unknown[] = [];
    for (let i = 0; i < times; i++) answers.push(await (await fetch(`${sandbox.url}${url}`)).json());
    return answers;
  } finally {
    await sandbox.close();
  }
}

describe('recording a request that gets a new answer each time', () => {
  it('writes a bounded number of files per answer: the earlier answers are written once', () => {
    const dir = recordingDir();
    const recorder = new Recorder(dir);
    const mappings = join(dir, 'mappings');
    const N = 40;
    let before = filesOf(mappings);
    let filesWritten = 0;
    let bytesWritten = 0;
    let largest = 0;
    for (let n = 1; n <= N; n++) {
      recorder.record(poll(n), null);
      const after = filesOf(mappings);
      const written = [...after].filter(([name, f]) => {
        const was = before.get(name);
        return was === undefined || was.ino !== f.ino || was.mtimeNs !== f.mtimeNs;
      });
      // The new answer's file, and at most the one before it (which now leads to it).
      expect(written.length, `answer ${n}`).toBeLessThanOrEqual(2);
      filesWritten += written.length;
      for (const [, f] of written) {
        bytesWritten += f.size;
        largest = Math.max(largest, f.size);
      }
      before = after;
    }
    expect(before.size).toBe(N);
    expect(filesWritten).toBeLessThanOrEqual(2 * N);
    expect(bytesWritten).toBeLessThanOrEqual(2 * N * largest);
  });

  it('counts its writes through the files it is given, two per answer at most', () => {
    const dir = recordingDir();
    const writes: string[] = [];
    const recorder = new Recorder(dir, {
      files: {
        write: (file, text) => {
          writes.push(file);
          writeFileSync(file, text);
        },
      },
    });
    for (let n = 1; n <= 100; n++) recorder.record(poll(n), null);
    expect(new Set(writes).size).toBe(100);
    expect(writes.length).toBe(1 + 2 * 99);
  });

  it('replays the answers in the order they came, the last one repeating', async () => {
    const dir = recordingDir();
    const recorder = new Recorder(dir);
    const N = 12;
    for (let n = 1; n <= N; n++) recorder.record(poll(n), null);
    // The same answer twice in a row is one state, as before.
    recorder.record(poll(N), null);
    expect(readdirSync(join(dir, 'mappings'))).toHaveLength(N);
    const answers = await replay(dir, '/status/poll-1', N + 2);
    expect(answers).toEqual([...Array.from({ length: N }, (_, i) => ({ n: i + 1 })), { n: N }, { n: N }]);
  });

  it('leaves a folder that replays the answers so far if it stops between two writes', async () => {
    const dir = recordingDir();
    let left = 1 + 2 * 2 + 1; // the first three answers, then only the fourth answer's own file
    const recorder = new Recorder(dir, {
      files: {
        write: (file, text) => {
          if (left-- <= 0) throw new Error('killed');
          writeFileSync(file, text);
        },
      },
    });
    for (let n = 1; n <= 3; n++) recorder.record(poll(n), null);
    expect(() => recorder.record(poll(4), null)).toThrow('killed');
    expect(readdirSync(join(dir, 'mappings'))).toHaveLength(4);
    expect(await replay(dir, '/status/poll-1', 5)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 3 }, { n: 3 }]);

    // Stopped between the first answer's and the second's: the first repeats.
    const dir2 = recordingDir();
    let left2 = 2;
    const recorder2 = new Recorder(dir2, {
      files: {
        write: (file, text) => {
          if (left2-- <= 0) throw new Error('killed');
          writeFileSync(file, text);
        },
      },
    });
    recorder2.record(poll(1), null);
    expect(() => recorder2.record(poll(2), null)).toThrow('killed');
    expect(await replay(dir2, '/status/poll-1', 3)).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
  });
});
