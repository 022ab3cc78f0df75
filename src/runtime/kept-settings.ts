// What control calls set on a state besides its rows, kept in its database (sb_meta) as the rows are,
// so that a restart on the same file, or a file-backed workspace opened again, finds it as it was left
// (assumption restart-settings): the sandbox clock's setting (moved, frozen) and the work settings
// (processing held, the backlog bound). A reset returns them to their start-up values, which are
// then what is kept.
import type { Store } from '../store/index.js';
import { type SandboxClock, inClockRange } from './clock.js';
import type { Work } from './work.js';

const CLOCK_KEY = 'clock';
const WORK_KEY = 'work';

interface KeptClock {
  offsetMs: number;
  frozenAt?: number;
}

interface KeptWork {
  held: boolean;
  /** Null: the start-up bound (SANDBOX_WORK_BACKLOG), whatever it is at the next start. */
  maxBacklog: number | null;
}

/**
 * Writes the clock's setting and the work settings to the database, or removes them when they are the
 * start-up ones (real time; released with the start-up bound), so that a state left as it started
 * holds no row for them, as a snapshot of it does not. Called on every change of either, and so after
 * a snapshot's restore (which puts back the rows of sb_meta, then the clock): what is kept is always
 * what is in memory.
 */
export function keepSettings(store: Store, clock: SandboxClock, work: Work): void {
  if (!store.db.open) return;
  const { offsetMs, frozenAt } = clock.save();
  const kept: KeptClock | undefined =
    frozenAt !== undefined ? { offsetMs, frozenAt } : offsetMs !== 0 ? { offsetMs } : undefined;
  store.keepMetaValue(CLOCK_KEY, kept && JSON.stringify(kept));
  const maxBacklog = work.maxBacklog === work.defaultBacklog ? null : work.maxBacklog;
  const settings: KeptWork | undefined = work.isHeld || maxBacklog !== null ? { held: work.isHeld, maxBacklog } : undefined;
  store.keepMetaValue(WORK_KEY, settings && JSON.stringify(settings));
}

/** What an opened database kept, put back; `clock` undefined: the clock is the caller's (injected), left alone. */
export function restoreSettings(
  store: Store,
  clock: SandboxClock | undefined,
  work: Work,
  log: { info(obj: object, msg: string): void },
  workspace: string,
): void {
  const keptClock = parse(store.meta(CLOCK_KEY), isKeptClock);
  if (clock && keptClock && (keptClock.offsetMs !== 0 || keptClock.frozenAt !== undefined)) {
    clock.restore({ offsetMs: keptClock.offsetMs, frozenAt: keptClock.frozenAt });
    const view = clock.describe();
    log.info(
      { workspace, clock: view },
      `the sandbox clock keeps its setting from before: ${view.frozen ? `frozen at ${view.now}` : `running, now ${view.now}`} (DELETE /_sandbox/clock returns it to real time)`,
    );
  }
  const keptWork = parse(store.meta(WORK_KEY), isKeptWork);
  if (keptWork) {
    work.configure({ held: keptWork.held, ...(keptWork.maxBacklog === null ? {} : { maxBacklog: keptWork.maxBacklog }) });
    if (keptWork.held)
      log.info({ workspace }, 'asynchronous processing stays held, as it was left (POST /_sandbox/work {"held":false} releases it)');
  }
}

function parse<T>(text: string | undefined, check: (value: unknown) => value is T): T | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return check(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isKeptClock(value: unknown): value is KeptClock {
  const v = value as Partial<KeptClock> | null;
  if (typeof v !== 'object' || v === null || typeof v.offsetMs !== 'number' || !Number.isFinite(v.offsetMs)) return false;
  return v.frozenAt === undefined || (typeof v.frozenAt === 'number' && inClockRange(v.frozenAt));
}

function isKeptWork(value: unknown): value is KeptWork {
  const v = value as Partial<KeptWork> | null;
  if (typeof v !== 'object' || v === null || typeof v.held !== 'boolean') return false;
  return v.maxBacklog === null || (Number.isInteger(v.maxBacklog) && (v.maxBacklog as number) >= 1);
}
