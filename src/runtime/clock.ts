// The sandbox clock: every timestamp the sandbox writes comes from here, so tests can pin it and
// the control plane can move it (a month forward makes a registry participant overdue).

export interface Clock {
  now(): Date;
}

export class SandboxClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): Date {
    return new Date(this.nowMs());
  }

  /** The sandbox time in epoch milliseconds, without allocating a Date (hot paths count with it). */
  nowMs(): number {
    return this.frozenAt ?? this.realNow() + this.offsetMs;
  }

  /** Moves the clock to `instant`; it keeps running from there unless `freeze` is set. */
  set(instant: Date, freeze = false): void {
    if (freeze) {
      this.frozenAt = instant.getTime();
    } else {
      this.frozenAt = undefined;
      this.offsetMs = instant.getTime() - this.realNow();
    }
  }

  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }

  /** The clock's setting, to put it back if an operation that moved it fails. */
  save(): { offsetMs: number; frozenAt: number | undefined } {
    return { offsetMs: this.offsetMs, frozenAt: this.frozenAt };
  }

  restore(saved: { offsetMs: number; frozenAt: number | undefined }): void {
    this.offsetMs = saved.offsetMs;
    this.frozenAt = saved.frozenAt;
  }

  /** Back to real time. */
  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = undefined;
  }

  describe(): { now: string; realNow: string; offsetMs: number; frozen: boolean } {
    return {
      now: this.now().toISOString(),
      realNow: new Date(this.realNow()).toISOString(),
      offsetMs: this.frozenAt === undefined ? this.offsetMs : this.frozenAt - this.realNow(),
      frozen: this.frozenAt !== undefined,
    };
  }
}
