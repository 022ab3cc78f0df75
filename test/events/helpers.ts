// Shared plumbing of the event tests: an inject client for the coverage drivers, and the feed read back.
import { CloudEvent } from 'cloudevents';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Answer, Client } from '../coverage/drivers.js';

/** The coverage drivers' client over app.inject, under `base` ('' or /ws/{name}). */
export function injectClient(app: FastifyInstance, base = ''): Client {
  return {
    async send(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let payload: string | undefined = options.raw;
      if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.inject({
        method: method as 'GET',
        url: base + path,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      const outcome = res.headers['sandbox-outcome'];
      return { status: res.statusCode, outcome: typeof outcome === 'string' ? outcome : null, body: res.body } satisfies Answer;
    },
  };
}

export interface FeedEvent {
  specversion: string;
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: string;
  data: Record<string, unknown>;
}

export interface Feed {
  events: FeedEvent[];
  next: string;
  capacity: number;
  dropped: number;
}

/** GET /_sandbox/events with `query`; every event is checked against the CloudEvents specification by the cloudevents library. */
export async function feed(app: FastifyInstance, query = '', base = ''): Promise<Feed> {
  const res = await app.inject({ url: `${base}/_sandbox/events${query ? `?${query}` : ''}` });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json<Feed>();
  for (const e of body.events) {
    // The library's own validation (strict mode): a malformed envelope throws.
    const validated = new CloudEvent<Record<string, unknown>>({ ...e }, true);
    expect(validated.specversion).toBe('1.0');
  }
  return body;
}

/** The id of the last event issued so far (0: none). */
export async function lastEventId(app: FastifyInstance, base = ''): Promise<number> {
  return Number((await feed(app, '', base)).next);
}

/** The types of the events after `after`, in order. */
export async function typesAfter(app: FastifyInstance, after: number, base = ''): Promise<string[]> {
  return (await feed(app, `after=${after}`, base)).events.map((e) => e.type);
}
