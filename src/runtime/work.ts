// Asynchronous processing (CNAB imports, the loan-bond flow) happens off the request path: a route
// stores its item as pending and kicks the interface's runner, which runs on a later turn of the
// event loop. Pending items live in the database, so a restart resumes them; tests and the control
// plane can run everything pending now with drain(), instead of sleeping.
//
// A kick costs the same whatever the backlog: a runner runs at most once at a time, and a kick that
// arrives while it runs only sets its "again" flag, read when the run finds nothing left. A run that
// throws is retried after a backoff (RETRY_BASE_MS doubling up to RETRY_MAX_MS); its failure is kept
// (runner, job, what the error was) for the control plane. How much may wait is bounded: backlog()
// counts a runner's pending items, and a route asks refusal() before storing a new one. Processing
// can be held (kicks and retries start nothing) so a client can watch its items pending; a release
// runs only the runners a kick or a retry came for meanwhile, since a kick is what says work is due
// (the work delay: runtime/index.ts schedule()), so work not yet due still waits for its delay.
import { describeStorageFault } from '../store/errors.js';

/**
 * One turn of a runner whose items take several turns (a large CNAB import is checked a slice at a
 * time): `finished`, the items it completed, in the unit its backlog counts; `worked`, whether it
 * found anything to do (false: nothing is left).
 */
export interface Turn {
  finished: number;
  worked: boolean;
}

/**
 * Processes some pending items; returns a Turn, or how many items it processed when each takes one
 * turn at most (0 when none are left).
 */
export type Runner = () => number | Turn | Promise<number | Turn>;

/** A runner's answer as a Turn (a count: each item processed is one finished). */
export function asTurn(answer: number | Turn): Turn {
  return typeof answer === 'number' ? { finished: Math.max(answer, 0), worked: answer > 0 } : answer;
}

/** First wait before a failed run is retried; it doubles with each failure in a row. */
export const RETRY_BASE_MS = 100;
/** Longest wait between retries. */
export const RETRY_MAX_MS = 30_000;
/** Pending items a runner may have before new ones are refused (SANDBOX_WORK_BACKLOG). */
export const DEFAULT_WORK_BACKLOG = 1000;
/** Failures kept for GET /_sandbox/work (the oldest go first). */
const KEPT_FAILURES = 100;

/** Thrown by a runner to name the job (an import, a set of registrations) whose slice failed. */
export class JobError extends Error {
  constructor(
    readonly job: string,
    cause: unknown,
  ) {
    super(`${job}: ${errorText(cause)}`, { cause });
    this.name = 'JobError';
  }
}

/** What a failed run was, as the control plane shows it. */
export interface WorkFailure {
  /** Increases by one per failure of this Work; drain() reports the ones after its start. */
  seq: number;
  runner: string;
  /** The job whose slice failed (a CNAB import id...), null when the runner named none. */
  job: string | null;
  /** What went wrong: a storage failure named by its cause and code, else the error's own message. */
  error: string;
  /** Wall-clock time of the failure (ISO 8601). */
  at: string;
  /** Failures of this runner in a row, this one included. */
  attempt: number;
  /** When the runner tries again by itself, in milliseconds from `at` (POST /_sandbox/work/run: now). */
  retryInMs: number;
}

/** An error as one line: a storage failure by its cause, anything else by its name and message. */
export function errorText(err: unknown): string {
  const storage = describeStorageFault(err);
  if (storage !== undefined) return storage;
  if (err instanceof JobError) return errorText(err.cause);
  return err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : String(err).slice(0, 300);
}

interface Lane {
  readonly name: string;
  readonly runner: Runner;
  readonly backlog: (() => number) | undefined;
  /** A run is under way (`run` is its promise). */
  active: boolean;
  run: Promise<void>;
  /** A kick arrived while the run was under way: look again before stopping. */
  again: boolean;
  /** A run is due on the next turn (setImmediate). */
  scheduled: boolean;
  /** A kick or a retry came while processing was held: the release runs the lane. */
  owed: boolean;
  /** A retry is due after a backoff, at `retryAt` (epoch milliseconds). */
  retry: NodeJS.Timeout | null;
  retryAt: number;
  failuresInRow: number;
  /** Items finished since the start (a CNAB import counts once, however many turns it took). */
  processed: number;
}

export interface WorkOptions {
  /** Pending items a runner may have before new ones are refused (default DEFAULT_WORK_BACKLOG). */
  maxBacklog?: number;
  /** Called with each failure (the runtime logs it). */
  onError?: (name: string, err: unknown) => void;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Called after every configure() (the runtime keeps the settings in its database: runtime/kept-settings.ts). */
  onConfigure?: () => void;
}

export class Work {
  private readonly lanes = new Map<string, Lane>();
  private readonly kept: WorkFailure[] = [];
  private readonly onError: (name: string, err: unknown) => void;
  private readonly onConfigure: () => void;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  /** The bound the sandbox was started with (SANDBOX_WORK_BACKLOG); configure() may change the current one. */
  readonly defaultBacklog: number;
  private limit: number;
  /** Processing waits for drain() or a release (configure({ held: false })). */
  private held = false;
  private closed = false;
  private failures = 0;
  private started = 0;

  constructor(options: WorkOptions = {}) {
    this.onError = options.onError ?? (() => {});
    this.onConfigure = options.onConfigure ?? (() => {});
    this.retryBaseMs = options.retryBaseMs ?? RETRY_BASE_MS;
    this.retryMaxMs = options.retryMaxMs ?? RETRY_MAX_MS;
    this.defaultBacklog = options.maxBacklog ?? DEFAULT_WORK_BACKLOG;
    if (!Number.isInteger(this.defaultBacklog) || this.defaultBacklog < 1)
      throw new Error(`the work backlog bound must be a whole number of items, 1 or more (got ${this.defaultBacklog})`);
    this.limit = this.defaultBacklog;
  }

  /** Pending items a runner may have before new ones are refused. */
  get maxBacklog(): number {
    return this.limit;
  }

  get isHeld(): boolean {
    return this.held;
  }

  /**
   * `held`: processing waits (kicks and retries start nothing; drain() still runs it); releasing
   * runs at once the runners that were kicked or due for a retry meanwhile, and no other: work whose
   * delay has not passed was not kicked yet, and waits for it as if never held (assumption
   * work-delay). `maxBacklog`: the bound from now on.
   */
  configure(change: { held?: boolean; maxBacklog?: number }): void {
    if (change.maxBacklog !== undefined) this.limit = change.maxBacklog;
    if (change.held !== undefined && change.held !== this.held) {
      this.held = change.held;
      if (!this.held)
        for (const lane of this.lanes.values())
          if (lane.owed) {
            lane.owed = false;
            this.kick(lane.name);
          }
    }
    this.onConfigure();
  }

  /** Back to the start-up settings: not held, the default bound. */
  resetSettings(): void {
    this.configure({ held: false, maxBacklog: this.defaultBacklog });
  }

  /** Each runner's backlog and retry, for the control plane. */
  describe(): Record<string, { pending: number; failuresInRow: number; retryInMs: number | null }> {
    const now = Date.now();
    return Object.fromEntries(
      [...this.lanes.values()].map((lane) => [
        lane.name,
        {
          pending: this.backlog(lane.name),
          failuresInRow: lane.failuresInRow,
          retryInMs: lane.retry ? Math.max(0, lane.retryAt - now) : null,
        },
      ]),
    );
  }

  /** `backlog` counts the runner's pending items (for back-pressure; see refusal()): cheaply, it is asked on every submission. */
  register(name: string, runner: Runner, backlog?: () => number): void {
    if (this.lanes.has(name)) throw new Error(`work runner "${name}" registered twice`);
    this.lanes.set(name, {
      name,
      runner,
      backlog,
      active: false,
      run: Promise.resolve(),
      again: false,
      scheduled: false,
      owed: false,
      retry: null,
      retryAt: 0,
      failuresInRow: 0,
      processed: 0,
    });
  }

  /** Asks the runner to look for pending items soon. Constant cost: many kicks, one run. */
  kick(name: string): void {
    const lane = this.lanes.get(name);
    if (!lane || this.closed) return;
    if (this.held) {
      lane.owed = true;
      return;
    }
    if (lane.active) {
      lane.again = true;
      return;
    }
    // A retry already waits for its backoff: the kick's items are picked up then.
    if (lane.scheduled || lane.retry) return;
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      void this.start(lane);
    });
  }

  kickAll(): void {
    for (const name of this.lanes.keys()) this.kick(name);
  }

  /** The runner's pending items (0 for a runner that counts none). */
  backlog(name: string): number {
    return this.lanes.get(name)?.backlog?.() ?? 0;
  }

  /**
   * Back-pressure: undefined while the runner's backlog plus the `adding` items of a request stays
   * within the bound; past it, why the request is refused (`items` names what waits: "CNAB
   * imports"). The caller refuses before storing anything of the request.
   */
  refusal(name: string, items: string, adding = 1): string | undefined {
    const waiting = this.backlog(name);
    if (waiting + adding <= this.limit) return undefined;
    const bound = '(SANDBOX_WORK_BACKLOG, or POST /_sandbox/work): this request was not stored';
    if (adding > this.limit)
      return `this request alone holds ${adding} ${items}, more than the limit of ${this.limit} that may wait for asynchronous processing ${bound}; send fewer per request, or raise the limit`;
    const state =
      waiting >= this.limit
        ? `the sandbox already holds ${waiting} ${items} waiting for asynchronous processing, ${waiting === this.limit ? 'its limit' : `more than its limit of ${this.limit}`} ${bound}`
        : `this request adds ${adding} ${items} to the ${waiting} waiting for asynchronous processing: ${waiting + adding} would be over the limit of ${this.limit} ${bound}`;
    return `${state}; send it again once they are processed (GET /_sandbox/work shows the backlog; POST /_sandbox/work/run processes it now)`;
  }

  private start(lane: Lane): Promise<void> {
    if (lane.active) {
      lane.again = true;
      return lane.run;
    }
    if (this.closed) return Promise.resolve();
    this.started += 1;
    lane.active = true;
    lane.run = this.loop(lane);
    return lane.run;
  }

  private async loop(lane: Lane): Promise<void> {
    try {
      do {
        lane.again = false;
        // A runner processes a slice at a time, yielding between slices so requests keep flowing.
        while (!this.closed) {
          const { finished, worked } = asTurn(await lane.runner());
          lane.failuresInRow = 0;
          lane.processed += finished;
          if (!worked) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
      } while (lane.again && !this.closed);
    } catch (err) {
      this.fail(lane, err);
    } finally {
      // In the same step as the last look at `again`: a kick after it starts a new run.
      lane.active = false;
    }
  }

  private fail(lane: Lane, err: unknown): void {
    this.failures += 1;
    lane.failuresInRow += 1;
    const delay = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** Math.min(lane.failuresInRow - 1, 30));
    this.kept.push({
      seq: this.failures,
      runner: lane.name,
      job: err instanceof JobError ? err.job : null,
      error: errorText(err),
      at: new Date().toISOString(),
      attempt: lane.failuresInRow,
      retryInMs: delay,
    });
    if (this.kept.length > KEPT_FAILURES) this.kept.shift();
    this.onError(lane.name, err);
    if (this.closed) return;
    if (lane.retry) clearTimeout(lane.retry);
    lane.retryAt = Date.now() + delay;
    lane.retry = setTimeout(() => {
      lane.retry = null;
      if (this.held) lane.owed = true;
      else void this.start(lane);
    }, delay);
    // A pending retry never keeps the process alive on its own.
    lane.retry.unref();
  }

  /**
   * Runs every runner now until nothing is pending or it fails (a retry waiting for its backoff
   * runs now too); resolves with the items each runner processed meanwhile (runs already under way
   * included) and the failures meanwhile.
   */
  async drain(): Promise<{ processed: Record<string, number>; failures: WorkFailure[] }> {
    const since = this.failures;
    const before = new Map([...this.lanes].map(([name, lane]) => [name, lane.processed]));
    for (const lane of this.lanes.values()) {
      if (lane.active) await lane.run;
      if (lane.retry) {
        clearTimeout(lane.retry);
        lane.retry = null;
      }
      // What a release would have run, this run runs.
      lane.owed = false;
      await this.start(lane);
    }
    const processed: Record<string, number> = {};
    for (const [name, lane] of this.lanes) processed[name] = lane.processed - (before.get(name) ?? 0);
    return { processed, failures: this.kept.filter((f) => f.seq > since) };
  }

  /** Runs started since the start (each calls its runner until it finds nothing left, or fails). */
  get runs(): number {
    return this.started;
  }

  get names(): string[] {
    return [...this.lanes.keys()];
  }

  /** Failed runs since the start. */
  get errors(): number {
    return this.failures;
  }

  /** The last failures, oldest first. */
  get recentFailures(): readonly WorkFailure[] {
    return this.kept;
  }

  /** Stops scheduling (pending retries included) and waits for the runs in flight. */
  async close(): Promise<void> {
    this.closed = true;
    for (const lane of this.lanes.values()) {
      if (lane.retry) clearTimeout(lane.retry);
      lane.retry = null;
    }
    await Promise.all([...this.lanes.values()].map((lane) => lane.run));
  }
}

/** What befell one job's processing, as its inspection shows it (kept in memory: a restart forgets it). */
export interface JobRecord {
  /** Failed attempts at a slice of this job. */
  failedAttempts: number;
  /** Attempts made after a failure (the one that succeeded included). */
  retries: number;
  /** The last failures, oldest first (FAILURES_PER_JOB at most). */
  failures: Array<{ at: string; slice: string; error: string }>;
}

const FAILURES_PER_JOB = 10;
/** Jobs remembered; the oldest are forgotten first. */
const JOBS_KEPT = 1000;

/**
 * The failures and retries of the jobs of one runner, by job id, for their inspection. They belong to
 * the rows they were noted against: once `generation` (Store.generation) moves (a snapshot restored,
 * a reset), they are forgotten, so that a job id the new state reuses (a seeded sequence restored)
 * never shows another job's failures.
 */
export class JobHistory {
  private readonly records = new Map<string, JobRecord>();
  private seen: number;

  constructor(private readonly generation: () => number = () => 0) {
    this.seen = generation();
  }

  /** The records of the current state of the rows. */
  private get jobs(): Map<string, JobRecord> {
    const now = this.generation();
    if (now !== this.seen) {
      this.seen = now;
      this.records.clear();
    }
    return this.records;
  }

  /** Notes a failure of `slice` (e.g. "lines 1-20000") of `job`. */
  note(job: string, slice: string, err: unknown): void {
    const jobs = this.jobs;
    let record = jobs.get(job);
    if (!record) {
      record = { failedAttempts: 0, retries: 0, failures: [] };
      jobs.set(job, record);
      const oldest = jobs.size > JOBS_KEPT ? jobs.keys().next().value : undefined;
      if (oldest !== undefined) jobs.delete(oldest);
    }
    record.failedAttempts += 1;
    record.failures.push({ at: new Date().toISOString(), slice, error: errorText(err) });
    if (record.failures.length > FAILURES_PER_JOB) record.failures.shift();
  }

  /** note(), then the JobError for the runner to throw. */
  failed(job: string, slice: string, err: unknown): JobError {
    this.note(job, slice, err);
    return new JobError(job, err);
  }

  /** Called before each attempt: one after a failure counts as a retry. */
  attempting(job: string): void {
    const record = this.jobs.get(job);
    if (record && record.retries < record.failedAttempts) record.retries += 1;
  }

  of(job: string): JobRecord | null {
    return this.jobs.get(job) ?? null;
  }

  clear(): void {
    this.records.clear();
  }
}
