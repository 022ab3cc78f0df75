// A page of a control list stops at PAGE_BYTES of items as well as at `limit`: walking the pages of a
// list of items of any size gives each item once, in order, with every page's items under the budget
// unless the page holds a single larger item. jsonBytes counts what JSON.stringify would write.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, jsonBytes, PAGE_BYTES, pageOf } from '../../src/http/paging.js';

describe('jsonBytes', () => {
  it('is the UTF-8 length of JSON.stringify for any JSON value, strings of any UTF-16 units included', () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\u0000', '\u2028', 'é', '😀'), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))) });
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(text, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonBytes(v)).toBe(Buffer.byteLength(JSON.stringify(v), 'utf8'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('pageOf under a byte budget', () => {
  it('walks any list to its end with every item once, each page within the budget or one item alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 400 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 600 }),
        (sizes, limit, budget) => {
          const rows = sizes.map((n, i) => ({ i, text: 'x'.repeat(n) }));
          const seen: number[] = [];
          let after = -1;
          for (let guard = 0; guard <= rows.length + 1; guard++) {
            const read = rows.filter((r) => r.i > after).slice(0, limit + 1);
            const page = pageOf(read, limit, (r) => [r.i], (r) => ({ index: r.i, text: r.text }), budget);
            expect(page.items.length).toBeLessThanOrEqual(limit);
            const bytes = Buffer.byteLength(JSON.stringify(page.items)) - 2;
            if (page.items.length > 1) expect(bytes).toBeLessThanOrEqual(budget);
            seen.push(...page.items.map((it) => it.index));
            if (page.nextCursor === null) break;
            expect(page.items.length).toBeGreaterThan(0);
            after = Number(decodeCursor(page.nextCursor, ['number'])[0]);
          }
          expect(seen).toEqual(rows.map((r) => r.i));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('turns into views only the rows the page gives', () => {
    const viewed: number[] = [];
    const rows = Array.from({ length: 11 }, (_, i) => i);
    const page = pageOf(rows, 10, (i) => [i], (i) => (viewed.push(i), 'y'.repeat(PAGE_BYTES / 4)));
    expect(page.items).toHaveLength(3);
    expect(viewed).toEqual([0, 1, 2, 3]);
  });
});
