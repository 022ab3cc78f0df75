import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateJsonProblem, malformedBodyError, parseJsonDocument } from '../../src/http/json.js';
import { MAX_JSON_DEPTH } from '../../src/domain/json-depth.js';
import { JsonReadError, JsonStreamReader, type PathSegment, type StringSink } from '../../src/http/json-stream.js';

/** Reads `bytes` cut at `cuts`; returns the kept text, or the problem. */
function read(bytes: Buffer, cuts: number[] = [], sinkFor: (path: readonly PathSegment[]) => StringSink | undefined = () => undefined, keepLimit = 1e9) {
  const reader = new JsonStreamReader({ sinkFor, keepLimit });
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    reader.push(bytes.subarray(at, cut));
    at = cut;
  }
  try {
    return { kept: reader.end().toString('utf8') };
  } catch (err) {
    if (err instanceof JsonReadError) return { problem: err };
    throw err;
  }
}

/**
 * What a body read whole is refused with (http/json.ts, in its order: a byte-order mark, UTF-8, then
 * the syntax, located as the 400 of every route locates it), or undefined when JSON.parse reads it.
 */
function wholeReadMessage(bytes: Buffer): string | undefined {
  try {
    parseJsonDocument(bytes);
    return undefined;
  } catch (err) {
    if (!(err instanceof SyntaxError)) return (err as Error).message;
    const problem = locateJsonProblem(bytes.toString('utf8'));
    return problem ? malformedBodyError(problem).message : (err as Error).message;
  }
}

/** A sink that collects what it was given. */
function collector() {
  const parts: string[] = [];
  const sink: StringSink & { text: (t: string) => void } = {
    fast: (b) => {
      if (!/^[A-Za-z0-9+/]*$/.test(b.toString('latin1'))) return false;
      parts.push(b.toString('latin1'));
      return true;
    },
    slow: (b) => parts.push(b.toString('utf8')),
    text: (t) => parts.push(t),
    end: () => parts.push('<end>'),
  };
  return { sink, parts };
}

describe('JsonStreamReader against JSON.parse', () => {
  it('accepts what JSON.parse accepts and keeps a text that parses to the same value, wherever the bytes are cut (fast-check)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), fc.array(fc.nat(400), { maxLength: 5 }), (value, indent, cuts) => {
        const bytes = Buffer.from(JSON.stringify(value, null, indent), 'utf8');
        const out = read(bytes, cuts);
        expect(out.problem).toBeUndefined();
        expect(JSON.parse(out.kept ?? '')).toEqual(JSON.parse(bytes.toString('utf8')));
      }),
      { numRuns: 1500 },
    );
  });

  it('refuses what JSON.parse refuses, and accepts what it accepts, after a byte is changed, removed or added (fast-check)', () => {
    const specials = [...'{}[]:,"\\ntfe-+.0159 ', '\u0000', '\u001f', '\u00e9', '\u2028', '\ud83d\ude00'];
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.nat(),
        fc.constantFrom('replace', 'delete', 'insert'),
        fc.constantFrom(...specials),
        fc.array(fc.nat(200), { maxLength: 3 }),
        (value, where, how, ch, cuts) => {
          const text = JSON.stringify(value);
          const at = where % (text.length + 1);
          const mutated = how === 'delete' ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + ch + text.slice(how === 'replace' ? at + 1 : at);
          let valid = true;
          try {
            JSON.parse(mutated);
          } catch {
            valid = false;
          }
          const out = read(Buffer.from(mutated, 'utf8'), cuts);
          expect({ mutated, valid: out.problem === undefined }).toEqual({ mutated, valid });
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses invalid UTF-8 inside a string, naming its byte offset, line and column in characters', () => {
    const bytes = Buffer.concat([Buffer.from('{\n  "nome": "Jos', 'utf8'), Buffer.from([0xe9]), Buffer.from('", "b": "ção"}', 'utf8')]);
    for (const cuts of [[], [16], [17], [5, 17]]) {
      const out = read(bytes, cuts);
      expect(out.problem?.kind).toBe('utf8');
      expect(out.problem?.at).toEqual({ offset: 16, line: 2, column: 15 });
    }
    const accented = Buffer.from('{"n": "ção", "m": "ã\u0001"}', 'utf8');
    const out = read(accented);
    // "ção" and "ã" are 5 characters in 8 bytes: the column counts characters.
    expect(out.problem?.kind).toBe('syntax');
    expect(out.problem?.at).toEqual({ offset: 23, line: 1, column: 21 });
  });

  it('says where a body stops being JSON, by byte offset, line and column', () => {
    const cases: Array<[string, string, number, number, number]> = [
      ['{"a": 1,}', 'unexpected "}"; expected a key in double quotes', 8, 1, 9],
      ['{"a": [1, 2\n  3]}', 'unexpected "3"; expected "," or "]"', 14, 2, 3],
      ['{"a": tru}', 'unexpected "}"; expected "e" of true', 9, 1, 10],
      ['{"a": 01}', 'unexpected "1"; expected "," or "}"', 7, 1, 8],
      ['{"a": "x\\q"}', 'invalid escape sequence \\q in a string', 8, 1, 9],
      ['', 'the body is empty', 0, 1, 1],
      ['  \n ', 'the body ends before its JSON value does', 4, 2, 2],
      ['{"a": 1} x', 'unexpected "x"; expected nothing after the JSON value', 9, 1, 10],
      ['\ufeff{}', 'unexpected byte-order mark (U+FEFF); expected a JSON value', 0, 1, 1],
      ['{"a": 1 \u00e9}', 'unexpected U+00E9; expected "," or "}"', 8, 1, 9],
      ['{"a": "\\\u00e9"}', 'invalid escape sequence in a string: a backslash followed by U+00E9', 7, 1, 8],
      ['{"a": -}', 'unexpected "}"; expected a digit', 7, 1, 8],
    ];
    for (const [text, what, offset, line, column] of cases) {
      const out = read(Buffer.from(text, 'utf8'));
      expect({ text, what: out.problem?.what, at: out.problem?.at }).toEqual({ text, what, at: { offset, line, column } });
    }
    // Bytes that start no character, and the start of a character the body ends in: not UTF-8, said
    // as a body read whole says it (its UTF-8 is judged before its syntax).
    const bytes: Array<[number[], number]> = [
      [[0x7b, 0xff], 1],
      [[0xef, 0xbb], 0],
      [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x20, 0x22, 0x5c, 0xff, 0x22, 0x7d], 8],
    ];
    for (const [raw, offset] of bytes) {
      const problem = read(Buffer.from(raw)).problem as JsonReadError;
      expect({ raw, kind: problem.kind, offset: problem.at.offset }).toEqual({ raw, kind: 'utf8', offset });
      expect(malformedBodyError(problem).message).toBe(wholeReadMessage(Buffer.from(raw)));
    }
  });

  it('reads a character cut short by a byte that starts another as a body read whole does, wherever the pieces are cut', () => {
    // E2 starts a 3-byte character, F4 a 4-byte one: a cut after F4 kept E2 aside, and then lost it.
    const bytes = Buffer.from([0x22, 0xe2, 0xf4, 0x90, 0x80, 0x80, 0x82, 0x20, 0x22]);
    for (const cuts of [[], [1], [2], [3], [4], [2, 3], [3, 5]]) {
      const problem = read(bytes, cuts).problem as JsonReadError;
      expect({ cuts, message: malformedBodyError(problem).message }).toEqual({ cuts, message: wholeReadMessage(bytes) });
    }
  });

  it('names the first byte that is not UTF-8, wherever it is after a problem of syntax, as a body read whole does (fast-check)', () => {
    const invalid = [[0xff], [0xc3], [0xc0, 0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80]];
    const valid = ['\\u00e9', '\u00e9', '\n', '\n\u00e7\u00e3o ', '\u{1f600}', ',', '}', '"', 'x'];
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...invalid).map((b) => Buffer.from(b)), fc.constantFrom(...valid).map((t) => Buffer.from(t, 'utf8')))), { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(300), { maxLength: 4 }),
        (value, inserts, cuts) => {
          let bytes = Buffer.from(JSON.stringify(value, null, 1), 'utf8');
          for (const [where, piece] of inserts) {
            const at = where % (bytes.length + 1);
            bytes = Buffer.concat([bytes.subarray(0, at), piece, bytes.subarray(at)]);
          }
          const out = read(bytes, cuts);
          const whole = wholeReadMessage(bytes);
          // Where the text parses, the reader reads it (keys twice and the like are judged later, on its kept text).
          const answer = out.problem ? malformedBodyError(out.problem).message : undefined;
          expect({ bytes: bytes.toString('latin1'), cuts, answer }).toEqual({ bytes: bytes.toString('latin1'), cuts, answer: whole });
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds the same problem, said the same way, wherever the bytes are cut: a byte-order mark, characters outside strings (fast-check)', () => {
    const BOM = [0xef, 0xbb, 0xbf];
    const tricky: Buffer[] = [
      Buffer.from([...BOM, ...Buffer.from('{"a": 1}')]),
      Buffer.from([...BOM, ...Buffer.from('{"versao": "2.0", "registros": [{"documento": "QQ=="}]}')]),
      Buffer.from(BOM),
      Buffer.from([0xef, 0xbb]),
      Buffer.from([0xef]),
      Buffer.from([0x20, ...BOM, 0x7b, 0x7d]),
      Buffer.from('{"a": 1}\ufeff', 'utf8'),
      Buffer.from('{"a": 1 \u00e9}', 'utf8'),
      Buffer.from('{"a": tr\u{1f600}}', 'utf8'),
      Buffer.from('{"a": "\\\u2028"}', 'utf8'),
      Buffer.from('{"\u00e9": 1, \u00e9}', 'utf8'),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe1, 0x80, 0x41, 0x22, 0x7d]),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf0, 0x9f, 0x98, 0x22, 0x7d]),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf0, 0x9f, 0x98]),
    ];
    const answer = (out: ReturnType<typeof read>) => (out.problem ? malformedBodyError(out.problem).message : out.kept);
    fc.assert(
      fc.property(fc.constantFrom(...tricky), fc.array(fc.nat(12), { maxLength: 4 }), (bytes, cuts) => {
        expect({ bytes: [...bytes], cuts, answer: answer(read(bytes, cuts)) }).toEqual({ bytes: [...bytes], cuts, answer: answer(read(bytes)) });
      }),
      { numRuns: 2000 },
    );
    // Every cut of the first four bytes of a body that starts with a byte-order mark: its own message.
    for (const cuts of [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]])
      expect(malformedBodyError(read(tricky[0] as Buffer, cuts).problem as JsonReadError).message).toMatch(/^the body starts with a UTF-8 byte-order mark/);
  });

  it('hands the strings a sink takes over to it, keeps "" in their place, and gives the sink escapes as characters', () => {
    const sinks = new Map<string, ReturnType<typeof collector>>();
    const sinkFor = (path: readonly PathSegment[]) => {
      if (path.length !== 3 || path[0] !== 'registros' || path[2] !== 'documento') return undefined;
      const c = collector();
      sinks.set(path.join('/'), c);
      return c.sink;
    };
    const body = '{"registros": [{"documento": "QUJD\\nRA==", "nome": "a"}, {"\\u0064ocumento": "QUJDRA=="}], "documento": "kept"}';
    const bytes = Buffer.from(body, 'utf8');
    for (const cuts of [[], [31], [33, 34, 35], [60, 61, 62, 70]]) {
      sinks.clear();
      const out = read(bytes, cuts, sinkFor);
      expect(JSON.parse(out.kept ?? '')).toEqual({ registros: [{ documento: '', nome: 'a' }, { documento: '' }], documento: 'kept' });
      expect(sinks.get('registros/0/documento')?.parts.join('')).toBe('QUJD\nRA==<end>');
      expect(sinks.get('registros/1/documento')?.parts.join('')).toBe('QUJDRA==<end>');
    }
  });

  it('refuses a body whose kept part passes the limit, and not one whose files do', () => {
    const file = 'A'.repeat(10_000);
    const sinkFor = (path: readonly PathSegment[]) => (path[0] === 'file' ? collector().sink : undefined);
    expect(read(Buffer.from(JSON.stringify({ file, x: 1 })), [], sinkFor, 100).problem).toBeUndefined();
    const out = read(Buffer.from(JSON.stringify({ other: file })), [], sinkFor, 100);
    expect(out.problem?.kind).toBe('kept-limit');
  });

  it('names the first byte past the kept limit, wherever the body is cut (fast-check)', () => {
    const file = 'A'.repeat(10_000);
    const sinkFor = (path: readonly PathSegment[]) => (path[0] === 'file' ? collector().sink : undefined);
    // The 101st byte kept: the text itself; and after a file, whose content is not kept.
    const cases: Array<[string, number]> = [
      [JSON.stringify({ other: file }), 100],
      [JSON.stringify({ file, other: file }), 100 + file.length],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.array(fc.nat(20_100), { maxLength: 6 }), ([text, offset], cuts) => {
        const out = read(Buffer.from(text), cuts, sinkFor, 100);
        expect({ cuts, kind: out.problem?.kind, offset: out.problem?.at.offset }).toEqual({ cuts, kind: 'kept-limit', offset });
      }),
      { numRuns: 300 },
    );
  });

  it('answers the limit, not a problem after it, wherever the body is cut (fast-check)', () => {
    // The 101st byte kept is at offset 100; a problem of syntax (x), or of UTF-8 (0xFF), comes after it.
    const text = `{"a":"${'a'.repeat(100)}",x}`;
    const bodies = [Buffer.from(text), Buffer.concat([Buffer.from(text.slice(0, 104)), Buffer.from([0xff]), Buffer.from(text.slice(104))])];
    fc.assert(
      fc.property(fc.constantFrom(...bodies), fc.array(fc.nat(120), { maxLength: 4 }), (bytes, cuts) => {
        const out = read(bytes, cuts, () => undefined, 100);
        expect({ cuts, kind: out.problem?.kind, offset: out.problem?.at.offset }).toEqual({ cuts, kind: 'kept-limit', offset: 100 });
      }),
      { numRuns: 500 },
    );
    // A problem before the limit is the answer.
    expect(read(Buffer.from(`{x${'a'.repeat(200)}`), [150], () => undefined, 100).problem?.kind).toBe('syntax');
  });
});

describe('nesting past MAX_JSON_DEPTH (assumption body-depth)', () => {
  /** A value nesting `kinds.length` arrays ("a") and objects ("o", each with the key k<level>), 7 inside; its text, the 65th opener's offset and path. */
  function nestedText(kinds: string[]): { text: string; offset: number | undefined; path: PathSegment[] } {
    let text = '';
    let offset: number | undefined;
    const path: PathSegment[] = [];
    for (const [level, kind] of kinds.entries()) {
      if (level === MAX_JSON_DEPTH) offset = Buffer.byteLength(text);
      text += kind === 'a' ? '[' : `{"k${level}":`;
      if (level < MAX_JSON_DEPTH) path.push(kind === 'a' ? 0 : `k${level}`);
    }
    text += '7';
    for (const kind of [...kinds].reverse()) text += kind === 'a' ? ']' : '}';
    return { text, offset, path };
  }

  it('reads 64 levels and refuses the 65th at its opener, by its byte offset and path, wherever the bytes are cut (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'o'), { minLength: MAX_JSON_DEPTH - 1, maxLength: MAX_JSON_DEPTH + 40 }),
        fc.array(fc.nat(900), { maxLength: 6 }),
        (kinds, cuts) => {
          const { text, offset, path } = nestedText(kinds);
          const out = read(Buffer.from(text), cuts);
          if (kinds.length <= MAX_JSON_DEPTH) {
            expect(out.problem).toBeUndefined();
            expect(JSON.parse(out.kept ?? '')).toEqual(JSON.parse(text));
          } else {
            expect(out.problem?.kind).toBe('depth');
            expect(out.problem?.at.offset).toBe(offset);
            expect(out.problem?.path).toEqual(path);
          }
        },
      ),
    );
  });

  it('answers whichever comes first, the level too deep or a problem of syntax; a byte that is not UTF-8 anywhere before both', () => {
    const deep = '['.repeat(MAX_JSON_DEPTH + 1);
    expect(read(Buffer.from(`{"a":,${deep}`)).problem?.kind).toBe('syntax');
    const first = read(Buffer.from(`{"a":${deep}1,,}`)).problem;
    expect([first?.kind, first?.at.offset]).toEqual(['depth', 5 + MAX_JSON_DEPTH - 1]);
    const utf8 = read(Buffer.concat([Buffer.from(`{"a":${deep}`), Buffer.from([0xff]), Buffer.from('"}')]), [7]).problem;
    expect(utf8?.kind).toBe('utf8');
  });

  it('refuses 20 MB of "[" at the 65th, read whole (before JSON.parse) as streamed, with the 400 every route gives', () => {
    const bytes = Buffer.alloc(20_000_000, '[');
    const streamed = read(bytes, [65_536, 1_000_000]).problem;
    expect(streamed?.kind).toBe('depth');
    const whole = locateJsonProblem(bytes.toString('latin1'));
    expect(whole?.at.offset).toBe(MAX_JSON_DEPTH);
    const answer = malformedBodyError(whole as JsonReadError);
    const path = '/0'.repeat(MAX_JSON_DEPTH);
    expect([answer.status, answer.details]).toEqual([400, [{ path, message: answer.message.slice(path.length + 2) }]]);
    expect(answer.message).toBe(
      `${'/0'.repeat(MAX_JSON_DEPTH)}: this "[" opens a level deeper than ${MAX_JSON_DEPTH}: the most this sandbox reads is ${MAX_JSON_DEPTH} arrays and objects nested in one another (at byte offset ${MAX_JSON_DEPTH} (line 1, column ${MAX_JSON_DEPTH + 1}))`,
    );
  });
});
