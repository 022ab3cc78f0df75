// The sandbox clock: every timestamp the sandbox writes comes from here, so tests can pin it and
// the control plane can move it (a month forward makes a registry participant overdue).

/**
 * Every instant the clock can be moved to: years 0001 to 9998, so that every date the sandbox writes
 * has four digits (YYYY-MM-DD, which its rules compare as text) and a running clock set to the last
 * instant takes a year to leave the years JavaScript writes with four digits.
 */
export const CLOCK_MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const CLOCK_MAX_MS = Date.parse('9998-12-31T23:59:59.999Z');
export const CLOCK_RANGE_TEXT = `between ${new Date(CLOCK_MIN_MS).toISOString()} and ${new Date(CLOCK_MAX_MS).toISOString()}`;

/** Whether the clock may be moved to `ms` (epoch milliseconds). */
export function inClockRange(ms: number): boolean {
  return ms >= CLOCK_MIN_MS && ms <= CLOCK_MAX_MS;
}

export interface Clock {
  now(): Date;
}

export class SandboxClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;
  /** Called after every move (timers on the sandbox clock re-arm: runtime/timers.ts). */
  private readonly listeners = new Set<() => void>();

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Calls `listener` after every change of the clock's setting; returns the call that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Whether the clock stands still (only set/advance move it). */
  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

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
    this.changed();
  }

  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
    this.changed();
  }

  /** The clock's setting, to put it back if an operation that moved it fails. */
  save(): { offsetMs: number; frozenAt: number | undefined } {
    return { offsetMs: this.offsetMs, frozenAt: this.frozenAt };
  }

  restore(saved: { offsetMs: number; frozenAt: number | undefined }): void {
    this.offsetMs = saved.offsetMs;
    this.frozenAt = saved.frozenAt;
    this.changed();
  }

  /** Back to real time. */
  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = undefined;
    this.changed();
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
