// Submission of an operation file: the fund and its token, then the file's synchronous checks
// (base64, not empty, every line 400 or 444 bytes); the import is stored pending, and the line index
// found here goes to processing (runner.ts) with the bytes, so the file is scanned once.
import { decodeBase64 } from '../domain/base64.js';
import { checkTaxId } from '../domain/tax-id.js';
import { sameSecret } from '../http/bearer.js';
import { SandboxError, validationError } from '../http/errors.js';
import type { Ids } from '../runtime/ids.js';
import type { Store } from '../store/index.js';
import { type LineIndex, scanLines } from './cnab-scan.js';
import { outcome, type ReceivablesOutcome } from './outcomes.js';
import type { ImportCnabBody } from './schemas.js';

export interface SubmitContext {
  store: Store;
  ids: Ids;
  now: Date;
  strict: boolean;
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

export function submitImport(body: ImportCnabBody, ctx: SubmitContext): Submitted {
  const store = ctx.store.receivables;
  const cnpj = checkTaxId(body.fundCnpj, { kinds: ['cnpj'] });
  if (!cnpj.ok) {
    throw validationError([{ path: '/fundCnpj', message: cnpj.reason }], `fundCnpj ${cnpj.reason}`).tag(
      outcome('fund-cnpj-invalid'),
    );
  }

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

  const decoded = decodeBase64(body.operationFile);
  if (!decoded.ok) throw badFile(`is not base64 text: ${decoded.reason}`, 'file-not-base64');
  if (decoded.bytes.length === 0) throw badFile('is empty', 'file-empty');
  const scan = scanLines(decoded.bytes);
  if (!scan.ok) throw badFile(`is not a CNAB 400/444 file: ${scan.reason}`, 'file-not-cnab');

  ctx.admit?.();
  const importId = ctx.ids.newId('CNAB-');
  // One insert: a transaction of its own.
  store.insertImport({
    importId,
    fundCnpj: cnpj.value,
    fileName: body.fileName,
    additiveNumber: body.additiveNumber,
    receivedAt: ctx.now.toISOString(),
    file: decoded.bytes,
    lineCount: scan.lines.count,
    strict: ctx.strict,
  });
  return { importId, file: decoded.bytes, lines: scan.lines };
}
