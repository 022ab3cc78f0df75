// What a control call set on the sandbox's state, kept with its database across a restart as the data
// is: the clock's setting (moved, frozen) and the hold on asynchronous processing, per workspace
// (assumption restart-settings). A reset returns them to real time and released, restart or not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { cnabBytes } from '../receivables/helpers.js';
import { BASE_FIXTURES, LogCapture } from '../helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-restart-'));
  dirs.push(dir);
  return join(dir, 'sandbox.db');
}

async function call(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json<Record<string, unknown>>();
}

/** A CNAB import stored as the route stores it, waiting for processing. */
function pendingImport(app: FastifyInstance, importId: string): void {
  app.runtime.store.receivables.insertImport({
    importId,
    fundCnpj: '11222333000181',
    fileName: `${importId}.rem`,
    additiveNumber: 7,
    strict: false,
    receivedAt: '2026-11-20T10:00:00.000Z',
    file: cnabBytes('cnab400', [{}]),
    lineCount: 3,
  });
}

describe('a restart on the same database', () => {
  it('keeps a frozen or moved clock and held processing, in each workspace, and says so in the log', async () => {
    const db = tempDb();
    const first = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    await call(first, 'POST', '/_sandbox/clock', { now: '2030-01-01T00:00:00Z', freeze: true });
    await call(first, 'POST', '/_sandbox/work', { held: true });
    pendingImport(first, 'CNAB-HELD');
    // A running clock moved years ahead, in a workspace of its own.
    await call(first, 'POST', '/ws/w1/_sandbox/clock', { now: '2031-06-01T00:00:00Z' });
    await first.close();

    const log = new LogCapture();
    const second = await buildApp({ db, fixtures: BASE_FIXTURES, logger: { stream: log } });
    try {
      expect(await call(second, 'GET', '/_sandbox/clock')).toMatchObject({ now: '2030-01-01T00:00:00.000Z', frozen: true });
      const work = await call(second, 'GET', '/_sandbox/work');
      expect(work).toMatchObject({ held: true, runners: { receivables: { pending: 1 } } });
      expect(second.runtime.store.receivables.import('CNAB-HELD')?.status).not.toBe('processed');
      // The workspace's clock kept its offset: it ran on from 2031-06-01 (real time passed meanwhile).
      const moved = await call(second, 'GET', '/ws/w1/_sandbox/clock');
      expect(moved.frozen).toBe(false);
      expect(String(moved.now) >= '2031-06-01T00:00:00.000Z' && String(moved.now) < '2031-06-02').toBe(true);
      expect((await call(second, 'GET', '/ws/w1/_sandbox/work')).held).toBe(false);
      const messages = log.lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages.some((m) => m.includes('the sandbox clock keeps its setting') && m.includes('2030-01-01T00:00:00.000Z'))).toBe(true);
      expect(messages.some((m) => m.includes('asynchronous processing stays held'))).toBe(true);
      // Released, the held import is processed by itself: work a restart finds pending runs at once
      // (assumption work-delay), the clock still frozen.
      await call(second, 'POST', '/_sandbox/work', { held: false });
      await vi.waitFor(() => expect(second.runtime.store.receivables.import('CNAB-HELD')?.status).toBe('processed'));
      // A reset returns the clock to real time and releases processing, and a restart keeps that.
      await call(second, 'POST', '/ws/w1/_sandbox/work', { held: true });
      await call(second, 'POST', '/ws/w1/_sandbox/reset', { fixtures: 'default' });
      // A snapshot's restore puts its clock back and leaves the hold as it is: so does a restart after it.
      await call(second, 'POST', '/_sandbox/reset', { fixtures: 'default' });
      await call(second, 'POST', '/_sandbox/snapshots', { name: 'released' });
      await call(second, 'POST', '/_sandbox/clock', { now: '2030-01-01T00:00:00Z', freeze: true });
      await call(second, 'POST', '/_sandbox/work', { held: true });
      await call(second, 'POST', '/_sandbox/snapshots/released/restore');
      expect(await call(second, 'GET', '/_sandbox/clock')).toMatchObject({ frozen: false });
      expect((await call(second, 'GET', '/_sandbox/work')).held).toBe(true);
    } finally {
      await second.close();
    }
    const third = await buildApp({ db, fixtures: BASE_FIXTURES, logger: false });
    try {
      for (const [base, held] of [['', true], ['/ws/w1', false]] as const) {
        expect(await call(third, 'GET', `${base}/_sandbox/clock`), base).toMatchObject({ offsetMs: 0, frozen: false });
        expect((await call(third, 'GET', `${base}/_sandbox/work`)).held, base).toBe(held);
      }
    } finally {
      await third.close();
    }
  });
});
