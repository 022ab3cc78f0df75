// The event types are named in one table (docs/events.md), and that table is what the code declares:
// each interface module's events (its events.ts) and the sandbox's own (runtime/sandbox-events.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INTERFACES } from '../../src/interfaces.js';
import { SANDBOX_EVENT_TYPES } from '../../src/runtime/sandbox-events.js';
import { testApp } from '../helpers.js';

const plain = (cell: string) => cell.replace(/`/g, '').trim();

describe('the event types table of docs/events.md', () => {
  const doc = readFileSync('docs/events.md', 'utf8');
  const section = doc.slice(doc.indexOf('### Event types'), doc.indexOf('## The feed and the long poll'));
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => l.split(' | ').map((c) => plain(c.replace(/^\| | \|$/g, ''))));

  it('lists every declared type once, in order, with its subject, cause and data fields', () => {
    const declared = [...INTERFACES.events, ...SANDBOX_EVENT_TYPES].map((t) => [t.type, t.subject, t.when, t.data.join(', ')]);
    expect(rows).toEqual(declared);
  });

  it('names types that are unique and follow sandbox.<area>.<what>', () => {
    const types = rows.map((r) => r[0] ?? '');
    expect(new Set(types).size).toBe(types.length);
    for (const t of types) expect(t).toMatch(/^sandbox(\.[a-z-]+)+$/);
  });
});

describe('the OpenAPI document', () => {
  it('describes the events, waits, verifications and subscriptions, with the assumptions they rest on', async () => {
    const app = await testApp();
    const doc = (await app.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { 'x-sandbox-assumption'?: string }>> }>();
    const marked = (path: string, method: string) => doc.paths[path]?.[method]?.['x-sandbox-assumption'] ?? '';
    expect(marked('/_sandbox/events', 'get')).toContain('[event-feed]');
    expect(marked('/_sandbox/wait', 'post')).toContain('[waits]');
    expect(marked('/_sandbox/requests/count', 'get')).toContain('[verifications]');
    expect(marked('/_sandbox/requests/unmatched', 'get')).toContain('[near-miss]');
    expect(marked('/_sandbox/subscriptions', 'post')).toContain('[webhook-deliveries]');
    expect(marked('/_sandbox/subscriptions', 'post')).toContain('[webhook-faults]');
    expect(marked('/_sandbox/work/run', 'post')).toContain('[work-delay]');
    for (const path of [
      '/_sandbox/subscriptions/{id}',
      '/_sandbox/subscriptions/{id}/faults',
      '/_sandbox/subscriptions/{id}/deliveries',
      '/_sandbox/subscriptions/{id}/deliveries/{deliveryId}/redeliver',
    ])
      expect(doc.paths[path], path).toBeDefined();
  });
});
