// A recording stops adding mappings where --stubs would refuse the folder (assumption record-limit):
// the proxy goes on answering, says so once in the log and on each answer it may no longer record
// (Sandbox-Recording), and the folder still replays with the documented command.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { MAX_MAPPINGS_PER_WORKSPACE } from '../../src/stubs/stub-set.js';
import { parseUpstreamUrl } from '../../src/upstream/upstreams.js';
import { Recorder } from '../../src/upstream/record.js';
import { LogCapture, tempFolder } from '../helpers.js';

describe('a recording that reaches the most mappings --stubs serves', () => {
  let upstream: Server;
  let upstreamUrl: string;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url: req.url }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => upstream?.close(resolve));
  });

  /** A recording folder already holding `count` mappings (an earlier session's), in one file. */
  function folderHolding(count: number): string {
    const dir = tempFolder('recorded-full-');
    mkdirSync(join(dir, 'mappings'));
    const mappings = Array.from({ length: count }, (_, i) => ({ request: { method: 'GET', url: `/earlier/${i}` }, response: { status: 200, body: `earlier ${i}` } }));
    writeFileSync(join(dir, 'mappings', 'earlier.json'), JSON.stringify({ mappings }));
    return dir;
  }

  it('stops adding mappings at the limit, goes on answering, tells once, and the folder still replays', async () => {
    const dir = folderHolding(MAX_MAPPINGS_PER_WORKSPACE - 2);
    const capture = new LogCapture();
    const proxy = await startSandbox({ fixtures: null, upstreams: [upstreamUrl], record: dir, logger: { level: 'info', stream: capture } });
    const answers: Array<{ status: number; recording: string | null; body: unknown }> = [];
    try {
      for (let page = 0; page < 5; page++) {
        const res = await fetch(`${proxy.url}/list?page=${page}`);
        answers.push({ status: res.status, recording: res.headers.get('sandbox-recording'), body: await res.json() });
      }
    } finally {
      await proxy.close();
    }
    // Every answer is the upstream's.
    expect(answers.map((a) => a.body)).toEqual([0, 1, 2, 3, 4].map((page) => ({ url: `/list?page=${page}` })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    // The two that fit were recorded; the answers after the folder filled say they were not.
    expect(readdirSync(join(dir, 'mappings'))).toHaveLength(3);
    expect(answers.map((a) => a.recording)).toEqual([null, null, expect.stringContaining('full'), expect.stringContaining('full'), expect.stringContaining('full')]);
    expect(answers[2]?.recording).toContain(`${MAX_MAPPINGS_PER_WORKSPACE} mappings`);
    const told = capture.lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.msg.includes('record-limit'));
    expect(told).toHaveLength(1);
    expect(told[0]?.level).toBe(40);
    expect(told[0]?.msg).toContain(`${MAX_MAPPINGS_PER_WORKSPACE} mappings`);

    // `npm start -- --stubs DIR` serves the folder: what was recorded answers, the rest does not.
    const replayed = await startSandbox({ fixtures: null, stubs: dir });
    try {
      expect(await (await fetch(`${replayed.url}/list?page=1`)).json()).toEqual({ url: '/list?page=1' });
      expect((await fetch(`${replayed.url}/list?page=2`)).status).toBe(404);
      expect(await (await fetch(`${replayed.url}/earlier/7`)).text()).toBe('earlier 7');
    } finally {
      await replayed.close();
    }
  });

  it('records nothing into a folder already past the limit, and says so when it starts', async () => {
    const dir = folderHolding(MAX_MAPPINGS_PER_WORKSPACE + 5);
    const capture = new LogCapture();
    const proxy = await startSandbox({ fixtures: null, upstreams: [upstreamUrl], record: dir, logger: { level: 'info', stream: capture } });
    try {
      const told = () => capture.lines.filter((l) => l.includes('record-limit'));
      expect(told()).toHaveLength(1);
      expect(told()[0]).toContain(`${MAX_MAPPINGS_PER_WORKSPACE + 5} mappings`);
      const res = await fetch(`${proxy.url}/list?page=9`);
      expect(await res.json()).toEqual({ url: '/list?page=9' });
      expect(res.headers.get('sandbox-recording')).toContain('full');
      expect(told()).toHaveLength(1);
    } finally {
      await proxy.close();
    }
    expect(readdirSync(join(dir, 'mappings'))).toEqual(['earlier.json']);
    expect(readFileSync(join(dir, 'mappings', 'earlier.json'), 'utf8')).toContain('/earlier/2004');
  });

  it('ends a request\'s scenario at the last answer that fit: it repeats on replay', () => {
    const dir = folderHolding(MAX_MAPPINGS_PER_WORKSPACE - 2);
    const told: string[] = [];
    const recorder = new Recorder(dir, { full: (message) => told.push(message) });
    const answer = (n: number) => ({
      upstream: parseUpstreamUrl('http://127.0.0.1:9'),
      method: 'GET',
      url: '/status/1',
      requestHeaders: new Map<string, string[]>(),
      requestBody: Buffer.alloc(0),
      status: 200,
      statusMessage: 'OK',
      responseHeaders: [] as Array<[string, string]>,
      responseBody: Buffer.from(`answer ${n}`),
      complete: true,
    });
    const files = [1, 2, 3, 4].map((n) => recorder.record(answer(n), null));
    expect(files.slice(2)).toEqual([null, null]);
    expect(recorder.full).toBe(true);
    expect(told).toHaveLength(1);
    const states = files.slice(0, 2).map((f) => JSON.parse(readFileSync(f ?? '', 'utf8')) as Record<string, unknown>);
    expect(states.map((m) => [m.requiredScenarioState, m.newScenarioState, (m.response as { body: string }).body])).toEqual([
      ['Started', 'answer-2', 'answer 1'],
      ['answer-2', undefined, 'answer 2'],
    ]);
  });
});
