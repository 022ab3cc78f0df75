// The submission's body read as a stream (up to the body limit, 100 MiB by default): the
// operationFile string is decoded from base64 as it arrives, in slices with other requests served
// between them (http/json-body-stream.ts), and its lines are found in turns; the rest of the body is
// kept and parsed like any other body. Every answer is the one the body read whole gets: the same
// checks in the same order (headers, size, byte-order mark, UTF-8, JSON, duplicate keys, unpaired
// surrogate escapes, then the schema and the rules), with the same positions.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Base64Stream, type Base64Decode } from '../domain/base64.js';
import { Utf8Check } from '../domain/utf8.js';
import { SandboxError } from '../http/errors.js';
import { bodyTooLargeMessage } from '../http/interface-plugin.js';
import { byteOrderMarkError, notUtf8Error, parseJsonText, type TakenSurrogate } from '../http/json.js';
import { endReading, nextTurn, readSliced } from '../http/json-body-stream.js';
import { JsonStreamReader, type PathSegment, type StringSink } from '../http/json-stream.js';
import { type LineScan, scanLinesInTurns } from './cnab-scan.js';

/**
 * Characters of the text kept to tell what was sent instead of base64 (submit.ts; domain/sent-as.ts
 * reads CNAB text in 446 characters, PDF text in 1030).
 */
export const HEAD_CHARS = 1030;

/**
 * The operationFile string as it arrives: decoded as decodeBase64 would decode it whole (Base64Stream:
 * its rules and messages) into one buffer sized from the body's Content-Length (grown by doubling
 * when the body has none), its first characters kept, its unpaired surrogate escapes noted.
 */
class OperationFileSink implements StringSink {
  private readonly base64 = new Base64Stream((bytes) => this.decoded(bytes));
  private bytes: Buffer | undefined;
  private size = 0;
  head = '';
  readonly lone: TakenSurrogate[] = [];
  result: Base64Decode | undefined;

  constructor(private readonly capacity: number) {}

  fast(bytes: Buffer): boolean {
    if (!this.base64.fast(bytes)) return false;
    if (this.head.length < HEAD_CHARS) this.head += bytes.toString('latin1', 0, HEAD_CHARS - this.head.length);
    return true;
  }

  slow(bytes: Buffer): void {
    if (this.head.length < HEAD_CHARS) this.head += bytes.toString('utf8').slice(0, HEAD_CHARS - this.head.length);
    this.base64.slow(bytes);
  }

  text(text: string, at: number): void {
    if (this.head.length < HEAD_CHARS) this.head += text.slice(0, HEAD_CHARS - this.head.length);
    // A surrogate pair arrives as two units; one unit in D800-DFFF is an unpaired escape.
    const unit = text.charCodeAt(0);
    if (text.length === 1 && unit >= 0xd800 && unit <= 0xdfff) this.lone.push({ offset: at, unit, path: '/operationFile' });
    this.base64.pushText(text);
  }

  private decoded(bytes: Buffer): void {
    const needed = this.size + bytes.length;
    if (!this.bytes || needed > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes ? this.bytes.length * 2 : this.capacity));
      if (this.bytes) this.bytes.copy(grown, 0, 0, this.size);
      this.bytes = grown;
    }
    bytes.copy(this.bytes, this.size);
    this.size = needed;
  }

  end(): void {
    const verdict = this.base64.end();
    this.result = verdict.ok ? { ok: true, bytes: this.bytes ? this.bytes.subarray(0, this.size) : Buffer.alloc(0) } : verdict;
  }
}

/**
 * The operationFile of a body read as a stream: its decoding (or why it is no base64), its first
 * characters, and its lines when it decoded to bytes.
 */
export interface ReceivedFile {
  decoded: Base64Decode;
  head: string;
  scan: LineScan | undefined;
}

const received = new WeakMap<FastifyRequest, ReceivedFile>();

/** The operationFile readImportBody read, when the body's operationFile was a string. */
export function receivedFileOf(request: FastifyRequest): ReceivedFile | undefined {
  return received.get(request);
}

export interface ImportReadOptions {
  limit: number;
  parse: ReturnType<FastifyInstance['getDefaultJsonParser']>;
}

/**
 * Reads a submission from its stream: the body parsed as every body is, but with operationFile
 * "" (its decoding is receivedFileOf(request)). A body over the limit is refused as soon as it is
 * known to be; any other problem once the whole body was read, as a body read whole would be.
 */
export async function readImportBody(request: FastifyRequest, payload: Readable, options: ImportReadOptions): Promise<unknown> {
  const tooLarge = () => new SandboxError(400, bodyTooLargeMessage(options.limit, 'SANDBOX_BODY_LIMIT'));
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > options.limit) throw tooLarge();
  // Content-Length bounds the decoded file; memory of a buffer is only taken as it is written.
  const capacity = Number.isFinite(declared) ? Math.ceil((declared * 3) / 4) : 1024 * 1024;
  let file: OperationFileSink | undefined;
  const reader = new JsonStreamReader({
    sinkFor: (path: readonly PathSegment[]) =>
      path.length === 1 && path[0] === 'operationFile' ? (file = new OperationFileSink(capacity)) : undefined,
    keepLimit: Number.POSITIVE_INFINITY,
    // Checked below as a whole, in the order of every other body.
    utf8Checked: true,
  });
  const utf8 = new Utf8Check();
  let head: Buffer | undefined;
  await readSliced(payload, reader, {
    limit: options.limit,
    tooLarge,
    slice: (bytes) => {
      if (!head || head.length < 3) head = Buffer.concat([head ?? Buffer.alloc(0), bytes.subarray(0, 3 - (head?.length ?? 0))]);
      utf8.push(bytes);
    },
  });
  utf8.end();
  // In the order of the parser of every other body (http/json.ts): byte-order mark, UTF-8, JSON.
  if (head?.[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) throw byteOrderMarkError();
  if (utf8.invalid) throw notUtf8Error(utf8.invalid.bytes, utf8.invalid);
  const kept = endReading(reader);
  const body = await new Promise((resolve, reject) =>
    parseJsonText(options.parse, request, kept.toString('utf8'), (err, value) => (err ? reject(err) : resolve(value)), {
      streamed: { bodyOffset: (offset) => reader.bodyOffset(offset), loneSurrogates: file?.lone ?? [] },
    }),
  );
  const decoded = file?.result;
  if (decoded) {
    // The lines are found here, in turns, so that the route and the checks of a refused body both
    // read the answer (and the runner the line index) without scanning the file again.
    const scan = decoded.ok && decoded.bytes.length > 0 ? await scanLinesInTurns(decoded.bytes, nextTurn) : undefined;
    received.set(request, { decoded, head: file?.head ?? '', scan });
  }
  await nextTurn();
  return body;
}
