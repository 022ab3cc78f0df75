// Shared test plumbing: an app per test on :memory:, and a log capture.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach } from 'vitest';
import { type AppOptions, buildApp } from '../src/app.js';
import type { FixtureDocument } from '../src/control/fixtures.js';

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
