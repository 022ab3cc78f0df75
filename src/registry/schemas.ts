// Wire format of the registry interface, field for field as the specification's tables. The
// specification shows types only (no required-ness, no lengths), so every document field is optional.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { NextCursor } from '../http/paging.js';
import { AmountOut, CalendarDate, Money, Strict, StringEnum } from '../http/schema.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';

const assumed = assumptionLookup(assumptions);
const assumedSandbox = assumptionLookup(sandboxAssumptions);
const opt = Type.Optional;
/** A tax-id field: CPF or CNPJ, bare or in its mask (checked by registry/checks.ts). */
const TaxId = (description: string) =>
  Type.String({ description: `${description}, with or without punctuation`, 'x-sandbox-assumption': assumedSandbox('tax-id-forms') });

export const Avalista = Strict(
  {
    nomeAvalista: opt(Type.String({ description: 'guarantor name' })),
    cpfCnpjAvalista: opt(TaxId('guarantor tax id')),
  },
  { title: 'Avalista', description: 'guarantor' },
);

const operacaoFields = {
  tipoOperacao: opt(
    Type.String({
      pattern: '^[A-Za-z]$',
      description: 'one-letter code (C is seen in use)',
      'x-sandbox-assumption': assumed('registry-tipo-operacao'),
    }),
  ),
  idOperacao: opt(Type.String()),
  dataOperacao: opt(CalendarDate()),
  valorOperacao: opt(Money()),
  dataVencimentoOperacao: opt(CalendarDate()),
};

export const Operacao = Strict(operacaoFields, { title: 'Operacao', description: 'operation' });

export const Garantia = Strict(
  {
    tipoGarantia: opt(Type.Integer({ description: 'integer code' })),
    avalistas: opt(Type.Array(Avalista)),
  },
  { title: 'Garantia', description: 'guarantee' },
);

/** The registration fields of a registry document (item of `registros` in registration). */
const documentFields = {
  publicidade: opt(Type.String({ description: 'yes/no flag type' })),
  operacao: opt(Operacao),
  garantia: opt(Garantia),
  cpfCnpjTitular: opt(TaxId('tax id of the holder')),
  nomeTitular: opt(Type.String({ description: 'holder name' })),
  chaveNFe: opt(
    Type.String({
      description: 'key of the fiscal document, digits',
      'x-sandbox-assumption': assumed('registry-nfe-alphanumeric'),
    }),
  ),
  numeroDuplicata: opt(Type.String({ description: 'trade-bill number' })),
  numeroParcela: opt(Type.String({ description: 'installment number' })),
  dataEmissao: opt(CalendarDate({ description: 'issue date, YYYY-MM-DD' })),
  dataVencimento: opt(CalendarDate({ description: 'due date, YYYY-MM-DD' })),
  valorDuplicata: opt(Money({ description: 'trade-bill amount, two decimal places' })),
  codigoIBGEPracaPagamento: opt(Type.Integer({ description: 'payment-place code' })),
  cpfCnpjSacador: opt(TaxId('tax id of the drawer')),
  inscricaoEstadualSacador: opt(Type.String({ description: 'state registration of the drawer' })),
  inscricaoMunicipalSacador: opt(Type.String({ description: 'municipal registration of the drawer' })),
  nomeSacador: opt(Type.String({ description: 'drawer name' })),
  enderecoSacador: opt(Type.String({ description: 'drawer address' })),
  cpfCnpjSacado: opt(TaxId('tax id of the drawee')),
  inscricaoEstadualSacado: opt(Type.String({ description: 'state registration of the drawee' })),
  inscricaoMunicipalSacado: opt(Type.String({ description: 'municipal registration of the drawee' })),
  nomeSacado: opt(Type.String({ description: 'drawee name' })),
  enderecoSacado: opt(Type.String({ description: 'drawee address' })),
  nomeDocumento: opt(Type.String({ description: 'file name of the attached document' })),
  documento: opt(
    Type.String({
      description: 'content of the attached document, standard base64 text',
      contentEncoding: 'base64',
      'x-sandbox-assumption': assumed('registry-documento-digest'),
    }),
  ),
};

/** The reconciliation additions to a registry document. */
const reconciliationFields = {
  chaveRegistro: opt(Type.String({ description: 'key of the existing registration' })),
  dataRegistro: opt(CalendarDate({ description: 'registration date' })),
  cancelado: opt(Type.String({ description: 'yes/no flag type' })),
  dataCancelamento: opt(CalendarDate({ description: 'cancellation date' })),
  motivoCancelamento: opt(Type.String({ description: 'cancellation reason' })),
  statusPagamento: opt(Type.Integer({ description: 'payment status code' })),
};

export const RegistryDocument = Strict(documentFields, {
  title: 'RegistryDocument',
  description: 'registry document: registration fields only',
  'x-sandbox-assumption': assumed('registry-optional-fields'),
});
export type RegistryDocument = Static<typeof RegistryDocument>;

export const ReconciliationDocument = Strict(
  { ...documentFields, ...reconciliationFields },
  {
    title: 'ReconciliationDocument',
    description: 'registry document with the reconciliation additions',
    'x-sandbox-assumption': assumed('registry-optional-fields', 'registry-reconcile-compare'),
  },
);
export type ReconciliationDocument = Static<typeof ReconciliationDocument>;

const registros = <T extends typeof RegistryDocument | typeof ReconciliationDocument>(item: T) =>
  Type.Array(item, {
    minItems: 1,
    'x-sandbox-assumption': assumed('registry-non-empty', 'registry-batch-atomic'),
  });

export const RegisterBody = Strict({ registros: registros(RegistryDocument) });
export type RegisterBody = Static<typeof RegisterBody>;

export const ReconcileBody = Strict({ registros: registros(ReconciliationDocument) });
export type ReconcileBody = Static<typeof ReconcileBody>;

// `headers` documents the sandbox's response header in the OpenAPI document (@fastify/swagger reads it).
const warningsHeader = {
  headers: {
    'Sandbox-Warnings': {
      type: 'integer',
      description: 'how many domain checks failed as warnings (listed by /_sandbox/registry inspection)',
      'x-sandbox-assumption': assumed('registry-domain-warnings'),
    },
  },
};

export const RegisterResponse = Type.Object(
  {
    mensagem: Type.String({ 'x-sandbox-assumption': assumed('registry-mensagem') }),
    chaveRemessa: Type.String({
      description: 'batch key used to query the batch',
      'x-sandbox-assumption': assumed('registry-keys'),
    }),
  },
  { title: 'RegisterResponse', ...warningsHeader },
);

export const ReconcileResponse = Type.Object(
  {
    mensagem: Type.String({ 'x-sandbox-assumption': assumed('registry-mensagem') }),
    chaveConciliacao: Type.String({ 'x-sandbox-assumption': assumed('registry-keys') }),
  },
  { title: 'ReconcileResponse', ...warningsHeader },
);

// ---- inspection (the sandbox's own shapes) ----

// Output only: a plain string, since the serializer's Ajv does not know the 'utc-timestamp' format.
const Timestamp = (options: Record<string, unknown> = {}) =>
  Type.String({ description: 'ISO 8601 UTC timestamp', ...options });

export const Warning = Type.Object({
  path: Type.String({ description: 'JSON pointer into the request' }),
  rule: StringEnum(['tax-id', 'nfe-key', 'ibge-code', 'due-date'], { description: 'the domain check' }),
  message: Type.String(),
});
export type Warning = Static<typeof Warning>;

const DocumentDigest = Type.Object({
  size: Type.Integer({ description: 'decoded bytes' }),
  sha256: Type.String({ description: 'hex SHA-256 of the decoded bytes' }),
});

/** A registered document as the sandbox holds it: the fields as sent, `documento` as its digest. */
export const HeldDocument = Type.Object({
  ...documentFields,
  valorDuplicata: opt(AmountOut()),
  operacao: opt(Type.Object({ ...operacaoFields, valorOperacao: opt(AmountOut()) }, { description: 'operation' })),
  documento: opt(DocumentDigest),
});

export const BatchView = Type.Object({
  chaveRemessa: Type.String(),
  participantId: Type.String(),
  registeredAt: Timestamp(),
  dataRegistro: CalendarDate(),
  documentCount: Type.Integer(),
  warnings: Type.Array(Warning),
  documents: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'position in registros' }),
      chaveRegistro: Type.String(),
      dataRegistro: CalendarDate(),
      document: HeldDocument,
    }),
    { description: 'a page of the documents, in registros order (limit, cursor)' },
  ),
  nextCursor: NextCursor,
});

export const ItemResult = StringEnum(['matched', 'diverging', 'unknown']);

export const Divergence = Type.Object({
  field: Type.String({ description: 'JSON pointer of the field inside the item' }),
  held: opt(Type.Unknown({ description: 'what the registration holds (absent: it holds nothing)' })),
  sent: Type.Unknown({ description: 'what the reconciliation sent' }),
});
export type Divergence = Static<typeof Divergence>;

export const ReconciliationView = Type.Object({
  chaveConciliacao: Type.String(),
  participantId: Type.String(),
  reconciledAt: Timestamp(),
  counts: Type.Object({ matched: Type.Integer(), diverging: Type.Integer(), unknown: Type.Integer() }),
  itemCount: Type.Integer(),
  warnings: Type.Array(Warning),
  nextCursor: NextCursor,
  items: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'position in registros' }),
      chaveRegistro: Type.Union([Type.String(), Type.Null()]),
      result: ItemResult,
      message: Type.String(),
      divergences: Type.Array(Divergence),
      reported: Type.Object(
        {
          cancelado: opt(Type.String()),
          dataCancelamento: opt(Type.String()),
          motivoCancelamento: opt(Type.String()),
          statusPagamento: opt(Type.Integer()),
        },
        { description: 'state the participant reported, recorded but not compared' },
      ),
    }),
    { description: 'a page of the items, in registros order (limit, cursor)' },
  ),
});

export const ParticipantView = Type.Object({
  participantId: Type.String(),
  now: Timestamp({ description: 'the sandbox clock' }),
  documentCount: Type.Integer(),
  firstRegistrationAt: Type.Union([Timestamp(), Type.Null()]),
  lastReconciliation: Type.Union([
    Type.Object({ chaveConciliacao: Type.String(), reconciledAt: Timestamp() }),
    Type.Null(),
  ]),
  reconciliationDueBy: Type.Union([Timestamp(), Type.Null()], {
    description: 'null while the participant has no registrations',
  }),
  overdue: Type.Boolean({ 'x-sandbox-assumption': assumed('registry-overdue') }),
  batchCount: Type.Integer(),
  batches: Type.Array(
    Type.Object({ chaveRemessa: Type.String(), registeredAt: Timestamp(), documentCount: Type.Integer() }),
    { description: 'a page of the batches, oldest first (limit, batchesCursor)' },
  ),
  batchesNextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass it as batchesCursor for the next batches' }),
  reconciliationCount: Type.Integer(),
  reconciliations: Type.Array(
    Type.Object({ chaveConciliacao: Type.String(), reconciledAt: Timestamp(), itemCount: Type.Integer() }),
    { description: 'a page of the reconciliations, oldest first (limit, reconciliationsCursor)' },
  ),
  reconciliationsNextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass it as reconciliationsCursor for the next reconciliations',
  }),
});
