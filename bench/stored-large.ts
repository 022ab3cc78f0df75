// The longest turn of the event loop on a sandbox holding a large stored state, measured in the
// server itself (bench/loop-delay.ts, loaded into it): a CNAB file near the body limit (about 90 MB
// of base64, as bench/cnab-large.ts sends it) read back by the inspection views and by the runner
// after a restart, and snapshots saved and restored of that state and of 100 000 extract requests.
// Each figure is the delay histogram's maximum over one call (its 10 ms period included).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { body, FUND, LINE, loopDelay, start, TOKEN, type Sandbox } from './cnab-large.js';
import { cnab444, extractRequests, TENANTS } from './data.js';
import { fmt } from './lib.js';
import type { LoopDelayReport } from './loop-delay.js';
import { send } from './loanbond-large.js';

export interface TurnRow {
  figure: string;
  /** Longest turn, ms (the histogram's max less its 10 ms period). */
  heldMs: number;
  value: string;
  /** The bar (no turn held over 50 ms), or a figure only reported. */
  bar: string;
  pass: boolean | null;
}

const BAR = 'no turn held > 50 ms (loop delay max <= 60 ms)';

async function call(s: Sandbox, method: string, path: string, json?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return { status: res.status, text };
}

/** The longest turn while `action` runs (the delay reset just before it). */
async function longestTurn(s: Sandbox, action: () => Promise<unknown>): Promise<{ report: LoopDelayReport; ms: number }> {
  s.child.send('loop-delay:reset');
  // The reset is a message on the channel: one round trip makes sure it was read. A reset histogram
  // records nothing at its timer's first firing after it (that firing only starts the clock): a few
  // periods go by before the call, so that a turn the call holds is counted.
  await loopDelay(s.child);
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  await action();
  const ms = performance.now() - t0;
  return { report: await loopDelay(s.child), ms };
}

/** A row of the bar (`report`: a figure only reported, as the start's own turns are). */
function turnRow(figure: string, m: { report: LoopDelayReport; ms: number }, report = false): TurnRow {
  const heldMs = Math.max(0, m.report.maxMs - 10);
  const call = m.ms > 0 ? `; call ${fmt.ms(m.ms)}` : '';
  return {
    figure,
    heldMs,
    value: `longest turn ${fmt.ms(heldMs)} (loop delay max ${fmt.ms(m.report.maxMs)}, p99 ${fmt.ms(m.report.p99Ms)})${call}`,
    bar: report ? 'report' : BAR,
    pass: report ? null : heldMs <= 50,
  };
}

async function pendingCount(s: Sandbox): Promise<number> {
  const work = JSON.parse((await call(s, 'GET', '/_sandbox/work')).text) as { runners: { receivables: { pending: number } } };
  return work.runners.receivables.pending;
}

async function untilProcessed(s: Sandbox): Promise<void> {
  while ((await pendingCount(s)) > 0) await new Promise((r) => setTimeout(r, 50));
}

/**
 * The figures on a database file: a file of `base64Size` characters of base64 stored (work held, so
 * it stays pending), the server restarted with it pending, the inspection views after it is
 * processed, and snapshots of that state; then 100 000 extract requests and their snapshots.
 */
export async function storedLargeTurns(base64Size: number, nodeArgs: string[] = []): Promise<TurnRow[]> {
  const rows: TurnRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-stored-'));
  const db = join(dir, 'sandbox.db');
  const details = Math.max(1, Math.round((base64Size * 3) / 4 / LINE) - 2);
  const file = cnab444(details);
  const size = `${fmt.mb(file.length)} file`;
  let s = await start(nodeArgs, db);
  try {
    await call(s, 'POST', '/_sandbox/fixtures', { receivables: { funds: [{ fundCnpj: FUND, token: TOKEN }] } });
    const pieces = body(file);
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const upload = async () => {
      const res = await send(s.url, pieces, length, '/v1/import-cnab');
      if (res.status !== 200) throw new Error(`the large import answered ${res.status}: ${res.text.slice(0, 300)}`);
      const importId = res.headers['sandbox-import-id'];
      if (typeof importId !== 'string') throw new Error('the large import has no Sandbox-Import-Id');
      return importId;
    };

    // Processing: two imports pending (work held), the first from the bytes handed over at
    // submission, the second read back from the database (past HANDED_BYTES, as after a restart).
    await call(s, 'POST', '/_sandbox/work', { held: true });
    const importId = await upload();
    await upload();
    rows.push(
      turnRow(
        `processing two pending imports of ${size} (the first handed over, the second read back)`,
        await longestTurn(s, async () => {
          await call(s, 'POST', '/_sandbox/work', { held: false });
          await untilProcessed(s);
        }),
      ),
    );

    // The restart: from the process's start until the import is processed, against a restart with
    // nothing pending (the start's own turns: loading modules, opening the database).
    await call(s, 'POST', '/_sandbox/work', { held: true });
    await upload();
    await s.stop();
    s = await start(nodeArgs, db);
    await untilProcessed(s);
    rows.push(turnRow(`restart with an import of ${size} pending, process start -> processed`, { report: await loopDelay(s.child), ms: 0 }, true));
    await s.stop();
    s = await start(nodeArgs, db);
    await new Promise((r) => setTimeout(r, 500));
    rows.push(turnRow('restart with nothing pending, process start + 500 ms (its own turns: loading, opening)', { report: await loopDelay(s.child), ms: 0 }, true));

    rows.push(
      turnRow(`GET /_sandbox/receivables/imports/{id} (${size}, first read)`, await longestTurn(s, () => call(s, 'GET', `/_sandbox/receivables/imports/${importId}`))),
    );
    rows.push(
      turnRow(`GET /_sandbox/receivables/imports/{id}/lines?offset=100000`, await longestTurn(s, () => call(s, 'GET', `/_sandbox/receivables/imports/${importId}/lines?offset=100000&limit=10`))),
    );
    rows.push(turnRow(`snapshot save with the import (${size}) stored`, await longestTurn(s, () => call(s, 'POST', '/_sandbox/snapshots', { name: 'a' }))));
    rows.push(turnRow(`snapshot saved again under its name (the old copy dropped), ${size}`, await longestTurn(s, () => call(s, 'POST', '/_sandbox/snapshots', { name: 'a' }))));
    await call(s, 'POST', '/_sandbox/snapshots', { name: 'b' });
    rows.push(turnRow(`snapshot restore of another snapshot (every table copied back), ${size}`, await longestTurn(s, () => call(s, 'POST', '/_sandbox/snapshots/a/restore'))));
    await call(s, 'POST', '/_sandbox/reset', {});
    await call(s, 'DELETE', '/_sandbox/snapshots/a');
    await call(s, 'DELETE', '/_sandbox/snapshots/b');

    await call(s, 'POST', '/_sandbox/fixtures', {
      bookkeeping: { users: [{ userId: 7, accessToken: 'bk-bench', tenants: [TENANTS.t10k] }], extractRequests: extractRequests(TENANTS.t10k, 100_000, 100_001) },
    });
    rows.push(turnRow('snapshot save with 100,000 extract requests', await longestTurn(s, () => call(s, 'POST', '/_sandbox/snapshots', { name: 'a' }))));
    await call(s, 'POST', '/_sandbox/snapshots', { name: 'b' });
    rows.push(turnRow('snapshot restore of another snapshot, 100,000 extract requests', await longestTurn(s, () => call(s, 'POST', '/_sandbox/snapshots/a/restore'))));
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
