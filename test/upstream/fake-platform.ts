// A small server playing the real platform behind the sandbox's proxy mode: it answers the documented
// operations mostly as the sandbox assumes, but diverges where a real service plausibly would
// (DIVERGENCES below), and answers a few of the operations the specification names only, with
// secrets in its answers. Built from the specification's tables, nothing copied.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** The assumption ids the fake platform contradicts, each by one answer below. */
export const DIVERGENCES = {
  /** A default page of 20 items where the sandbox's is 10. */
  'bk-page-size': 'GET .../extract without pageSize',
  /** A bookkeeping 400 body {code, message} instead of {statusCode, error, message, details}. */
  'error-body': 'PUT .../payment with a bad body',
  /** A receivables 400 code other than InvalidToken or ValidationError. */
  'rc-validation-error': 'POST /v1/import-cnab with a bad fundCnpj',
  /** A 403 for a caller without a product, where the sandbox answers 401. */
  'lb-status-products': 'POST .../registrar with a token lacking a product',
  /** An unknown field accepted by the registry. */
  'strict-fields': 'POST .../registrar_documentos with an unknown field',
} as const;

/** The secrets the platform hands out or that clients send it: none may reach a recorded file. */
export const SECRETS = {
  password: 'hunter2-password',
  issuedToken: 'REAL-ISSUED-TOKEN-9f8e7d',
  registryToken: 'rg-real-secret',
  loanbondToken: 'lb-real-secret',
  accessToken: 'TA-REAL-ACCESS-3c2b1a',
  document: Buffer.from('%PDF-1.7 secret contract of the client').toString('base64'),
  cookie: 'session=abc-real-cookie',
};

export interface FakePlatform {
  url: string;
  /** Requests it received: method, url and headers as sent (lower-case names). */
  received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Array<[string, string]> = []): void {
  const text = JSON.stringify(body);
  // rawHeaders-style writeHead keeps names' case and order, as a real server writes them.
  res.writeHead(status, [['Content-Type', 'application/json; charset=utf-8'], ['Content-Length', String(Buffer.byteLength(text))], ...headers].flat());
  res.end(text);
}

const BK = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';

async function answer(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const path = url.pathname;
  const parsed = (() => {
    try {
      return JSON.parse(body) as Record<string, unknown>;
    } catch {
      return {};
    }
  })();
  // --- documented operations ---------------------------------------------------------------------
  if (req.method === 'GET' && path === `${BK}/extract`) {
    const size = Number(url.searchParams.get('pageSize') ?? 20);
    const page = Number(url.searchParams.get('page') ?? 1);
    const items = Array.from({ length: Math.min(size, 3) }, (_, i) => ({
      extractTradeReceivableRequestId: i + 1,
      registeredAt: '2026-11-01T10:00:00Z',
      registeredByUserId: 7,
      protocolNumber: `PRT-${i + 1}`,
      currentStepType: 'executed',
      generatedAt: '2026-11-01T10:05:00Z',
    }));
    return json(res, 200, { extractTradeReceivables: items, pagination: { page, size, totalItems: 3, totalPages: 1 } }, [
      ['X-Platform-Trace', 'trace-1'],
      ['Set-Cookie', 'a=1; Path=/'],
      ['Set-Cookie', 'b=2; Path=/'],
      ['x-MiXeD-cAsE', 'kept as sent'],
    ]);
  }
  if (req.method === 'PUT' && /\/payment$/.test(path)) {
    if (typeof parsed.paymentValue !== 'number') return json(res, 400, { code: 'VALIDATION', message: 'paymentValue is required' });
    res.writeHead(204);
    return void res.end();
  }
  if (req.method === 'POST' && path === '/api/v1.0/service/dup/registrar_documentos') {
    return json(res, 200, { mensagem: 'Remessa recebida', chaveRemessa: 'REAL-BATCH-1' });
  }
  if (req.method === 'POST' && path === '/v1/import-cnab') {
    if (parsed.fundCnpj !== '11222333000181') {
      return json(res, 400, { error: { code: 'InvalidFundCnpj', message: 'fund not found', target: 'fundCnpj' } });
    }
    res.writeHead(200, ['Content-Length', '0']);
    return void res.end();
  }
  if (req.method === 'POST' && path === '/api/service/document/registrar') {
    return json(res, 403, { statusCode: 403, error: 'Forbidden', message: 'product not contracted', details: [] });
  }
  // --- operations the specification names only ---------------------------------------------------
  if (req.method === 'POST' && path === '/api/bookkeeping/auth/login') {
    if (parsed.password !== SECRETS.password) return json(res, 401, { message: 'bad credentials' });
    return json(res, 200, { access_token: SECRETS.issuedToken, token_type: 'Bearer', expires_in: 3600 }, [['Set-Cookie', SECRETS.cookie]]);
  }
  if (req.method === 'GET' && path.startsWith('/api/v1.0/service/dup/lotes/')) {
    const text = JSON.stringify({ chaveRemessa: path.split('/').pop(), situacao: 'PROCESSADA', documentos: 2 });
    // A compressed answer, as real gateways send.
    const zipped = gzipSync(text);
    res.writeHead(200, ['Content-Type', 'application/json', 'Content-Encoding', 'gzip', 'Content-Length', String(zipped.length)]);
    return void res.end(zipped);
  }
  if (req.method === 'POST' && path === '/api/service/document/cancelar') {
    return json(res, 200, { codigo_identificador: parsed.codigo_identificador, situacao: 'CANCELADO', token_acesso: SECRETS.accessToken });
  }
  if (req.method === 'GET' && path === '/api/service/document/status') {
    // Chunked, without Content-Length, with a trailing space in the reason phrase.
    res.statusMessage = 'Okay ';
    res.writeHead(200, ['content-type', 'text/plain']);
    res.write('part one, ');
    return void res.end('part two');
  }
  res.writeHead(404, ['Content-Type', 'text/plain']);
  res.end(`the fake platform has no ${req.method} ${path}`);
}

export async function startFakePlatform(): Promise<FakePlatform> {
  const received: FakePlatform['received'] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      return answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
