// Timers on the sandbox clock: a callback runs once the sandbox time reaches its instant, whether
// the time gets there by running (one real timer, for the earliest instant) or because the control
// plane moved the clock (a move re-arms, and what became due runs at once). A frozen clock never gets
// anywhere by itself: only a move makes its timers due. So a test drives webhook retries and delayed
// asynchronous work by advancing the clock, and a sandbox left alone runs them in real time.

import type { SandboxClock } from './clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Longest real wait armed at once (setTimeout's limit is 2^31-1 ms); a later timer re-arms. */
const MAX_ARM_MS = 2 ** 30;

export class ClockTimers {
  /** Pending timers, kept sorted by instant then by order of scheduling. */
  private timers: Timer[] = [];
  private seq = 0;
  private armed: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly clock: SandboxClock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.stopListening = clock.onChange(() => this.fire());
  }

  /** Runs `fn` once the sandbox clock reaches `atMs` (epoch ms); returns the call that cancels it. */
  at(atMs: number, fn: () => void): () => void {
    if (this.closed) return () => {};
    const timer: Timer = { at: atMs, seq: ++this.seq, fn };
    // Most timers are scheduled later than every pending one: insertion from the end is cheap then.
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1] as Timer).at > atMs) i--;
    this.timers.splice(i, 0, timer);
    if (i === 0) this.arm();
    return () => {
      const k = this.timers.indexOf(timer);
      if (k >= 0) this.timers.splice(k, 1);
    };
  }

  /** Runs `fn` `ms` milliseconds of sandbox time from now. */
  after(ms: number, fn: () => void): () => void {
    return this.at(this.clock.nowMs() + ms, fn);
  }

  get size(): number {
    return this.timers.length;
  }

  /** Runs what is due, in order, then arms the real timer for the next one. */
  private fire(): void {
    if (this.closed) return;
    const now = this.clock.nowMs();
    let n = 0;
    while (n < this.timers.length && (this.timers[n] as Timer).at <= now) n++;
    const due = this.timers.splice(0, n);
    for (const t of due) {
      try {
        t.fn();
      } catch (err) {
        this.onError(err);
      }
    }
    this.arm();
  }

  private arm(): void {
    if (this.armed) clearTimeout(this.armed);
    this.armed = undefined;
    const next = this.timers[0];
    if (!next || this.closed || this.clock.frozen) return;
    const wait = Math.min(Math.max(0, next.at - this.clock.nowMs()), MAX_ARM_MS);
    this.armed = setTimeout(() => {
      this.armed = undefined;
      this.fire();
    }, wait);
    // A pending retry or delayed run never keeps the process alive on its own.
    this.armed.unref();
  }

  /** Drops every pending timer (nothing of them runs). */
  clear(): void {
    this.timers = [];
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.clear();
    this.stopListening();
  }
}
