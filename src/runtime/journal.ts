// The request journal: what clients sent to the emulated interfaces and what they got back, so a user
// can see why their client failed. A ring buffer of fixed capacity (memory stays flat however many
// requests pass) whose entries hold redacted, size-bounded copies of the bodies, and the request line
// and headers as sent, secrets redacted.
import { Buffer } from 'node:buffer';
import type { InterfaceId } from '../http/errors.js';
import { parseJsonAsWritten } from '../http/json.js';
import { EchoSecrets, FormText, isFormType, isRedactedKey, REDACTED, redact, redactJsonText, redactPairs, redactPathParameters, redactUrlSecrets, truncatedMarker } from './redact.js';
import { Ring } from './ring.js';

/** Bodies up to this many characters are kept as they came and redacted when read. */
export const KEEP_RAW_LIMIT = 16_384;

/** Captures a parsed body (request, query) cheaply; a large one is redacted at once. */
export function captureValue(value: unknown, size: number): Captured {
  if (value === undefined || value === null) return { redacted: true, value: null };
  if (size > KEEP_RAW_LIMIT) return { redacted: true, value: redact(value) };
  return { redacted: false, value, text: false };
}

/**
 * A request body read as bytes (a user-defined operation's, a proxied one's) as the journal keeps it:
 * a form (by its Content-Type) as FormText, so that its secret fields are redacted; else the JSON
 * value when it is JSON (its numbers kept as written, as a documented operation's are), or the text.
 * Undefined when there is none.
 */
export function sentBodyValue(bytes: Buffer | null, contentType: string | undefined): unknown {
  if (bytes === null || bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  if (isFormType(contentType)) return new FormText(text);
  try {
    return parseJsonAsWritten(text);
  } catch {
    return text;
  }
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

/**
 * A text made only of name=value pairs joined by & (a form-encoded answer: an OAuth token endpoint's
 * access_token=...&token_type=bearer). Its Content-Type is not kept with the answer; the shape is enough.
 */
const FORM_SHAPE = /^[^\s=&]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*$/;

function redactText(text: string): unknown {
  try {
    return redact(JSON.parse(text));
  } catch {
    return redact(FORM_SHAPE.test(text) ? new FormText(text) : text);
  }
}

/** The start of a form-encoded text: FORM_SHAPE, and maybe the start of a name after the last `&`. */
const CUT_FORM_SHAPE = /^[^\s=&]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*(?:&[^\s=&]*)?$/;

/**
 * A body that broke off midway (a proxied answer cut short), as the journal keeps it: the part that
 * came, redacted as a complete answer is though it no longer parses (secrets by key in JSON text, by
 * name in a form), cut to length as a text is, then `marker`, which says it broke off. The secrets
 * the request carried are replaced in it when the journal is read, as in every body.
 */
export function captureCutText(part: Buffer | null, marker: string): Captured {
  const text = part?.toString('utf8') ?? '';
  if (text.length > KEEP_RAW_LIMIT * 16) return { redacted: true, value: `${truncatedMarker(`a body of ${text.length} characters`)}${marker}` };
  const redacted = CUT_FORM_SHAPE.test(text) ? redactPairs(text) : redactJsonText(text);
  return { redacted: true, value: `${String(redact(redacted))}${marker}` };
}

/**
 * The request as it came on the wire: method, target and version of its request line, and its
 * headers as Node read them (name and value pairs, in order, as written). Node has already bounded
 * them (16 KiB of headers); they are redacted only when the journal is read.
 */
export interface SentRequest {
  method: string;
  /** The request target as sent, query string included (before any workspace prefix is removed). */
  url: string;
  httpVersion: string;
  rawHeaders: readonly string[];
}

/**
 * A SentRequest as the journal keeps it: its strings joined into one Buffer, whose bytes live outside
 * the JavaScript heap. Kept as a dozen small strings, every entry's strings were copied by the young
 * generation's collections until the entry left the ring, and those collections (hence the tail
 * latency of every request under load) took longer (docs/benchmarks.md). The fields are separated by
 * a line feed, which a request line or header Node parsed cannot hold, and written as UTF-8, which
 * carries any text Node parsed (Latin-1 strings); a request that holds a line feed or a lone surrogate
 * anyway (made in-process) is kept as it is.
 */
export type PackedRequest = Buffer | SentRequest;

export function packRequest(sent: SentRequest): PackedRequest {
  const parts = [sent.method, sent.url, sent.httpVersion, ...sent.rawHeaders];
  for (const part of parts) if (part.includes('\n') || !isWellFormed(part)) return sent;
  return Buffer.from(parts.join('\n'), 'utf8');
}

/** String.prototype.isWellFormed (ES2024, in Node 20; the compiler's library stops at ES2023). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

export function unpackRequest(packed: PackedRequest): SentRequest {
  if (!Buffer.isBuffer(packed)) return packed;
  const [method = '', url = '', httpVersion = '', ...rawHeaders] = packed.toString('utf8').split('\n');
  return { method, url, httpVersion, rawHeaders };
}

/** Characters of one header value or request line kept before it is cut. */
const MAX_SENT_TEXT = 2048;

function cut(text: string): string {
  return text.length > MAX_SENT_TEXT ? `${text.slice(0, MAX_SENT_TEXT)}${truncatedMarker(`${text.length} characters`)}` : text;
}

/** A header's value as the journal shows it: a credential redacted, its scheme kept ("Bearer [redacted]"). */
function headerValue(name: string, value: string): string {
  if (isRedactedKey(name)) {
    const scheme = /authorization$/i.test(name) ? /^([A-Za-z][\w.+-]*)\s+\S/.exec(value)?.[1] : undefined;
    return scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`;
  }
  return cut(redactUrlSecrets(value));
}


/**
 * The request line, query string and headers of an entry, as sent and redacted: values by their name
 * (path parameters and query parameters; also in a URL a header holds: a Referer), and a secret the
 * query carried wherever else the query echoes it.
 */
function revealSent(sent: SentRequest, secrets: EchoSecrets): Pick<JournalEntry, 'requestLine' | 'rawQuery' | 'headers'> {
  const mark = sent.url.indexOf('?');
  const rawQuery = mark === -1 ? '' : secrets.scrubText(redactPairs(sent.url.slice(mark + 1)));
  const path = redactPathParameters(mark === -1 ? sent.url : sent.url.slice(0, mark));
  const target = mark === -1 ? path : `${path}?${rawQuery}`;
  const headers: Array<{ name: string; value: string }> = [];
  for (let i = 0; i + 1 < sent.rawHeaders.length; i += 2) {
    const name = sent.rawHeaders[i] as string;
    headers.push({ name, value: headerValue(name, sent.rawHeaders[i + 1] as string) });
  }
  return { requestLine: cut(`${sent.method} ${target} HTTP/${sent.httpVersion}`), rawQuery: cut(rawQuery), headers };
}

function* headerPairs(rawHeaders: readonly string[]): Generator<[string, string]> {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) yield [rawHeaders[i] as string, rawHeaders[i + 1] as string];
}

/**
 * The secret values a request carried: those of headers and query parameters named like a secret
 * and the values under a secret's key in its body (a body too large to keep as sent was redacted at
 * once, and gives none).
 */
function sentSecrets(sent: SentRequest, body: Captured): EchoSecrets {
  const sentBody = body.redacted ? undefined : body.text ? parseOrNothing(body.value as string) : body.value;
  return EchoSecrets.ofRequest(headerPairs(sent.rawHeaders), sent.url, sentBody);
}

function parseOrNothing(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
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
  /** The query string as the sandbox understood it (parsed, defaults added), redacted. */
  query: unknown;
  /** The request line as sent ("GET /path?desc=True HTTP/1.1"), secret query values redacted. */
  requestLine: string;
  /** The query string as sent, without "?" ("" when none), secret values redacted. */
  rawQuery: string;
  /** The request headers as sent, in order and as written; credentials redacted. */
  headers: Array<{ name: string; value: string }>;
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
  /** Only the requests that reached no documented operation (operation null: a 501, a 404, an unreadable path). */
  unmatched?: boolean;
  limit?: number;
}

/**
 * A body as captured on the hot path. Small bodies are kept as they came (the parsed request object,
 * the response text) and redacted only when the journal is read; a large one is redacted and cut at
 * once, so an entry never holds more than a few kilobytes whatever was sent.
 */
export type Captured = { redacted: true; value: unknown } | { redacted: false; value: unknown; text: boolean };

/** What the journal keeps: an entry whose bodies and query are captured, not yet redacted. */
export type StoredEntry = Omit<JournalEntry, 'requestBody' | 'responseBody' | 'query' | 'requestLine' | 'rawQuery' | 'headers'> & {
  query: Captured;
  sent: PackedRequest;
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
    return this.select(filter).map(({ sent, ...e }) => {
      const request = unpackRequest(sent);
      const secrets = sentSecrets(request, e.requestBody);
      return {
        ...e,
        path: redactPathParameters(e.path),
        ...revealSent(request, secrets),
        query: secrets.scrub(reveal(e.query)),
        requestBody: secrets.scrub(reveal(e.requestBody)),
        responseBody: secrets.scrub(reveal(e.responseBody)),
      };
    });
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
      if (filter.unmatched === true && e.operation !== null) continue;
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
