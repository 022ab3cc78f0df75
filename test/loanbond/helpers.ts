// Loan-bond test plumbing: PDFs of a chosen size, records, callers lacking each product.
import { Buffer } from 'node:buffer';
import { existsSync, readdirSync } from 'node:fs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { FixtureDocument } from '../../src/interfaces.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';

export const URL = '/api/service/document/registrar';
export const TOKEN = 'lb-token-1';

/** BASE_FIXTURES plus callers lacking one product each, and one lacking both. */
export const FIXTURES: FixtureDocument = {
  ...BASE_FIXTURES,
  loanbond: {
    callers: [
      { callerId: 'CALLER-1', token: TOKEN, products: ['electronic-signature', 'digital-loan-bond'] },
      { callerId: 'NO-SIGNATURE', token: 'lb-no-signature', products: ['digital-loan-bond'] },
      { callerId: 'NO-CCB', token: 'lb-no-ccb', products: ['electronic-signature'] },
      { callerId: 'NO-PRODUCTS', token: 'lb-no-products', products: [] },
    ],
  },
};

export function lbApp(options: Parameters<typeof testApp>[0] = {}): Promise<FastifyInstance> {
  return testApp({ fixtures: FIXTURES, ...options });
}

/**
 * A PDF of exactly `size` bytes: header, one object, padding, trailer. `trailer` adds entries to
 * the trailer dictionary (e.g. '/Encrypt 5 0 R'); `tag` makes the content distinct.
 */
export function pdfBytes(size = 600, options: { trailer?: string; tag?: string } = {}): Buffer {
  // An /Encrypt reference names an object with a value (a reference to an undefined one is null).
  const ref = /\/Encrypt (\d+) (\d+) R/.exec(options.trailer ?? '');
  const handler = ref ? `${ref[1]} ${ref[2]} obj\n<< /Filter /Standard /V 1 /R 2 /P -4 >>\nendobj\n` : '';
  const head = Buffer.from(
    `%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Tag (${options.tag ?? ''}) >>\nendobj\n${handler}`,
    'latin1',
  );
  const tail = Buffer.from(`trailer\n<< /Root 1 0 R ${options.trailer ?? ''}>>\n%%EOF\n`, 'latin1');
  if (size < head.length + tail.length)
    throw new RangeError(`a test PDF needs at least ${head.length + tail.length} bytes`);
  const buf = Buffer.alloc(size, 0x20);
  head.copy(buf, 0);
  tail.copy(buf, size - tail.length);
  return buf;
}

export function pdf(size?: number, options?: { trailer?: string; tag?: string }): string {
  return pdfBytes(size, options).toString('base64');
}

export const SIGNATURE = {
  cpf_cnpj: '529.982.247-25',
  nome_assinante: 'Maria Silva',
  data_assinatura: '2026-11-01T10:00:00Z',
  ip: '200.1.2.3',
  papel: 'emitente',
  tipo_assinatura: 1,
  certificado_digital: {
    tipo_certificado: 'A1',
    emitido_para: 'Maria Silva',
    email: 'maria@example.com',
    emitido_por: 'AC Teste',
    numero_serie: '1234',
    valido_de: '2026-01-01',
    valido_ate: '2027-01-01',
    chave_autoridade_certificadora: 'abcd',
  },
  assinatura_eletronica: {
    pin: '1234',
    forma_checagem: 'sms',
    email: 'maria@example.com',
    celular: '11999990000',
  },
  carimbo_tempo: { emitido_por: 'ACT', numero_serial: '77', data_hora_utc: '2026-11-01T10:00:01Z' },
  lcr: { emitido_por: 'AC Teste', numero_serial: '88', data_prox_atualizacao: '2026-12-01' },
};

export const SIGNER = {
  cpf_cnpj: '52998224725',
  nome: 'Maria Silva',
  papel: 'emitente',
  email: 'maria@example.com',
  telefone: '1133334444',
  celular: '11999990000',
  assina_eletronicamente: true,
  assina_digitalmente: false,
  assina_ekms: false,
  data_nascimento: '1980-05-01',
  numero_rg: '123456789',
  orgao_expedidor: 'SSP',
  data_emissao_rg: '2000-01-01',
  endereco: {
    cep: '01001000',
    logradouro: 'Praça da Sé',
    numero: 100,
    complemento: 'sala 1',
    bairro: 'Sé',
    cidade: 'São Paulo',
    uf: 'SP',
  },
};

/** A complete record with every table filled in; `overrides` replaces top-level fields. */
export function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    nome_documento: 'ccb-0001.pdf',
    emails_final_fluxo: ['ops@example.com'],
    assinado: true,
    assinantes: [SIGNER],
    assinaturas: [SIGNATURE],
    parcelas: [
      { numero: 1, data_vencimento: '2026-12-10', valor: 1500.5 },
      { numero: 2, data_vencimento: '2027-01-10', valor: 1500.5 },
    ],
    documento: pdf(),
    documentos_adicionais: [
      { nome: 'anexo.pdf', conteudo: pdf(700, { tag: 'anexo' }), assinaturas: [SIGNATURE] },
    ],
    ...overrides,
  };
}

/** A record with no signers, signatures or additional documents: only its documento is read as a file. */
export function plainRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return record({ assinantes: [], assinaturas: [], documentos_adicionais: [], ...overrides });
}

export function body(registros: unknown[], token = TOKEN): Record<string, unknown> {
  return { versao: '2.0', token, registros };
}

export function post(app: FastifyInstance, payload: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: URL, payload: payload as Record<string, unknown> });
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details: Array<{ path: string; message: string }>;
}

export async function registrationCount(app: FastifyInstance): Promise<number> {
  const res = await app.inject({ url: '/_sandbox/loanbond/registrations' });
  return (res.json() as { total: number }).total;
}

export async function documentCount(app: FastifyInstance): Promise<number> {
  const res = await app.inject({ url: '/_sandbox/loanbond/documents' });
  return (res.json() as { count: number }).count;
}

/** The stored and incoming files of a documents folder (none when it was never made). */
export function filesIn(dir: string | undefined): string[] {
  return dir !== undefined && existsSync(dir) ? readdirSync(dir) : [];
}
