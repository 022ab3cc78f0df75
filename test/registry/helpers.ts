// Registry test plumbing: a valid document, and calls with the fixture participant's token.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { FixtureDocument } from '../../src/interfaces.js';
import { BASE_FIXTURES } from '../helpers.js';

export const REGISTER = '/api/v1.0/service/dup/registrar_documentos';
export const RECONCILE = '/api/v1.0/service/dup/conciliar_documentos';
export const TOKEN = 'rg-token-1';
export const OTHER_TOKEN = 'rg-token-2';

/** BASE_FIXTURES plus a second participant. */
export const FIXTURES: FixtureDocument = {
  ...BASE_FIXTURES,
  registry: {
    participants: [
      { participantId: 'PART-1', accessToken: TOKEN },
      { participantId: 'PART-2', accessToken: OTHER_TOKEN },
    ],
  },
};

/** A document with every field, all passing the domain checks. */
export function validDocument(n = 1): Record<string, unknown> {
  return {
    publicidade: 'SIM',
    operacao: {
      tipoOperacao: 'C',
      idOperacao: `OP-${n}`,
      dataOperacao: '2026-11-01',
      valorOperacao: 1500.5,
      dataVencimentoOperacao: '2026-12-01',
    },
    garantia: {
      tipoGarantia: 1,
      avalistas: [{ nomeAvalista: 'Maria Silva', cpfCnpjAvalista: '529.982.247-25' }],
    },
    cpfCnpjTitular: '11.222.333/0001-81',
    nomeTitular: 'Titular Ltda',
    chaveNFe: '35260722333444000181550010001234561123456787',
    numeroDuplicata: `DUP-${n}`,
    numeroParcela: '1',
    dataEmissao: '2026-11-01',
    dataVencimento: '2026-12-01',
    valorDuplicata: 1500.5,
    codigoIBGEPracaPagamento: 3550308,
    cpfCnpjSacador: '11222333000181',
    inscricaoEstadualSacador: '123456789',
    inscricaoMunicipalSacador: '987654',
    nomeSacador: 'Sacador SA',
    enderecoSacador: 'Rua A, 1',
    cpfCnpjSacado: '12ABC34501DE35',
    inscricaoEstadualSacado: 'ISENTO',
    inscricaoMunicipalSacado: '123',
    nomeSacado: 'Sacado SA',
    enderecoSacado: 'Rua B, 2',
    nomeDocumento: 'nota.pdf',
    documento: Buffer.from(`%PDF-1.4 document ${n}`).toString('base64'),
  };
}

export interface Post {
  token?: string | null;
  headers?: Record<string, string>;
}

export function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
  options: Post = {},
): Promise<LightMyRequestResponse> {
  const token = options.token === undefined ? TOKEN : options.token;
  return app.inject({
    method: 'POST',
    url,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...options.headers },
    payload: body as Record<string, unknown>,
  });
}

export async function register(
  app: FastifyInstance,
  registros: unknown[],
  options: Post = {},
): Promise<string> {
  const res = await post(app, REGISTER, { registros }, options);
  if (res.statusCode !== 200) throw new Error(`registration failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { chaveRemessa: string }).chaveRemessa;
}

export interface BatchBody {
  chaveRemessa: string;
  participantId: string;
  registeredAt: string;
  dataRegistro: string;
  documentCount: number;
  warnings: Array<{ path: string; rule: string; message: string }>;
  documents: Array<{
    index: number;
    chaveRegistro: string;
    dataRegistro: string;
    document: Record<string, unknown>;
  }>;
}

/** The batch's view with every document: its pages (limit 1000) joined, following nextCursor. */
export async function batch(app: FastifyInstance, key: string): Promise<BatchBody> {
  let body: (BatchBody & { nextCursor: string | null }) | undefined;
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '?limit=1000' : `?limit=1000&cursor=${cursor}`;
    const res = await app.inject({ url: `/_sandbox/registry/batches/${key}${query}` });
    if (res.statusCode !== 200) throw new Error(`batch inspection failed: ${res.statusCode} ${res.body}`);
    const page = res.json() as BatchBody & { nextCursor: string | null };
    body = body ? { ...page, documents: [...body.documents, ...page.documents] } : page;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return body;
}
