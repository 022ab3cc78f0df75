// Submission of an operation file: the fund and its token, then the file's synchronous checks
// (base64, not empty, every line 400 or 444 bytes); the import is stored pending, and the line index
// found here goes to processing (runner.ts) with the bytes, so the file is scanned once.
import { decodeBase64 } from '../domain/base64.js';
import { encodedTwiceHint, looksLikeCnabText, sentAs, sentAsHint } from '../domain/sent-as.js';
import { checkTaxId } from '../domain/tax-id.js';
import { sameSecret } from '../http/bearer.js';
import { type ErrorDetail, SandboxError, validationError } from '../http/errors.js';
import type { EventSink } from '../runtime/events.js';
import type { Ids } from '../runtime/ids.js';
import type { Store } from '../store/index.js';
import { type LineIndex, scanLines } from './cnab-scan.js';
import { importReceived } from './events.js';
import { outcome, type ReceivablesOutcome } from './outcomes.js';
import type { ImportCnabBody } from './schemas.js';

export interface SubmitContext {
  store: Store;
  ids: Ids;
  now: Date;
  strict: boolean;
  /** Where the stored import is reported. */
  events: EventSink;
  /** Throws when the import may not be stored now (back-pressure); called once every check passed. */
  admit?: () => void;
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

function fundCnpjError(reason: string): SandboxError {
  return validationError([{ path: '/fundCnpj', message: reason }], `fundCnpj ${reason}`).tag(outcome('fund-cnpj-invalid'));
}

const CNAB_TEXT = `is not base64: ${sentAsHint('cnab-text')}`;

/** The file's synchronous checks: its bytes and line index, or the refusal. */
function readFile(operationFile: string): { file: Buffer; lines: LineIndex } | { error: SandboxError } {
  const decoded = decodeBase64(operationFile);
  if (!decoded.ok) {
    // What the text is instead, judged as for a loan-bond documento (domain/sent-as.ts).
    const kind = sentAs(operationFile);
    const reason =
      kind === 'cnab-text' ? CNAB_TEXT : `is not base64 text: ${decoded.reason}${kind === undefined ? '' : `; ${sentAsHint(kind)}`}`;
    return { error: badFile(reason, 'file-not-base64') };
  }
  if (decoded.bytes.length === 0) return { error: badFile('is empty', 'file-empty') };
  const scan = scanLines(decoded.bytes);
  if (!scan.ok) {
    if (looksLikeCnabText(operationFile)) return { error: badFile(CNAB_TEXT, 'file-not-base64') };
    const twice = encodedTwiceHint(decoded.bytes.subarray(0, 1100));
    return { error: badFile(`is not a CNAB 400/444 file: ${scan.reason}${twice === undefined ? '' : `; ${twice}`}`, 'file-not-cnab') };
  }
  return { file: decoded.bytes, lines: scan.lines };
}

/**
 * The checks of a submission its schema refused, in the order of rc-error-precedence: a fundCnpj of
 * the right type is checked; the file only when the fund and token of the body authenticate (an
 * unauthenticated caller learns nothing of the file, and a wrong token is reported once the shape is
 * right).
 */
export function refusedImportProblems(body: unknown, store: Store): ErrorDetail[] {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof fields.fundCnpj !== 'string') return [];
  const cnpj = checkTaxId(fields.fundCnpj, { kinds: ['cnpj'] });
  if (!cnpj.ok) return [{ path: '/fundCnpj', message: cnpj.reason }];
  const fund = store.receivables.fund(cnpj.value);
  const token = fields.token;
  if (!fund || fund.token === null || typeof token !== 'string' || !sameSecret(token, fund.token)) return [];
  if (typeof fields.operationFile !== 'string') return [];
  const read = readFile(fields.operationFile);
  return 'error' in read ? read.error.details : [];
}

export function submitImport(body: ImportCnabBody, ctx: SubmitContext): Submitted {
  const store = ctx.store.receivables;
  const cnpj = checkTaxId(body.fundCnpj, { kinds: ['cnpj'] });
  if (!cnpj.ok) throw fundCnpjError(cnpj.reason);

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

  const read = readFile(body.operationFile);
  if ('error' in read) throw read.error;

  ctx.admit?.();
  const importId = ctx.ids.newId('CNAB-');
  const stored = {
    importId,
    fundCnpj: cnpj.value,
    fileName: body.fileName,
    additiveNumber: body.additiveNumber,
    receivedAt: ctx.now.toISOString(),
    file: read.file,
    lineCount: read.lines.count,
    strict: ctx.strict,
  };
  ctx.store.transaction(() => store.insertImport(stored));
  importReceived(ctx.events, stored);
  return { importId, file: read.file, lines: read.lines };
}
