// Shared test plumbing: an app per test on :memory:, and a log capture.
import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, expect, onTestFinished } from 'vitest';
import { type AppOptions, buildApp } from '../src/app.js';
import type { FixtureDocument } from '../src/interfaces.js';

const open: FastifyInstance[] = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/** A fresh app on :memory:, closed after the test. */
export async function testApp(options: AppOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp({ db: ':memory:', logger: false, ...options });
  open.push(app);
  return app;
}

/** The demo fixtures shipped with the sandbox. */
export const DEMO_FIXTURES = 'fixtures/demo.json';

/** A fixture document with one of everything, for tests that need credentials. */
export const BASE_FIXTURES: FixtureDocument = {
  bookkeeping: { users: [{ userId: 1, accessToken: 'bk-token-1', tenants: ['11222333000181'] }] },
  registry: { participants: [{ participantId: 'PART-1', accessToken: 'rg-token-1' }] },
  receivables: {
    funds: [
      { fundCnpj: '11222333000181', token: 'rc-token-1' },
      { fundCnpj: '11444777000161', token: null },
    ],
  },
  loanbond: {
    callers: [
      { callerId: 'CALLER-1', token: 'lb-token-1', products: ['electronic-signature', 'digital-loan-bond'] },
    ],
  },
};

/** Collects every log line an app writes. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }

  get text(): string {
    return this.lines.join('\n');
  }
}

/**
 * Submits a CNAB file to POST /v1/import-cnab as the demo fund (fixtures/demo.json), expects the 200
 * and answers the import id; `extra` overrides body fields. Processing is left to the caller.
 */
export async function submitCnab(
  app: FastifyInstance,
  file: Buffer,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/import-cnab',
    payload: {
      token: 'rc-demo-token-1',
      fundCnpj: '11.222.333/0001-81',
      operationFile: file.toString('base64'),
      fileName: 'demo.rem',
      additiveNumber: 1,
      ...extra,
    },
  });
  expect(res.statusCode).toBe(200);
  return String(res.headers['sandbox-import-id']);
}

/** The JSON pointers an error's details name, sorted: which fields a refusal is about. */
export function detailPaths(res: { json(): unknown }): string[] {
  return (res.json() as { details: Array<{ path: string }> }).details.map((d) => d.path).sort();
}

/** A new folder in the temporary folder, removed once the test that made it has finished (after its afterEach hooks). */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Waits until `check()` holds, looking every 25 ms; throws after `ms` naming `what` was awaited. */
export async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 25) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`still not ${what} after ${ms} ms`);
}

/** Starts `app` on a free port of 127.0.0.1 (real sockets, not inject); answers the port. */
export async function listenOnFreePort(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app listens on no TCP port');
  return address.port;
}

/** `size` bytes of xorshift32 noise from `seed` (not 0): no two seeds alike, so a misplaced block shows. */
export function noise(size: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
