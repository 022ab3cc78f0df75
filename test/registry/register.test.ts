import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/runtime/clock.js';
import { testApp } from '../helpers.js';
import { batch, FIXTURES, post, RECONCILE, REGISTER, register, validDocument } from './helpers.js';

const NOW = Date.parse('2026-11-20T23:30:00.000Z');

async function app(options: { strict?: boolean } = {}) {
  return testApp({ fixtures: FIXTURES, clock: new SandboxClock(() => NOW), ...options });
}

interface ErrorBody {
  statusCode: number;
  message: string;
  details: Array<{ path: string; message: string }>;
}

async function participant(a: Awaited<ReturnType<typeof app>>, id = 'PART-1') {
  return (await a.inject({ url: `/_sandbox/registry/participants/${id}` })).json() as {
    documentCount: number;
    batches: Array<{ chaveRemessa: string }>;
  };
}

describe('registry: credentials', () => {
  it('answers 401 without an Authorization header, and names the expected scheme', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [validDocument()] }, { token: null });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((res.json() as ErrorBody).message).toContain('Bearer');
  });

  it('answers 401 to an unknown token without echoing it', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [validDocument()] }, { token: 'secret-guess-123' });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('secret-guess-123');
  });

  it('answers 401 to a scheme other than Bearer', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Basic cmctdG9rZW4tMQ==' },
      payload: { registros: [validDocument()] },
    });
    expect(res.statusCode).toBe(401);
  });

  it('checks credentials before the body: no token and a malformed body is still a 401', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'POST',
      url: REGISTER,
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('registry: register documents', () => {
  it('registers a batch of 3 and answers 200 with mensagem and chaveRemessa only', async () => {
    const a = await app();
    const res = await post(a, REGISTER, {
      registros: [validDocument(1), validDocument(2), validDocument(3)],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['chaveRemessa', 'mensagem']);
    expect(body.chaveRemessa).toMatch(/^RM[A-Z2-7]{24}$/);
    expect(body.mensagem).toBe('3 documents registered');
    expect(res.headers['sandbox-warnings']).toBe('0');
  });

  it('gives two batches two different keys', async () => {
    const a = await app();
    const k1 = await register(a, [validDocument(1)]);
    const k2 = await register(a, [validDocument(2)]);
    expect(k1).not.toBe(k2);
    expect((await participant(a)).batches.map((b) => b.chaveRemessa)).toEqual([k1, k2]);
  });

  it('stores each document with its own chaveRegistro and the sandbox date as dataRegistro', async () => {
    const a = await app();
    const key = await register(a, [validDocument(1), validDocument(2)]);
    const b = await batch(a, key);
    expect(b.participantId).toBe('PART-1');
    expect(b.registeredAt).toBe('2026-11-20T23:30:00.000Z');
    expect(b.dataRegistro).toBe('2026-11-20');
    expect(b.documents.map((d) => d.index)).toEqual([0, 1]);
    expect(new Set(b.documents.map((d) => d.chaveRegistro)).size).toBe(2);
    for (const d of b.documents) {
      expect(d.chaveRegistro).toMatch(/^RG[A-Z2-7]{24}$/);
      expect(d.dataRegistro).toBe('2026-11-20');
    }
    expect(b.documents[1]?.document.numeroDuplicata).toBe('DUP-2');
    expect(b.documents[1]?.document.valorDuplicata).toBe(1500.5);
    expect(b.documents[1]?.document.operacao).toEqual((validDocument(2) as { operacao: unknown }).operacao);
  });

  it('keeps the size and SHA-256 of documento, not its bytes', async () => {
    const a = await app();
    const doc = validDocument(7);
    const key = await register(a, [doc]);
    const held = (await batch(a, key)).documents[0]?.document;
    const bytes = Buffer.from(doc.documento as string, 'base64');
    const { createHash } = await import('node:crypto');
    expect(held?.documento).toEqual({
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    const stored = a.runtime.store.db.prepare('SELECT fields FROM rg_documents').pluck().get() as string;
    expect(stored).not.toContain(doc.documento as string);
  });

  it('accepts a document with no fields at all: the specification makes none required', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [{}] });
    expect(res.statusCode).toBe(200);
  });

  it('accepts an amount with two decimals and tax ids with or without punctuation', async () => {
    const a = await app();
    const res = await post(a, REGISTER, {
      registros: [
        { valorDuplicata: 0.29, cpfCnpjTitular: '529.982.247-25', cpfCnpjSacado: '11222333000181' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['sandbox-warnings']).toBe('0');
  });
});

describe('registry: refused registrations', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a date that does not exist', { dataEmissao: '2026-02-30' }, '/registros/0/dataEmissao'],
    ['a date in another format', { dataVencimento: '01/12/2026' }, '/registros/0/dataVencimento'],
    ['an amount with three decimals', { valorDuplicata: 10.005 }, '/registros/0/valorDuplicata'],
    ['an amount sent as a string', { valorDuplicata: '10.00' }, '/registros/0/valorDuplicata'],
    [
      'an operation amount with three decimals',
      { operacao: { valorOperacao: 1.234 } },
      '/registros/0/operacao/valorOperacao',
    ],
    [
      'an operation date that does not exist',
      { operacao: { dataOperacao: '2026-13-01' } },
      '/registros/0/operacao/dataOperacao',
    ],
    [
      'a tipoOperacao longer than one letter',
      { operacao: { tipoOperacao: 'CC' } },
      '/registros/0/operacao/tipoOperacao',
    ],
    [
      'a non-integer IBGE code',
      { codigoIBGEPracaPagamento: 3550308.5 },
      '/registros/0/codigoIBGEPracaPagamento',
    ],
    [
      'an IBGE code sent as a string',
      { codigoIBGEPracaPagamento: '3550308' },
      '/registros/0/codigoIBGEPracaPagamento',
    ],
    ['a non-integer tipoGarantia', { garantia: { tipoGarantia: 1.5 } }, '/registros/0/garantia/tipoGarantia'],
    ['a number where a string is expected', { numeroDuplicata: 123 }, '/registros/0/numeroDuplicata'],
    [
      'an unknown field in a guarantor',
      { garantia: { avalistas: [{ nome: 'x' }] } },
      '/registros/0/garantia/avalistas/0/nome',
    ],
    ['a reconciliation-only field', { chaveRegistro: 'RG1' }, '/registros/0/chaveRegistro'],
    ['statusPagamento in a registration', { statusPagamento: 1 }, '/registros/0/statusPagamento'],
    ['an unknown field', { valor: 1 }, '/registros/0/valor'],
  ];

  it.each(cases)('refuses %s with a 400 naming the exact pointer', async (_name, fields, path) => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [fields] });
    expect(res.statusCode).toBe(400);
    const body = res.json() as ErrorBody;
    expect(body.details.map((d) => d.path)).toEqual([path]);
  });

  it('points at the item that is wrong, not the first one', async () => {
    const a = await app();
    const res = await post(a, REGISTER, {
      registros: [validDocument(1), validDocument(2), { ...validDocument(3), dataEmissao: '2026-11-31' }],
    });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details).toEqual([
      { path: '/registros/2/dataEmissao', message: 'must be a real calendar date written YYYY-MM-DD' },
    ]);
  });

  it('refuses documento text that is not base64, naming the offset and never echoing the text', async () => {
    const a = await app();
    const res = await post(a, REGISTER, {
      registros: [validDocument(1), { documento: 'SGVsbG8-d29ybGQ=' }],
    });
    expect(res.statusCode).toBe(400);
    const body = res.json() as ErrorBody;
    expect(body.details).toHaveLength(1);
    expect(body.details[0]?.path).toBe('/registros/1/documento');
    expect(body.details[0]?.message).toMatch(/base64.*offset 7/);
    expect(res.body).not.toContain('SGVsbG8');
  });

  it('refuses a body without registros, an empty registros and registros that is not an array', async () => {
    const a = await app();
    for (const [body, path] of [
      [{}, '/registros'],
      [{ registros: [] }, '/registros'],
      [{ registros: {} }, '/registros'],
    ] as const) {
      const res = await post(a, REGISTER, body);
      expect(res.statusCode).toBe(400);
      expect((res.json() as ErrorBody).details[0]?.path).toBe(path);
    }
  });

  it('stores nothing when one document of the batch is refused', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [validDocument(1), { documento: 'not base64!' }] });
    expect(res.statusCode).toBe(400);
    const p = await participant(a);
    expect(p.documentCount).toBe(0);
    expect(p.batches).toEqual([]);
  });
});

describe('registry: domain checks', () => {
  const badCnpj = { ...validDocument(1), cpfCnpjSacador: '11222333000182' };

  it('accepts a bad CNPJ check digit by default, counting it in Sandbox-Warnings', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [validDocument(0), badCnpj] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['sandbox-warnings']).toBe('1');
    const b = await batch(a, (res.json() as { chaveRemessa: string }).chaveRemessa);
    expect(b.warnings).toEqual([
      {
        path: '/registros/1/cpfCnpjSacador',
        rule: 'tax-id',
        message: 'CNPJ check digits do not match (expected 81)',
      },
    ]);
  });

  it('refuses the bad CNPJ with a 400 when the request sends Sandbox-Strict: true', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [badCnpj] }, { headers: { 'sandbox-strict': 'true' } });
    expect(res.statusCode).toBe(400);
    const body = res.json() as ErrorBody;
    expect(body.details).toHaveLength(1);
    expect(body.details[0]?.path).toBe('/registros/0/cpfCnpjSacador');
    expect(body.details[0]?.message).toContain('tax-id');
    expect((await participant(a)).documentCount).toBe(0);
  });

  it('lists base64 and domain problems together, in item order, in strict mode', async () => {
    const a = await app();
    const res = await post(
      a,
      REGISTER,
      { registros: [{ chaveNFe: '123' }, { documento: 'a' }, { codigoIBGEPracaPagamento: 1 }] },
      { headers: { 'sandbox-strict': 'true' } },
    );
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual([
      '/registros/0/chaveNFe',
      '/registros/1/documento',
      '/registros/2/codigoIBGEPracaPagamento',
    ]);
  });

  it('refuses the bad CNPJ when the sandbox runs in strict mode', async () => {
    const a = await app({ strict: true });
    const res = await post(a, REGISTER, { registros: [badCnpj] });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details[0]?.path).toBe('/registros/0/cpfCnpjSacador');
  });

  it('does not let Sandbox-Strict: false loosen a strict sandbox', async () => {
    const a = await app({ strict: true });
    const res = await post(a, REGISTER, { registros: [badCnpj] }, { headers: { 'sandbox-strict': 'false' } });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a Sandbox-Strict value other than true or false', async () => {
    const a = await app();
    const res = await post(
      a,
      REGISTER,
      { registros: [validDocument()] },
      { headers: { 'sandbox-strict': 'yes' } },
    );
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details[0]?.path).toBe('/sandbox-strict');
  });

  it('accepts the alphanumeric CNPJ 12ABC34501DE35 without a warning', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [{ cpfCnpjTitular: '12.ABC.345/01DE-35' }] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['sandbox-warnings']).toBe('0');
  });

  it('takes a tax id bare or in its mask only: other punctuation or surrounding whitespace is a tax-id warning of that field, a 400 in strict mode; the value is kept as sent', async () => {
    const a = await app();
    const odd = {
      cpfCnpjTitular: ' 11222333000181 ',
      cpfCnpjSacador: '112223330001/81',
      cpfCnpjSacado: '529.98224725',
      garantia: { avalistas: [{ cpfCnpjAvalista: '529.982.247-25' }, { cpfCnpjAvalista: '11.222.333/000181' }] },
    };
    const key = await register(a, [odd]);
    const b = await batch(a, key);
    expect(b.warnings.map((w) => [w.path, w.rule])).toEqual([
      ['/registros/0/cpfCnpjTitular', 'tax-id'],
      ['/registros/0/cpfCnpjSacador', 'tax-id'],
      ['/registros/0/cpfCnpjSacado', 'tax-id'],
      ['/registros/0/garantia/avalistas/1/cpfCnpjAvalista', 'tax-id'],
    ]);
    for (const w of b.warnings) expect(w.message).toMatch(/NNN\.NNN\.NNN-NN|NN\.NNN\.NNN\/NNNN-NN/);
    expect(b.documents[0]?.document).toMatchObject(odd);
    const strict = await post(a, REGISTER, { registros: [odd] }, { headers: { 'sandbox-strict': 'true' } });
    expect(strict.statusCode).toBe(400);
    expect((strict.json() as ErrorBody).details.map((d) => d.path)).toEqual(b.warnings.map((w) => w.path));
  });

  it('warns on each rule with its pointer: CPF, guarantor, NF-e key, IBGE code and due date', async () => {
    const a = await app();
    const key = await register(a, [
      {
        cpfCnpjTitular: '529.982.247-26',
        garantia: { avalistas: [{ cpfCnpjAvalista: '11222333000181' }, { cpfCnpjAvalista: '123' }] },
        chaveNFe: '35260722333444000181550010001234561123456788',
        codigoIBGEPracaPagamento: 3550309,
        dataEmissao: '2026-11-10',
        dataVencimento: '2026-11-09',
      },
    ]);
    const warnings = (await batch(a, key)).warnings;
    expect(warnings.map((w) => [w.path, w.rule])).toEqual([
      ['/registros/0/cpfCnpjTitular', 'tax-id'],
      ['/registros/0/garantia/avalistas/1/cpfCnpjAvalista', 'tax-id'],
      ['/registros/0/chaveNFe', 'nfe-key'],
      ['/registros/0/codigoIBGEPracaPagamento', 'ibge-code'],
      ['/registros/0/dataVencimento', 'due-date'],
    ]);
  });

  it('accepts one of the nine real IBGE codes that fail the check digit', async () => {
    const a = await app();
    const res = await post(a, REGISTER, { registros: [{ codigoIBGEPracaPagamento: 2201919 }] });
    expect(res.headers['sandbox-warnings']).toBe('0');
  });

  it('accepts a due date equal to the issue date', async () => {
    const a = await app();
    const res = await post(a, REGISTER, {
      registros: [{ dataEmissao: '2026-11-10', dataVencimento: '2026-11-10' }],
    });
    expect(res.headers['sandbox-warnings']).toBe('0');
  });
});

describe('registry: large batches', () => {
  it('registers 10 000 documents in one batch', async () => {
    const a = await app();
    const registros = Array.from({ length: 10_000 }, (_, i) => validDocument(i));
    const res = await post(a, REGISTER, { registros });
    expect(res.statusCode).toBe(200);
    expect((await participant(a)).documentCount).toBe(10_000);
  });

  it('answers a 10 000-item batch of mistakes with a 400 that counts them all but lists 100', async () => {
    const a = await app();
    const registros = Array.from({ length: 10_000 }, () => ({ cpfCnpjSacado: '11111111111' }));
    const res = await post(a, REGISTER, { registros }, { headers: { 'sandbox-strict': 'true' } });
    expect(res.statusCode).toBe(400);
    const body = res.json() as ErrorBody;
    expect(body.details).toHaveLength(100);
    expect(body.message).toContain('and 9999 more problems');
  });
});

describe('registry: query parameters', () => {
  it('refuses a query parameter on either operation (none is documented) with a 400 naming it, and stores nothing', async () => {
    const a = await app();
    for (const url of [REGISTER, RECONCILE]) {
      const payload = url === REGISTER ? { registros: [validDocument()] } : { registros: [{ chaveRegistro: 'RG-none' }] };
      const res = await post(a, `${url}?foo=1&Sandbox-Strict=true`, payload);
      expect(res.statusCode, url).toBe(400);
      const body = res.json() as ErrorBody;
      expect(body.details.map((d) => d.path)).toEqual(['/foo', '/Sandbox-Strict']);
      expect(body.details[0]?.message).toContain('query parameter foo');
      expect(res.headers['sandbox-outcome']).toMatch(/\.query-invalid$/);
    }
    expect((await participant(a)).documentCount).toBe(0);
  });

  it('names the query parameter beside the problems of the body', async () => {
    const a = await app();
    const res = await post(a, `${REGISTER}?x=1`, { registros: [{ valorDuplicata: 'ten' }] });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual(['/registros/0/valorDuplicata', '/x']);
  });

  it('answers a query parameter sent with no credentials with the 401 first', async () => {
    const a = await app();
    const res = await post(a, `${REGISTER}?foo=1`, { registros: [validDocument()] }, { token: null });
    expect(res.statusCode).toBe(401);
  });
});
