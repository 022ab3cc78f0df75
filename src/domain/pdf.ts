// Loan-bond file rules: 3 (not encrypted), 4 (PDF only), 5 (maximum size), decided as the bytes
// arrive (PdfFileCheck) so that a 15 MB file is never held whole; checkPdf applies the same to a buffer.

import { Buffer } from 'node:buffer';
import { KindStack } from './kind-stack.js';
import { plural } from './plural.js';

/**
 * The specification says "15 MB"; the sandbox reads it as 15 000 000 bytes (decimal megabytes, the
 * stricter reading, so a client that passes here passes there too).
 */
export const MAX_FILE_BYTES = 15_000_000;

export type PdfRule = 'pdf-only' | 'not-encrypted' | 'max-size';

export type PdfCheck = { ok: true } | { ok: false; rule: PdfRule; reason: string };

// Readers accept bytes before the header as long as it lies within the first 1024 bytes: "%PDF-"
// ends by byte 1024 (starts at offset 1019 at the latest, as pdf.js looks for it), its version digit
// right after, possibly byte 1025.
const HEADER_WINDOW = 1024;
const HEADER = Buffer.from('%PDF-', 'latin1');
/** The last offset "%PDF-" may start at: it then ends exactly at byte 1024. */
const LAST_HEADER_START = HEADER_WINDOW - HEADER.length;
/**
 * The first bytes a streamed check keeps: the window, and enough after it to read the version digit
 * of a header ending at byte 1024 and to see a header that starts in the window but ends past it.
 */
const HEAD_KEPT = HEADER_WINDOW + HEADER.length;

function asBuffer(bytes: Uint8Array): Buffer {
  // A view, not a copy: files reach 15 MB.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The offset of the first '%PDF-' followed by a version digit that starts at or after `from` and
 * ends within the first `within` bytes; -1 when there is none.
 */
function headerAt(bytes: Buffer, from: number, within: number): number {
  const head = bytes.subarray(0, within);
  for (let at = head.indexOf(HEADER, from); at >= 0; at = head.indexOf(HEADER, at + 1)) {
    const next = bytes[at + HEADER.length];
    if (next !== undefined && next >= 0x30 && next <= 0x39) return at;
  }
  return -1;
}

/** Where '%PDF-' (ending by byte 1024) and its version digit start; -1 when they do not. */
export function pdfHeaderOffset(bytes: Uint8Array): number {
  return headerAt(asBuffer(bytes), 0, HEADER_WINDOW);
}

/** True when '%PDF-' lies within the first 1024 bytes, followed by a version digit. */
export function isPdf(bytes: Uint8Array): boolean {
  return pdfHeaderOffset(bytes) >= 0;
}

// Files that carry a PDF inside them, stored uncompressed, so '%PDF-' shows within 1024 bytes:
// each is named by the signature it starts with.
const CMS_OID = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07]); // 1.2.840.113549.1.7
const CONTAINERS: ReadonlyArray<{ name: string; starts: (b: Buffer) => boolean }> = [
  { name: 'a ZIP archive', starts: (b) => b.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1')) },
  {
    name: 'a CMS / PKCS#7 signed envelope (.p7s, .p7m)',
    starts: (b) => {
      // DER or BER: SEQUENCE, its length (short, long of 1-4 bytes, or indefinite), then the PKCS#7 content-type OID.
      if (b[0] !== 0x30) return false;
      const len = b[1] ?? 0;
      const skip = len < 0x80 || len === 0x80 ? 2 : len <= 0x84 ? 2 + (len - 0x80) : -1;
      return skip > 0 && b.subarray(skip, skip + CMS_OID.length).equals(CMS_OID);
    },
  },
  { name: 'a PEM-armoured PKCS#7 / CMS file', starts: (b) => /^-----BEGIN (PKCS7|CMS)/.test(b.toString('latin1', 0, 20)) },
  { name: 'an OLE compound file (Outlook .msg, Office)', starts: (b) => b.readUInt32BE(0) === 0xd0cf11e0 },
  { name: 'a tar archive', starts: (b) => b.toString('latin1', 257, 262) === 'ustar' },
  { name: 'a RAR archive', starts: (b) => b.toString('latin1', 0, 4) === 'Rar!' },
];
const EOF_MARK = Buffer.from('%%EOF', 'latin1');

/** The container problem of a file from its first bytes (up to the header) and its last 1024 bytes. */
function containerProblemOf(head: Buffer, headerAt: number, last: Buffer): string | null {
  if (headerAt <= 0) return null;
  const before = head.subarray(0, headerAt);
  const padded = before.length >= 262 ? before : Buffer.concat([before, Buffer.alloc(262 - before.length)]);
  const container = CONTAINERS.find((c) => c.starts(padded));
  if (container) {
    return `the file is ${container.name} with a PDF inside (its "%PDF-" header is at byte ${headerAt}); send the PDF itself`;
  }
  if (last.indexOf(EOF_MARK) < 0) {
    return `the file has ${plural(headerAt, 'byte')} before its "%PDF-" header and no "%%EOF" in its last ${HEADER_WINDOW} bytes: it is another file with a PDF inside; send the PDF itself`;
  }
  return null;
}

/**
 * Why a file whose '%PDF-' header is not at byte 0 is not a PDF by its own structure, or null. The
 * bytes before the header may be junk a reader skips (accepted), or the start of a container that
 * holds the PDF: refused when they start with a known container signature, or when the file does not
 * end like a PDF (no '%%EOF' in its last 1024 bytes: a container's directory or signature follows).
 */
export function containerProblem(bytes: Uint8Array, headerAt: number): string | null {
  const buf = asBuffer(bytes);
  return containerProblemOf(buf, headerAt, buf.subarray(Math.max(0, buf.length - HEADER_WINDOW)));
}

// ---------------------------------------------------------------------------------------------
// Rule 3 by the file's structure (ISO 32000-1): a PDF is encrypted, owner password included, when
// its trailer dictionary (section 7.5.5) or, from PDF 1.5, its cross-reference stream dictionary
// (7.5.8, /Type /XRef) has an /Encrypt entry whose value is not null (7.3.7: a null entry is an
// absent one). Names are compared decoded (7.3.5: /Encr#79pt is /Encrypt); literal and hexadecimal
// strings, comments and stream data are skipped, so a document that merely mentions "/Encrypt" in
// its text or in a content stream is not encrypted. Neither dictionary may sit in an object stream
// (7.5.7, 7.5.8.4), so one pass over the bytes, skipping stream data, sees every one of them: the
// trailers of every incremental update and of a linearized file's first page included.
//
// Our own reader, not a PDF library: the maintained ones (pdf.js, pdf-lib) need the whole file in
// memory and seek from its end (startxref), while the file arrives as a stream of base64 that must
// never be held whole. Measured against pdf.js on generated corpora in docs/benchmarks.md.
// ---------------------------------------------------------------------------------------------

const WHITESPACE = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[c] = 1;
// Delimiters (7.2.2) and whitespace end a name, a number or a keyword.
const ENDS_TOKEN = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) ENDS_TOKEN[c] = 1;
for (const ch of '()<>[]{}/%') ENDS_TOKEN[ch.charCodeAt(0)] = 1;

/** Eight spaces read as one float64: equal to it exactly when the eight bytes are all spaces (neither 0 nor NaN). */
const EIGHT_SPACES = new Float64Array(new Uint8Array(8).fill(0x20).buffer)[0] as number;
/** Two bytes read as one 16-bit unit (either byte order): 1 when both are whitespace. */
const WHITESPACE_PAIR = new Uint8Array(65536);
for (let x = 0; x < 256; x++) for (let y = 0; y < 256; y++) if (WHITESPACE[x] === 1 && WHITESPACE[y] === 1) WHITESPACE_PAIR[x | (y << 8)] = 1;
/** Whitespace read byte by byte before the rest of the run is read eight bytes at a time. */
const LONG_RUN = 32;

/**
 * Where the whitespace starting at `i` ends in `b` (at most `n`). Most runs are a byte or two; a
 * long one (a file padded with spaces and line breaks, as the benchmark's 1 MiB PDFs are: 50 MB of
 * them in one request took 110 ms byte by byte) is read as aligned words of eight bytes: a word of
 * eight spaces by one comparison of a float64, any other by its four 16-bit halves in a table of
 * whitespace pairs, and the word that ends the run byte by byte (docs/benchmarks.md).
 */
export function skipWhitespace(b: Buffer, i: number, end: number): number {
  // Never past the view: the word views below would read the bytes after it.
  const n = Math.min(end, b.length);
  const start = i;
  while (i < n && WHITESPACE[b[i] as number] === 1) {
    i++;
    if (i - start === LONG_RUN) return skipLongWhitespace(b, i, n);
  }
  return i;
}

function skipLongWhitespace(b: Buffer, from: number, n: number): number {
  let i = from;
  // Byte by byte up to the first index whose address is a multiple of eight.
  const aligned = Math.min(n, i + ((8 - ((b.byteOffset + i) & 7)) & 7));
  for (; i < aligned; i++) if (WHITESPACE[b[i] as number] !== 1) return i;
  if (i >= n) return n;
  const count = (n - i) >> 3;
  const words = new Float64Array(b.buffer, b.byteOffset + i, count);
  const halves = new Uint16Array(b.buffer, b.byteOffset + i, count * 4);
  let k = 0;
  for (;;) {
    while (k < count) {
      if (words[k] !== EIGHT_SPACES) {
        const h = k * 4;
        const pairs =
          (WHITESPACE_PAIR[halves[h] as number] as number) +
          (WHITESPACE_PAIR[halves[h + 1] as number] as number) +
          (WHITESPACE_PAIR[halves[h + 2] as number] as number) +
          (WHITESPACE_PAIR[halves[h + 3] as number] as number);
        if (pairs !== 4) break;
      }
      k++;
    }
    // The word with a byte that is not whitespace (or the bytes after the last whole word), byte by byte.
    const at = i + k * 8;
    const end = Math.min(n, at + 8);
    for (let j = at; j < end; j++) if (WHITESPACE[b[j] as number] !== 1) return j;
    if (end >= n) return n;
    k++;
  }
}

const ENDSTREAM = Buffer.from('endstream', 'latin1');
const TRAILER = Buffer.from('trailer', 'latin1');
const OBJ = Buffer.from('obj', 'latin1');
/**
 * The first bytes of a keyword searched for in stream data, the rest compared by hand. Node's
 * Buffer#indexOf finds a needle of up to 7 bytes by memchr on its first byte, and a longer one by
 * Boyer-Moore(-Horspool), which is 3-4 times slower on incompressible bytes: over 750 MB of them in
 * 64 KiB pieces, `endstream` took 0.55-1.8 s and `endstre` 0.18-0.59 s, measured side by side on
 * this project's 2-core machine.
 */
const SEARCHED_PREFIX = 7;

/** Where `keyword` next starts in `b` at or after `from` (and ends by `b.length`), or -1. */
function indexOfKeyword(b: Buffer, keyword: Buffer, from: number): number {
  const prefix = keyword.length > SEARCHED_PREFIX ? keyword.subarray(0, SEARCHED_PREFIX) : keyword;
  for (let at = b.indexOf(prefix, from); at >= 0; at = b.indexOf(prefix, at + 1)) {
    if (at + keyword.length > b.length) return -1;
    let k = prefix.length;
    while (k < keyword.length && b[at + k] === keyword[k]) k++;
    if (k === keyword.length) return at;
  }
  return -1;
}
const EMPTY = Buffer.alloc(0);
/**
 * Containers read with their details (keys, values, /Length, /Encrypt): the outermost ones. Only a
 * container outside every other (an object's value, the trailer's dictionary) is ever judged, and of
 * those inside it only the kind counts (a closer must match; a dictionary or an array is its
 * parent's value); past this depth a container is kept as its kind alone (domain/kind-stack.ts), so
 * that memory does not grow with the nesting a file asks for.
 */
const FRAMES_KEPT = 8;
/** Readers run one inside the other for streams whose /Length may be wrong (each is a few hundred bytes). */
const MAX_SHADOW_DEPTH = 4;
/** Keyword readers a string or stream being skipped keeps at once (the oldest is judged as it stands). */
const MAX_KEYWORD_READERS = 4;
/** Bytes kept before a piece of a skipped string or stream, to look back from `obj` to `n g`. */
const KEYWORD_LOOK_BACK = 32;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
/** Longer names and keywords are kept cut: none of the few this reader compares is this long. */
const MAX_TOKEN = 64;
/** Bytes looked at after a line break inside a string to see whether the line starts the structure. */
const LINE_LOOKAHEAD = 40;
/** Keywords that only stand between objects (7.3.10, 7.5.4, 7.5.5): never inside a string or a container. */
const BETWEEN_OBJECT_WORDS = new Set(['endobj', 'trailer', 'xref', 'startxref']);
const BETWEEN_OBJECTS = [...BETWEEN_OBJECT_WORDS].map((k) => Buffer.from(k, 'latin1'));
const HEX_DIGIT = new Uint8Array(256);
for (const ch of '0123456789abcdefABCDEF') HEX_DIGIT[ch.charCodeAt(0)] = 1;

const enum Mode {
  Normal,
  Comment,
  Literal,
  Hex,
  Name,
  Regular,
  /** After '<': a dictionary ('<<') or a hexadecimal string. */
  LessThan,
  /** After '>' outside a hexadecimal string: expecting the second '>' of '>>'. */
  GreaterThan,
  /** After the keyword `stream`: its end-of-line marker. */
  StreamEol,
  /** Skipping the /Length bytes of stream data. */
  StreamSkip,
  /** After the /Length bytes: whitespace, then `endstream`. */
  StreamVerify,
  /** Searching for `endstream` (no direct /Length, or a wrong one). */
  StreamFind,
}

/** Modes whose bytes are string text or stream data, skipped by the structure. */
function skipsData(mode: Mode): boolean {
  return mode === Mode.Literal || mode === Mode.Hex || mode >= Mode.StreamEol;
}

const enum Expect {
  Key,
  Value,
  /** One number read as the value: the value itself, or the start of a reference `n g R`. */
  Num1,
  Num2,
}

interface Frame {
  dict: boolean;
  /** The direct value of an indirect object, or the dictionary after `trailer`. */
  top: boolean;
  trailer: boolean;
  expect: Expect;
  key: string;
  num: string;
  /** The second number of a value `n g`, which `R` makes a reference. */
  num2: string;
  xref: boolean;
  encrypt: boolean;
  /** /Encrypt n g R: encrypted unless object n g is null or undefined (7.3.10), judged at the end. */
  encryptRef: ObjectId | undefined;
  /** A direct /Length, when the dictionary has one. */
  length: number | undefined;
}

type Role = 'main' | 'shadow' | 'keyword';

/**
 * Reads a PDF's structure as its bytes arrive and says whether it is encrypted.
 *
 * A damaged file is read as readers recover it (pdf.js, qpdf). A stream whose /Length does not end at
 * `endstream` is read up to the first `endstream` after its start: while the declared data is skipped,
 * a second reader (the shadow) starts after the first `endstream` found in it and takes over if the
 * declared end turns out wrong, or if the file ends inside the declared data. A string or stream
 * still open at the end of the file hides the rest of the file from the structure: then the
 * dictionaries after the keywords `trailer` and `n g obj` inside it count too, as a reader that
 * rebuilds the cross-reference by scanning for keywords finds them (KeywordScan). Either costs a
 * few readers of bounded size, fed bytes the main reader skips anyway.
 *
 * Damaged syntax does not hide what follows it (qpdf reads each object and trailer by its offset,
 * whatever the bytes before it): a stray ")" is a token of its own, a closer that does not match
 * is a stray token, the keywords that stand between objects close the containers left open, a
 * hexadecimal string ends at a byte it may not hold, and a line inside a string that starts with one
 * of those keywords or an object header ends the string (lineAfterBreak).
 */
export class PdfStructure {
  private mode = Mode.Normal;
  private token: number[] = [];
  /** Bytes of a name or keyword beyond MAX_TOKEN were dropped. */
  private cut = false;
  private literalDepth = 0;
  private escaped = false;
  private stack: Frame[] = [];
  /** The kinds (true: a dictionary) of the containers open inside the FRAMES_KEPT outermost ones. */
  private deep = new KindStack();
  private trailerNext = false;
  /** The top-level dictionary just closed: its stream follows if the next token is `stream`. */
  private streamOwner: Frame | null = null;
  private streamLeft = 0;
  private verified = 0;
  /** Whitespace was read after the declared end of the stream data. */
  private verifiedSpace = false;
  private eolCr = false;
  /** The last bytes of the previous chunk while searching for `endstream` across chunks. */
  private carry: Buffer = EMPTY;
  /** The last bytes (at most 8) of the stream data skipped so far: an `endstream` split across pieces. */
  private tail: Buffer = EMPTY;
  /** The reading that goes on after the first `endstream` inside the stream data being skipped. */
  private shadow: PdfStructure | null = null;
  private readonly keywords: KeywordScan | null;
  /** A keyword reader is done once its first dictionary closed, or once anything else came first. */
  private done = false;
  private found = false;
  /** The /Encrypt references of the trailers and cross-reference streams read, resolved at the end. */
  private refs: ObjectId[] = [];
  /** A line break inside a string was read; the line after it is judged before the string goes on. */
  private lineStart = false;
  /** A literal string was broken by a line that starts the structure, and no stray ")" closed it since. */
  private unclosed = false;
  /** Whether each object defined at the top level is null (ISO 32000-1 7.3.10). */
  private objects = new ObjectTable();
  /** The numbers just read outside every container (`n g` before `obj`). */
  private nums: string[] = [];
  private pendingObject: ObjectId | undefined;
  /** The last two tokens, when they were integers, at any depth (`n g` before `obj` in an open container). */
  private lastInts: [string | undefined, string | undefined] = [undefined, undefined];
  /** The bytes after a line break in a string, kept until they show whether the line starts the structure. */
  private stash: Buffer = EMPTY;
  /** step() stopped before a line it cannot judge yet: push() keeps the rest of the piece in `stash`. */
  private starved = false;
  /** end() is reading the stash: the input is complete, so a line is judged on what there is. */
  private final = false;

  constructor(
    private readonly role: Role = 'main',
    private depth = 0,
  ) {
    this.keywords = role === 'keyword' ? null : new KeywordScan();
  }

  /** True once a trailer or cross-reference stream dictionary named /Encrypt (with a non-null value). */
  get encrypted(): boolean {
    return this.found;
  }

  /** A keyword reader that has read its dictionary (or found none where it started). */
  get finished(): boolean {
    return this.done;
  }

  push(chunk: Uint8Array): void {
    if (this.done) return;
    const b = asBuffer(chunk);
    this.shadow?.push(b);
    this.read(b);
  }

  private read(piece: Buffer): void {
    let b = piece;
    if (this.stash.length > 0) {
      b = Buffer.concat([this.stash, b]);
      this.stash = EMPTY;
    }
    const n = b.length;
    let i = 0;
    while (i < n && !this.done) {
      const from = i;
      const skipping = skipsData(this.mode);
      i = this.step(b, i, n);
      // The shadow took over: it has read the whole chunk already.
      if (i < 0) return;
      // While a shadow reads on from the first `endstream` in the stream data, the keyword readers
      // cannot count: the declared end is right (the data ends there, the readers are dropped) or
      // the shadow takes over with readers of its own.
      if (skipping && this.keywords && this.shadow === null) {
        this.keywords.push(b.subarray(from, i));
        if (!skipsData(this.mode)) this.keywords.reset();
      }
      if (this.starved) {
        // A line break in a string near the end of the piece: its line is judged with the next one.
        this.starved = false;
        this.stash = Buffer.from(b.subarray(i));
        return;
      }
    }
  }

  /** Reads from `i` in the current mode; answers where it stopped, or -1 when the shadow took over. */
  private step(b: Buffer, i: number, n: number): number {
    switch (this.mode) {
      case Mode.Normal: {
        const c = b[i] as number;
        if (WHITESPACE[c] === 1) return skipWhitespace(b, i, n);
        i++;
        switch (c) {
          case 0x25 /* % */:
            this.mode = Mode.Comment;
            break;
          case 0x28 /* ( */:
            this.mode = Mode.Literal;
            this.literalDepth = 1;
            this.escaped = false;
            break;
          case 0x3c /* < */:
            this.mode = Mode.LessThan;
            break;
          case 0x3e /* > */:
            this.mode = Mode.GreaterThan;
            break;
          case 0x5b /* [ */:
            this.open(false);
            break;
          case 0x5d /* ] */:
            this.close(false);
            break;
          case 0x29 /* ) */:
            // A delimiter, so a token of its own (7.2.2), and outside a string a bad one: qpdf reads
            // it as null. Never the start of the keyword or number glued after it.
            this.unclosed = false;
            this.scalar('keyword', 'null');
            break;
          case 0x2f /* / */:
            this.mode = Mode.Name;
            this.token = [];
            this.cut = false;
            break;
          case 0x7b /* { */:
          case 0x7d /* } */:
            break;
          default:
            this.mode = Mode.Regular;
            this.token = [c];
            this.cut = false;
        }
        return i;
      }
      case Mode.Comment: {
        while (i < n && b[i] !== 0x0a && b[i] !== 0x0d) i++;
        if (i < n) this.mode = Mode.Normal;
        return i;
      }
      case Mode.Literal: {
        if (this.lineStart) return this.judgeLine(b, i, n);
        // Balanced parentheses; a backslash escapes the byte after it (7.3.4.2).
        while (i < n) {
          const c = b[i++] as number;
          if (this.escaped) this.escaped = false;
          else if (c === 0x5c) this.escaped = true;
          else if (c === 0x28) this.literalDepth++;
          else if (c === 0x29 && --this.literalDepth === 0) {
            this.mode = Mode.Normal;
            this.scalar('string', '');
            break;
          }
          if (c === 0x0a || c === 0x0d) {
            this.lineStart = true;
            return i;
          }
        }
        return i;
      }
      case Mode.Hex: {
        if (this.lineStart) return this.judgeLine(b, i, n);
        // Hexadecimal digits and white space (7.3.4.3); any other byte ends the string, broken (qpdf
        // reads it as a bad token), and is read again as what follows it.
        while (i < n) {
          const c = b[i] as number;
          if (c === 0x3e) {
            this.mode = Mode.Normal;
            this.scalar('string', '');
            return i + 1;
          }
          if (HEX_DIGIT[c] !== 1 && WHITESPACE[c] !== 1) return this.brokenString(i);
          i++;
          if (c === 0x0a || c === 0x0d) {
            this.lineStart = true;
            return i;
          }
        }
        return i;
      }
      case Mode.LessThan: {
        if (b[i] === 0x3c) {
          i++;
          this.mode = Mode.Normal;
          this.open(true);
        } else {
          this.mode = Mode.Hex;
        }
        return i;
      }
      case Mode.GreaterThan: {
        // '>>' closes a dictionary; a lone '>' is a stray byte.
        if (b[i] === 0x3e) {
          i++;
          this.close(true);
        }
        this.mode = Mode.Normal;
        return i;
      }
      case Mode.Name:
      case Mode.Regular: {
        while (i < n && ENDS_TOKEN[b[i] as number] !== 1) {
          if (this.token.length < MAX_TOKEN) this.token.push(b[i] as number);
          else this.cut = true;
          i++;
        }
        if (i < n) this.endToken();
        return i;
      }
      case Mode.StreamEol: {
        // `stream` is followed by CRLF or LF (7.3.8.1); a lone CR is read leniently as the end of line.
        const c = b[i] as number;
        if (this.eolCr) {
          if (c === 0x0a) i++;
          this.startStreamData();
        } else if (c === 0x0d) {
          this.eolCr = true;
          i++;
        } else if (c === 0x0a) {
          i++;
          this.startStreamData();
        } else if (c === 0x20 || c === 0x09) {
          i++;
        } else {
          this.startStreamData();
        }
        return i;
      }
      case Mode.StreamSkip: {
        const end = i + Math.min(this.streamLeft, n - i);
        if (this.shadow === null && this.role !== 'keyword' && this.depth < MAX_SHADOW_DEPTH) this.startShadow(b, i, end);
        this.tail = lastBytes(this.tail, b, i, end, ENDSTREAM.length - 1);
        this.streamLeft -= end - i;
        if (this.streamLeft === 0) {
          this.mode = Mode.StreamVerify;
          this.verified = 0;
          this.verifiedSpace = false;
        }
        return end;
      }
      case Mode.StreamVerify: {
        const c = b[i] as number;
        if (this.verified === 0 && WHITESPACE[c] === 1) {
          this.verifiedSpace = true;
          return i + 1;
        }
        if (c === ENDSTREAM[this.verified]) {
          if (++this.verified === ENDSTREAM.length) this.endStream();
          return i + 1;
        }
        // The direct /Length was wrong: readers read the stream up to the first `endstream` after its start.
        if (this.shadow) {
          this.adoptShadow();
          return -1;
        }
        // None inside the declared data: the first one from here, or one that straddles the declared
        // end (it starts in the data's last bytes, or in what was just matched of it).
        this.mode = Mode.StreamFind;
        const before = this.verifiedSpace ? EMPTY : this.tail;
        this.carry = lastBytes(before, ENDSTREAM, 0, this.verified, ENDSTREAM.length - 1);
        return i;
      }
      case Mode.StreamFind: {
        const previous = this.carry;
        if (previous.length > 0) {
          // A match across the boundary: the carried bytes (fewer than 9) and the start of this chunk.
          const carried = this.carry.length;
          const joined = Buffer.concat([this.carry, b.subarray(i, i + ENDSTREAM.length - 1)]);
          this.carry = EMPTY;
          const at = joined.indexOf(ENDSTREAM);
          if (at >= 0) {
            this.endStream();
            return i + at + ENDSTREAM.length - carried;
          }
        }
        const at = indexOfKeyword(b, ENDSTREAM, i);
        if (at >= 0) {
          this.endStream();
          return at + ENDSTREAM.length;
        }
        // A piece shorter than the keyword keeps the bytes carried before it too.
        this.carry = lastBytes(previous, b, i, n, ENDSTREAM.length - 1);
        return n;
      }
    }
  }

  /**
   * Whether the line that starts at `b[i]`, inside a string, starts the file's structure instead:
   * white space, then `endobj`, `trailer`, `xref`, `startxref` or an object header `n g obj`, each
   * followed by a delimiter. None of them may stand inside a string of a well-formed file, so such a
   * line means the string was left open (an unbalanced "(" that a stray ")" further on would close),
   * as a reader that goes by offsets, or rebuilds the cross-reference by lines (qpdf), reads it.
   */
  private lineAfterBreak(b: Buffer, i: number, n: number): Line {
    let j = i;
    while (j < n && WHITESPACE[b[j] as number] === 1) if (++j - i > LINE_LOOKAHEAD) return Line.String;
    let unknown = j === n;
    if (!unknown) {
      for (const keyword of BETWEEN_OBJECTS) {
        const seen = keywordAt(b, j, n, keyword);
        if (seen === Line.Structure) return seen;
        if (seen === Line.Unknown) unknown = true;
      }
      const header = objectHeaderAt(b, j, n, i + LINE_LOOKAHEAD);
      if (header === Line.Structure) return header;
      if (header === Line.Unknown) unknown = true;
    }
    // At the end of the input, what is there is all there is.
    return unknown && !this.final ? Line.Unknown : Line.String;
  }

  /** At the start of a line inside a string: the string goes on, ends before it, or waits for more bytes. */
  private judgeLine(b: Buffer, i: number, n: number): number {
    const line = this.lineAfterBreak(b, i, n);
    if (line === Line.Unknown) {
      // push() keeps the bytes from here and reads them again with the next piece.
      this.starved = true;
      return i;
    }
    this.lineStart = false;
    return line === Line.Structure ? this.brokenString(i) : i;
  }

  /**
   * The string ends, broken, before `b[i]`, and the structure is read from there. The bytes read as
   * the string may have held objects, so an /Encrypt reference to an object not known to be defined
   * counts as a value (the file is judged encrypted rather than guessed plain): at once for a
   * hexadecimal string (`<0A1 9 0 obj`: the digits were read as hexadecimal), at the end for a literal
   * string that no stray ")" closed later (then it is a string left open to the end of the file, as
   * when none of its lines starts the structure). A stray ")" later shows an unbalanced "(" instead:
   * the file was read as objects from the line on.
   */
  private brokenString(i: number): number {
    if (this.mode === Mode.Hex) this.objects.uncertain = true;
    else this.unclosed = true;
    this.mode = Mode.Normal;
    this.scalar('string', '');
    return i;
  }

  /**
   * Starts the shadow after the first `endstream` that lies whole in the stream data `b[start, end)`
   * (or starts in the data skipped before it), if there is one. It reads the rest of the chunk now.
   */
  private startShadow(b: Buffer, start: number, end: number): void {
    let after: number | undefined;
    if (this.tail.length > 0) {
      const joined = Buffer.concat([this.tail, b.subarray(start, Math.min(end, start + ENDSTREAM.length - 1))]);
      const at = joined.indexOf(ENDSTREAM);
      if (at >= 0) after = start + at + ENDSTREAM.length - this.tail.length;
    }
    if (after === undefined) {
      const at = indexOfKeyword(b.subarray(0, end), ENDSTREAM, start);
      if (at < 0) return;
      after = at + ENDSTREAM.length;
    }
    this.shadow = new PdfStructure('shadow', this.depth + 1);
    this.shadow.push(b.subarray(after));
  }

  /** Goes on as the shadow, which read every byte after the stream's first `endstream`. */
  private adoptShadow(): void {
    const shadow = this.shadow as PdfStructure;
    const found = this.found || shadow.found;
    const depth = this.depth;
    const refs = [...this.refs, ...shadow.refs];
    const objects = this.objects;
    const unclosed = this.unclosed || shadow.unclosed;
    Object.assign(this, shadow);
    this.unclosed = unclosed;
    this.found = found;
    this.depth = depth;
    this.refs = refs;
    // The objects the shadow read are not merged: a reference is then resolved as a value (encrypted).
    this.objects = objects;
    objects.uncertain = true;
  }

  private endStream(): void {
    this.mode = Mode.Normal;
    this.shadow = null;
    this.tail = EMPTY;
  }

  /** The input is complete: a dictionary left open at the end is judged as it stands. */
  end(): void {
    if (this.done) return;
    if (this.stash.length > 0) {
      const rest = this.stash;
      this.stash = EMPTY;
      this.final = true;
      this.read(rest);
      if (this.done) return;
    }
    if (this.shadow && (this.mode === Mode.StreamSkip || this.mode === Mode.StreamVerify)) {
      // The file ends inside the declared data: readers end the stream at its first `endstream`.
      this.adoptShadow();
      this.end();
      return;
    }
    if (this.keywords && skipsData(this.mode)) {
      if (this.keywords.end()) this.found = true;
      // The rest of the file was hidden in a string or stream: its objects are not known.
      this.objects.uncertain = true;
    }
    if (this.mode === Mode.Name || this.mode === Mode.Regular) this.endToken();
    for (const f of this.stack) {
      if (f.dict && f.expect === Expect.Value && f.key === 'Encrypt') f.encrypt = true;
      if (f.expect === Expect.Num1 || f.expect === Expect.Num2) this.valueDone(f, 'number');
      this.judge(f);
    }
    if (this.pendingObject !== undefined) this.topLevel('keyword', 'endobj');
    if (this.unclosed) this.objects.uncertain = true;
    // 7.3.10: a reference to an undefined object is a reference to null, and 7.3.7: a null entry is
    // an absent one; only a reference to an object with a value marks the file encrypted.
    if (this.refs.some((ref) => !this.objects.isNull(ref))) this.found = true;
    this.done = true;
  }

  private endToken(): void {
    const bytes = this.token;
    const name = this.mode === Mode.Name;
    this.mode = Mode.Normal;
    if (name) {
      this.scalar('name', this.cut ? '\u0000' : decodeName(bytes));
      return;
    }
    const text = this.cut ? '\u0000' : String.fromCharCode(...bytes);
    this.scalar(NUMBER.test(text) ? 'number' : 'keyword', text);
  }

  private open(dict: boolean): void {
    this.lastInts = [undefined, undefined];
    const depth = this.stack.length;
    if (depth === 0) this.topLevel('container', '');
    this.streamOwner = null;
    if (depth >= FRAMES_KEPT) {
      this.deep.push(dict);
      this.trailerNext = false;
      return;
    }
    this.stack.push({
      dict,
      top: dict && depth === 0,
      trailer: dict && depth === 0 && this.trailerNext,
      expect: Expect.Key,
      key: '',
      num: '',
      num2: '',
      xref: false,
      encrypt: false,
      encryptRef: undefined,
      length: undefined,
    });
    this.trailerNext = false;
  }

  private close(dict: boolean): void {
    const deep = this.deep.peek();
    if (deep !== undefined) {
      // A container inside the kept ones: nothing of it is judged, and its parent is not outside
      // every container either; only its kind and, when it is the outermost of them, its parent's value.
      if (deep !== dict) {
        this.scalar('keyword', 'null');
        return;
      }
      this.deep.pop();
      this.lastInts = [undefined, undefined];
      this.streamOwner = null;
      const parent = this.stack[this.stack.length - 1];
      if (this.deep.length === 0 && parent?.dict && parent.expect === Expect.Value) this.valueDone(parent, dict ? 'dict' : 'array');
      return;
    }
    const open = this.stack[this.stack.length - 1];
    // Outside every container a closer is ignored; inside one it does not match, it is a bad token
    // (qpdf reads it as null), and the container stays open.
    if (!open) return;
    if (open.dict !== dict) {
      this.scalar('keyword', 'null');
      return;
    }
    const f = this.stack.pop() as Frame;
    this.lastInts = [undefined, undefined];
    if (f.dict && (f.expect === Expect.Num1 || f.expect === Expect.Num2)) this.valueDone(f, 'number');
    this.judge(f);
    // A keyword reader reads one dictionary (or array) and nothing after it.
    if (this.role === 'keyword' && this.stack.length === 0) this.done = true;
    this.streamOwner = f.top ? f : null;
    const parent = this.stack[this.stack.length - 1];
    if (parent?.dict && parent.expect === Expect.Value) this.valueDone(parent, dict ? 'dict' : 'array');
  }

  /** Closes every container still open, each judged as it stands (as at the end of the input). */
  private unwind(): void {
    this.deep.clear();
    while (this.stack.length > 0) {
      const f = this.stack.pop() as Frame;
      if (f.dict && f.expect === Expect.Value && f.key === 'Encrypt') f.encrypt = true;
      if (f.dict && (f.expect === Expect.Num1 || f.expect === Expect.Num2)) this.valueDone(f, 'number');
      this.judge(f);
    }
    this.streamOwner = null;
    this.lastInts = [undefined, undefined];
    // A keyword reader reads one dictionary (or array) and nothing after it.
    if (this.role === 'keyword') this.done = true;
  }

  private judge(f: Frame): void {
    if (!f.top || !(f.trailer || f.xref)) return;
    if (f.encrypt) this.found = true;
    else if (f.encryptRef !== undefined) {
      // A keyword reader sees one dictionary of a damaged region: it cannot resolve, so it counts.
      if (this.role === 'keyword' || this.refs.length >= MAX_ENCRYPT_REFS) this.found = true;
      else this.refs.push(f.encryptRef);
    }
  }

  /**
   * A token outside every container: `n g obj` and the first token after it define object n g, null
   * when that token is `null` or `endobj` (an empty object, which qpdf reads as null), else a value.
   */
  private topLevel(kind: 'name' | 'number' | 'keyword' | 'string' | 'container', text: string): void {
    const pending = this.pendingObject;
    if (pending !== undefined) {
      this.pendingObject = undefined;
      this.objects.define(pending, kind === 'keyword' && (text === 'null' || text === 'endobj'));
      this.nums.length = 0;
      return;
    }
    if (kind === 'number') {
      this.nums.push(text);
      if (this.nums.length > 2) this.nums.shift();
      return;
    }
    if (kind === 'keyword' && text === 'obj' && this.nums.length === 2) this.pendingObject = objectId(this.nums[0], this.nums[1]);
    this.nums.length = 0;
  }

  /** A token that is not a container: a name, number, keyword or string. */
  private scalar(kind: 'name' | 'number' | 'keyword' | 'string', text: string): void {
    const ints = this.lastInts;
    if (kind === 'keyword' && this.stack.length > 0) {
      const header = text === 'obj' && ints[0] !== undefined && ints[1] !== undefined ? [ints[0], ints[1]] : undefined;
      if (header || BETWEEN_OBJECT_WORDS.has(text)) {
        // A keyword that stands only between objects: the containers still open were left open.
        this.unwind();
        if (this.done) return;
        if (header) this.nums = header;
      }
    }
    if (kind === 'number' && /^\d+$/.test(text)) this.lastInts = [ints[1], text];
    else if (ints[1] !== undefined) this.lastInts = [undefined, undefined];
    const owner = this.streamOwner;
    this.streamOwner = null;
    // Inside a container kept as its kind alone: nothing of it is read.
    if (this.deep.length > 0) return;
    const f = this.stack[this.stack.length - 1];
    if (!f) {
      if (this.role === 'keyword' && !(kind === 'keyword' && text === 'trailer' && !this.trailerNext)) {
        // Not `trailer` then a dictionary, nor `obj` then one: not what the keyword promised.
        this.done = true;
        return;
      }
      this.topLevel(kind, text);
      if (kind === 'keyword' && text === 'stream' && owner) {
        this.mode = Mode.StreamEol;
        this.eolCr = false;
        this.streamLeft = owner.length ?? -1;
        return;
      }
      this.trailerNext = kind === 'keyword' && text === 'trailer';
      return;
    }
    if (!f.dict) return;
    switch (f.expect) {
      case Expect.Num1:
        if (kind === 'number') {
          f.expect = Expect.Num2;
          f.num2 = text;
          return;
        }
        this.valueDone(f, 'number');
        break;
      case Expect.Num2:
        if (kind === 'keyword' && text === 'R') {
          this.valueDone(f, 'reference');
          return;
        }
        this.valueDone(f, 'number');
        break;
      case Expect.Value:
        if (kind === 'number') {
          f.expect = Expect.Num1;
          f.num = text;
          return;
        }
        if (f.key === 'Type' && kind === 'name' && text === 'XRef') f.xref = true;
        this.valueDone(f, kind === 'keyword' && text === 'null' ? 'null' : kind);
        return;
      case Expect.Key:
        break;
    }
    // Expecting a key: only a name is one; anything else is skipped.
    if (kind === 'name') {
      f.key = text;
      f.expect = Expect.Value;
    }
  }

  private valueDone(f: Frame, kind: string): void {
    if (f.key === 'Encrypt' && kind === 'reference') {
      const id = objectId(f.num, f.num2);
      if (id === undefined) f.encrypt = true;
      else f.encryptRef = id;
    } else if (f.key === 'Encrypt' && kind !== 'null') f.encrypt = true;
    if (f.key === 'Length') f.length = kind === 'number' && /^\d+$/.test(f.num) ? Number(f.num) : undefined;
    f.expect = Expect.Key;
  }

  private startStreamData(): void {
    this.tail = EMPTY;
    if (this.streamLeft > 0) {
      this.mode = Mode.StreamSkip;
    } else if (this.streamLeft === 0) {
      this.mode = Mode.StreamVerify;
      this.verified = 0;
      this.verifiedSpace = false;
    } else {
      this.mode = Mode.StreamFind;
      this.carry = EMPTY;
    }
  }
}

const enum Line {
  /** The line is string text. */
  String,
  /** The line starts the structure: the string before it was left open. */
  Structure,
  /** Not known before more bytes arrive. */
  Unknown,
}

/** Whether `keyword`, then a delimiter or white space, starts at `b[j]`. */
function keywordAt(b: Buffer, j: number, n: number, keyword: Buffer): Line {
  for (let k = 0; k < keyword.length; k++) {
    if (j + k >= n) return Line.Unknown;
    if (b[j + k] !== keyword[k]) return Line.String;
  }
  if (j + keyword.length >= n) return Line.Unknown;
  return ENDS_TOKEN[b[j + keyword.length] as number] === 1 ? Line.Structure : Line.String;
}

/** Whether `n g obj` (7.3.10), then a delimiter or white space, starts at `b[j]`, read up to `limit`. */
function objectHeaderAt(b: Buffer, j: number, n: number, limit: number): Line {
  const end = Math.min(n, limit);
  const run = (test: (c: number) => boolean, max: number): number => {
    const start = j;
    while (j < end && j - start < max && test(b[j] as number)) j++;
    return j - start;
  };
  const digit = (c: number) => c >= 0x30 && c <= 0x39;
  const space = (c: number) => WHITESPACE[c] === 1;
  if (run(digit, 10) === 0 || j === end || run(space, LINE_LOOKAHEAD) === 0 || j === end) return j < n ? Line.String : Line.Unknown;
  if (run(digit, 5) === 0 || j === end || run(space, LINE_LOOKAHEAD) === 0 || j === end) return j < n ? Line.String : Line.Unknown;
  return keywordAt(b, j, n, OBJ);
}

/** An indirect object's number and generation. */
interface ObjectId {
  num: number;
  gen: number;
}

/** Distinct /Encrypt references resolved; past them the file counts as encrypted. */
const MAX_ENCRYPT_REFS = 64;
/** Object numbers of generation 0 kept in the bitmap: ISO 32000-1 Annex C's largest, 8 388 607. */
const BITMAP_OBJECTS = 8_388_608;
/** Objects of another generation (or a larger number) remembered one by one. */
const MAX_OTHER_OBJECTS = 4096;

function objectId(num: string | undefined, gen: string | undefined): ObjectId | undefined {
  if (num === undefined || gen === undefined || !/^\d{1,10}$/.test(num) || !/^\d{1,5}$/.test(gen)) return undefined;
  return { num: Number(num), gen: Number(gen) };
}

/**
 * Whether each object defined at the top level of the file (`n g obj`) is null, the latest
 * definition winning (an incremental update redefines an object). Two bits per object number of
 * generation 0 (at most 2 MiB, grown to the largest number seen), the rare others in a bounded map;
 * past that bound, or once part of the file could not be read as objects, an object not known
 * counts as a value (`uncertain`), so the file is judged encrypted rather than guessed plain.
 */
class ObjectTable {
  private bits = new Uint8Array(0);
  private readonly other = new Map<string, boolean>();
  uncertain = false;

  define(id: ObjectId, isNull: boolean): void {
    if (id.gen === 0 && id.num < BITMAP_OBJECTS) {
      const byte = id.num >> 2;
      if (byte >= this.bits.length) {
        const grown = new Uint8Array(Math.min(BITMAP_OBJECTS >> 2, Math.max(byte + 1, this.bits.length * 2, 64)));
        grown.set(this.bits);
        this.bits = grown;
      }
      const shift = (id.num & 3) * 2;
      this.bits[byte] = ((this.bits[byte] ?? 0) & ~(3 << shift)) | ((isNull ? 2 : 1) << shift);
      return;
    }
    const key = `${id.num} ${id.gen}`;
    if (this.other.size < MAX_OTHER_OBJECTS || this.other.has(key)) this.other.set(key, isNull);
    else this.uncertain = true;
  }

  /** Object `id` is null or not defined (certainly, else false). */
  isNull(id: ObjectId): boolean {
    let state: 'value' | 'null' | 'undefined';
    if (id.gen === 0 && id.num < BITMAP_OBJECTS) {
      const code = ((this.bits[id.num >> 2] ?? 0) >> ((id.num & 3) * 2)) & 3;
      state = code === 1 ? 'value' : code === 2 ? 'null' : 'undefined';
    } else {
      const known = this.other.get(`${id.num} ${id.gen}`);
      state = known === undefined ? 'undefined' : known ? 'null' : 'value';
    }
    if (state === 'value') return false;
    return !this.uncertain;
  }
}

/** The last `keep` bytes of `before` followed by `b[start, end)`. */
function lastBytes(before: Buffer, b: Buffer, start: number, end: number, keep: number): Buffer {
  if (end - start >= keep) return Buffer.from(b.subarray(end - keep, end));
  const joined = Buffer.concat([before, b.subarray(start, end)]);
  return joined.subarray(Math.max(0, joined.length - keep));
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isSpace = (c: number | undefined) => c !== undefined && WHITESPACE[c] === 1;

/**
 * The keywords `trailer` and `n g obj` in the bytes of one string or stream the structure skips, each
 * followed by a reader of its own (role 'keyword') that reads the dictionary after it: what a reader
 * that rebuilds a damaged file's cross-reference by keywords finds there. Used only when the file
 * ends inside that string or stream. At most MAX_KEYWORD_READERS readers at once, each fed every byte
 * after its keyword once, so the work stays linear in the bytes however many keywords they hold.
 */
class KeywordScan {
  private readers: PdfStructure[] = [];
  private found = false;
  /** The last bytes before the current piece (a keyword split between pieces, the look-back from `obj`). */
  private tail: Buffer = EMPTY;

  /** Forgets everything: the string or stream ended as it should. */
  reset(): void {
    if (this.readers.length > 0) this.readers = [];
    this.found = false;
    this.tail = EMPTY;
  }

  push(piece: Buffer): void {
    if (piece.length === 0) return;
    // A keyword that starts in the bytes before this piece and ends in it.
    const split = this.tail.length > 0 ? Buffer.concat([this.tail, piece.subarray(0, TRAILER.length - 1)]) : EMPTY;
    const fromTail = this.tail.length;
    let fed = 0;
    let t = this.next(split, piece, TRAILER, -fromTail);
    let o = this.next(split, piece, OBJ, -fromTail);
    while (t !== undefined || o !== undefined) {
      const isTrailer = o === undefined || (t !== undefined && t < o);
      const at = (isTrailer ? t : o) as number;
      const keyword = isTrailer ? TRAILER : OBJ;
      const after = at + keyword.length;
      const byteAt = (j: number) => (j >= 0 ? piece[j] : this.tail[this.tail.length + j]);
      const starts = isTrailer ? this.tokenStartsAt(at, byteAt) : this.objectHeaderBefore(at, byteAt);
      if (starts) {
        this.feed(piece.subarray(fed, Math.max(fed, after)));
        fed = Math.max(fed, after);
        const reader = new PdfStructure('keyword');
        if (isTrailer) reader.push(TRAILER);
        this.readers.push(reader);
        if (this.readers.length > MAX_KEYWORD_READERS) this.judge(this.readers.shift() as PdfStructure, true);
      }
      if (isTrailer) t = this.next(split, piece, TRAILER, at + 1);
      else o = this.next(split, piece, OBJ, at + 1);
    }
    this.feed(piece.subarray(fed));
    this.tail = lastBytes(this.tail, piece, 0, piece.length, KEYWORD_LOOK_BACK);
  }

  /** The file ended inside the string or stream: whether a dictionary found by keyword names /Encrypt. */
  end(): boolean {
    for (const reader of this.readers) this.judge(reader, true);
    this.readers = [];
    return this.found;
  }

  /**
   * Where `keyword` next starts at or after `from` (negative: in the bytes before the piece, which
   * `split` holds with the piece's first bytes); undefined when it does not.
   */
  private next(split: Buffer, piece: Buffer, keyword: Buffer, from: number): number | undefined {
    if (from < 0) {
      // Only one that ends in the piece: one wholly in the bytes before was found with them.
      const at = split.indexOf(keyword, Math.max(from + this.tail.length, this.tail.length - keyword.length + 1));
      if (at >= 0 && at < this.tail.length) return at - this.tail.length;
      from = 0;
    }
    const at = indexOfKeyword(piece, keyword, from);
    return at < 0 ? undefined : at;
  }

  private tokenStartsAt(at: number, byteAt: (j: number) => number | undefined): boolean {
    const before = byteAt(at - 1);
    return before === undefined || ENDS_TOKEN[before] === 1;
  }

  /** `obj` preceded by `n g` (7.3.10), themselves after a delimiter or where the bytes kept begin. */
  private objectHeaderBefore(at: number, byteAt: (j: number) => number | undefined): boolean {
    let j = at - 1;
    const run = (test: (c: number | undefined) => boolean) => {
      const start = j;
      while (test(byteAt(j))) j--;
      return j < start;
    };
    if (!(run(isSpace) && run(isDigit) && run(isSpace) && run(isDigit))) return false;
    const before = byteAt(j);
    return before === undefined || ENDS_TOKEN[before] === 1;
  }

  private feed(bytes: Buffer): void {
    if (bytes.length === 0 || this.readers.length === 0) return;
    for (const reader of this.readers) reader.push(bytes);
    if (this.readers.some((r) => r.finished)) {
      for (const reader of this.readers) if (reader.finished) this.judge(reader, false);
      this.readers = this.readers.filter((r) => !r.finished);
    }
  }

  private judge(reader: PdfStructure, ending: boolean): void {
    if (ending) reader.end();
    if (reader.encrypted) this.found = true;
  }
}

/** A name's bytes with #xx escapes decoded (7.3.5), as a latin1 string. */
function decodeName(bytes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c === 0x23 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out += String.fromCharCode(Number.parseInt(String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number), 16));
      i += 2;
    } else {
      out += String.fromCharCode(c);
    }
  }
  return out;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

/** True when the file's trailer or cross-reference stream dictionary has an /Encrypt entry. */
export function isEncryptedPdf(bytes: Uint8Array): boolean {
  const structure = new PdfStructure();
  const at = pdfHeaderOffset(bytes);
  structure.push(asBuffer(bytes).subarray(Math.max(0, at)));
  structure.end();
  return structure.encrypted;
}

/**
 * Rules 5, 4 and 3 on a file whose bytes arrive in pieces: its size, its header within the first
 * 1024 bytes and the container check (from those bytes and the last 1024), then its structure. Holds
 * at most 2 KiB of the file. `failed` says as soon as the file is known to break rule 4 or 5, so the
 * caller can stop storing it; `result` gives the verdict once every byte was pushed.
 */
export class PdfFileCheck {
  private size = 0;
  private readonly head = Buffer.alloc(HEAD_KEPT);
  private headLength = 0;
  private headerAt: number | undefined;
  private readonly last = Buffer.alloc(HEADER_WINDOW);
  private lastLength = 0;
  private readonly structure = new PdfStructure();
  private early: PdfCheck | undefined;

  constructor(private readonly maxBytes: number) {}

  /** The refusal known before the end (size over the limit, no header), if any. */
  get failed(): PdfCheck | undefined {
    return this.early;
  }

  get bytes(): number {
    return this.size;
  }

  push(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.early) return;
    if (this.size > this.maxBytes) {
      this.early = this.tooLarge();
      return;
    }
    let b = asBuffer(chunk);
    if (this.headerAt === undefined) {
      const take = Math.min(HEAD_KEPT - this.headLength, b.length);
      b.copy(this.head, this.headLength, 0, take);
      this.headLength += take;
      b = b.subarray(take);
      if (this.headLength < HEAD_KEPT) return;
      if (!this.findHeader()) return;
    }
    this.feed(b);
  }

  /** The verdict, once every byte was pushed. */
  result(): PdfCheck {
    if (this.size > this.maxBytes) return this.tooLarge();
    if (this.early) return this.early;
    if (this.headerAt === undefined && !this.findHeader()) return this.early ?? notPdf(this.head.subarray(0, this.headLength));
    const headerAt = this.headerAt ?? 0;
    const container = containerProblemOf(this.head.subarray(0, this.headLength), headerAt, this.lastBytes());
    if (container !== null) return { ok: false, rule: 'pdf-only', reason: container };
    this.structure.end();
    if (this.structure.encrypted) {
      return {
        ok: false,
        rule: 'not-encrypted',
        reason:
          'the PDF is encrypted (its trailer or cross-reference stream dictionary has an /Encrypt entry); send it without password protection',
      };
    }
    return { ok: true };
  }

  private tooLarge(): PdfCheck {
    return { ok: false, rule: 'max-size', reason: `the file is ${plural(this.size, 'byte')}; the limit is ${plural(this.maxBytes, 'byte')}` };
  }

  /** Looks for the header in the bytes kept so far; false (and `failed` set) when it is not there. */
  private findHeader(): boolean {
    const head = this.head.subarray(0, this.headLength);
    const at = pdfHeaderOffset(head);
    if (at < 0) {
      this.early = notPdf(head);
      return false;
    }
    this.headerAt = at;
    this.feed(this.head.subarray(at, this.headLength), true);
    return true;
  }

  /** Bytes from the header on: to the structure reader, and the last 1024 kept for %%EOF. */
  private feed(b: Buffer, fromHead = false): void {
    if (b.length === 0) return;
    this.structure.push(b);
    if (fromHead) {
      // The head's bytes before the header count for %%EOF too (a file shorter than 1024 bytes).
      this.keepLast(this.head.subarray(0, this.headLength));
      return;
    }
    this.keepLast(b);
  }

  private keepLast(b: Buffer): void {
    if (b.length >= HEADER_WINDOW) {
      b.copy(this.last, 0, b.length - HEADER_WINDOW);
      this.lastLength = HEADER_WINDOW;
      return;
    }
    const keep = Math.min(this.lastLength, HEADER_WINDOW - b.length);
    this.last.copy(this.last, 0, this.lastLength - keep, this.lastLength);
    b.copy(this.last, keep);
    this.lastLength = keep + b.length;
  }

  private lastBytes(): Buffer {
    return this.last.subarray(0, this.lastLength);
  }
}

/** Rule 4's refusal of a file without a header in its first 1024 bytes: where it looked, and where a late one is. */
function notPdf(head: Buffer): PdfCheck {
  const late = headerAt(head, LAST_HEADER_START + 1, head.length);
  const reason =
    late >= 0
      ? `the file is not a PDF: its "%PDF-" header starts at byte offset ${late} and ends at byte ${late + HEADER.length}, ` +
        `past the first ${HEADER_WINDOW} bytes, where a reader looks for it (it must start by offset ${LAST_HEADER_START})`
      : `the file is not a PDF: no "%PDF-" header followed by a version digit in its first ${HEADER_WINDOW} bytes ` +
        `(looked for at byte offsets 0 to ${LAST_HEADER_START}, so that it ends by byte ${HEADER_WINDOW})`;
  return { ok: false, rule: 'pdf-only', reason };
}

/** Applies the rules in order: size (5), PDF signature and structure (4), then encryption (3). */
export function checkPdf(bytes: Uint8Array, maxBytes: number): PdfCheck {
  const check = new PdfFileCheck(maxBytes);
  check.push(bytes);
  return check.result();
}
