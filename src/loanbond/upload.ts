// The registration body read as a stream (about 1 GB at its largest: 50 PDFs of 15 MB as base64):
// every documento and conteudo is decoded as it arrives, its size checked (rule 5) and its bytes given
// to an incoming file, which checks rules 4 and 3 (each as soon as it can be decided), computes the
// SHA-256 and writes it (on the document writer's thread for files over 256 KiB:
// store/document-writer.ts, so the event loop only reads and decodes); the rest of the body
// is kept and parsed like any other body, so the schema, the rules and their pointers are today's.
// What is in memory at any time: the fields besides the files, a chunk of the request, and up to a
// few MiB of decoded bytes per file waiting to be written (the request pauses until they are).
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Base64Stream } from '../domain/base64.js';
import { encodedTwiceHint, sentAs, sentAsHint } from '../domain/sent-as.js';
import { MAX_FILE_BYTES, type PdfRule } from '../domain/pdf.js';
import { pointer, SandboxError } from '../http/errors.js';
import { bodyTooLargeMessage } from '../http/interface-plugin.js';
import { parseJsonText } from '../http/json.js';
import { type JsonReadError, JsonStreamReader, type PathSegment, type StringSink } from '../http/json-stream.js';
import { endReading, readSliced } from '../http/json-body-stream.js';
import { FALLBACK } from '../http/outcomes.js';
import type { DocumentFiles, IncomingFile } from '../store/documents.js';
import { type LoanbondOutcome, outcome } from './outcomes.js';
import { FIELDS_LIMIT, MAX_RECORDS } from './schemas.js';
import { plural } from '../domain/plural.js';

/**
 * A file that passed rules 3-5, with its incoming file (none when nothing of the request is stored:
 * it will be refused for another reason), or the problem the answer reports.
 */
export type FileResult =
  | { ok: true; sha256: string; size: number; file: IncomingFile | undefined }
  | { ok: false; outcome: LoanbondOutcome; message: string };

const RULE_NUMBER: Record<PdfRule, number> = { 'not-encrypted': 3, 'pdf-only': 4, 'max-size': 5 };
const PDF_OUTCOME: Record<PdfRule, LoanbondOutcome> = {
  'not-encrypted': 'rule-3-encrypted',
  'pdf-only': 'rule-4-not-pdf',
  'max-size': 'rule-5-file-too-large',
};
/** Decoded bytes a file may have waiting for the disk before the request is paused. */
const MAX_BACKLOG = 4 * 1024 * 1024;

/** Characters of the text and decoded bytes kept to say what a refused file was sent as (domain/sent-as.ts). */
const HEAD_KEPT = 1100;

/**
 * One documento or conteudo: base64 -> its size (rule 5) and an incoming file, as it arrives. The file
 * checks rules 4 and 3 and computes the SHA-256 on the thread that writes it (store/documents.ts).
 */
class FileReceiver implements StringSink {
  private readonly base64 = new Base64Stream((bytes) => this.decoded(bytes));
  private size = 0;
  private file: IncomingFile | undefined;
  /** False once the upload refuses (Upload.refuse stops every receiver; a later one starts stopped). */
  private storing: boolean;
  /** The first characters of the text and the first decoded bytes: what a refusal says the file was sent as. */
  private headText = '';
  private headBytes: Buffer[] = [];
  private headLength = 0;
  result: FileResult | undefined;
  finished: Promise<void> = Promise.resolve();

  constructor(private readonly upload: Upload) {
    this.storing = !upload.refusing;
  }

  get backlog(): number {
    return this.file?.backlog ?? 0;
  }

  async drained(): Promise<void> {
    await this.file?.drained();
  }

  /** Why writing this file failed, once it did. */
  get failure(): unknown {
    return this.file?.failure;
  }

  fast(bytes: Buffer): boolean {
    if (this.headText.length < HEAD_KEPT) this.headText += bytes.toString('latin1', 0, HEAD_KEPT);
    return this.base64.fast(bytes);
  }

  slow(bytes: Buffer): void {
    this.base64.slow(bytes);
  }

  text(text: string): void {
    if (this.headText.length < HEAD_KEPT) this.headText += text.slice(0, HEAD_KEPT);
    this.base64.pushText(text);
  }

  private decoded(bytes: Buffer): void {
    // Bytes the reader still hands over once the request was let go (the client left): nothing of them is kept.
    if (this.upload.discarded) return;
    if (this.headLength < HEAD_KEPT) {
      this.headBytes.push(Buffer.from(bytes.subarray(0, HEAD_KEPT - this.headLength)));
      this.headLength += Math.min(bytes.length, HEAD_KEPT - this.headLength);
    }
    this.size += bytes.length;
    if (this.size > MAX_FILE_BYTES) {
      // Rule 5 broken: the answer only needs the exact size, or the first bad character, now.
      this.base64.countOnly();
      this.stopStoring();
      return;
    }
    this.file ??= this.incoming();
    this.file.write(bytes);
    // Rule 4 broken (no header): the verdict is known; the rest is only counted.
    if (this.file.failedEarly) {
      this.base64.countOnly();
      this.stopStoring();
    }
  }

  private incoming(): IncomingFile {
    return this.upload.documents.incoming({ check: MAX_FILE_BYTES, store: this.storing });
  }

  /** No more of this file is written (it is still checked): the request will be refused. */
  stopStoring(): void {
    if (!this.storing) return;
    this.storing = false;
    this.file?.stopStoring();
    if (this.result?.ok) this.result = { ...this.result, file: undefined };
  }

  end(): void {
    if (this.upload.discarded) return;
    const decoded = this.base64.end();
    if (!decoded.ok) {
      const kind = sentAs(this.headText);
      const hint = kind === undefined ? '' : `; ${sentAsHint(kind)}`;
      this.refuse(outcome('file-not-base64'), `is not valid base64 (the file travels as standard base64): ${decoded.reason}${hint}`);
      return;
    }
    const size = decoded.decodedLength;
    if (size > MAX_FILE_BYTES) {
      this.refuse(
        PDF_OUTCOME['max-size'],
        `rule 5: the file is ${plural(size, 'byte')} decoded; the limit is 15 MB (${MAX_FILE_BYTES} bytes)`,
      );
      return;
    }
    const file = (this.file ??= this.incoming());
    // The verdict and the digest come from the thread that checked and wrote it (store/documents.ts).
    this.finished = file.finish().then(({ sha256, verdict }) => {
      if (verdict !== undefined && !verdict.ok) {
        const twice = verdict.rule === 'pdf-only' ? encodedTwiceHint(Buffer.concat(this.headBytes)) : undefined;
        const hint = twice === undefined ? '' : `; ${twice}`;
        this.refuse(PDF_OUTCOME[verdict.rule], `rule ${RULE_NUMBER[verdict.rule]} (${verdict.rule}): ${verdict.reason}${hint}`);
        return;
      }
      // Checked for the report only when nothing of the request will be stored.
      const stored = this.storing && sha256 !== undefined;
      this.result = { ok: true, sha256: stored ? sha256 : '', size, file: stored ? file : undefined };
    });
    // Awaited by settle() once the whole body is read; a write failing before that is reported
    // there (or by drained()), never as a rejection nobody handles while the body streams in.
    this.finished.catch(() => undefined);
  }

  private refuse(refusal: LoanbondOutcome, message: string): void {
    this.result = { ok: false, outcome: refusal, message };
    this.stopStoring();
    this.upload.refuse();
  }

  /** The incoming file, unless it became a stored file. */
  async discard(): Promise<void> {
    this.storing = false;
    await this.finished.catch(() => undefined);
    if (this.result?.ok) this.result = { ...this.result, file: undefined };
    const file = this.file;
    this.file = undefined;
    if (file) await file.abandon();
  }
}

/** The files of one registration request, by JSON pointer. */
export class Upload {
  private readonly receivers = new Map<string, FileReceiver>();
  private readonly all: FileReceiver[] = [];
  /** A file broke a rule (or rule 6 will refuse the body, or a write failed): nothing more is written. */
  refusing = false;
  /** The request was let go (answered, or its client left): no file is started or finished any more. */
  discarded = false;
  /** The first write that failed: the answer names it. */
  private failure: unknown;

  constructor(readonly documents: DocumentFiles) {}

  sinkFor(path: readonly PathSegment[]): StringSink | undefined {
    const [registros, i, field, j, conteudo] = path;
    if (registros !== 'registros' || typeof i !== 'number') return undefined;
    const isDocument = path.length === 3 && field === 'documento';
    const isAdditional = path.length === 5 && field === 'documentos_adicionais' && typeof j === 'number' && conteudo === 'conteudo';
    if (!isDocument && !isAdditional) return undefined;
    // A 51st record makes rule 6 refuse the body: its files are checked, never stored.
    if (i >= MAX_RECORDS) this.refuse();
    const receiver = new FileReceiver(this);
    this.receivers.set(pointer(...(path as PathSegment[])), receiver);
    this.all.push(receiver);
    return receiver;
  }

  refuse(): void {
    if (this.refusing) return;
    this.refusing = true;
    for (const r of this.all) r.stopStoring();
  }

  /** The result of the file at `path` (a JSON pointer), once the body was read. */
  file(path: string): FileResult | undefined {
    return this.receivers.get(path)?.result;
  }

  /**
   * Waits while the files have more bytes queued for the disk than MAX_BACKLOG. A file that could
   * not be written (a cause store/errors.ts names: disk full, file too large, folder missing) makes the request refused: nothing more is
   * written, the rest of the body is read as every refused body is, and settle() throws the failure.
   */
  async drained(): Promise<void> {
    for (const r of this.all) {
      if (r.backlog > MAX_BACKLOG) await r.drained().catch(() => undefined);
      const failure = r.failure;
      if (failure !== undefined) this.failed(failure);
    }
  }

  private failed(err: unknown): void {
    this.failure ??= err;
    this.refuse();
  }

  /** Every file written and closed (or abandoned); throws why one could not be written. */
  async settle(): Promise<void> {
    await Promise.all(this.all.map((r) => r.finished)).catch((err: unknown) => this.failed(err));
    if (this.failure !== undefined) throw this.failure;
  }

  /** Removes every incoming file that did not become a stored file. */
  async discard(): Promise<void> {
    this.refusing = true;
    this.discarded = true;
    await Promise.all(this.all.map((r) => r.discard()));
  }
}

const uploads = new WeakMap<FastifyRequest, Upload>();

/** The files of a request whose body readRegistration read. */
export function uploadOf(request: FastifyRequest): Upload | undefined {
  return uploads.get(request);
}

export interface ReadOptions {
  documents: DocumentFiles;
  /** The route's body limit and the setting that raises it. */
  limit: number;
  setting: string;
  parse: ReturnType<FastifyInstance['getDefaultJsonParser']>;
}

function tooLarge(options: ReadOptions): SandboxError {
  return new SandboxError(400, bodyTooLargeMessage(options.limit, options.setting), { outcome: FALLBACK.malformed });
}

/**
 * Reads a registration body from its stream: the files into incoming files (Upload, kept for the
 * request), the rest parsed as every body is. Refuses at once a body over the limit or fields over
 * FIELDS_LIMIT; any other problem of the text is answered once the body is read to its end, as a
 * body read whole would be. A refused or broken request leaves no file behind.
 */
export async function readRegistration(request: FastifyRequest, payload: Readable, options: ReadOptions): Promise<unknown> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > options.limit) throw tooLarge(options);
  const upload = new Upload(options.documents);
  uploads.set(request, upload);
  const reader = new JsonStreamReader({ sinkFor: (path) => upload.sinkFor(path), keepLimit: FIELDS_LIMIT });
  try {
    // Read in slices, other requests taking their turn after each (http/json-body-stream.ts).
    await readSliced(payload, reader, {
      limit: options.limit,
      tooLarge: () => tooLarge(options),
      slice: async () => {
        const problem = reader.error;
        if (problem?.kind === 'kept-limit') throw keptLimit(problem);
        if (problem) upload.refuse();
        else await upload.drained();
      },
    });
    const kept = endReading(reader);
    await upload.settle();
    return await new Promise((resolve, reject) =>
      parseJsonText(options.parse, request, kept.toString('utf8'), (err, value) => (err ? reject(err) : resolve(value)), {
        // The kept text lacks the files' strings: its offsets are not the body's.
        offsets: false,
      }),
    );
  } catch (err) {
    await upload.discard();
    throw err;
  }
}

function keptLimit(problem: JsonReadError): SandboxError {
  return new SandboxError(
    400,
    `the body's fields besides documento and conteudo take more than ${FIELDS_LIMIT} bytes (at byte offset ${problem.at.offset}): the sandbox keeps at most that much of a registration besides its files`,
    { outcome: FALLBACK.malformed },
  );
}
