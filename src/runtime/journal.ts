// The request journal: what clients sent to the emulated interfaces and what they got back, so a user
// can see why their client failed. A ring buffer of fixed capacity (memory stays flat however many
// requests pass) whose entries hold redacted, size-bounded copies of the bodies, never headers.
import type { InterfaceId } from '../http/errors.js';
import { redact, truncatedMarker } from './redact.js';
import { Ring } from './ring.js';

/** Bodies up to this many characters are kept as they came and redacted when read. */
export const KEEP_RAW_LIMIT = 16_384;

/** Captures a parsed body (request, query) cheaply; a large one is redacted at once. */
export function captureValue(value: unknown, size: number): Captured {
  if (value === undefined || value === null) return { redacted: true, value: null };
  if (size > KEEP_RAW_LIMIT) return { redacted: true, value: redact(value) };
  return { redacted: false, value, text: false };
}

/** Captures a response payload (text); a large or streamed one is summarised at once. */
export function captureText(payload: unknown): Captured {
  if (payload === null || payload === undefined || payload === '') return { redacted: true, value: null };
  const text =
    typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined) return { redacted: true, value: truncatedMarker('a streamed body') };
  if (text.length > KEEP_RAW_LIMIT * 16) return { redacted: true, value: truncatedMarker(`a body of ${text.length} characters`) };
  if (text.length > KEEP_RAW_LIMIT) return { redacted: true, value: redactText(text) };
  return { redacted: false, value: text, text: true };
}

function redactText(text: string): unknown {
  try {
    return redact(JSON.parse(text));
  } catch {
    return redact(text);
  }
}

function reveal(c: Captured): unknown {
  if (c.redacted) return c.value;
  return c.text ? redactText(c.value as string) : redact(c.value);
}

export interface JournalEntry {
  /** Sequence number since the sandbox started (never reused, also across clears). */
  id: number;
  /** Arrival on the sandbox clock (what the interfaces saw as "now"). */
  time: string;
  /** Arrival on the real clock. */
  realTime: string;
  /** null: outside every interface prefix (a 404). */
  interface: InterfaceId | null;
  /** The documented operation reached; null for a 501, a 404 or a refused body. */
  operation: string | null;
  method: string;
  /** Without the query string. */
  path: string;
  query: unknown;
  status: number;
  durationMs: number;
  /** The number of warnings in the Sandbox-Warnings response header; null without one. */
  warnings: number | null;
  /** The fault rule that answered or delayed the request, if any. */
  fault: string | null;
  /** The outcome of the answer (an id of GET /_sandbox/coverage); null for a 501, a 404 or an unrouted path. */
  outcome: string | null;
  /** The id of the user-defined operation (stub mapping) that answered; null: none did. */
  mapping: string | null;
  /** The upstream the request was forwarded to (proxy mode); null: the sandbox answered. */
  upstream: string | null;
  requestBody: unknown;
  responseBody: unknown;
}

export interface JournalFilter {
  interface?: InterfaceId;
  operation?: string;
  /** An exact status (404) or a class (4xx). */
  status?: string;
  /** Entries at or after this instant of the sandbox clock. */
  since?: Date;
  /** Only entries older than this id (the page after an entry of that id). */
  before?: number;
  limit?: number;
}

/**
 * A body as captured on the hot path. Small bodies are kept as they came (the parsed request object,
 * the response text) and redacted only when the journal is read; a large one is redacted and cut at
 * once, so an entry never holds more than a few kilobytes whatever was sent.
 */
export type Captured = { redacted: true; value: unknown } | { redacted: false; value: unknown; text: boolean };

/** What the journal keeps: an entry whose bodies and query are captured, not yet redacted. */
export type StoredEntry = Omit<JournalEntry, 'requestBody' | 'responseBody' | 'query'> & {
  query: Captured;
  requestBody: Captured;
  responseBody: Captured;
};

export class Journal {
  private readonly ring: Ring<StoredEntry>;
  private seq = 0;

  constructor(readonly capacity: number) {
    this.ring = new Ring(capacity);
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  nextId(): number {
    this.seq += 1;
    return this.seq;
  }

  add(entry: StoredEntry): void {
    this.ring.push(entry);
  }

  /** Matching entries, newest first, with their bodies redacted. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    return this.select(filter).map((e) => ({
      ...e,
      query: reveal(e.query),
      requestBody: reveal(e.requestBody),
      responseBody: reveal(e.responseBody),
    }));
  }

  private select(filter: JournalFilter): StoredEntry[] {
    const limit = filter.limit ?? this.capacity;
    const status = filter.status;
    const klass = status && /^[1-5]xx$/i.test(status) ? Number(status[0]) : undefined;
    const since = filter.since?.getTime();
    const out: StoredEntry[] = [];
    // Ids grow with each entry: the page after `before` starts at the newest entry older than it,
    // found by halving (a deep page costs no walk over the entries before it).
    let first = 0;
    if (filter.before !== undefined) {
      let hi = this.ring.count;
      while (first < hi) {
        const mid = (first + hi) >> 1;
        if ((this.ring.newest(mid)?.id ?? 0) < filter.before) hi = mid;
        else first = mid + 1;
      }
    }
    for (let i = first; i < this.ring.count && out.length < limit; i++) {
      const e = this.ring.newest(i);
      if (!e || (filter.before !== undefined && e.id >= filter.before)) continue;
      if (filter.interface !== undefined && e.interface !== filter.interface) continue;
      if (filter.operation !== undefined && e.operation !== filter.operation) continue;
      if (
        klass !== undefined
          ? Math.floor(e.status / 100) !== klass
          : status !== undefined && e.status !== Number(status)
      )
        continue;
      if (since !== undefined && Date.parse(e.time) < since) continue;
      out.push(e);
    }
    return out;
  }

  get count(): number {
    return this.ring.count;
  }

  /** Entries that no longer fit and were overwritten since the last clear. */
  get dropped(): number {
    return this.ring.dropped;
  }

  clear(): number {
    return this.ring.clear();
  }
}
