// Asynchronous processing (CNAB imports, the loan-bond flow) happens off the request path: a route
// stores its item as pending and kicks the interface's runner, which runs on a later turn of the
// event loop. Pending items live in the database, so a restart resumes them; tests and the control
// plane can run everything pending now with drain(), instead of sleeping.

/** Processes some pending items; returns how many it processed (0 when none are left). */
export type Runner = () => number | Promise<number>;

export class Work {
  private readonly runners = new Map<string, Runner>();
  private readonly scheduled = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;
  private failures = 0;
  /** Items processed per runner since the start. */
  private readonly processed = new Map<string, number>();

  constructor(private readonly onError: (name: string, err: unknown) => void = () => {}) {}

  register(name: string, runner: Runner): void {
    if (this.runners.has(name)) throw new Error(`work runner "${name}" registered twice`);
    this.runners.set(name, runner);
  }

  /** Asks the runner to look for pending items soon (coalesced: many kicks, one run). */
  kick(name: string): void {
    if (this.closed || this.scheduled.has(name)) return;
    this.scheduled.add(name);
    setImmediate(() => {
      this.scheduled.delete(name);
      void this.runUntilIdle(name);
    });
  }

  kickAll(): void {
    for (const name of this.runners.keys()) this.kick(name);
  }

  private runUntilIdle(name: string): Promise<void> {
    const current = this.running.get(name);
    if (current) return current.then(() => this.runUntilIdle(name));
    const runner = this.runners.get(name);
    if (!runner) return Promise.resolve();
    const run = (async () => {
      try {
        // A runner processes a slice at a time, yielding between slices so requests keep flowing.
        while (!this.closed) {
          const n = await runner();
          if (n <= 0) break;
          this.processed.set(name, (this.processed.get(name) ?? 0) + n);
          await new Promise((r) => setImmediate(r));
        }
      } catch (err) {
        this.failures += 1;
        this.onError(name, err);
      }
    })().finally(() => this.running.delete(name));
    this.running.set(name, run);
    return run;
  }

  /**
   * Runs every runner until nothing is pending; resolves when all is processed, with the number of
   * items each runner processed meanwhile (runs already under way included).
   */
  async drain(): Promise<Record<string, number>> {
    const before = new Map(this.processed);
    for (const name of this.runners.keys()) await this.runUntilIdle(name);
    const counts: Record<string, number> = {};
    for (const name of this.runners.keys())
      counts[name] = (this.processed.get(name) ?? 0) - (before.get(name) ?? 0);
    return counts;
  }

  get names(): string[] {
    return [...this.runners.keys()];
  }

  get errors(): number {
    return this.failures;
  }

  /** Stops scheduling and waits for the runs in flight. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.running.values());
  }
}
