// The loan-bond wire format, table by table as the specification shows it (Resources, "Loan-bond
// registration request"). Required-ness and formats the tables do not show are assumptions.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { MAX_FILE_BYTES } from '../domain/pdf.js';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { Money, Strict } from '../http/schema.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';

const assumed = assumptionLookup(assumptions);
const assumedSandbox = assumptionLookup(sandboxAssumptions);

export const MAX_RECORDS = 50;

/**
 * The longest documento or conteudo text of a valid file: the base64 of 15 000 000 bytes
 * (4 * ceil(n / 3) = 20 000 000 characters), wrapped as MIME wraps it (a line break every 76
 * characters, written "\r\n" in JSON: 4 bytes each, 263 158 of them).
 */
export const MAX_FILE_TEXT = 4 * Math.ceil(MAX_FILE_BYTES / 3) + Math.ceil((4 * Math.ceil(MAX_FILE_BYTES / 3)) / 76) * 4;

/** Bytes a registration may hold besides its files' text (signers, installments, names, JSON). */
export const FIELDS_LIMIT = 16 * 1024 * 1024;

/**
 * The default body limit of the registration: 50 files of the longest text (the documented maximum
 * batch; additional documents count against the same 50 files) plus the fields: 1 069 408 816 bytes.
 */
export const DEFAULT_REGISTRATION_BODY_LIMIT = MAX_RECORDS * MAX_FILE_TEXT + FIELDS_LIMIT;

const Str = () => Type.Optional(Type.String());

export const Address = Strict({
  cep: Str(),
  logradouro: Str(),
  numero: Type.Optional(Type.Integer()),
  complemento: Str(),
  bairro: Str(),
  cidade: Str(),
  uf: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'two letters',
      'x-sandbox-assumption': assumed('lb-string-formats'),
    }),
  ),
}, { title: 'Address' });

const TaxIdField = () =>
  Type.Optional(
    Type.String({
      description: 'CPF or CNPJ, bare or in its mask (NNN.NNN.NNN-NN, NN.NNN.NNN/NNNN-NN)',
      'x-sandbox-assumption': `${assumed('lb-tax-ids')} ${assumedSandbox('tax-id-forms')}`,
    }),
  );

export const Signer = Strict({
  cpf_cnpj: TaxIdField(),
  nome: Str(),
  papel: Type.Optional(Type.String({ description: 'role' })),
  email: Str(),
  telefone: Str(),
  celular: Str(),
  assina_eletronicamente: Type.Optional(Type.Boolean()),
  assina_digitalmente: Type.Optional(Type.Boolean()),
  assina_ekms: Type.Optional(Type.Boolean()),
  data_nascimento: Str(),
  numero_rg: Str(),
  orgao_expedidor: Str(),
  data_emissao_rg: Str(),
  endereco: Type.Optional(Address),
}, { title: 'Signer' });

export const DigitalCertificate = Strict({
  tipo_certificado: Str(),
  emitido_para: Str(),
  email: Str(),
  emitido_por: Str(),
  numero_serie: Str(),
  valido_de: Str(),
  valido_ate: Str(),
  chave_autoridade_certificadora: Str(),
}, { title: 'DigitalCertificate' });

export const ElectronicSignature = Strict({
  pin: Type.Optional(
    Type.String({
      description: 'a secret: never stored (inspection shows "[not stored]") nor journaled',
      'x-sandbox-assumption': assumed('lb-signature-pin'),
    }),
  ),
  forma_checagem: Str(),
  email: Str(),
  celular: Str(),
}, { title: 'ElectronicSignature' });

export const Timestamp = Strict({
  emitido_por: Str(),
  numero_serial: Str(),
  data_hora_utc: Str(),
}, { title: 'SignatureTimestamp' });

export const Lcr = Strict({
  emitido_por: Str(),
  numero_serial: Str(),
  data_prox_atualizacao: Str(),
}, { title: 'Lcr' });

export const Signature = Strict({
  cpf_cnpj: TaxIdField(),
  nome_assinante: Str(),
  data_assinatura: Str(),
  ip: Str(),
  papel: Str(),
  tipo_assinatura: Type.Optional(Type.Integer()),
  certificado_digital: Type.Optional(DigitalCertificate),
  assinatura_eletronica: Type.Optional(ElectronicSignature),
  carimbo_tempo: Type.Optional(Timestamp),
  lcr: Type.Optional(Lcr),
}, { title: 'Signature' });
export type Signature = Static<typeof Signature>;

export const Installment = Strict({
  numero: Type.Optional(Type.Integer()),
  data_vencimento: Str(),
  valor: Type.Optional(Money()),
}, { title: 'Installment' });

const fileDescription = `base64 of a PDF file, at most ${MAX_FILE_BYTES} bytes decoded (15 MB), not encrypted`;

/** A file field: the encoding and media type in keywords tools read (rules 3-5 are checked by the server). */
const PdfFile = () =>
  Type.String({
    description: fileDescription,
    contentEncoding: 'base64',
    contentMediaType: 'application/pdf',
    'x-sandbox-assumption': assumed('lb-file-base64'),
  });

export const AdditionalDocument = Strict(
  {
    nome: Str(),
    conteudo: PdfFile(),
    assinaturas: Type.Optional(Type.Array(Signature)),
  },
  { title: 'AdditionalDocument', 'x-sandbox-assumption': assumed('lb-required-fields') },
);

export const LoanBondRecord = Strict(
  {
    nome_documento: Str(),
    emails_final_fluxo: Type.Optional(
      Type.Array(Type.String(), {
        description: 'e-mail addresses notified at the end of the flow',
        'x-sandbox-assumption': assumed('lb-flow-states'),
      }),
    ),
    assinado: Type.Optional(
      Type.Boolean({
        description: 'signature data in assinaturas is imported only when true (rule 7)',
        'x-sandbox-assumption': assumed('lb-rule7-scope'),
      }),
    ),
    assinantes: Type.Optional(Type.Array(Signer)),
    assinaturas: Type.Optional(Type.Array(Signature)),
    parcelas: Type.Optional(Type.Array(Installment)),
    documento: PdfFile(),
    documentos_adicionais: Type.Optional(Type.Array(AdditionalDocument)),
  },
  { title: 'LoanBondRecord', 'x-sandbox-assumption': assumed('lb-required-fields') },
);
export type LoanBondRecord = Static<typeof LoanBondRecord>;

export const RegistrationRequest = Strict(
  {
    versao: Type.String({ description: 'interface version of the body' }),
    // Required, as the document says; a body whose only problem is a missing token still gets the
    // 401 of lb-check-order (routes.ts reads the validation result).
    token: Type.String({
      description: 'access token of the caller (missing or unknown: 401)',
      'x-sandbox-assumption': assumedSandbox('token-lifetime'),
    }),
    registros: Type.Array(LoanBondRecord, {
      minItems: 1,
      maxItems: MAX_RECORDS,
      description: 'at most 50 per request (rule 6)',
      'x-sandbox-assumption': assumed('lb-empty-batch'),
    }),
  },
  { title: 'RegistrationRequest', 'x-sandbox-assumption': assumed('lb-required-fields') },
);
export type RegistrationRequest = Static<typeof RegistrationRequest>;

export const RegistrationItem = Type.Object({
  codigo_identificador: Type.String(),
  chave_registro: Type.String(),
  token_acesso: Type.String({ description: 'a secret: keep it; the sandbox stores only its hash' }),
}, { title: 'RegistrationItem' });

export const RegistrationResponse = Type.Object(
  {
    codigo: Type.String(),
    mensagem: Type.String(),
    registros: Type.Array(RegistrationItem),
  },
  { title: 'RegistrationResponse', 'x-sandbox-assumption': assumed('lb-response-keys') },
);
export type RegistrationResponse = Static<typeof RegistrationResponse>;
