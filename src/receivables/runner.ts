// Asynchronous processing of CNAB imports, off the request path (the runtime's work "receivables").
// One import at a time, in slices of SLICE_LINES records: each slice is checked and its diagnostics
// written in one transaction, then the runner yields so requests keep flowing. The job's state lives
// in memory; after a restart an import still pending is processed again from its first line (its
// partial diagnostics are deleted first), so the outcome never depends on where a run stopped.
import type { RunnerContext, WorkKind } from '../runtime/index.js';
import type { Runner } from '../runtime/work.js';
import { CnabReader, type CnabRule } from './cnab-checks.js';
import { CnabFile } from './cnab-record.js';
import type { LineIndex } from './cnab-scan.js';
import { importResultSlug, type outcomes } from './outcomes.js';

const OPERATION: keyof typeof outcomes = 'import-cnab';

/** Records per slice: a few milliseconds of work. */
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

export interface ImportWork {
  run: Runner;
  /**
   * The route passes the bytes it just stored and the line index it found checking them, so that the
   * runner neither reads a file of tens of megabytes back from the database nor scans it again
   * (after a restart it does both).
   */
  handOff(importId: string, file: Buffer, lines: LineIndex): void;
}

export const importWork: WorkKind<ImportWork> = { name: 'receivables', create: importRunner };

function importRunner(ctx: RunnerContext): ImportWork {
  const store = ctx.store.receivables;
  const handed = new Map<string, { file: Buffer; lines: LineIndex }>();
  let job: Job | null = null;

  /** Takes the oldest pending import; one whose bytes cannot be read is rejected on the spot. */
  const start = (): Job | null => {
    for (;;) {
      const importId = store.nextPending();
      if (importId === undefined) {
        handed.clear(); // bytes of imports wiped by a reset before they started
        return null;
      }
      const given = handed.get(importId);
      handed.delete(importId);
      // As asked at submission (the sandbox setting or the request's Sandbox-Strict header).
      const strict = store.import(importId)?.strict === 1 || ctx.settings.strict;
      const opened = given
        ? { ok: true as const, file: new CnabFile(given.file.toString('latin1'), given.lines) }
        : CnabFile.open(store.file(importId) ?? Buffer.alloc(0));
      if (opened.ok) {
        store.clearDiagnostics(importId);
        const reader = new CnabReader(opened.file, { strict, maxDiagnostics: MAX_DIAGNOSTICS });
        const lineCount = opened.file.lines.count;
        return { importId, reader, lineCount, next: 0, ordinal: 0, strict, firstError: null };
      }
      // Unreachable for files the route accepted; kept so a damaged database cannot stall the runner.
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
    }
  };

  const handOff = (importId: string, file: Buffer, lines: LineIndex) => {
    handed.set(importId, { file, lines });
  };

  const run: Runner = () => {
    if (job && store.status(job.importId) !== 'pending') job = null; // wiped by a reset meanwhile
    if (!job) {
      // Opening a file (reading its bytes, finding its lines) is one stretch; its records come in later turns.
      job = start();
      return job ? 1 : 0;
    }
    const current = job;
    const from = current.next;
    const to = Math.min(from + SLICE_LINES, current.lineCount);
    const diagnostics = current.reader.read(from, to);
    current.firstError ??= diagnostics.find((d) => d.severity === 'error')?.rule ?? null;
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
    current.ordinal += diagnostics.length;
    current.next = to;
    if (current.reader.done) {
      const summary = current.reader.summary();
      ctx.log.info({ importId: current.importId, ...summary }, 'CNAB import processed');
      // What the client's accepted file came to is an outcome of import-cnab too.
      ctx.coverage.record(OPERATION, importResultSlug(summary.errorCount === 0 ? null : current.firstError));
      job = null;
    }
    return Math.max(1, to - from);
  };
  return { run, handOff };
}
