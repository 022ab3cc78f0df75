// Asynchronous processing of CNAB imports, off the request path (the runtime's work "receivables").
// One import at a time, in slices: each slice is checked and its diagnostics written in one
// transaction. A turn of the runner lasts about TURN_MS (a slice of a large file, or many small files
// one after another), then it yields so requests keep flowing: a fixed number of lines would hold the
// event loop for 20 ms on a fast machine and 200 ms on a busy one. Where a turn or a slice ends
// changes how many transactions the work takes, never what is stored. The job's state lives
// in memory and moves on only once its slice committed: a slice whose transaction fails (disk full,
// the database locked) rewinds the reader to where the slice began, is noted in the import's
// processing record, and is tried again by the work scheduler after a backoff. After a restart an
// import still pending is processed again from its first line (its partial diagnostics are deleted
// first), so the outcome never depends on where a run stopped. Opening a file is bounded work per
// turn too: its bytes read back a part at a time, scanned and searched in steps (CnabFile.openSteps).

import type { RunnerContext, WorkKind } from '../runtime/index.js';
import { JobHistory, type JobRecord, type Runner } from '../runtime/work.js';
import { type CnabDiagnostic, CnabReader, type CnabRule } from './cnab-checks.js';
import type { Steps } from '../domain/steps.js';
import { type CnabOpened, CnabFile } from './cnab-record.js';
import type { LineIndex } from './cnab-scan.js';
import { importFinished } from './events.js';
import { importResultSlug, type outcomes } from './outcomes.js';

const OPERATION: keyof typeof outcomes = 'import-cnab';

/** How long a turn of the runner goes on before it yields to requests (it ends the slice under way). */
export const TURN_MS = 10;
/** Lines checked between two looks at the time: well under a millisecond of work. */
export const CHUNK_LINES = 500;
/** Lines of one slice (one transaction) at most, however fast they are checked. */
export const SLICE_LINES = 20_000;
/** Diagnostics kept per import; the error and warning counts stay exact. */
export const MAX_DIAGNOSTICS = 1000;

interface Job {
  importId: string;
  reader: CnabReader;
  lineCount: number;
  next: number;
  ordinal: number;
  strict: boolean;
  /** The rule of the first error found, which names the import's outcome (receivables/outcomes.ts). */
  firstError: CnabRule | null;
}

/**
 * An import being opened, a step of bounded work at a time (its stored bytes read back a part per
 * step, scanned, its text read: CnabFile.openSteps), over as many turns as a large file takes.
 */
interface Opening {
  importId: string;
  strict: boolean;
  steps: Steps<CnabOpened>;
}

export interface ImportWork {
  run: Runner;
  /** Imports waiting for processing (back-pressure): a maintained count. */
  backlog: () => number;
  /** The failures and retries of an import's processing, null when it had none. */
  processingOf(importId: string): JobRecord | null;
  /**
   * The route passes the bytes it just stored and the line index it found checking them, so that the
   * runner neither reads a file of tens of megabytes back from the database nor scans it again
   * (after a restart it does both, in steps over many turns).
   */
  handOff(importId: string, file: Buffer, lines: LineIndex): void;
}

export const importWork: WorkKind<ImportWork> = { name: 'receivables', create: (ctx) => importRunner(ctx) };

/** importWork with turns of `turnMs` (tests: 0 takes the most turns and transactions a file can take). */
export function importWorkWithTurns(turnMs: number): WorkKind<ImportWork> {
  return { name: 'receivables', create: (ctx) => importRunner(ctx, turnMs) };
}

/**
 * Bytes of handed-over files kept in memory for the runner; past it, a file is read back from the
 * database when its turn comes. One file is always kept, so the largest file accepted is never read
 * back when it is alone.
 */
export const HANDED_BYTES = 64 * 1024 * 1024;

/** `turnMs`: the length of a turn (tests shorten it to 0: one chunk per slice, one slice per turn). */
function importRunner(ctx: RunnerContext, turnMs = TURN_MS): ImportWork {
  const store = ctx.store.receivables;
  /** Handed-over bytes by import id, and the store generation they were handed over in. */
  const handed = new Map<string, { file: Buffer; lines: LineIndex; generation: number }>();
  let handedBytes = 0;
  const history = new JobHistory(() => ctx.store.generation);
  let job: Job | null = null;
  let opening: Opening | null = null;
  let generation = ctx.store.generation;

  /**
   * The rows were replaced (a snapshot restored, a reset) since the last turn: the job under way and
   * the bytes handed over before belong to the earlier state. A key the new state reuses (a seeded
   * sequence restored) may name another file now; what is still pending is read from the database.
   */
  const forgetReplaced = () => {
    if (ctx.store.generation === generation) return;
    generation = ctx.store.generation;
    job = null;
    opening = null;
    for (const [importId, given] of handed) {
      if (given.generation !== generation) takeHanded(importId);
    }
  };

  const takeHanded = (importId: string) => {
    const given = handed.get(importId);
    if (given) {
      handed.delete(importId);
      handedBytes -= given.file.length;
    }
    return given;
  };

  /**
   * Begins opening the oldest pending import: from the bytes handed over at submission when they are
   * still here, else read back from the database (after a restart, or past HANDED_BYTES).
   */
  const begin = (): Opening | null => {
    const importId = store.nextPending();
    if (importId === undefined) {
      handed.clear(); // bytes of imports wiped by a reset before they started
      handedBytes = 0;
      return null;
    }
    history.attempting(importId);
    const given = takeHanded(importId);
    // As asked at submission (the sandbox setting or the request's Sandbox-Strict header).
    const strict = store.import(importId)?.strict === 1 || ctx.settings.strict;
    const steps = given ? CnabFile.openSteps(given.file, given.lines) : readBack(importId);
    return { importId, strict, steps };
  };

  function* readBack(importId: string): Steps<CnabOpened> {
    const bytes = yield* store.fileSteps(importId);
    return yield* CnabFile.openSteps(bytes ?? Buffer.alloc(0));
  }

  /**
   * Steps of the opening until it is done or `deadline` passed (one step at least); null while it
   * goes on. A step that fails (the database) is noted, and the opening starts over when retried.
   */
  const advance = (current: Opening, deadline: number): CnabOpened | null => {
    try {
      do {
        const step = current.steps.next();
        if (step.done) return step.value;
      } while (performance.now() < deadline);
    } catch (err) {
      opening = null;
      throw history.failed(current.importId, 'reading the stored file', err);
    }
    return null;
  };

  /** The job of an opened import; null when its bytes were no CNAB file, which is rejected on the spot. */
  const started = (current: Opening, opened: CnabOpened): Job | null => {
    const { importId, strict } = current;
    if (opened.ok) {
      try {
        store.clearDiagnostics(importId);
      } catch (err) {
        throw history.failed(importId, "start (clearing an earlier run's diagnostics)", err);
      }
      const reader = new CnabReader(opened.file, { strict, maxDiagnostics: MAX_DIAGNOSTICS });
      const lineCount = opened.file.lines.count;
      return { importId, reader, lineCount, next: 0, ordinal: 0, strict, firstError: null };
    }
    // Unreachable for files the route accepted; kept so a damaged database cannot stall the runner.
    try {
      ctx.store.transaction(() => {
        store.clearDiagnostics(importId);
        const diagnostic = {
          line: null,
          columns: null,
          rule: 'file',
          severity: 'error' as const,
          message: opened.reason,
        };
        store.addDiagnostics(importId, [diagnostic], 0);
        store.finish(importId, {
          status: 'rejected',
          processedAt: ctx.clock.now().toISOString(),
          strict,
          layout: 'cnab400',
          lineCount: 0,
          fileDate: null,
          titleCount: 0,
          otherRecordCount: 0,
          totalFaceValueCents: 0,
          errorCount: 1,
          warningCount: 0,
        });
      });
    } catch (err) {
      throw history.failed(importId, 'rejecting an unreadable file', err);
    }
    finished(importId);
    return null;
  };

  /** Reports the end of an import's processing, once committed. */
  const finished = (importId: string) => {
    const row = store.import(importId);
    if (row) importFinished(ctx.events, row, store.diagnostics(importId));
  };

  const handOff = (importId: string, file: Buffer, lines: LineIndex) => {
    takeHanded(importId);
    if (handed.size > 0 && handedBytes + file.length > HANDED_BYTES) return;
    handed.set(importId, { file, lines, generation: ctx.store.generation });
    handedBytes += file.length;
  };

  /**
   * Checks lines of the current job a chunk at a time until `deadline` (at least one chunk, at most
   * SLICE_LINES), and stores what they found in one transaction; returns how many lines.
   */
  const slice = (current: Job, deadline: number): number => {
    const from = current.next;
    const last = Math.min(from + SLICE_LINES, current.lineCount);
    history.attempting(current.importId);
    const mark = current.reader.mark();
    const diagnostics: CnabDiagnostic[] = [];
    let to = from;
    do {
      const end = Math.min(to + CHUNK_LINES, last);
      for (const d of current.reader.read(to, end)) diagnostics.push(d);
      to = end;
    } while (to < last && performance.now() < deadline);
    try {
      ctx.store.transaction(() => {
        store.addDiagnostics(current.importId, diagnostics, current.ordinal);
        if (current.reader.done) {
          const summary = current.reader.summary();
          store.finish(current.importId, {
            ...summary,
            status: summary.errorCount === 0 ? 'processed' : 'rejected',
            processedAt: ctx.clock.now().toISOString(),
            strict: current.strict,
          });
        }
      });
    } catch (err) {
      // Nothing of the slice was kept: the reader goes back to where it began, to read it again.
      current.reader.rewind(mark);
      throw history.failed(current.importId, `lines ${from + 1}-${to}`, err);
    }
    current.firstError ??= diagnostics.find((d) => d.severity === 'error')?.rule ?? null;
    current.ordinal += diagnostics.length;
    current.next = to;
    if (current.reader.done) {
      const summary = current.reader.summary();
      ctx.log.info({ importId: current.importId, ...summary }, 'CNAB import processed');
      finished(current.importId);
      // What the client's accepted file came to is an outcome of import-cnab too.
      ctx.coverage.record(OPERATION, importResultSlug(summary.errorCount === 0 ? null : current.firstError));
      job = null;
    }
    return to - from;
  };

  // One turn goes on for about turnMs, over as many imports as that takes: a stream of small files is
  // processed as fast as it arrives, a large one a slice per turn.
  // What a turn finished is counted in imports, the unit of the backlog (docs/work.md).
  const run: Runner = () => {
    const deadline = performance.now() + turnMs;
    let finished = 0;
    let worked = false;
    forgetReplaced();
    for (;;) {
      if (job && store.status(job.importId) !== 'pending') job = null; // nothing left to do for it
      if (opening && store.status(opening.importId) !== 'pending') opening = null;
      if (!job) {
        opening ??= begin();
        if (!opening) break;
        worked = true;
        // A large file is opened over many turns: this one ends with its deadline.
        const opened = advance(opening, deadline);
        if (!opened) break;
        try {
          job = started(opening, opened);
        } finally {
          // Its steps are used up: a start that failed (the database) opens the file again when
          // retried. Kept, the spent steps read as an opening forever unfinished and the runner spun.
          opening = null;
        }
        if (!job) continue;
      }
      const current = job;
      slice(current, deadline);
      worked = true;
      if (current.reader.done) finished += 1;
      if (performance.now() >= deadline) break;
    }
    return { finished, worked };
  };
  return {
    run,
    handOff,
    backlog: () => store.importStates().pending,
    processingOf: (importId) => history.of(importId),
  };
}
