// Inspection of the loanbond interface's state, mounted under /_sandbox/loanbond (admin-token rule applies).
// Files are shown by name, size and SHA-256, never their bytes; token_acesso only by a short hint.
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, type Static, Type } from '@fastify/type-provider-typebox';
import { centsToNumber, type DecimalText } from '../domain/money.js';
import { parseStoredJson } from '../http/json.js';
import { SandboxError } from '../http/errors.js';
import { decodeCursor, NextCursor, pageOf, pageQuery } from '../http/paging.js';
import { AmountOut, ErrorDetailSchema, ProcessingRecord, StandardError } from '../http/schema.js';
import type { AdditionalDocumentRow, RegistrationRow } from '../store/loanbond.js';
import { registrationWork } from './runner.js';
import { Signature, type Signature as SignatureT, Signer } from './schemas.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';

type SignerT = Static<typeof Signer>;

const TAG = [CONTROL_TAG.name];
/** Registrations per page: a registration's line is well under 1 kB. */
const PAGE = 100;
const PAGE_MAX = 1000;

const States = ['registered', 'signatures-pending', 'signatures-complete'];

const Summary = Type.Object({
  codigo_identificador: Type.String(),
  chave_registro: Type.String(),
  token_acesso: Type.String({ description: 'only the first 4 characters: the sandbox keeps a hash' }),
  callerId: Type.String(),
  codigo: Type.String({ description: 'the batch key returned as codigo' }),
  position: Type.Integer({ description: 'index of the record in its request' }),
  versao: Type.String(),
  nome_documento: Type.Union([Type.String(), Type.Null()]),
  assinado: Type.Boolean(),
  state: Type.String({ enum: States }),
  registeredAt: Type.String(),
  processedAt: Type.Union([Type.String(), Type.Null()]),
});

const ImportedSignatures = Type.Object({
  imported: Type.Boolean(),
  sent: Type.Integer({ description: 'how many signatures the request carried' }),
  note: Type.String(),
  assinaturas: Type.Array(Signature),
});

const FileInfo = {
  size: Type.Integer({ description: 'decoded bytes' }),
  sha256: Type.String(),
};

const Detail = Type.Object({
  ...Summary.properties,
  assinantes: Type.Array(Signer),
  assinaturas: ImportedSignatures,
  parcelas: Type.Array(
    Type.Object({
      numero: Type.Optional(
        Type.Unsafe<number | DecimalText>({ type: 'integer', description: 'as sent: a number written 1E+0 is shown so' }),
      ),
      data_vencimento: Type.Optional(Type.String()),
      valor: Type.Optional(AmountOut({ description: 'amount in reais, as sent: 1500.50 is shown so' })),
    }),
  ),
  documento: Type.Object({ nome: Type.Union([Type.String(), Type.Null()]), ...FileInfo }),
  documentos_adicionais: Type.Array(
    Type.Object({
      nome: Type.Union([Type.String(), Type.Null()]),
      ...FileInfo,
      assinaturas: ImportedSignatures,
    }),
  ),
  notificacao: Type.Object({
    status: Type.String({
      enum: ['would-notify', 'waiting-for-signatures', 'not-yet-processed', 'no-recipients'],
    }),
    recipients: Type.Array(Type.String()),
    at: Type.Union([Type.String(), Type.Null()]),
    note: Type.String(),
  }),
  warnings: Type.Array(ErrorDetailSchema),
  processing: ProcessingRecord,
});

function summary(r: RegistrationRow) {
  return {
    codigo_identificador: r.codigoIdentificador,
    chave_registro: r.chaveRegistro,
    token_acesso: r.tokenHint,
    callerId: r.callerId,
    codigo: r.batch,
    position: r.position,
    versao: r.versao,
    nome_documento: r.nomeDocumento,
    assinado: r.assinado === 1,
    state: r.state,
    registeredAt: r.registeredAt,
    processedAt: r.processedAt,
  };
}

function signatures(stored: string | null, sent: number) {
  if (stored === null) {
    return {
      imported: false,
      sent,
      note:
        sent > 0
          ? `${sent} sent, not imported: assinado was not true (rule 7)`
          : 'none sent; none would be imported while assinado is not true (rule 7)',
      assinaturas: [],
    };
  }
  return {
    imported: true,
    sent,
    note: `${sent} sent and imported (assinado was true)`,
    assinaturas: parseStoredJson(stored) as SignatureT[],
  };
}

function notification(r: RegistrationRow) {
  const recipients = JSON.parse(r.emails) as string[];
  if (r.state === 'registered') {
    return {
      status: 'not-yet-processed',
      recipients,
      at: null,
      note: 'the registration is still being processed',
    };
  }
  if (r.state === 'signatures-pending') {
    return {
      status: 'waiting-for-signatures',
      recipients,
      at: null,
      note: 'the flow ends when the signatures are complete; signing is not emulated',
    };
  }
  if (recipients.length === 0) {
    return {
      status: 'no-recipients',
      recipients,
      at: null,
      note: 'the flow ended; emails_final_fluxo was empty',
    };
  }
  return {
    status: 'would-notify',
    recipients,
    at: r.notifiedAt,
    note: 'the sandbox sends nothing: the shape of the notification is not shown by the specification',
  };
}

function detail(r: RegistrationRow, extra: AdditionalDocumentRow[]) {
  // Numbers come back as they were sent (parseStoredJson: 1E+0 stays so, http/exact-numbers.ts).
  const installments = parseStoredJson(r.installments) as Array<{
    numero?: number | DecimalText;
    data_vencimento?: string;
    valor_cents?: number;
    /** The amount as sent, where a double writes it otherwise (1500.50); rows stored before it have none. */
    valor_as_sent?: number | DecimalText;
  }>;
  return {
    ...summary(r),
    assinantes: parseStoredJson(r.signers) as SignerT[],
    assinaturas: signatures(r.signatures, r.signaturesSent),
    parcelas: installments.map((p) => ({
      numero: p.numero,
      data_vencimento: p.data_vencimento,
      valor: p.valor_as_sent ?? (p.valor_cents === undefined ? undefined : centsToNumber(p.valor_cents)),
    })),
    documento: { nome: r.nomeDocumento, size: r.size, sha256: r.sha256 },
    documentos_adicionais: extra.map((d) => ({
      nome: d.nome,
      size: d.size,
      sha256: d.sha256,
      assinaturas: signatures(d.signatures, d.signaturesSent),
    })),
    notificacao: notification(r),
    warnings: JSON.parse(r.warnings),
  };
}

export const loanbondInspection: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/registrations',
    {
      schema: {
        operationId: 'inspectLoanBondRegistrations',
        description:
          'The loan-bond registrations with their state in the flow, oldest first; the callerId query narrows them to one caller. A page of limit (default 100); nextCursor, passed as cursor, gives the next ones.',
        tags: TAG,
        summary: 'Loan-bond registrations, oldest first; callerId narrows them to one caller',
        querystring: Type.Object({ callerId: Type.Optional(Type.String({ minLength: 1 })), ...pageQuery(PAGE, PAGE_MAX) }),
        response: {
          200: Type.Object({
            total: Type.Integer({ description: 'registrations in all (of callerId, when given)' }),
            registrations: Type.Array(Summary, { description: 'a page of them, oldest first' }),
            nextCursor: NextCursor,
          }),
          400: StandardError,
          401: StandardError,
        },
      },
    },
    // Synchronous: templates read it through the inspect helper.
    (request) => {
      const store = runtimeOf(request).store.loanbond;
      const { callerId, limit = PAGE, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor, ['string', 'string', 'number']);
      const rows = store.registrations(callerId, after && [String(after[0]), String(after[1]), Number(after[2])], limit + 1);
      const page = pageOf(rows, limit, (r) => [r.registeredAt, r.batch, r.position], summary);
      return { total: store.registrationCount(callerId), registrations: page.items, nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/registrations/:codigoIdentificador',
    {
      schema: {
        operationId: 'inspectLoanBondRegistration',
        description:
          'One loan-bond registration in full: signers, the signatures imported (or why they were not), installments and its files by name, size and SHA-256.',
        tags: TAG,
        summary:
          'One registration: signers, imported signatures (or why not), installments, files (name, size, SHA-256)',
        params: Type.Object({ codigoIdentificador: Type.String() }),
        response: { 200: Detail, 401: StandardError, 404: StandardError },
      },
    },
    (request) => {
      const { codigoIdentificador } = request.params;
      const runtime = runtimeOf(request);
      const store = runtime.store.loanbond;
      const row = store.registration(codigoIdentificador);
      if (!row)
        throw new SandboxError(
          404,
          `no loan-bond registration has codigo_identificador ${codigoIdentificador}`,
        );
      return {
        ...detail(row, store.additionalDocuments(codigoIdentificador)),
        processing: runtime.workOf(registrationWork).processingOf(codigoIdentificador),
      };
    },
  );

  app.get(
    '/documents',
    {
      schema: {
        operationId: 'inspectLoanBondDocuments',
        description:
          'How many distinct files the loan-bond store holds: each file is kept once, by SHA-256 and size, however many records carry it.',
        tags: TAG,
        summary: 'How many distinct files are stored (each once, by SHA-256 and size)',
        response: { 200: Type.Object({ count: Type.Integer() }), 401: StandardError },
      },
    },
    (request) => ({ count: runtimeOf(request).store.loanbond.documentCount() }),
  );
};

/** What the inspector's overview shows of loan-bond. */
export const loanbondOverview = {
  tables: {
    lb_callers: 'callers',
    lb_documents: 'stored files',
    lb_registrations: 'registrations',
    lb_additional_documents: 'additional documents',
  },
  warnings(runtime: Runtime): string[] {
    const registered = runtime.store.loanbond.unprocessedCount();
    return registered > 0 ? [`loan-bond: ${registered} registration(s) not yet processed`] : [];
  },
};
