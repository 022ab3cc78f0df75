// The loan-bond registration rules after the schema: caller and products (rules 1-2), every file
// (rules 3-5), rule 7 on signatures, then one transaction that stores all records or none.
import { createHash } from 'node:crypto';
import { checkTaxId } from '../domain/tax-id.js';
import { type ErrorDetail, pointer, SandboxError, validationError } from '../http/errors.js';
import { DecimalText } from '../domain/money.js';
import { exactCopy, exactNumbersOf, moneyCents, numberText, stringifyExact } from '../http/exact-numbers.js';
import type { EventSink } from '../runtime/events.js';
import type { Ids } from '../runtime/ids.js';
import type { Store } from '../store/index.js';
import type { Product } from '../store/loanbond.js';
import { type RegisteredRecord, recordsRegistered } from './events.js';
import { type LoanbondOutcome, outcome } from './outcomes.js';
import type { RegistrationRequest, RegistrationResponse, Signature } from './schemas.js';
import type { FileResult } from './upload.js';

const PRODUCT_RULES: ReadonlyArray<{ product: Product; rule: number; name: string }> = [
  { product: 'electronic-signature', rule: 1, name: 'electronic-signature' },
  { product: 'digital-loan-bond', rule: 2, name: 'digital loan-bond' },
];

export interface RegisterContext {
  store: Store;
  /** Each file's verdict (rules 3-5) and incoming file, by the JSON pointer of its field. */
  files: (path: string) => FileResult | undefined;
  ids: Ids;
  now: Date;
  strict: boolean;
  /** Where the committed records are reported. */
  events: EventSink;
  /** Throws when `records` more may not be stored now (back-pressure); called once every check passed. */
  admit?: (records: number) => void;
}

export interface RegisterResult {
  response: RegistrationResponse;
  /** registered-signed or registered-unsigned (rule 7). */
  outcome: LoanbondOutcome;
  callerId: string;
  batch: string;
  warnings: number;
}

/** The token_acesso as the sandbox keeps it: a hash, and a hint short enough to reveal nothing. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
export function tokenHint(token: string): string {
  return `${token.slice(0, 4)}…`;
}

/** Rules 1-2: a known token of a caller holding both products; otherwise 401. */
function authorize(store: Store, token: string | undefined): string {
  const caller = authorization(store, token);
  if (caller instanceof SandboxError) throw caller;
  return caller;
}

/** Rules 1-2: the caller's id, or the 401 that refuses the token. */
function authorization(store: Store, token: string | undefined): string | SandboxError {
  if (token === undefined) {
    return new SandboxError(401, 'the token is missing: send the caller\'s token in the body field token', {
      details: [{ path: '/token', message: 'is required: the access token of the caller' }],
      outcome: outcome('token-missing'),
    });
  }
  const caller = store.loanbond.callerByToken(token);
  if (!caller) {
    return new SandboxError(401, 'the body field token is not the token of a known caller (the value sent is not echoed)', {
      details: [
        { path: '/token', message: 'is not the token of a known caller (fixtures: loanbond.callers[].token)' },
      ],
      outcome: outcome('token-unknown'),
    });
  }
  const missing = PRODUCT_RULES.filter((p) => !caller.products.includes(p.product));
  if (missing.length > 0) {
    const details = missing.map((p) => ({
      path: '/token',
      message: `rule ${p.rule}: the caller whose token the body field token holds has not contracted the ${p.name} product (fixtures: loanbond.callers[].products)`,
    }));
    const first = outcome(missing[0]?.rule === 1 ? 'rule-1-electronic-signature' : 'rule-2-digital-loan-bond');
    return new SandboxError(401, `${details.map((d) => d.message).join('; ')}`, { details, outcome: first });
  }
  return caller.callerId;
}

const itemsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const fieldOf = (v: unknown, key: string): unknown =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;

/**
 * Check digits of every cpf_cnpj sent: warnings, or 400 details in strict mode. Reads the body as it
 * came (a body the schema refused included): a cpf_cnpj that is not a string is the schema's problem.
 */
function taxIdProblems(records: unknown): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const check = (holder: unknown, path: string) => {
    const value = fieldOf(holder, 'cpf_cnpj');
    if (typeof value !== 'string') return;
    const r = checkTaxId(value);
    if (!r.ok) out.push({ path, message: `is not a valid CPF or CNPJ: ${r.reason}` });
  };
  const signatures = (list: unknown, ...at: Array<string | number>) => {
    for (const [k, s] of itemsOf(list).entries()) check(s, pointer(...at, 'assinaturas', k, 'cpf_cnpj'));
  };
  for (const [i, r] of itemsOf(records).entries()) {
    for (const [k, s] of itemsOf(fieldOf(r, 'assinantes')).entries()) {
      check(s, pointer('registros', i, 'assinantes', k, 'cpf_cnpj'));
    }
    signatures(fieldOf(r, 'assinaturas'), 'registros', i);
    for (const [j, d] of itemsOf(fieldOf(r, 'documentos_adicionais')).entries()) {
      signatures(fieldOf(d, 'assinaturas'), 'registros', i, 'documentos_adicionais', j);
    }
  }
  return out;
}

/** What the checks of a body the schema refused read beside the body. */
export interface RefusedBodyContext {
  store: Store;
  strict: boolean;
  /** Each file's verdict (rules 3-5), decided while the body streamed in (upload.ts). */
  files: (path: string) => FileResult | undefined;
}

/**
 * The checks that still mean something on a body the schema refused (docs/errors.md): the tax ids'
 * check digits in strict mode and, for a caller the token authenticates (rules 1-2, lb-check-order),
 * every file's rules 3-5 (the caller drops those of a file whose field the schema refused). The
 * token itself is judged (401) only on a body of the right shape.
 */
export function refusedBodyProblems(body: unknown, ctx: RefusedBodyContext): ErrorDetail[] {
  const records = fieldOf(body, 'registros');
  const details = ctx.strict ? taxIdProblems(records) : [];
  const token = fieldOf(body, 'token');
  if (typeof token !== 'string' || typeof authorization(ctx.store, token) !== 'string') return details;
  for (const [i, r] of itemsOf(records).entries()) {
    const paths = [
      pointer('registros', i, 'documento'),
      ...itemsOf(fieldOf(r, 'documentos_adicionais')).map((_, j) => pointer('registros', i, 'documentos_adicionais', j, 'conteudo')),
    ];
    for (const path of paths) {
      const result = ctx.files(path);
      if (result && !result.ok) details.push({ path, message: result.message });
    }
  }
  return details;
}

/** Problems found so far, and the outcome the first one names. */
interface Problems {
  details: ErrorDetail[];
  outcome: LoanbondOutcome | undefined;
}

function addProblem(problems: Problems, refusal: LoanbondOutcome, detail: ErrorDetail): void {
  problems.details.push(detail);
  problems.outcome ??= refusal;
}

/** Rules 3-5 on one file, decided while the body streamed in (upload.ts): its problem, if any. */
function fileProblem(ctx: RegisterContext, path: string, problems: Problems): void {
  const result = ctx.files(path);
  if (!result) throw new Error(`no file was read at ${path}`);
  if (!result.ok) addProblem(problems, result.outcome, { path, message: result.message });
}

/** A file that passed becomes a stored file (inside the transaction); returns its id. */
function storeFile(ctx: RegisterContext, path: string): number {
  const result = ctx.files(path);
  if (!result?.ok || !result.file) throw new Error(`the file at ${path} was checked but not kept`);
  return ctx.store.loanbond.putDocument({ sha256: result.sha256, size: result.size }, result.file);
}

function signaturesCount(list: readonly Signature[] | undefined): number {
  return list?.length ?? 0;
}

/**
 * Rule 7: signatures are imported only when assinado is true; otherwise null (not stored). Kept as
 * sent, numbers included (a tipo_assinatura of 1E+0 stays so: http/exact-numbers.ts).
 */
function imported(assinado: boolean, list: readonly Signature[] | undefined, keep: Keeping): string | null {
  if (!assinado) return null;
  // The PIN of an electronic signature is a secret: the sandbox keeps only that one was sent (lb-signature-pin).
  const kept = keep.copy(list ?? []).map((s) =>
    s.assinatura_eletronica?.pin === undefined
      ? s
      : { ...s, assinatura_eletronica: { ...s.assinatura_eletronica, pin: '[not stored]' } },
  );
  return keep.write(kept);
}

/** How the parts of a body are stored as sent (see keeping). */
interface Keeping {
  /** A copy whose numbers written otherwise are DecimalTexts, to be spread or mapped without losing them. */
  copy<T>(value: T): T;
  write(value: unknown): string;
}

const PLAIN: Keeping = { copy: (value) => value, write: (value) => JSON.stringify(value) };
const EXACT: Keeping = { copy: (value) => exactCopy(value) as typeof value, write: (value) => stringifyExact(value) };

/**
 * JSON.stringify for a body without a number written otherwise than a double writes it (almost
 * every body: no walk for it); else copies and stringifyExact, which write such numbers as sent.
 */
function keeping(body: RegistrationRequest): Keeping {
  return exactNumbersOf(body) === undefined ? PLAIN : EXACT;
}

/** The number at `holder[key]` as it was sent: a DecimalText of its text where a double would write it otherwise. */
function asSent(holder: object, key: string): unknown {
  const text = numberText(holder, key);
  return text === undefined ? (holder as Record<string, unknown>)[key] : new DecimalText(text);
}

/**
 * The installments as held: as sent, the amount in cents beside the text it was sent as where a
 * double would write it otherwise (1500.50), which inspection shows (loanbond/inspect.ts).
 */
function heldInstallments(parcelas: RegistrationRequest['registros'][number]['parcelas'], keep: Keeping): string {
  return keep.write(
    (parcelas ?? []).map((p) => ({
      numero: asSent(p, 'numero'),
      data_vencimento: p.data_vencimento,
      valor_cents: p.valor === undefined ? undefined : moneyCents(p, 'valor'),
      valor_as_sent: p.valor === undefined || numberText(p, 'valor') === undefined ? undefined : asSent(p, 'valor'),
    })),
  );
}

/** One IMMEDIATE transaction; after a rollback, files no row refers to any more are removed. */
function inTransaction<T>(store: Store, fn: () => T): T {
  try {
    return store.transaction(fn, { immediate: true });
  } catch (err) {
    store.documents.sweep();
    throw err;
  }
}

export function register(body: RegistrationRequest, ctx: RegisterContext): RegisterResult {
  const { store, ids } = ctx;
  const callerId = authorize(store, body.token);

  const taxIds = taxIdProblems(body.registros);
  const problems: Problems = {
    details: ctx.strict ? [...taxIds] : [],
    outcome: ctx.strict && taxIds.length > 0 ? outcome('tax-id-invalid') : undefined,
  };
  const warningsAt = (i: number) =>
    ctx.strict ? [] : taxIds.filter((w) => w.path.startsWith(`${pointer('registros', i)}/`));

  const registeredAt = ctx.now.toISOString();
  const keep = keeping(body);

  // Every file's verdict first: one detail per bad file, and nothing stored.
  const filePaths = body.registros.map((record, i) => ({
    document: pointer('registros', i, 'documento'),
    additional: (record.documentos_adicionais ?? []).map((_, j) =>
      pointer('registros', i, 'documentos_adicionais', j, 'conteudo'),
    ),
  }));
  for (const { document, additional } of filePaths) {
    fileProblem(ctx, document, problems);
    for (const path of additional) fileProblem(ctx, path, problems);
  }
  if (problems.details.length > 0) throw validationError(problems.details).tag(problems.outcome ?? outcome('file-not-base64'));

  // Back-pressure before anything is stored: the backlog is a maintained count, exact outside a transaction.
  ctx.admit?.(body.registros.length);

  // All or nothing: the files become stored files in the transaction that inserts their rows; after
  // a rollback, the sweep removes those no row refers to.
  // IMMEDIATE: a document is looked up by digest before it is stored (read, then write).
  const { batch, items, records } = inTransaction(store, () => {
    const checked = body.registros.map((record, i) => {
      const paths = filePaths[i] as { document: string; additional: string[] };
      return {
        record,
        i,
        documentId: storeFile(ctx, paths.document),
        additional: (record.documentos_adicionais ?? []).map((d, j) => ({
          d,
          j,
          id: storeFile(ctx, paths.additional[j] as string),
        })),
      };
    });
    // ...then the keys: a refused request consumes none of them (a seeded sequence stays as it was).
    const batch = ids.newId('LBB-');
    const out: RegistrationResponse['registros'] = [];
    const records: RegisteredRecord[] = [];
    for (const { record, i, documentId, additional } of checked) {
      const assinado = record.assinado === true;
      const codigoIdentificador = ids.newId('LB-');
      const chaveRegistro = ids.newId('LBK-');
      const tokenAcesso = ids.secret();
      store.loanbond.insertRegistration({
        codigoIdentificador,
        chaveRegistro,
        tokenHash: tokenHash(tokenAcesso),
        tokenHint: tokenHint(tokenAcesso),
        callerId,
        batch,
        position: i,
        versao: body.versao,
        nomeDocumento: record.nome_documento ?? null,
        assinado,
        documentId,
        registeredAt,
        // As sent, numbers included (an endereco numero of 1.0E2 stays so: http/exact-numbers.ts).
        signers: keep.write(keep.copy(record.assinantes ?? [])),
        installments: heldInstallments(record.parcelas, keep),
        emails: JSON.stringify(record.emails_final_fluxo ?? []),
        signatures: imported(assinado, record.assinaturas, keep),
        signaturesSent: signaturesCount(record.assinaturas),
        warnings: JSON.stringify(warningsAt(i)),
      });
      for (const { d, j, id } of additional) {
        store.loanbond.insertAdditionalDocument({
          codigoIdentificador,
          position: j,
          nome: d.nome ?? null,
          documentId: id,
          signatures: imported(assinado, d.assinaturas, keep),
          signaturesSent: signaturesCount(d.assinaturas),
        });
      }
      out.push({
        codigo_identificador: codigoIdentificador,
        chave_registro: chaveRegistro,
        token_acesso: tokenAcesso,
      });
      records.push({ codigoIdentificador, chaveRegistro, callerId, batch, position: i, assinado, registeredAt });
    }
    return { batch, items: out, records };
  });
  recordsRegistered(ctx.events, records);

  const n = items.length;
  return {
    outcome: outcome(body.registros.some((r) => r.assinado === true) ? 'registered-signed' : 'registered-unsigned'),
    callerId,
    batch,
    warnings: ctx.strict ? 0 : taxIds.length,
    response: {
      codigo: batch,
      mensagem: `${n} ${n === 1 ? 'record' : 'records'} registered; signatures and notifications are processed asynchronously`,
      registros: items,
    },
  };
}
