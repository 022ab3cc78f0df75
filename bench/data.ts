// Generators of realistic payloads: extract requests, CNAB 444 files, PDFs.

import { nfeKeyCheckDigit } from '../src/domain/nfe-key.js';
import { cpfCheckDigits } from '../src/domain/tax-id.js';

export const TENANTS = { t1k: '11222333000181', t10k: '11444777000161', t1m: '52998224725' } as const;

export function extractRequests(tenantId: string, count: number, firstId: number) {
  const base = Date.UTC(2026, 0, 1);
  const steps = ['received', 'processing', 'executed', 'failed'];
  return Array.from({ length: count }, (_, i) => ({
    tenantId,
    extractTradeReceivableRequestId: firstId + i,
    // Several requests share a timestamp, so the tie-break by id is exercised too.
    registeredAt: new Date(base + Math.floor(i / 3) * 60_000).toISOString(),
    registeredByUserId: 7,
    protocolNumber: `PRT-${firstId + i}`,
    currentStepType: steps[i % steps.length] ?? 'executed',
    generatedAt: new Date(base + Math.floor(i / 3) * 60_000 + 5_000).toISOString(),
  }));
}

const pad = (s: string | number, n: number) => String(s).padStart(n, '0').slice(-n);
const text = (s: string, n: number) => s.padEnd(n, ' ').slice(0, n);

function cpf(i: number): string {
  const first9 = pad(100000000 + (i % 800000000), 9);
  return first9 + cpfCheckDigits(first9);
}

function nfeKey(i: number): string {
  const first43 = `3526071122233300018155001${pad(i + 1, 9)}1${pad(i * 7919, 8)}`;
  return first43 + String(nfeKeyCheckDigit(first43));
}

/** A CNAB 444 file of the FIDC variant (key at 395-438, sequence at 439-444), CRLF endings. */
export function cnab444(details: number): Buffer {
  const lines: string[] = [];
  lines.push(
    text(
      `01REMESSA01${text('COBRANCA', 15)}${pad('12345', 20)}${text('FUNDO DEMO FIDC', 30)}001${text('BANCO', 15)}201126`,
      438,
    ) + pad(1, 6),
  );
  for (let i = 0; i < details; i++) {
    const drawee = cpf(i);
    let l = '1';
    l += text('', 19); // 002-020
    l += '01'; // 021-022 co-obligation
    l += text('', 15); // 023-037
    l += text(`TIT${pad(i, 10)}`, 25); // 038-062 title id
    l += text('', 46); // 063-108
    l += '01'; // 109-110 occurrence
    l += text(`DOC${pad(i, 7)}`, 10); // 111-120 document number
    l += '311226'; // 121-126 due date
    l += pad(100000 + (i % 900000), 13); // 127-139 face value
    l += text('', 8); // 140-147
    l += '01'; // 148-149 kind
    l += ' '; // 150
    l += '201126'; // 151-156 issue date
    l += text('', 17); // 157-173
    l += text('', 19); // 174-192 assignment term
    l += pad(95000, 13); // 193-205 present value
    l += text('', 13); // 206-218
    l += '01'; // 219-220 drawee type CPF
    l += pad(drawee, 14); // 221-234
    l += text(`SACADO ${i}`, 40); // 235-274
    l += text('RUA DEMO 1', 40); // 275-314
    l += text(`NF${i}`, 9); // 315-323
    l += text('', 3); // 324-326
    l += '01310100'; // 327-334 CEP
    l += text('CEDENTE DEMO LTDA', 46); // 335-380
    l += '11222333000181'; // 381-394
    l += nfeKey(i); // 395-438
    l += pad(i + 2, 6); // 439-444
    lines.push(l);
  }
  lines.push(text('9', 438) + pad(details + 2, 6));
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');
}

/** A minimal valid PDF padded with a comment stream to `size` bytes. */
export function pdf(size: number, seed = 0): Buffer {
  const head = `%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n% seed ${seed}\n`;
  const tail = 'trailer << /Root 1 0 R >>\n%%EOF\n';
  const filler = Math.max(0, size - head.length - tail.length);
  const body = Buffer.alloc(filler, 0x20);
  for (let i = 0; i < filler; i += 97) body[i] = 0x0a;
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from(tail, 'latin1')]);
}

/** A registry document with every field the spec's register operation reads, passing the domain checks. */
export function registryDocument(n: number, documento: string) {
  return {
    publicidade: 'SIM',
    operacao: { tipoOperacao: 'C', idOperacao: `OP-${n}`, dataOperacao: '2026-11-01', valorOperacao: 1500.5, dataVencimentoOperacao: '2026-12-01' },
    garantia: { tipoGarantia: 1, avalistas: [{ nomeAvalista: 'Maria Silva', cpfCnpjAvalista: '52998224725' }] },
    cpfCnpjTitular: '11222333000181',
    nomeTitular: 'Titular Ltda',
    numeroDuplicata: `DUP-${n}`,
    numeroParcela: '1',
    dataEmissao: '2026-11-01',
    dataVencimento: '2026-12-01',
    valorDuplicata: 1500.5,
    codigoIBGEPracaPagamento: 3550308,
    cpfCnpjSacador: '11222333000181',
    nomeSacador: 'Sacador SA',
    cpfCnpjSacado: '52998224725',
    nomeSacado: 'Sacado SA',
    nomeDocumento: `dup-${n}.pdf`,
    documento,
  };
}

/** A loan-bond record with one installment, no signers, and its PDF. */
export function loanBondRecord(n: number, pdfBytes: Buffer) {
  return {
    nome_documento: `ccb-${n}.pdf`,
    emails_final_fluxo: ['ops@example.com'],
    assinado: false,
    assinantes: [],
    assinaturas: [],
    parcelas: [{ numero: 1, data_vencimento: '2026-12-20', valor: 1000.5 }],
    documento: pdfBytes.toString('base64'),
    documentos_adicionais: [],
  };
}
