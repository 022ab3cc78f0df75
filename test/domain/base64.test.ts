import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Base64Stream, base64DecodedLength, decodeBase64 } from '../../src/domain/base64.js';

function decodedText(text: string): string | undefined {
  const result = decodeBase64(text);
  return result.ok ? result.bytes.toString('latin1') : undefined;
}

function reasonOf(text: string): string | undefined {
  const result = decodeBase64(text);
  return result.ok ? undefined : result.reason;
}

describe('decodeBase64', () => {
  it('decodes padded base64 of every remainder length', () => {
    expect(decodedText('QUJD')).toBe('ABC');
    expect(decodedText('QUI=')).toBe('AB');
    expect(decodedText('QQ==')).toBe('A');
  });

  it('decodes every byte value', () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const result = decodeBase64(bytes.toString('base64'));
    expect(result.ok && result.bytes.equals(bytes)).toBe(true);
  });

  it('decodes empty text to zero bytes', () => {
    const result = decodeBase64('');
    expect(result.ok && result.bytes.length).toBe(0);
  });

  it('ignores ASCII whitespace anywhere, like .NET Convert.FromBase64String', () => {
    expect(decodedText(' QUJD\r\nREVG\tR0g=\n')).toBe('ABCDEFGH');
    expect(decodedText('Q Q = =')).toBe('A');
  });

  it('rejects the URL-safe alphabet, naming the character and its offset', () => {
    expect(reasonOf('QUJD-_8=')).toBe(
      'invalid base64 character "-" at offset 4 (URL-safe base64 is not accepted)',
    );
    expect(reasonOf('QUJD_w==')).toContain('"_" at offset 4');
  });

  it('rejects other characters, including non-ASCII and other whitespace', () => {
    expect(reasonOf('QUJ*')).toBe('invalid base64 character "*" at offset 3');
    expect(reasonOf('QUJé')).toContain('offset 3');
    expect(reasonOf('QUJD\u00a0')).toContain('offset 4');
    expect(reasonOf('QUJD\f')).toContain('offset 4');
  });

  it('requires padding', () => {
    expect(reasonOf('QUI')).toMatch(/multiple of 4/);
    expect(reasonOf('QQ')).toMatch(/multiple of 4/);
    expect(reasonOf('Q')).toMatch(/multiple of 4/);
  });

  it('rejects "=" anywhere but the end', () => {
    expect(reasonOf('QQ==QUJD')).toBe('base64 data after padding "=" at offset 4');
    expect(reasonOf('Q=I=')).toContain('offset 2');
  });

  it('rejects more than two padding characters', () => {
    expect(reasonOf('Q===')).toBe('too much base64 padding "=" at offset 3');
    expect(reasonOf('====')).toContain('offset 2');
  });

  it('decodes a multi-megabyte text with line breaks exactly', () => {
    const bytes = Buffer.alloc(3_000_001);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const wrapped = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
    const result = decodeBase64(wrapped);
    expect(result.ok && result.bytes.equals(bytes)).toBe(true);
  });
});

describe('base64DecodedLength', () => {
  it('gives the exact decoded size without decoding', () => {
    expect(base64DecodedLength('')).toBe(0);
    expect(base64DecodedLength('QQ==')).toBe(1);
    expect(base64DecodedLength('QUI=')).toBe(2);
    expect(base64DecodedLength('QUJD')).toBe(3);
    expect(base64DecodedLength('QUJD\nQUJD\n')).toBe(6);
    for (let n = 0; n < 50; n++) {
      const text = Buffer.alloc(n, 7).toString('base64');
      if (base64DecodedLength(text) !== n) expect.fail(`wrong size for ${n} bytes`);
    }
  });

  it('is undefined for invalid text', () => {
    expect(base64DecodedLength('QUI')).toBeUndefined();
    expect(base64DecodedLength('QUJ-')).toBeUndefined();
  });
});

describe('decoding text already validated', () => {
  it('decodes with the length base64DecodedLength gave, and refuses a length that does not match', () => {
    const text = Buffer.from('hello, world').toString('base64');
    const size = base64DecodedLength(text);
    expect(size).toBe(12);
    const decoded = decodeBase64(text, size);
    expect(decoded.ok && decoded.bytes.toString()).toBe('hello, world');
    expect(decodeBase64(text, 13).ok).toBe(false);
  });

  it('validates unbroken text by the fast path and text with line breaks by the exact scan, alike', () => {
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
    const plain = bytes.toString('base64');
    const wrapped = plain.replace(/(.{76})/g, '$1\r\n');
    expect(base64DecodedLength(plain)).toBe(300);
    expect(base64DecodedLength(wrapped)).toBe(300);
    expect(base64DecodedLength(`${plain.slice(0, 40)}-${plain.slice(41)}`)).toBeUndefined();
  });
});

describe('Base64Stream: the same text in pieces', () => {
  /** The text cut at `cuts` (character offsets), each piece sent as bytes or, for escapes, as text. */
  function streamed(text: string, cuts: number[], asText: (piece: string) => boolean = () => false) {
    const out: Buffer[] = [];
    const stream = new Base64Stream((b) => out.push(b));
    let at = 0;
    for (const cut of [...cuts, text.length]) {
      const piece = text.slice(at, cut);
      if (asText(piece)) stream.pushText(piece);
      else stream.pushBytes(Buffer.from(piece, 'utf8'));
      at = cut;
    }
    const end = stream.end();
    return end.ok ? { ok: true, bytes: Buffer.concat(out), size: end.decodedLength } : end;
  }

  function whole(text: string) {
    const r = decodeBase64(text);
    return r.ok ? { ok: true, bytes: r.bytes, size: r.bytes.length } : r;
  }

  it('decodes and refuses exactly as decodeBase64, wherever the text is cut (fast-check)', () => {
    const alphabet = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', '=', ' ', '\n', '\t', '-', '_', 'é', '😀', '\u0000'];
    const text = fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')),
      fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }).map((a) => a.join('')),
      fc
        .tuple(fc.uint8Array({ maxLength: 30 }), fc.nat(60), fc.constantFrom(...alphabet))
        .map(([b, at, ch]) => {
          const t = Buffer.from(b).toString('base64');
          const i = at % (t.length + 1);
          return t.slice(0, i) + ch + t.slice(i);
        }),
    );
    fc.assert(
      fc.property(text, fc.array(fc.nat(80), { maxLength: 4 }), fc.boolean(), (t, cuts, escapes) => {
        // Cut only between whole characters, as the JSON reader does.
        const points = [...new Set(cuts.map((c) => c % (t.length + 1)))]
          .filter((c) => c === t.length || !(t.charCodeAt(c) >= 0xdc00 && t.charCodeAt(c) <= 0xdfff))
          .sort((a, b) => a - b);
        expect(streamed(t, points, () => escapes)).toEqual(whole(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the fast path for a last piece that ends with the padding, and decodes it exactly', () => {
    for (const size of [1, 2, 3, 4, 5, 1000, 1001, 1002]) {
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 131 + 7) & 0xff;
      const text = bytes.toString('base64');
      // Cut anywhere before the padding (a cut inside it leaves "=" after "=": the exact scan's).
      const data = text.replace(/=+$/, '').length;
      for (const cut of [0, 1, 2, 3, Math.floor(data / 2), data - 1, data]) {
        if (cut < 0 || cut > data) continue;
        const out: Buffer[] = [];
        const stream = new Base64Stream((b) => out.push(b));
        expect(stream.fast(Buffer.from(text.slice(0, cut)))).toBe(true);
        expect(stream.fast(Buffer.from(text.slice(cut))), `${size} bytes cut at ${cut}`).toBe(true);
        expect(stream.end()).toEqual({ ok: true, decodedLength: size });
        expect(Buffer.concat(out)).toEqual(bytes);
      }
    }
    // Padding anywhere else, or too much of it, is still read by the exact scan.
    expect(new Base64Stream(() => undefined).fast(Buffer.from('QQ==QQ=='))).toBe(false);
    const three = new Base64Stream(() => undefined);
    three.pushBytes(Buffer.from('QQ==='));
    expect(three.end()).toEqual({ ok: false, reason: expect.stringContaining('padding') });
    // Any run of "=" in one piece (a slice is up to 128 KiB) gets decodeBase64's answer, never a
    // stack overflow (fastPadded recursed once per two "=").
    for (const k of [3, 4, 1000, 100_000]) {
      const text = `QUJD${'='.repeat(k)}`;
      const stream = new Base64Stream(() => undefined);
      stream.pushBytes(Buffer.from(text));
      const whole = decodeBase64(text);
      expect(whole.ok).toBe(false);
      expect(stream.end()).toEqual({ ok: false, reason: whole.ok ? '' : whole.reason });
    }
  });

  it('stops decoding after countOnly but still names the size or the first bad character', () => {
    const bytes = Buffer.alloc(300, 7);
    const out: Buffer[] = [];
    const s = new Base64Stream((b) => out.push(b));
    const text = bytes.toString('base64');
    s.pushBytes(Buffer.from(text.slice(0, 100)));
    s.countOnly();
    s.pushBytes(Buffer.from(text.slice(100)));
    expect(s.end()).toEqual({ ok: true, decodedLength: 300 });
    expect(Buffer.concat(out).length).toBe(75);
    const bad = new Base64Stream(() => undefined);
    bad.countOnly();
    bad.pushBytes(Buffer.from(`${text.slice(0, 10)}-`));
    expect(bad.end()).toEqual({ ok: false, reason: 'invalid base64 character "-" at offset 10 (URL-safe base64 is not accepted)' });
  });

  it('takes the fast path only for standard data characters: every byte value, in every position of a quad', () => {
    const STANDARD = new Set(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'));
    const text = Buffer.from(Buffer.from('a sandbox decodes what it is sent').toString('base64'));
    let refused = 0;
    for (let value = 0; value < 256; value++) {
      for (let at = 0; at < 8; at++) {
        // The byte in place of a character (same length) and inserted before it (one longer).
        for (const bytes of [
          Buffer.concat([text.subarray(0, at), Buffer.from([value]), text.subarray(at + 1)]),
          Buffer.concat([text.subarray(0, at), Buffer.from([value]), text.subarray(at)]),
        ]) {
          const out: Buffer[] = [];
          const fast = new Base64Stream((b) => out.push(b)).fast(bytes);
          if (STANDARD.has(value)) {
            expect(fast).toBe(true);
            const whole = bytes.length - (bytes.length % 4);
            expect(Buffer.concat(out)).toEqual(Buffer.from(bytes.subarray(0, whole).toString('latin1'), 'base64'));
          } else {
            expect(fast, `byte ${value} at ${at}`).toBe(false);
            expect(out).toEqual([]);
            refused++;
          }
        }
      }
    }
    expect(refused).toBe((256 - 64) * 8 * 2);
  });
});
