// Utf8Check, the UTF-8 check of a text that arrives in pieces (the streamed bodies): the same first
// fault, position and message as the whole text gets, wherever the pieces are cut.
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { continuationBytes, Utf8Check } from '../../src/domain/utf8.js';
import { notUtf8Error, parseJsonDocument } from '../../src/http/json.js';

/** Bytes of valid text and of what UTF-8 never holds, mixed. */
const pieces = fc.array(
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 6 }).map((t) => Buffer.from(t, 'utf8')),
    fc.constantFrom('\n', '\u00e7\u00e3o', '\u{1f600}').map((t) => Buffer.from(t, 'utf8')),
    fc.constantFrom([0xff], [0xc3], [0xc0, 0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xe9, 0x41]).map((b) => Buffer.from(b)),
  ),
  { minLength: 1, maxLength: 12 },
);

function check(bytes: Buffer, cuts: number[]) {
  const utf8 = new Utf8Check();
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    utf8.push(bytes.subarray(at, cut));
    at = cut;
  }
  utf8.end();
  return utf8.invalid && { ...utf8.invalid, bytes: [...utf8.invalid.bytes] };
}

describe('Utf8Check', () => {
  it('finds the fault a whole text has, said the same way, wherever the pieces are cut (fast-check)', () => {
    fc.assert(
      fc.property(pieces, fc.array(fc.nat(60), { maxLength: 5 }), (parts, cuts) => {
        // A leading "x": a byte-order mark first is another answer of a body read whole.
        const bytes = Buffer.concat([Buffer.from('x'), ...parts]);
        const found = check(bytes, cuts);
        expect({ bytes: [...bytes], cuts, found }).toEqual({ bytes: [...bytes], cuts, found: check(bytes, []) });
        let whole: string | undefined;
        try {
          parseJsonDocument(bytes);
        } catch (err) {
          whole = (err as Error).message;
        }
        if (found) expect(notUtf8Error(Buffer.from(found.bytes), found).message).toBe(whole);
        else expect(whole).not.toMatch(/not valid UTF-8/);
      }),
      { numRuns: 3000 },
    );
  });

  it('counts continuation bytes four at a time as a byte loop counts them, at every alignment (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(7), fc.nat(80), fc.nat(80), (raw, shift, a, b) => {
        // Copied at an offset into a larger buffer, so the view starts at any alignment.
        const host = new Uint8Array(raw.length + 8);
        host.set(raw, shift);
        const view = host.subarray(shift, shift + raw.length);
        const from = Math.min(a, b) % (raw.length + 1);
        const to = Math.max(from, Math.max(a, b) % (raw.length + 1));
        let naive = 0;
        for (let i = from; i < to; i++) if (((view[i] as number) & 0xc0) === 0x80) naive++;
        expect(continuationBytes(view, from, to)).toBe(naive);
      }),
      { numRuns: 5000 },
    );
  });

  it('counts lines where line feeds are dense, sparse and mixed in one piece', () => {
    const text = Buffer.concat([Buffer.from('\n'.repeat(100)), Buffer.from(`${'A'.repeat(76)}\n`.repeat(100)), Buffer.from('\u00e9\u00e9'), Buffer.from([0xff])]);
    for (const cuts of [[], [50], [150, 3000]]) expect(check(text, cuts)).toMatchObject({ offset: text.length - 1, line: 201, column: 3 });
  });

  it('says the same of a Latin-1 letter cut from what follows it', () => {
    // C0 then 80: an overlong form, not a letter standing alone; the cut between them changes nothing.
    const bytes = Buffer.from([0x61, 0x0a, 0x62, 0xc0, 0x80, 0x63]);
    for (const cuts of [[], [4], [3, 4], [5]]) expect(check(bytes, cuts)).toEqual({ offset: 3, line: 2, column: 2, bytes: [0xc0, 0x80, 0x63] });
  });
});
