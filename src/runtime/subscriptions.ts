// Subscriptions: every event of a workspace whose type a subscription names is POSTed to its URL,
// signed per the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature:
// HMAC-SHA256 by the standardwebhooks library), retried on failure on the sandbox clock (advancing the
// clock drives the retries), with a bounded delivery log and redelivery. Faults a receiver must
// survive are switched per subscription: duplicates, delays, out-of-order delivery, failed attempts.
//
// Each subscription sends one request at a time, in the order its deliveries became due, so a healthy
// receiver sees events in order; an attempt is cut off after the subscription's timeout, so a receiver
// that hangs holds back only its own deliveries. Nothing here runs on the request path: an event is
// queued when emitted and sent on a later turn of the event loop.
import { createRequire } from 'node:module';
import type { Webhook } from 'standardwebhooks';
import { holdsDecimalText, stringifyExact } from '../http/exact-numbers.js';
import type { SandboxClock } from './clock.js';
import { cloudEvents, type EventFilter, eventMatches, type SandboxEvent, toCloudEvent } from './events.js';
import type { ClockTimers } from './timers.js';

/** The Standard Webhooks retry schedule (after the first attempt), on the sandbox clock. */
export const DEFAULT_RETRY_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
export const DEFAULT_TIMEOUT_MS = 5_000;
export const MAX_TIMEOUT_MS = 60_000;
/** Deliveries a subscription's log keeps; older ones are forgotten (pending ones included). */
export const DELIVERY_LOG_SIZE = 1000;
export const MAX_SUBSCRIPTIONS = 100;
/** Characters of a receiver's answer kept in the delivery log. */
const RESPONSE_KEPT = 512;

export interface SubscriptionFaults {
  /** Every message is sent twice: the copy right after the original, with the same webhook-id. */
  duplicate: boolean;
  /** Every message waits this long on the sandbox clock before its first attempt. */
  delayMs: number;
  /** Messages that come due together (one request's events, or events held by a delay) go out newest first. */
  outOfOrder: boolean;
  /** The first N attempts of every message are sent, and then counted failed whatever the answer (retried). */
  failFirst: number;
}

export const NO_FAULTS: SubscriptionFaults = { duplicate: false, delayMs: 0, outOfOrder: false, failFirst: 0 };

export interface SubscriptionSpec {
  url: string;
  types: string[];
  /** whsec_ followed by the base64 of the key. */
  secret: string;
  /**
   * Renders the payload of an event (null: the CloudEvent itself, in its JSON format); what it
   * throws, or a text that is not JSON, is recorded on the event's delivery, which is then failed
   * without an attempt.
   */
  render: ((event: SandboxEvent) => string) | null;
  /** The template's text, as given (shown back: it is no secret). */
  template: string | null;
  timeoutMs: number;
  retryMs: number[];
  faults: SubscriptionFaults;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Attempt {
  /** 1 for the first attempt of the message. */
  n: number;
  /** When it was sent, on the sandbox clock. */
  time: string;
  /** When it was sent, on the real clock (webhook-timestamp is real time). */
  realTime: string;
  /** The receiver's status; null when there was no answer (refused connection, timeout). */
  status: number | null;
  ok: boolean;
  /** Why it failed (null when it did not). */
  error: string | null;
  /** The start of the receiver's answer. */
  response: string | null;
  /**
   * The answer's body had not ended when the timeout came: `response` is what came until then. The
   * status decides all the same (a 2xx within the timeout delivers).
   */
  responseCutOff: boolean;
  durationMs: number;
  /** The fault that shaped this attempt: duplicate, fail-first; null: none. */
  fault: 'duplicate' | 'fail-first' | null;
  /** Asked for by POST .../redeliver. */
  redelivery: boolean;
}

export interface Delivery {
  id: string;
  eventId: string;
  type: string;
  subject: string;
  /** The Standard Webhooks message id, the same on every attempt of this message. */
  webhookId: string;
  status: DeliveryStatus;
  attempts: Attempt[];
  /** When the next attempt is due on the sandbox clock; null when none is planned. */
  nextAttemptAt: string | null;
  /** Why no message could be made for the event (its template failed or rendered no JSON); null when one was. */
  error: string | null;
}

export interface SubscriptionView {
  id: string;
  url: string;
  types: string[];
  template: string | null;
  timeoutMs: number;
  retrySchedule: number[];
  faults: SubscriptionFaults;
  createdAt: string;
  deliveries: { pending: number; delivered: number; failed: number; forgotten: number };
}

interface Message {
  delivery: Delivery;
  body: string;
  contentType: string;
  /** Attempts made so far (duplicates excluded). */
  tries: number;
  cancel: (() => void) | undefined;
}

interface Send {
  message: Message;
  duplicate: boolean;
  redelivery: boolean;
}

/** Sends one request; the seam tests and benchmarks can replace. */
export type Transport = (
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number; signal: AbortSignal },
) => Promise<{ status: number; response: string; responseCutOff?: boolean }>;

/**
 * POST with fetch, cut off (answer included) after timeoutMs or when `signal` aborts (the state
 * closes); redirects are not followed (a failure). An answer whose status came in time is an answer:
 * a body still open at the timeout is cut off and its start kept (assumption webhook-deliveries).
 */
export const fetchTransport: Transport = async (url, { headers, body, timeoutMs, signal: closing }) => {
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), closing]);
  const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
  const { text, cutOff } = await readStart(res, signal);
  return { status: res.status, response: text, responseCutOff: cutOff };
};

/**
 * The start of an answer's body, reading no more than needed; cutOff when `signal` ended the read
 * before the body did (a receiver that answered at once but kept its body open).
 */
async function readStart(res: Response, signal: AbortSignal): Promise<{ text: string; cutOff: boolean }> {
  if (!res.body) return { text: '', cutOff: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cutOff = false;
  try {
    while (size < RESPONSE_KEPT * 4) {
      if (signal.aborted) {
        cutOff = true;
        break;
      }
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch (err) {
    // The signal aborts the body's stream too: the read so far is kept. Any other error is the answer's.
    if (!signal.aborted) throw err;
    cutOff = true;
  } finally {
    void reader.cancel().catch(() => {});
  }
  return { text: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_KEPT), cutOff };
}

class Subscription {
  readonly log = new Map<string, Message>();
  private readonly queue: Send[] = [];
  private sending = false;
  /** Messages that came due in this turn, sent together (newest first under outOfOrder). */
  private due: Message[] = [];
  private dueScheduled = false;
  private seq = 0;
  forgotten = 0;
  closed = false;
  /** Aborts the attempt in flight when the subscription or its state closes. */
  private readonly closing = new AbortController();
  private readonly signer: Webhook;
  private readonly filter: EventFilter;

  constructor(
    readonly id: string,
    public spec: SubscriptionSpec,
    readonly createdAt: string,
    private readonly env: { clock: SandboxClock; timers: ClockTimers; transport: Transport; onError: (err: unknown) => void },
  ) {
    // Loaded with the first subscription (start-up time otherwise).
    this.signer = new (createRequire(import.meta.url)('standardwebhooks') as { Webhook: typeof Webhook }).Webhook(spec.secret);
    this.filter = { types: spec.types };
  }

  wants(event: SandboxEvent): boolean {
    return eventMatches(this.filter, event);
  }

  accept(event: SandboxEvent, body: string, contentType: string): void {
    const message = this.record(event, body, contentType);
    const { delayMs } = this.spec.faults;
    if (delayMs > 0) this.plan(message, this.env.clock.nowMs() + delayMs);
    else this.comeDue(message);
  }

  /** The event's delivery, failed at once: no message could be made for it (`error` says why). */
  fail(event: SandboxEvent, error: string): void {
    const { delivery } = this.record(event, '', '');
    delivery.status = 'failed';
    delivery.error = error;
  }

  private record(event: SandboxEvent, body: string, contentType: string): Message {
    this.seq += 1;
    const delivery: Delivery = {
      id: String(this.seq),
      eventId: event.id,
      type: event.type,
      subject: event.subject,
      webhookId: `msg_${this.id}_${event.id}`,
      status: 'pending',
      attempts: [],
      nextAttemptAt: null,
      error: null,
    };
    const message: Message = { delivery, body, contentType, tries: 0, cancel: undefined };
    this.log.set(delivery.id, message);
    if (this.log.size > DELIVERY_LOG_SIZE) {
      const [oldest] = this.log.values();
      if (oldest) this.forget(oldest);
    }
    return message;
  }

  private forget(message: Message): void {
    message.cancel?.();
    this.log.delete(message.delivery.id);
    this.forgotten += 1;
  }

  /** The next attempt of `message` at `atMs` on the sandbox clock. */
  private plan(message: Message, atMs: number): void {
    message.cancel?.();
    message.delivery.nextAttemptAt = new Date(atMs).toISOString();
    message.cancel = this.env.timers.at(atMs, () => {
      message.cancel = undefined;
      this.comeDue(message);
    });
  }

  private comeDue(message: Message): void {
    this.due.push(message);
    if (this.dueScheduled) return;
    this.dueScheduled = true;
    setImmediate(() => {
      this.dueScheduled = false;
      const due = this.due;
      this.due = [];
      if (this.spec.faults.outOfOrder) due.reverse();
      for (const m of due) this.enqueue({ message: m, duplicate: false, redelivery: false });
    });
  }

  redeliver(message: Message): void {
    message.cancel?.();
    message.cancel = undefined;
    message.delivery.status = 'pending';
    message.delivery.nextAttemptAt = null;
    this.enqueue({ message, duplicate: false, redelivery: true });
  }

  private enqueue(send: Send): void {
    if (this.closed || !this.log.has(send.message.delivery.id)) return;
    this.queue.push(send);
    if (!this.sending) void this.drain();
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      for (let send = this.queue.shift(); send && !this.closed; send = this.queue.shift()) {
        await this.attempt(send);
      }
    } catch (err) {
      this.env.onError(err);
    } finally {
      this.sending = false;
    }
  }

  private async attempt(send: Send): Promise<void> {
    const { message } = send;
    const { delivery } = message;
    if (!this.log.has(delivery.id)) return;
    if (!send.duplicate) message.tries += 1;
    const n = message.tries;
    const real = new Date();
    const headers = {
      'content-type': message.contentType,
      'user-agent': 'tradebill-sandbox',
      'webhook-id': delivery.webhookId,
      'webhook-timestamp': String(Math.floor(real.getTime() / 1000)),
      'webhook-signature': this.signer.sign(delivery.webhookId, real, message.body),
    };
    const started = performance.now();
    let status: number | null = null;
    let response: string | null = null;
    let error: string | null = null;
    let responseCutOff = false;
    try {
      const answer = await this.env.transport(this.spec.url, {
        headers,
        body: message.body,
        timeoutMs: this.spec.timeoutMs,
        signal: this.closing.signal,
      });
      status = answer.status;
      response = answer.response;
      responseCutOff = answer.responseCutOff === true;
      if (status < 200 || status > 299) error = `the receiver answered ${status}`;
    } catch (err) {
      error = describeFailure(err, this.spec.timeoutMs);
    }
    // Removed, or its state closed, while the attempt was under way: nothing more to record or plan.
    if (this.closed) return;
    const failFirst = !send.duplicate && !send.redelivery && message.tries <= this.spec.faults.failFirst;
    if (failFirst && error === null)
      error = `counted as failed by the failFirst fault (attempt ${message.tries} of the first ${this.spec.faults.failFirst})`;
    const ok = error === null;
    delivery.attempts.push({
      n,
      time: this.env.clock.now().toISOString(),
      realTime: real.toISOString(),
      status,
      ok,
      error,
      response,
      responseCutOff,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      fault: send.duplicate ? 'duplicate' : failFirst ? 'fail-first' : null,
      redelivery: send.redelivery,
    });
    if (send.duplicate) return;
    if (ok) {
      delivery.status = 'delivered';
      delivery.nextAttemptAt = null;
      if (this.spec.faults.duplicate) this.queue.unshift({ message, duplicate: true, redelivery: false });
      return;
    }
    // Retries follow the schedule from the message's first attempt on; a redelivery that fails is not retried.
    const retry = send.redelivery ? undefined : this.spec.retryMs[message.tries - 1];
    if (retry === undefined) {
      delivery.status = 'failed';
      delivery.nextAttemptAt = null;
      return;
    }
    this.plan(message, this.env.clock.nowMs() + retry);
  }

  counts(): SubscriptionView['deliveries'] {
    const c = { pending: 0, delivered: 0, failed: 0, forgotten: this.forgotten };
    for (const m of this.log.values()) c[m.delivery.status] += 1;
    return c;
  }

  view(): SubscriptionView {
    const { url, types, template, timeoutMs, retryMs, faults } = this.spec;
    return {
      id: this.id,
      url,
      types: [...types],
      template,
      timeoutMs,
      retrySchedule: [...retryMs],
      faults: { ...faults },
      createdAt: this.createdAt,
      deliveries: this.counts(),
    };
  }

  close(): void {
    this.closed = true;
    this.closing.abort();
    for (const m of this.log.values()) m.cancel?.();
    this.queue.length = 0;
  }
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError')
    return `no answer within the subscription's timeout (${timeoutMs} ms): cut off`;
  const cause = e.cause?.code ?? e.cause?.message;
  return `the request failed: ${e.message ?? String(err)}${cause ? ` (${cause})` : ''}`;
}

export interface SubscriptionsOptions {
  clock: SandboxClock;
  timers: ClockTimers;
  /** A fresh subscription id (unique across workspaces and restarts: it makes the webhook-ids). */
  newId: () => string;
  transport?: Transport;
  onError: (err: unknown) => void;
}

export class Subscriptions {
  private readonly subs = new Map<string, Subscription>();
  private readonly transport: Transport;

  constructor(private readonly options: SubscriptionsOptions) {
    this.transport = options.transport ?? fetchTransport;
  }

  get size(): number {
    return this.subs.size;
  }

  add(spec: SubscriptionSpec): SubscriptionView {
    if (this.subs.size >= MAX_SUBSCRIPTIONS)
      throw new RangeError(`a workspace holds at most ${MAX_SUBSCRIPTIONS} subscriptions: delete one first`);
    const id = this.options.newId();
    const sub = new Subscription(id, spec, this.options.clock.now().toISOString(), {
      clock: this.options.clock,
      timers: this.options.timers,
      transport: this.transport,
      onError: this.options.onError,
    });
    this.subs.set(id, sub);
    return sub.view();
  }

  list(): SubscriptionView[] {
    return [...this.subs.values()].map((s) => s.view());
  }

  get(id: string): SubscriptionView | undefined {
    return this.subs.get(id)?.view();
  }

  setFaults(id: string, faults: SubscriptionFaults): SubscriptionView | undefined {
    const sub = this.subs.get(id);
    if (!sub) return undefined;
    sub.spec = { ...sub.spec, faults };
    return sub.view();
  }

  remove(id: string): boolean {
    const sub = this.subs.get(id);
    if (!sub) return false;
    sub.close();
    this.subs.delete(id);
    return true;
  }

  /** The deliveries of subscription `id`, newest first; undefined when there is no such subscription. */
  deliveries(id: string, filter: { status?: DeliveryStatus; limit?: number } = {}): Delivery[] | undefined {
    const sub = this.subs.get(id);
    if (!sub) return undefined;
    const out: Delivery[] = [];
    const all = [...sub.log.values()];
    for (let i = all.length - 1; i >= 0 && out.length < (filter.limit ?? DELIVERY_LOG_SIZE); i--) {
      const d = (all[i] as Message).delivery;
      if (filter.status === undefined || d.status === filter.status) out.push(d);
    }
    return out;
  }

  /**
   * Sends delivery `deliveryId` again now; 'no-subscription' or 'no-delivery' when either is unknown,
   * 'no-message' when none could be made for its event (the delivery's error says why).
   */
  redeliver(id: string, deliveryId: string): Delivery | 'no-subscription' | 'no-delivery' | 'no-message' {
    const sub = this.subs.get(id);
    if (!sub) return 'no-subscription';
    const message = sub.log.get(deliveryId);
    if (!message) return 'no-delivery';
    if (message.delivery.error !== null) return 'no-message';
    sub.redeliver(message);
    return message.delivery;
  }

  /** Hands `event` to every subscription that wants it (called by the event feed, in order). */
  deliver(event: SandboxEvent): void {
    if (this.subs.size === 0) return;
    let structured: { body: string; contentType: string } | undefined;
    for (const sub of this.subs.values()) {
      if (!sub.wants(event)) continue;
      try {
        if (sub.spec.render) {
          const body = rendered(sub.spec.render, event);
          if (body.error !== undefined) sub.fail(event, body.error);
          else sub.accept(event, body.text, 'application/json');
        } else {
          structured ??= structuredMessage(event);
          sub.accept(event, structured.body, structured.contentType);
        }
      } catch (err) {
        this.options.onError(err);
      }
    }
  }

  close(): void {
    for (const sub of this.subs.values()) sub.close();
    this.subs.clear();
  }
}

/**
 * A template's payload for `event`, or why there is none: the template failed, or what it rendered is
 * not JSON, which a message sent as application/json must be (parsed only to check it; sent as rendered).
 */
function rendered(render: (event: SandboxEvent) => string, event: SandboxEvent): { text: string; error?: undefined } | { error: string } {
  let text: string;
  try {
    text = render(event);
  } catch (err) {
    return { error: `the template failed on this event: ${(err as Error).message}` };
  }
  try {
    JSON.parse(text);
  } catch (err) {
    return { error: `the template rendered a payload that is not JSON (it is sent as application/json): ${(err as Error).message}` };
  }
  return { text };
}

/**
 * The event in the CloudEvents HTTP binding's structured mode: its JSON format as the body. An amount
 * a double would change is written digit for digit (the library's JSON.stringify would round it).
 */
function structuredMessage(event: SandboxEvent): { body: string; contentType: string } {
  const validated = toCloudEvent(event);
  const message = cloudEvents().HTTP.structured(validated);
  if (holdsDecimalText(event.data)) message.body = stringifyExact(validated);
  const contentType = message.headers['content-type'];
  return {
    body: typeof message.body === 'string' ? message.body : JSON.stringify(message.body),
    contentType: typeof contentType === 'string' ? contentType : 'application/cloudevents+json; charset=utf-8',
  };
}
