// The event feed of one sandbox state: every state change that committed (a payment declared, a batch
// registered, an import processed, a reset...) becomes one event in the CloudEvents 1.0 JSON format.
// A ring of fixed capacity like the journal's (memory stays flat however many events pass), read by
// the long poll, the waits and the subscriptions. Listeners hear an event in the same turn of the
// event loop it was emitted in: a long poll is answered by the event itself, never by a polling timer.
//
// The ring keeps each event as its JSON text in a Buffer, whose bytes live outside the JavaScript
// heap, and reading the feed parses it again (readers get what JSON carries, as the feed serves it).
// Kept as objects, each event (its strings, its data, and through the path parameters it holds the
// request URL they were cut from) outlived two young-generation collections: about 1.1 KB per
// payment moved to the old generation, which lengthened every collection under load
// (docs/benchmarks.md, "The PUT payment tail").
//
// An amount a double would change (a DecimalText in the data, money-cents) is written digit for digit
// and read back as a DecimalText, so the feed, the waits and the deliveries carry it exactly. Which
// events hold one is noted by id: they are rare, and every other event is written and read as before.
//
// The envelope is built here as a plain object (a payment pays for no more than that); the cloudevents
// library validates and serializes it where it leaves the sandbox (toCloudEvent, the deliveries).
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import type * as CloudEvents from 'cloudevents';
import { holdsDecimalText, stringifyExact } from '../http/exact-numbers.js';
import { parseStoredJson } from '../http/json.js';
import type { SandboxClock } from './clock.js';
import { Ring } from './ring.js';

/** One event, as the CloudEvents 1.0 JSON format writes it. */
export interface SandboxEvent {
  specversion: '1.0';
  /** A decimal sequence number: unique in its source, increasing, never reused (not after a reset). */
  id: string;
  /** The workspace it happened in: `/ws/{name}` (the default workspace is `/ws/default`). */
  source: string;
  type: string;
  /** What it is about, as a path relative to the inspection views (`imports/{id}`). */
  subject: string;
  /** When it happened, on the sandbox clock. */
  time: string;
  datacontenttype: 'application/json';
  data: Record<string, unknown>;
}

/**
 * Which events a reader wants. A type or subject pattern is exact, or ends with `*` to take every
 * value that starts with what comes before it (`sandbox.receivables.*`, `*`).
 */
export interface EventFilter {
  types?: readonly string[];
  subject?: string;
  /** Only events with a larger id. */
  after?: number;
}

export type EventListener = (event: SandboxEvent) => void;

/** What a rule or runner needs to report what it committed. */
export interface EventSink {
  emit(type: string, subject: string, data: Record<string, unknown>): unknown;
}

/**
 * An event type as its module declares it: the table of docs/events.md lists exactly these (a test
 * holds the two together).
 */
export interface EventType {
  type: string;
  /** The subject, with {placeholders}. */
  subject: string;
  /** What makes it happen. */
  when: string;
  /** The fields of its data. */
  data: readonly string[];
}

/** An event type pattern: a type, or a type's beginning followed by one `*`; `*` alone takes every type. */
const TYPE_PATTERN = /^(?:[A-Za-z0-9._-]+\*?|\*)$/;

/**
 * Why `pattern` is no event type pattern (undefined: it is one). The one rule of every type filter
 * (the feed's, a wait's, a subscription's): a `*` anywhere but at the end, or a character no type
 * holds, would match no event, and a wait or a subscription would wait on it for nothing.
 */
export function typePatternProblem(pattern: string): string | undefined {
  if (TYPE_PATTERN.test(pattern)) return undefined;
  return `${JSON.stringify(pattern.slice(0, 200))} is no event type pattern: a type is letters, digits, dots, dashes and underscores, and a pattern is a type or its beginning followed by one * (* alone: every type)`;
}

/** A type or subject pattern: exact, or a prefix followed by `*`. */
export function patternMatches(pattern: string, value: string): boolean {
  return pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : pattern === value;
}

/** Whether an event of `type` passes the filter's types (none given: every type). */
function typeMatches(filter: EventFilter, type: string): boolean {
  return !filter.types || filter.types.length === 0 || filter.types.some((t) => patternMatches(t, type));
}

function subjectMatches(filter: EventFilter, subject: string): boolean {
  return filter.subject === undefined || patternMatches(filter.subject, subject);
}

export function eventMatches(filter: EventFilter, event: SandboxEvent): boolean {
  if (filter.after !== undefined && Number(event.id) <= filter.after) return false;
  return typeMatches(filter, event.type) && subjectMatches(filter, event.subject);
}

let library: typeof CloudEvents | undefined;
/**
 * The cloudevents library, loaded when an event first leaves the sandbox: a sandbox nobody subscribes
 * to never needs it, and loading it (with its validator) is start-up time.
 */
export function cloudEvents(): typeof CloudEvents {
  return (library ??= createRequire(import.meta.url)('cloudevents') as typeof CloudEvents);
}

/** The event validated by the cloudevents library, as it leaves the sandbox. */
export function toCloudEvent(event: SandboxEvent): CloudEvents.CloudEvent<Record<string, unknown>> {
  return new (cloudEvents().CloudEvent)<Record<string, unknown>>({ ...event }, true);
}

interface Waiter {
  filter: EventFilter;
  resolve: () => void;
}

export class Events {
  /** Each event's JSON text (ids are consecutive in the ring: the newest is `seq`). */
  private readonly ring: Ring<Buffer>;
  /** Each event's type, beside it in the same order (read by type filters without parsing). */
  private readonly types: Ring<string>;
  /** Ids of the events held whose text has a number a double would change (read back exactly), oldest first. */
  private readonly exact = new Set<number>();
  private seq = 0;
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<EventListener>();
  private closed = false;
  /** Why every wait ends at once (interrupt()). */
  private stopped: Error | undefined;
  /** Told once when interrupt() is called (whenInterrupted), each removed when it no longer needs telling. */
  private readonly onStop = new Set<() => void>();

  constructor(
    readonly capacity: number,
    readonly source: string,
    private readonly clock: SandboxClock,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`the event feed keeps a whole number of events, 1 or more (got ${capacity})`);
    this.ring = new Ring(capacity);
    this.types = new Ring(capacity);
  }

  /**
   * Records an event and tells the waiters and listeners at once. Call it only once the change it
   * reports has committed: a refused request emits nothing.
   */
  emit(type: string, subject: string, data: Record<string, unknown>): SandboxEvent {
    this.seq += 1;
    const event: SandboxEvent = {
      specversion: '1.0',
      id: String(this.seq),
      source: this.source,
      type,
      subject,
      time: new Date(this.clock.nowMs()).toISOString(),
      datacontenttype: 'application/json',
      data,
    };
    const exact = holdsDecimalText(data);
    this.ring.push(Buffer.from(exact ? stringifyExact(event) : JSON.stringify(event), 'utf8'));
    this.types.push(type);
    if (exact) this.exact.add(this.seq);
    if (this.exact.size > 0) this.forgetDroppedExact();
    if (this.waiters.size > 0) {
      for (const w of this.waiters) {
        if (!eventMatches(w.filter, event)) continue;
        this.waiters.delete(w);
        w.resolve();
      }
    }
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /** The id of the last event emitted (0: none yet); the next one is larger. */
  get lastId(): number {
    return this.seq;
  }

  get count(): number {
    return this.ring.count;
  }

  /** Events emitted since the last clear that no longer fit. */
  get dropped(): number {
    return this.ring.dropped;
  }

  /** Matching events, oldest first, at most `limit`. */
  list(filter: EventFilter = {}, limit = this.capacity): SandboxEvent[] {
    return this.page(filter, limit).events;
  }

  /**
   * Matching events, oldest first, at most `limit` and `bytes` of JSON text (commas between them
   * counted; one event at least, whatever its size); `cut` tells that matching events may follow the
   * last one given, which is then where the next page starts.
   */
  page(filter: EventFilter, limit: number, bytes = Number.POSITIVE_INFINITY): { events: SandboxEvent[]; cut: boolean } {
    const out: SandboxEvent[] = [];
    let taken = 0;
    const count = this.ring.count;
    // Ids are consecutive in the ring (a clear empties it): the first one after `after` is found at once.
    const start = filter.after === undefined ? 0 : Math.max(0, Math.min(count, filter.after - (this.seq - count)));
    for (let i = start; i < count && out.length < limit; i++) {
      // The type is read beside the text, so that an event of another type is never parsed.
      if (!typeMatches(filter, this.types.oldest(i) as string)) continue;
      const text = this.ring.oldest(i) as Buffer;
      if (out.length > 0 && taken + 1 + text.length > bytes) return { events: out, cut: true };
      const exact = this.exact.size > 0 && this.exact.has(this.seq - count + 1 + i);
      const json = text.toString('utf8');
      const event = (exact ? parseStoredJson(json) : JSON.parse(json)) as SandboxEvent;
      if (!subjectMatches(filter, event.subject)) continue;
      out.push(event);
      taken += text.length + (out.length > 1 ? 1 : 0);
    }
    return { events: out, cut: out.length === limit };
  }

  /**
   * Resolves once an event matching `filter` exists (at once when one does), or when `signal` aborts,
   * or when the feed closes. Resolves with nothing: the caller reads the feed then, and sees every
   * event emitted in the same turn as the one that woke it.
   */
  waitFor(filter: EventFilter, signal?: AbortSignal): Promise<void> {
    if (this.closed || this.stopped || signal?.aborted || this.list(filter, 1).length > 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        filter,
        resolve: () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        },
      };
      const abort = () => {
        this.waiters.delete(waiter);
        resolve();
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Long polls waiting now (the inspector and the tests read it). */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Calls `listener` with every event from now on, in order; returns the call that stops it. */
  listen(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets the ids of exact events the ring no longer holds. */
  private forgetDroppedExact(): void {
    const oldestHeld = this.seq - this.ring.count + 1;
    for (const id of this.exact) {
      if (id >= oldestHeld) break;
      this.exact.delete(id);
    }
  }

  /** Forgets every event held (ids go on from where they were). */
  clear(): number {
    this.types.clear();
    this.exact.clear();
    return this.ring.clear();
  }

  /**
   * Ends every wait now, and any later one at once, with `reason` (the workspace is being removed:
   * a wait is a request in flight that would otherwise hold the removal until its timeout). Events
   * are still recorded and listeners still told: the requests in flight may finish their changes.
   */
  interrupt(reason: Error): void {
    if (this.stopped) return;
    this.stopped = reason;
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
    for (const tell of this.onStop) tell();
    this.onStop.clear();
  }

  /**
   * Calls `tell` once when interrupt() is called (at once if it was already): something else a request
   * in flight waits for (a delayed answer) ends then too. Returns what stops the telling, for a
   * wait that ended on its own, so that nothing is kept for it.
   */
  whenInterrupted(tell: () => void): () => void {
    if (this.stopped) {
      tell();
      return () => {};
    }
    this.onStop.add(tell);
    return () => this.onStop.delete(tell);
  }

  /** Why waits end at once (interrupt()), undefined while they do not. */
  get interruption(): Error | undefined {
    return this.stopped;
  }

  /** How many are to be told at interrupt() (whenInterrupted): none once their waits have ended. */
  get toTell(): number {
    return this.onStop.size;
  }

  /** Answers every wait now (the state is closing) and stops listening. */
  close(): void {
    this.closed = true;
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
    this.listeners.clear();
  }
}
