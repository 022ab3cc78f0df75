// The event feed keeps each event as its JSON text: what a reader gets back is what was emitted, as
// JSON carries it (the feed serves it as JSON anyway), in order, through every filter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centsToNumber, formatCents } from '../../src/domain/money.js';
import { stringifyExact } from '../../src/http/exact-numbers.js';
import { SandboxClock } from '../../src/runtime/clock.js';
import { Events } from '../../src/runtime/events.js';

const TYPES = ['sandbox.a.one', 'sandbox.a.two', 'sandbox.b.one'];

describe('the event feed', () => {
  it('gives back every event as emitted, whatever its data, and filters them as before (fast-check)', () => {
    // Any code unit (lone surrogates too) in subjects and strings of the data.
    const unit = fc.oneof(fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    const text = fc.string({ unit, maxLength: 20 });
    const data = fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown), { maxKeys: 4 });
    const emitted = fc.array(fc.record({ type: fc.constantFrom(...TYPES), subject: text, data }), { maxLength: 30 });
    fc.assert(
      fc.property(emitted, fc.integer({ min: 1, max: 12 }), fc.constantFrom(...TYPES, 'sandbox.a.*', '*'), fc.nat(40), (list, capacity, type, after) => {
        const events = new Events(capacity, '/ws/default', new SandboxClock());
        const heard: unknown[] = [];
        events.listen((e) => heard.push(e));
        for (const e of list) events.emit(e.type, e.subject, e.data as Record<string, unknown>);
        const kept = heard.slice(-capacity) as Array<{ id: string; type: string; subject: string }>;
        expect(events.list()).toEqual(kept);
        const wanted = kept.filter((e) => Number(e.id) > after && (type.endsWith('*') ? e.type.startsWith(type.slice(0, -1)) : e.type === type));
        expect(events.list({ types: [type], after })).toEqual(wanted);
        const subject = list.at(-1)?.subject;
        if (subject !== undefined) expect(events.list({ subject })).toEqual(kept.filter((e) => e.subject === subject));
      }),
      { numRuns: 300 },
    );
  });

  it('gives back every amount digit for digit, however many events passed or were cleared (fast-check)', () => {
    // Cents over the whole accepted range, most of them beyond what a double carries; clears between.
    const step = fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constant('clear' as const));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 1, max: 8 }), (steps, capacity) => {
        const events = new Events(capacity, '/ws/default', new SandboxClock());
        let held: number[] = [];
        for (const s of steps) {
          if (s === 'clear') {
            events.clear();
            held = [];
          } else {
            events.emit('sandbox.a.one', 'x', { value: centsToNumber(s) });
            held = [...held, s].slice(-capacity);
          }
        }
        // As the control plane's serializer writes the feed (http/serializer.ts).
        const written = stringifyExact(events.list().map((e) => e.data));
        expect(written).toBe(`[${held.map((c) => `{"value":${formatCents(c).replace(/\.?0+$/, '')}}`).join(',')}]`);
      }),
      { numRuns: 300 },
    );
  });

  it('reads on page by page under a byte budget, every matching event once, each page within it or one event alone (fast-check)', () => {
    const emitted = fc.array(fc.record({ type: fc.constantFrom(...TYPES), size: fc.nat(300) }), { maxLength: 40 });
    fc.assert(
      fc.property(emitted, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 1200 }), fc.constantFrom(...TYPES, '*'), (list, limit, bytes, type) => {
        const events = new Events(100, '/ws/default', new SandboxClock());
        for (const e of list) events.emit(e.type, 's', { text: 'x'.repeat(e.size) });
        const all = events.list({ types: [type] });
        const seen: unknown[] = [];
        let after = 0;
        for (let guard = 0; guard <= list.length + 1; guard++) {
          const page = events.page({ types: [type], after }, limit, bytes);
          expect(page.events.length).toBeLessThanOrEqual(limit);
          if (page.events.length > 1) expect(Buffer.byteLength(JSON.stringify(page.events)) - 2).toBeLessThanOrEqual(bytes);
          seen.push(...page.events);
          const last = page.events.at(-1);
          if (!page.cut || !last) break;
          after = Number(last.id);
        }
        expect(seen).toEqual(all);
      }),
      { numRuns: 300 },
    );
  });
});
