// Domain checks on a registry document. The specification does not say the real registry applies
// them, so they are warnings unless strict mode is on (assumption registry-domain-warnings).
// examine() runs them over a whole request, for registration and reconciliation alike.
import { isCalendarDate } from '../domain/dates.js';
import { checkIbgeCode } from '../domain/ibge.js';
import { checkNfeKey } from '../domain/nfe-key.js';
import { checkTaxId } from '../domain/tax-id.js';
import { type ErrorDetail, pointer, validationError } from '../http/errors.js';
import { MAX_DETAILS } from '../http/validation.js';
import { type Digest, digestBase64 } from './documents.js';
import { outcome, type RegistryOutcome } from './outcomes.js';
import type { ReconciliationDocument, RegistryDocument, Warning } from './schemas.js';

const TAX_ID_FIELDS = ['cpfCnpjTitular', 'cpfCnpjSacador', 'cpfCnpjSacado'] as const;

const isText = (v: unknown): v is string => typeof v === 'string';
const isDate = (v: unknown): v is string => typeof v === 'string' && isCalendarDate(v);

/**
 * Every domain problem of the item at `index` of `registros`, each with its pointer and rule. A
 * field of the wrong type is skipped (the schema names it), so this runs on a refused body too.
 */
export function checkDocument(doc: RegistryDocument, index: number): Warning[] {
  const warnings: Warning[] = [];
  const at = (...segments: Array<string | number>) => pointer('registros', index, ...segments);

  for (const field of TAX_ID_FIELDS) {
    const value: unknown = doc[field];
    if (!isText(value)) continue;
    const r = checkTaxId(value);
    if (!r.ok) warnings.push({ path: at(field), rule: 'tax-id', message: r.reason });
  }
  const avalistas: unknown = doc.garantia?.avalistas;
  (Array.isArray(avalistas) ? (avalistas as unknown[]) : []).forEach((avalista, j) => {
    const value: unknown = (avalista as { cpfCnpjAvalista?: unknown } | null)?.cpfCnpjAvalista;
    if (!isText(value)) return;
    const r = checkTaxId(value);
    if (!r.ok) {
      warnings.push({
        path: at('garantia', 'avalistas', j, 'cpfCnpjAvalista'),
        rule: 'tax-id',
        message: r.reason,
      });
    }
  });
  const nfe: unknown = doc.chaveNFe;
  if (isText(nfe)) {
    const r = checkNfeKey(nfe);
    if (!r.ok) warnings.push({ path: at('chaveNFe'), rule: 'nfe-key', message: r.reason });
  }
  const ibge: unknown = doc.codigoIBGEPracaPagamento;
  if (Number.isSafeInteger(ibge)) {
    const r = checkIbgeCode(ibge as number);
    if (!r.ok) warnings.push({ path: at('codigoIBGEPracaPagamento'), rule: 'ibge-code', message: r.reason });
  }
  // Both are real YYYY-MM-DD dates, so text order is date order.
  if (isDate(doc.dataEmissao) && isDate(doc.dataVencimento) && doc.dataVencimento < doc.dataEmissao) {
    warnings.push({
      path: at('dataVencimento'),
      rule: 'due-date',
      message: `the due date ${doc.dataVencimento} is before the issue date ${doc.dataEmissao} (dataEmissao)`,
    });
  }
  return warnings;
}

/** Warnings as the details of a strict-mode 400: same pointer, the rule named in the message. */
export function strictDetails(warnings: readonly Warning[]): ErrorDetail[] {
  return warnings.map((w) => ({
    path: w.path,
    message: `${w.message} (domain check ${w.rule}; refused because strict mode is on)`,
  }));
}

/**
 * The digest of every `documento` and the domain warnings of a batch. Text that is not base64 refuses
 * the batch; so do the warnings in strict mode, in one 400 with every problem in item order.
 */
export function examine(
  registros: ReadonlyArray<RegistryDocument | ReconciliationDocument>,
  strict: boolean,
): { digests: Array<Digest | undefined>; warnings: Warning[] } {
  const { problems, refusal, digests, warnings } = findProblems(registros, strict);
  // At most MAX_DETAILS listed; the message still counts them all.
  if (problems.length > 0) {
    throw validationError(problems.slice(0, MAX_DETAILS), undefined, problems.length).tag(refusal ?? outcome('strict-refused'));
  }
  return { digests, warnings };
}

/**
 * The checks of examine() on a body its schema refused: every item that is an object, every field
 * of the right type (a documento that is not base64, and in strict mode the domain checks).
 */
export function refusedBodyProblems(body: unknown, strict: boolean): ErrorDetail[] {
  const registros: unknown = (body as { registros?: unknown } | null)?.registros;
  if (!Array.isArray(registros)) return [];
  const problems: ErrorDetail[] = [];
  registros.forEach((doc: unknown, i) => {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return;
    problems.push(...findProblems([doc as RegistryDocument], strict, i).problems);
  });
  return problems;
}

function findProblems(
  registros: ReadonlyArray<RegistryDocument | ReconciliationDocument>,
  strict: boolean,
  /** The index in `registros` of the first item given. */
  first = 0,
): { problems: ErrorDetail[]; refusal: RegistryOutcome | undefined; digests: Array<Digest | undefined>; warnings: Warning[] } {
  const problems: ErrorDetail[] = [];
  const warnings: Warning[] = [];
  // The first problem in item order names the outcome (registry/outcomes.ts).
  let refusal: RegistryOutcome | undefined;
  const digests = registros.map((doc, k) => {
    const i = first + k;
    let digest: Digest | undefined;
    const documento: unknown = doc.documento;
    if (isText(documento)) {
      const r = digestBase64(documento);
      if (r.ok) digest = r.digest;
      else {
        problems.push({
          path: pointer('registros', i, 'documento'),
          message: `must be standard base64: ${r.reason}`,
        });
        refusal ??= outcome('documento-not-base64');
      }
    }
    const found = checkDocument(doc, i);
    warnings.push(...found);
    if (strict && found.length > 0) {
      problems.push(...strictDetails(found));
      refusal ??= outcome('strict-refused');
    }
    return digest;
  });
  return { problems, refusal, digests, warnings };
}
