// Submission of an operation file: the fund and its token, then the file's checks (base64, not
// empty, every line 400 or 444 bytes, found while the body was read: upload.ts); the import is stored
// pending, its file a part per turn of the event loop, and the line index goes to processing
// (runner.ts) with the bytes, so the file is scanned once.
import { randomUUID } from 'node:crypto';
import { type Base64Decode, decodeBase64 } from '../domain/base64.js';
import { encodedTwiceHint, looksLikeCnabText, sentAs, sentAsHint } from '../domain/sent-as.js';
import { checkTaxId } from '../domain/tax-id.js';
import { sameSecret } from '../http/bearer.js';
import { type ErrorDetail, SandboxError, validationError } from '../http/errors.js';
import type { EventSink } from '../runtime/events.js';
import type { Ids } from '../runtime/ids.js';
import { nextTurn } from '../http/json-body-stream.js';
import type { Store } from '../store/index.js';
import { FILE_PART_BYTES, type NewImport } from '../store/receivables.js';
import { type LineIndex, type LineScan, scanLines } from './cnab-scan.js';
import { importReceived } from './events.js';
import { outcome, type ReceivablesOutcome } from './outcomes.js';
import type { ImportCnabBody } from './schemas.js';
import type { ReceivedFile } from './upload.js';

export interface SubmitContext {
  store: Store;
  ids: Ids;
  /** The sandbox clock: an import is received when it is accepted (rc-import-order). */
  now: () => Date;
  strict: boolean;
  /** Where the stored import is reported. */
  events: EventSink;
  /** Throws when the import may not be stored now (back-pressure); called once every check passed. */
  admit?: () => void;
  /** The operationFile as the body's stream delivered it (upload.ts); else the body's string is read here. */
  file?: ReceivedFile;
  /** Waits for the next turn of the event loop, between two parts of the file written. */
  turn?: () => Promise<void>;
}

export interface Submitted {
  importId: string;
  file: Buffer;
  lines: LineIndex;
}

function invalidToken(message: string, refusal: ReceivablesOutcome): SandboxError {
  return new SandboxError(400, message, { code: 'InvalidToken', details: [{ path: '/token', message }], outcome: refusal });
}

function badFile(message: string, refusal: ReceivablesOutcome): SandboxError {
  return validationError([{ path: '/operationFile', message }], `operationFile ${message}`).tag(refusal);
}

const EMPTY_FILE = 'is empty';

/**
 * An operationFile sent as "" is empty whoever sends it: a problem of the body's shape, named with a
 * bad fundCnpj and before the credential (rc-error-precedence), since nothing of a file is decoded.
 * A body read as a stream holds "" in place of every file (upload.ts): there the file received had
 * no character at all.
 */
function emptyFile(operationFile: unknown, received: ReceivedFile | undefined): ErrorDetail[] {
  const empty = operationFile === '' && (received === undefined || received.head === '');
  return empty ? [{ path: '/operationFile', message: EMPTY_FILE }] : [];
}

/** A fundCnpj that is not a CNPJ, with an empty file beside it. */
function fundCnpjError(reason: string, problems: ErrorDetail[]): SandboxError {
  return validationError([{ path: '/fundCnpj', message: reason }, ...problems], `fundCnpj ${reason}`).tag(
    outcome('fund-cnpj-invalid'),
  );
}

const CNAB_TEXT = `is not base64: ${sentAsHint('cnab-text')}`;

type FileRead = { file: Buffer; lines: LineIndex } | { error: SandboxError };

/**
 * The file's checks: its bytes and line index, or the refusal. `text`: the operationFile text, or
 * at least its first HEAD_CHARS characters (upload.ts).
 */
function judgeFile(decoded: Base64Decode, text: string, scanOf: (bytes: Buffer) => LineScan): FileRead {
  if (!decoded.ok) {
    // What the text is instead, judged as for a loan-bond documento (domain/sent-as.ts).
    const kind = sentAs(text);
    const reason =
      kind === 'cnab-text' ? CNAB_TEXT : `is not base64 text: ${decoded.reason}${kind === undefined ? '' : `; ${sentAsHint(kind)}`}`;
    return { error: badFile(reason, 'file-not-base64') };
  }
  if (decoded.bytes.length === 0) return { error: badFile(EMPTY_FILE, 'file-empty') };
  const scan = scanOf(decoded.bytes);
  if (!scan.ok) {
    if (looksLikeCnabText(text)) return { error: badFile(CNAB_TEXT, 'file-not-base64') };
    const twice = encodedTwiceHint(decoded.bytes.subarray(0, 1100));
    return { error: badFile(`is not a CNAB 400/444 file: ${scan.reason}${twice === undefined ? '' : `; ${twice}`}`, 'file-not-cnab') };
  }
  return { file: decoded.bytes, lines: scan.lines };
}

/** The checks of the file as the body's stream delivered it, or of the body's operationFile text. */
function readFile(operationFile: string, received: ReceivedFile | undefined): FileRead {
  if (!received) return judgeFile(decodeBase64(operationFile), operationFile, scanLines);
  return judgeFile(received.decoded, received.head, (bytes) => received.scan ?? scanLines(bytes));
}

/**
 * The checks of a submission its schema refused, in the order of rc-error-precedence: a fundCnpj of
 * the right type is checked; the file only when the fund and token of the body authenticate (an
 * unauthenticated caller learns nothing of the file, and a wrong token is reported once the shape is
 * right).
 */
export function refusedImportProblems(body: unknown, store: Store, file?: ReceivedFile): ErrorDetail[] {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const empty = emptyFile(fields.operationFile, file);
  if (typeof fields.fundCnpj !== 'string') return empty;
  const cnpj = checkTaxId(fields.fundCnpj, { kinds: ['cnpj'] });
  if (!cnpj.ok) return [{ path: '/fundCnpj', message: cnpj.reason }, ...empty];
  const fund = store.receivables.fund(cnpj.value);
  const token = fields.token;
  if (!fund || fund.token === null || typeof token !== 'string' || !sameSecret(token, fund.token)) return empty;
  if (typeof fields.operationFile !== 'string') return [];
  const read = readFile(fields.operationFile, file);
  return 'error' in read ? read.error.details : [];
}

/** The fund's CNPJ when the body's fund and token authenticate; else the refusal is thrown. */
function authenticate(body: ImportCnabBody, ctx: SubmitContext): string {
  const store = ctx.store.receivables;
  const cnpj = checkTaxId(body.fundCnpj, { kinds: ['cnpj'] });
  const empty = emptyFile(body.operationFile, ctx.file);
  if (!cnpj.ok) throw fundCnpjError(cnpj.reason, empty);
  if (empty.length > 0) throw badFile(EMPTY_FILE, 'file-empty');

  const fund = store.fund(cnpj.value);
  if (!fund) {
    throw invalidToken(
      `no fund with CNPJ ${cnpj.value} (the body field fundCnpj) is known to this sandbox (fixtures: receivables.funds), so the body field token cannot be valid`,
      'token-unknown-fund',
    );
  }
  if (fund.token === null) {
    throw invalidToken(
      `the fund ${cnpj.value} (the body field fundCnpj) has no token: generate one in the management system (fixtures: receivables.funds[].token)`,
      'token-not-issued',
    );
  }
  if (!sameSecret(body.token, fund.token)) {
    throw invalidToken(
      `the body field token is not the token of the fund ${cnpj.value} (the value sent is not echoed)`,
      'token-mismatch',
    );
  }

  return cnpj.value;
}

export async function submitImport(body: ImportCnabBody, ctx: SubmitContext): Promise<Submitted> {
  const fundCnpj = authenticate(body, ctx);
  const read = readFile(body.operationFile, ctx.file);
  if ('error' in read) throw read.error;

  ctx.admit?.();
  const stored = await storeImport(
    body,
    { fundCnpj, fileName: body.fileName, additiveNumber: body.additiveNumber, lineCount: read.lines.count, strict: ctx.strict },
    read.file,
    ctx,
  );
  importReceived(ctx.events, stored);
  return { importId: stored.importId, file: read.file, lines: read.lines };
}

/**
 * Stores the import: every part of its file but the last in a transaction and a turn of its own
 * (one statement writing 70 MB held the event loop for a second), under a key of their own; then
 * the last part with the import's row, in one transaction that sees the state as it is then. That
 * transaction accepts the import: it gives the id and the receivedAt, so that ids, the fund's list
 * and processing all follow the order imports were accepted in, a small file sent during a large
 * one's upload coming first (rc-import-order). Other requests ran between the parts: the fund and
 * token are checked again, and parts a reset or a restore took away are written anew, at once. A
 * failure leaves no part.
 */
async function storeImport(
  body: ImportCnabBody,
  row: Omit<NewImport, 'file' | 'importId' | 'receivedAt'>,
  file: Buffer,
  ctx: SubmitContext,
): Promise<Omit<NewImport, 'file'>> {
  const store = ctx.store.receivables;
  const parts = Math.max(1, Math.ceil(file.length / FILE_PART_BYTES));
  const part = (k: number) => file.subarray(k * FILE_PART_BYTES, (k + 1) * FILE_PART_BYTES);
  const turn = ctx.turn ?? nextTurn;
  // Never an import's id (those are drawn from the key sequence, which a key here would move on).
  const key = parts > 1 ? `upload-${randomUUID()}` : undefined;
  try {
    if (key !== undefined) {
      for (let k = 0; k < parts - 1; k++) {
        ctx.store.transaction(() => store.insertFilePart(key, k, part(k)));
        await turn();
      }
    }
    return ctx.store.transaction(
      () => {
        authenticate(body, ctx);
        let importId = ctx.ids.newId('CNAB-');
        // A state that holds the id already (a key sequence put back without its rows): the next one.
        while (store.import(importId) !== undefined) importId = ctx.ids.newId('CNAB-');
        const accepted = { ...row, importId, receivedAt: ctx.now().toISOString() };
        if (key === undefined) {
          store.writeFile(importId, file);
        } else {
          const written = store.fileParts(key);
          if (written.parts !== parts - 1 || written.size !== (parts - 1) * FILE_PART_BYTES) store.writeFile(key, file);
          else store.insertFilePart(key, parts - 1, part(parts - 1));
        }
        store.insertImportRow(accepted, file.length, key ?? null);
        return accepted;
      },
      { immediate: true },
    );
  } catch (err) {
    try {
      if (key !== undefined) ctx.store.transaction(() => store.deleteFile(key));
    } catch {
      // The state is gone (its workspace removed): nothing of it is left to clean.
    }
    throw err;
  }
}
