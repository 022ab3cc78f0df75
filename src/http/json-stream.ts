// A JSON body read as a stream of bytes, for bodies too large to hold (a loan-bond batch: 50 PDFs
// of 15 MB as base64, about 1 GB). It checks the whole text as JSON and as UTF-8, and keeps every
// byte except the contents of the strings a caller takes over (`sinkFor`: the files), which become
// "" in the kept text; the kept text is then parsed by the same function as every other body
// (http/json.ts), so values, duplicate keys and forbidden keys are read exactly alike.
//
// Our own reader, not a library: the maintained streaming parsers measured (docs/benchmarks.md)
// either keep each string whole (@streamparser/json) or cut it into 256-character tokens through
// regular expressions (stream-json); both cost several times a base64 decode of the same bytes
// before decoding anything. This one walks bytes only between strings, and skips through a string
// with Buffer.indexOf (native) up to its closing quote or next escape.
import { Buffer, isUtf8 } from 'node:buffer';
import { firstInvalidUtf8, sequenceLength, Utf8Check } from '../domain/utf8.js';
import { MAX_JSON_DEPTH } from '../domain/json-depth.js';

/** Where a problem is: byte offset from 0; line and column from 1, the column in characters. */
export interface JsonPosition {
  offset: number;
  line: number;
  column: number;
}

export type JsonProblemKind = 'syntax' | 'depth' | 'utf8' | 'kept-limit';

export class JsonReadError extends Error {
  constructor(
    readonly kind: JsonProblemKind,
    readonly what: string,
    readonly at: JsonPosition,
    /** A `utf8` problem's bytes from the first that starts no UTF-8 character (up to 4, as far as read). */
    readonly bytes?: Uint8Array,
    /** A `depth` problem's place: the path of the array or object that opens the level too deep. */
    readonly path?: readonly PathSegment[],
  ) {
    super(`${what} at byte offset ${at.offset} (line ${at.line}, column ${at.column})`);
    this.name = 'JsonReadError';
  }
}

/** Receives the content of a string the reader does not keep, as it arrives. */
export interface StringSink {
  /** Raw bytes of the content; false when they need the reader's checks and `slow`. */
  fast(bytes: Buffer): boolean;
  /** Bytes of whole UTF-8 characters, without control characters. */
  slow(bytes: Buffer): void;
  /** Characters written as escape sequences; `at`: the byte offset of the (first) escape's backslash. */
  text(text: string, at: number): void;
  end(): void;
}

export type PathSegment = string | number;

export interface JsonStreamOptions {
  /** A sink for the string value at `path`, or undefined to keep it. */
  sinkFor(path: readonly PathSegment[]): StringSink | undefined;
  /** Most bytes kept (everything but the sinks' strings); past it, a `kept-limit` problem. */
  keepLimit: number;
  /**
   * True when the bytes are known to be UTF-8, or their reader checks them itself (a string's bytes;
   * the receivables submission): nothing is read after the first problem. Otherwise the rest of the
   * body is checked as UTF-8 after a problem of syntax, as a body read whole is checked first.
   */
  utf8Checked?: boolean;
}

/**
 * The opener that goes one level past MAX_JSON_DEPTH (domain/json-depth.ts): a `depth` problem,
 * judged in order with those of syntax (the first of either is the answer).
 */
function tooDeep(open: '[' | '{'): string {
  return `this "${open}" opens a level deeper than ${MAX_JSON_DEPTH}: the most this sandbox reads is ${MAX_JSON_DEPTH} arrays and objects nested in one another`;
}

const enum S {
  Value,
  ValueOrArrayEnd,
  KeyOrObjectEnd,
  Key,
  Colon,
  AfterValue,
  Done,
  String,
  Escape,
  Unicode,
  Number,
  Literal,
}

const enum N {
  Minus,
  Zero,
  Int,
  Dot,
  Frac,
  E,
  ESign,
  Exp,
}

interface Frame {
  object: boolean;
  segment: PathSegment;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};
const LITERALS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

const EMPTY = Buffer.alloc(0);

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The problem a body (or a value) that starts with a byte-order mark (U+FEFF) gets, at its offset. */
export const UNEXPECTED_BYTE_ORDER_MARK = 'unexpected byte-order mark (U+FEFF)';

/**
 * A character as a message names it, and the article the name takes in a sentence: printable ASCII
 * quoted, a byte-order mark by that name, any other character as U+XXXX, a byte that starts none
 * (or a character the bytes end in) by its value.
 */
function nameOf(b: Uint8Array, i: number): { article: '' | 'a ' | 'the '; name: string } {
  const c = b[i];
  if (c === undefined) return { article: 'the ', name: 'end of the body' };
  if (c >= 0x21 && c <= 0x7e) return { article: '', name: JSON.stringify(String.fromCharCode(c)) };
  if (c < 0x80) return { article: '', name: `U+${c.toString(16).toUpperCase().padStart(4, '0')}` };
  const n = sequenceLength(c);
  const ch = n > 0 && i + n <= b.length ? Buffer.from(b.subarray(i, i + n)).toString('utf8') : '';
  const cp = ch.codePointAt(0);
  if (cp === 0xfeff) return { article: 'a ', name: 'byte-order mark (U+FEFF)' };
  return cp !== undefined && ch !== '\ufffd'
    ? { article: '', name: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` }
    : { article: 'the ', name: `byte 0x${c.toString(16)}` };
}

/** A character as a sentence names it: `"x"`, U+00E9, a byte-order mark (U+FEFF), the byte 0xff. */
export function describeByte(b: Uint8Array, i: number): string {
  const { article, name } = nameOf(b, i);
  return article + name;
}

/** `unexpected` and the character, with no article: unexpected "x", unexpected byte 0xff. */
function unexpectedByte(b: Uint8Array, i: number): string {
  return `unexpected ${nameOf(b, i).name}`;
}

/**
 * Where the bytes [from, to) stop being whole UTF-8 characters: the start of a character they end
 * in before its last byte (to, when there is none).
 */
function completeUtf8(b: Uint8Array, from: number, to: number): number {
  for (let k = to - 1; k >= Math.max(from, to - 3); k--) {
    const c = b[k] as number;
    if ((c & 0xc0) === 0x80) continue;
    const need = sequenceLength(c);
    return need > 1 && k + need > to ? k : to;
  }
  return to;
}

/** A backslash followed by what no escape is: \q, or, for a character that is not printable ASCII, its name. */
function invalidEscape(b: Uint8Array, i: number): string {
  const { article, name } = nameOf(b, i);
  return name.startsWith('"') && article === ''
    ? `invalid escape sequence \\${name.slice(1, -1)} in a string`
    : `invalid escape sequence in a string: a backslash followed by ${article}${name}`;
}

export class JsonStreamReader {
  private state = S.Value;
  private readonly stack: Frame[] = [];
  /** Bytes before the current chunk. */
  private base = 0;
  private line = 1;
  private lineStart = 0;
  /** UTF-8 continuation bytes since the line began (so that columns count characters). */
  private lineExtra = 0;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  /**
   * Bytes of an unfinished UTF-8 character at the end of the last chunk, read with the next one: a
   * character is always read whole, so what a message says of it (a byte-order mark, U+00E9, where
   * a UTF-8 fault is) never depends on where the body was cut.
   */
  private pending: Buffer | undefined;
  private inKey = false;
  private keyParts: Buffer[] = [];
  private sink: StringSink | undefined;
  private unicode = '';
  private highSurrogate = '';
  /** Byte offsets of the current escape's backslash, and of the pending high surrogate's. */
  private escapeAt = 0;
  private highAt = 0;
  /** Where the kept text lacks bytes of the body: each sink's string content (its offset in the body, its length). */
  private readonly taken: Array<{ at: number; length: number }> = [];
  private sinkAt = 0;
  private number = N.Minus;
  private literal = '';
  private literalAt = 0;
  private seen = 0;
  private failure: JsonReadError | undefined;
  /**
   * After a problem of syntax, the rest of the body checked as UTF-8: a body read whole is refused
   * for its first byte that is not UTF-8 before its syntax is looked at (http/json.ts), wherever
   * that byte is, so a streamed one must say the same.
   */
  private rest: Utf8Check | undefined;

  constructor(private readonly options: JsonStreamOptions) {}

  /** The first problem, once found: nothing more is read after it. */
  get error(): JsonReadError | undefined {
    return this.failure;
  }

  /** Bytes read so far. */
  get bytesRead(): number {
    return this.seen;
  }

  /** The byte offset in the body of a byte offset in the kept text (they differ by the sinks' strings before it). */
  bodyOffset(keptOffset: number): number {
    let offset = keptOffset;
    for (const t of this.taken) {
      if (t.at > offset) break;
      offset += t.length;
    }
    return offset;
  }

  push(input: Buffer): void {
    this.seen += input.length;
    if (this.failure) return this.checkRest(input);
    let chunk = input;
    if (this.pending) {
      // `base` already stands at the first of these bytes.
      chunk = Buffer.concat([this.pending, input]);
      this.pending = undefined;
    }
    const from = this.position();
    const whole = completeUtf8(chunk, 0, chunk.length);
    try {
      if (whole > 0) this.read(whole === chunk.length ? chunk : chunk.subarray(0, whole));
    } catch (err) {
      if (!(err instanceof JsonReadError)) throw err;
      this.failed(err, from, chunk);
      return;
    }
    // `base` stands at the first of these bytes (read() advanced it by what it was given), or at the
    // first of those read() kept: a string's character cut short by a byte that starts another
    // (E2 then F4), which must be read before them.
    if (whole < chunk.length) this.pending = this.pending ? Buffer.concat([this.pending, chunk.subarray(whole)]) : Buffer.from(chunk.subarray(whole));
  }

  /** The whole body was read: the kept text, or the first problem. */
  end(): Buffer {
    if (this.failure) return this.endFailed();
    const from = this.position();
    // The body ends in an unfinished character: read as the last bytes of a body read whole are.
    const rest = this.pending;
    this.pending = undefined;
    try {
      if (rest) this.read(rest);
      // read() keeps them again when they are inside a string.
      const unfinished = this.pending as Buffer | undefined;
      if (unfinished) this.fail('syntax', 'the body ends inside a string', this.base + unfinished.length);
      if (this.state === S.Number) {
        if (this.number === N.Minus || this.number === N.Dot || this.number === N.E || this.number === N.ESign)
          this.fail('syntax', 'the body ends inside a number', this.base);
        this.state = this.stack.length === 0 ? S.Done : S.AfterValue;
      }
      if (this.state === S.Literal) this.fail('syntax', `the body ends inside ${this.literal}`, this.base);
      if (this.state !== S.Done) this.fail('syntax', this.seen === 0 ? 'the body is empty' : 'the body ends before its JSON value does', this.base);
    } catch (err) {
      if (!(err instanceof JsonReadError)) throw err;
      this.failed(err, from, rest ?? EMPTY);
      return this.endFailed();
    }
    return Buffer.concat(this.kept, this.keptBytes);
  }

  /** Where the next byte read is, with the counts a column needs. */
  private position(): { offset: number; line: number; lineStart: number; lineExtra: number } {
    return { offset: this.base, line: this.line, lineStart: this.lineStart, lineExtra: this.lineExtra };
  }

  /**
   * The first problem, found in `bytes` (which start at `from`). It is not the answer yet: a body
   * read whole is refused for its first byte that is not UTF-8 before its syntax is looked at, so the
   * rest is checked as UTF-8 from `bytes` on (the bytes before them were all read as UTF-8; a
   * byte-order mark at the start is refused before UTF-8 is looked at). Utf8Check finds a fault the
   * reader found in a string again, and completes its bytes to four from the pieces after it, so what
   * is said of them never depends on the cut.
   */
  private failed(err: JsonReadError, from: ReturnType<JsonStreamReader['position']>, bytes: Buffer): void {
    this.failure = err;
    if (this.options.utf8Checked === true || err.kind === 'kept-limit') return;
    if (err.at.offset === 0 && err.what.startsWith(UNEXPECTED_BYTE_ORDER_MARK)) return;
    this.rest = new Utf8Check(from);
    this.checkRest(bytes);
  }

  /** More of the body after a problem: the first byte that is not UTF-8 becomes the answer once found. */
  private checkRest(bytes: Buffer): void {
    const rest = this.rest;
    if (!rest) return;
    rest.push(bytes);
    const fault = rest.invalid;
    if (!fault) return;
    const { offset, line, column } = fault;
    this.failure = new JsonReadError('utf8', `${describeByte(fault.bytes, 0)} is not valid UTF-8`, { offset, line, column }, fault.bytes);
    // Its four bytes known: nothing more to read.
    if (fault.bytes.length >= 4) this.rest = undefined;
  }

  /** The body ended after a problem: the first byte that is not UTF-8, else that problem. */
  private endFailed(): never {
    this.rest?.end();
    this.checkRest(EMPTY);
    throw this.failure as JsonReadError;
  }

  private fail(kind: JsonProblemKind, what: string, offset: number, bytes?: Uint8Array, path?: PathSegment[]): never {
    throw new JsonReadError(kind, what, { offset, line: this.line, column: offset - this.lineStart - this.lineExtra + 1 }, bytes, path);
  }

  private unexpected(b: Buffer, i: number, expected: string): never {
    this.fail('syntax', `${unexpectedByte(b, i)}; expected ${expected}`, this.base + i);
  }

  private keep(b: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.keptBytes += to - from;
    // At the first byte past the limit, wherever the body was cut.
    if (this.keptBytes > this.options.keepLimit)
      this.fail('kept-limit', `the fields besides the files take more than ${this.options.keepLimit} bytes`, this.base + to - (this.keptBytes - this.options.keepLimit));
    this.kept.push(Buffer.from(b.subarray(from, to)));
  }

  private path(): PathSegment[] {
    return this.stack.map((f) => f.segment);
  }

  private read(b: Buffer): void {
    const n = b.length;
    let i = 0;
    // Where the kept bytes of this chunk start (-1: inside a sink's string, keeping nothing).
    let keepFrom = this.sink ? -1 : 0;
    try {
      while (i < n) {
        switch (this.state) {
          case S.String: {
            const q = b.indexOf(QUOTE, i);
            let end = q < 0 ? n : q;
            // Only up to the quote: a search to the end of a large chunk for every short string costs
            // the chunk's length each time.
            const bs = b.subarray(i, end).indexOf(BACKSLASH);
            if (bs >= 0) end = i + bs;
            let stop = end;
            if (end === n) {
              // The chunk ends inside the string: an unfinished character waits for the next chunk.
              stop = completeUtf8(b, i, n);
              if (stop < n) this.pending = Buffer.from(b.subarray(stop, n));
            }
            if (stop > i) this.content(b, i, stop);
            if (end === n) {
              i = n;
              continue;
            }
            i = end + 1;
            if (bs >= 0) {
              this.state = S.Escape;
              this.escapeAt = this.base + end;
              if (this.inKey) this.keyParts.push(Buffer.from([BACKSLASH]));
              continue;
            }
            // The closing quote.
            this.flushHigh();
            if (this.inKey) {
              this.inKey = false;
              const raw = Buffer.concat(this.keyParts);
              this.keyParts = [];
              const top = this.stack[this.stack.length - 1];
              if (top) top.segment = raw.includes(BACKSLASH) ? (JSON.parse(`"${raw.toString('utf8')}"`) as string) : raw.toString('utf8');
              this.state = S.Colon;
            } else {
              if (this.sink) {
                this.sink.end();
                this.sink = undefined;
                this.taken.push({ at: this.sinkAt, length: this.base + end - this.sinkAt });
                keepFrom = end;
              }
              this.state = this.stack.length === 0 ? S.Done : S.AfterValue;
            }
            continue;
          }
          case S.Escape: {
            const c = b[i] as number;
            if (c === 0x75 /* u */) {
              this.state = S.Unicode;
              this.unicode = '';
              if (this.inKey) this.keyParts.push(Buffer.from('u'));
              i++;
              continue;
            }
            const ch = ESCAPES[c];
            if (ch === undefined) this.fail('syntax', invalidEscape(b, i), this.base + i - 1);
            if (this.inKey) this.keyParts.push(Buffer.from([c]));
            else if (this.sink) {
              this.flushHigh();
              this.sink.text(ch, this.escapeAt);
            }
            this.state = S.String;
            i++;
            continue;
          }
          case S.Unicode: {
            const c = b[i] as number;
            if (!isHexDigit(c)) this.unexpected(b, i, 'a hexadecimal digit of a \\u escape');
            this.unicode += String.fromCharCode(c);
            if (this.inKey) this.keyParts.push(Buffer.from([c]));
            i++;
            if (this.unicode.length === 4) {
              this.state = S.String;
              if (this.sink) this.escapedUnit(Number.parseInt(this.unicode, 16));
            }
            continue;
          }
          case S.Number: {
            const c = b[i] as number;
            if (this.numberStep(c)) {
              i++;
              continue;
            }
            if (this.number === N.Minus || this.number === N.Dot || this.number === N.E || this.number === N.ESign)
              this.unexpected(b, i, 'a digit');
            this.state = this.stack.length === 0 ? S.Done : S.AfterValue;
            continue;
          }
          case S.Literal: {
            const c = b[i] as number;
            const want = this.literal.charCodeAt(this.literalAt);
            if (c !== want) this.unexpected(b, i, `"${this.literal[this.literalAt]}" of ${this.literal}`);
            i++;
            if (++this.literalAt === this.literal.length) this.state = this.stack.length === 0 ? S.Done : S.AfterValue;
            continue;
          }
          default: {
            const c = b[i] as number;
            if (isSpace(c)) {
              if (c === 0x0a) {
                this.line++;
                this.lineStart = this.base + i + 1;
                this.lineExtra = 0;
              }
              i++;
              continue;
            }
            this.structural(b, i, c);
            i++;
            if ((this.state as S) === S.String && this.sink) {
              this.keep(b, keepFrom, i);
              keepFrom = -1;
            }
          }
        }
      }
    } catch (err) {
      // What was kept before the problem counts first: past the limit before it, the limit is the
      // answer (it would have been, read byte by byte), wherever the body was cut.
      if (err instanceof JsonReadError && err.kind !== 'kept-limit' && keepFrom >= 0)
        this.keep(b, keepFrom, Math.max(keepFrom, err.at.offset - this.base));
      throw err;
    }
    if (keepFrom >= 0) this.keep(b, keepFrom, this.pending ? n - this.pending.length : n);
    this.base += n - (this.pending?.length ?? 0);
  }

  /** A byte outside strings, numbers and literals. */
  private structural(b: Buffer, i: number, c: number): void {
    switch (this.state) {
      case S.Value:
      case S.ValueOrArrayEnd:
        if (c === 0x5d && this.state === S.ValueOrArrayEnd) return this.close(false);
        return this.value(b, i, c);
      case S.KeyOrObjectEnd:
      case S.Key:
        if (c === 0x7d && this.state === S.KeyOrObjectEnd) return this.close(true);
        if (c !== QUOTE) this.unexpected(b, i, this.state === S.Key ? 'a key in double quotes' : 'a key in double quotes or "}"');
        this.inKey = true;
        this.state = S.String;
        return;
      case S.Colon:
        if (c !== 0x3a) this.unexpected(b, i, '":" after a key');
        this.state = S.Value;
        return;
      case S.AfterValue: {
        const top = this.stack[this.stack.length - 1] as Frame;
        if (c === 0x2c) {
          if (top.object) this.state = S.Key;
          else {
            top.segment = (top.segment as number) + 1;
            this.state = S.Value;
          }
          return;
        }
        if (c === (top.object ? 0x7d : 0x5d)) return this.close(top.object);
        return this.unexpected(b, i, top.object ? '"," or "}"' : '"," or "]"');
      }
      case S.Done:
        return this.unexpected(b, i, 'nothing after the JSON value');
    }
  }

  private value(b: Buffer, i: number, c: number): void {
    // An object or array per level is kept: past the limit a body would cost memory (and, read whole,
    // JSON.parse seconds) in proportion to the nesting it asks for.
    if ((c === 0x7b || c === 0x5b) && this.stack.length >= MAX_JSON_DEPTH)
      this.fail('depth', tooDeep(c === 0x7b ? '{' : '['), this.base + i, undefined, this.path());
    if (c === 0x7b) {
      this.stack.push({ object: true, segment: '' });
      this.state = S.KeyOrObjectEnd;
    } else if (c === 0x5b) {
      this.stack.push({ object: false, segment: 0 });
      this.state = S.ValueOrArrayEnd;
    } else if (c === QUOTE) {
      this.sink = this.options.sinkFor(this.path());
      this.sinkAt = this.base + i + 1;
      this.state = S.String;
    } else if (c === 0x2d || isDigit(c)) {
      this.state = S.Number;
      this.number = c === 0x2d ? N.Minus : c === 0x30 ? N.Zero : N.Int;
    } else if (LITERALS[c] !== undefined) {
      this.state = S.Literal;
      this.literal = LITERALS[c] as string;
      this.literalAt = 1;
    } else {
      this.unexpected(b, i, 'a JSON value');
    }
  }

  private close(object: boolean): void {
    const top = this.stack.pop();
    if (!top || top.object !== object) throw new Error('unbalanced JSON containers reached close()');
    this.state = this.stack.length === 0 ? S.Done : S.AfterValue;
  }

  /** One more byte of a number: true when it belongs to the number. */
  private numberStep(c: number): boolean {
    const digit = isDigit(c);
    switch (this.number) {
      case N.Minus:
        if (!digit) return false;
        this.number = c === 0x30 ? N.Zero : N.Int;
        return true;
      case N.Zero:
      case N.Int:
        if (digit && this.number === N.Int) return true;
        if (c === 0x2e) this.number = N.Dot;
        else if (c === 0x65 || c === 0x45) this.number = N.E;
        else return false;
        return true;
      case N.Dot:
        if (!digit) return false;
        this.number = N.Frac;
        return true;
      case N.Frac:
        if (digit) return true;
        if (c !== 0x65 && c !== 0x45) return false;
        this.number = N.E;
        return true;
      case N.E:
        if (c === 0x2b || c === 0x2d) this.number = N.ESign;
        else if (digit) this.number = N.Exp;
        else return false;
        return true;
      case N.ESign:
        if (!digit) return false;
        this.number = N.Exp;
        return true;
      case N.Exp:
        return digit;
    }
  }

  /** Content bytes of a string, between escapes. */
  private content(b: Buffer, from: number, to: number): void {
    const part = b.subarray(from, to);
    if (this.sink) {
      this.flushHigh();
      if (this.sink.fast(part)) return;
      this.checkContent(b, part, from);
      this.sink.slow(part);
      return;
    }
    this.checkContent(b, part, from);
    if (this.inKey) this.keyParts.push(Buffer.from(part));
  }

  /** No control characters, valid UTF-8; counts the line's continuation bytes for columns. */
  private checkContent(b: Buffer, part: Buffer, from: number): void {
    for (let k = 0; k < part.length; k++) {
      const c = part[k] as number;
      if (c < 0x20) {
        this.fail('syntax', `a control character (${describeByte(part, k)}) inside a string: write it as an escape such as \\n or \\u0000`, this.base + from + k);
      }
      if ((c & 0xc0) === 0x80) this.lineExtra++;
    }
    if (!isUtf8(part)) {
      const k = firstInvalidUtf8(part);
      this.lineExtra -= part.subarray(k).filter((c) => (c & 0xc0) === 0x80).length;
      // The bytes after it in the chunk, past the string's end too: a closing quote cuts a character short.
      this.fail('utf8', `${describeByte(part, k)} is not valid UTF-8`, this.base + from + k, Buffer.from(b.subarray(from + k, from + k + 4)));
    }
  }

  /** A \u escape of a sink's string: a surrogate pair goes out as one character. */
  private escapedUnit(unit: number): void {
    const ch = String.fromCharCode(unit);
    if (this.highSurrogate) {
      const high = this.highSurrogate;
      this.highSurrogate = '';
      if (unit >= 0xdc00 && unit <= 0xdfff) return this.sink?.text(high + ch, this.highAt);
      this.sink?.text(high, this.highAt);
    }
    if (unit >= 0xd800 && unit <= 0xdbff) {
      this.highSurrogate = ch;
      this.highAt = this.escapeAt;
    } else this.sink?.text(ch, this.escapeAt);
  }

  private flushHigh(): void {
    if (!this.highSurrogate) return;
    this.sink?.text(this.highSurrogate, this.highAt);
    this.highSurrogate = '';
  }
}
