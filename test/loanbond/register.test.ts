import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  body,
  type ErrorBody,
  lbApp,
  pdf,
  post,
  record,
  registrationCount,
  SIGNATURE,
  SIGNER,
} from './helpers.js';
import { detailPaths } from '../helpers.js';

interface Created {
  codigo: string;
  mensagem: string;
  registros: Array<{ codigo_identificador: string; chave_registro: string; token_acesso: string }>;
}

describe('POST /api/service/document/registrar', () => {
  it('registers one complete record and answers 201 with its identifiers and keys', async () => {
    const app = await lbApp();
    const res = await post(app, body([record()]));
    expect(res.statusCode).toBe(201);
    const created = res.json() as Created;
    expect(Object.keys(created).sort()).toEqual(['codigo', 'mensagem', 'registros']);
    expect(typeof created.codigo).toBe('string');
    expect(created.mensagem).toContain('1 record registered');
    expect(created.registros).toHaveLength(1);
    const item = created.registros[0];
    expect(Object.keys(item ?? {}).sort()).toEqual([
      'chave_registro',
      'codigo_identificador',
      'token_acesso',
    ]);
    expect(item?.token_acesso).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await registrationCount(app)).toBe(1);
  });

  it('registers 50 records in order, one item each, every value distinct', async () => {
    const app = await lbApp();
    const records = Array.from({ length: 50 }, (_, i) => record({ nome_documento: `ccb-${i}.pdf` }));
    const res = await post(app, body(records));
    expect(res.statusCode).toBe(201);
    const created = res.json() as Created;
    expect(created.registros).toHaveLength(50);
    const values = created.registros.flatMap((r) => [
      r.codigo_identificador,
      r.chave_registro,
      r.token_acesso,
    ]);
    expect(new Set(values).size).toBe(150);
    // In order: the nth item is the nth record.
    const list = (await app.inject({ url: '/_sandbox/loanbond/registrations' })).json() as {
      registrations: Array<{ codigo_identificador: string; nome_documento: string; position: number }>;
    };
    created.registros.forEach((item, i) => {
      const found = list.registrations.find((r) => r.codigo_identificador === item.codigo_identificador);
      expect(found?.nome_documento).toBe(`ccb-${i}.pdf`);
      expect(found?.position).toBe(i);
    });
  });

  it('refuses 51 records with a 400 on /registros (rule 6) and stores nothing', async () => {
    const app = await lbApp();
    const small = record({ assinantes: [], assinaturas: [], documentos_adicionais: [] });
    const res = await post(app, body(Array.from({ length: 51 }, () => small)));
    expect(res.statusCode).toBe(400);
    const err = res.json() as ErrorBody;
    expect(err.details).toEqual([
      { path: '/registros', message: 'rule 6: a request holds at most 50 records; this one holds 51' },
    ]);
    expect(await registrationCount(app)).toBe(0);
  });

  it('refuses an empty registros list', async () => {
    const app = await lbApp();
    const res = await post(app, body([]));
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details[0]?.path).toBe('/registros');
  });

  it('answers 401 to an unknown token, without echoing it', async () => {
    const app = await lbApp();
    const res = await post(app, body([record()], 'not-a-known-token'));
    expect(res.statusCode).toBe(401);
    const err = res.json() as ErrorBody;
    expect(err.details[0]?.path).toBe('/token');
    expect(res.body).not.toContain('not-a-known-token');
    expect(await registrationCount(app)).toBe(0);
  });

  it('answers 401 to a missing token, as the contract says for missing or unknown', async () => {
    const app = await lbApp();
    const { token: _omitted, ...withoutToken } = body([record()]) as { token?: string };
    const res = await post(app, withoutToken);
    expect(res.statusCode).toBe(401);
    expect((res.json() as ErrorBody).details[0]).toEqual({ path: '/token', message: expect.stringMatching(/required/) });
    expect(await registrationCount(app)).toBe(0);
  });

  it('answers 401 naming rule 1 when the caller lacks the electronic-signature product', async () => {
    const app = await lbApp();
    const res = await post(app, body([record()], 'lb-no-signature'));
    expect(res.statusCode).toBe(401);
    const err = res.json() as ErrorBody;
    expect(err.message).toContain('rule 1');
    expect(err.message).toContain('electronic-signature');
    expect(err.message).not.toContain('rule 2');
  });

  it('answers 401 naming rule 2 when the caller lacks the digital loan-bond product', async () => {
    const app = await lbApp();
    const res = await post(app, body([record()], 'lb-no-ccb'));
    expect(res.statusCode).toBe(401);
    const err = res.json() as ErrorBody;
    expect(err.message).toContain('rule 2');
    expect(err.message).toContain('digital loan-bond');
    expect(err.message).not.toContain('rule 1');
  });

  it('names both rules when the caller lacks both products', async () => {
    const app = await lbApp();
    const res = await post(app, body([record()], 'lb-no-products'));
    expect(res.statusCode).toBe(401);
    expect((res.json() as ErrorBody).details.map((d) => d.message.slice(0, 6))).toEqual(['rule 1', 'rule 2']);
  });

  it('validates the body before the token: a bad body with an unknown token is a 400', async () => {
    const app = await lbApp();
    const res = await post(app, { versao: '2.0', token: 'unknown', registros: [{}] });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details).toContainEqual({
      path: '/registros/0/documento',
      message: 'is required',
    });
  });

  it('checks the token before the files: an unknown token with a non-PDF is a 401', async () => {
    const app = await lbApp();
    const res = await post(
      app,
      body([record({ documento: Buffer.from('hello').toString('base64') })], 'unknown'),
    );
    expect(res.statusCode).toBe(401);
  });

  it.each([
    ['versao', { token: 'lb-token-1', registros: [] }],
    ['registros', { versao: '2.0', token: 'lb-token-1' }],
  ])('requires %s', async (field, payload) => {
    const app = await lbApp();
    const res = await post(app, payload);
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details).toContainEqual({ path: `/${field}`, message: 'is required' });
  });

  it('refuses endereco.numero sent as a string, with its pointer', async () => {
    const app = await lbApp();
    const signer = { ...SIGNER, endereco: { ...SIGNER.endereco, numero: '100' } };
    const res = await post(app, body([record(), record({ assinantes: [SIGNER, signer] })]));
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details).toContainEqual({
      path: '/registros/1/assinantes/1/endereco/numero',
      message: 'must be integer',
    });
    expect(await registrationCount(app)).toBe(0);
  });

  it('refuses tipo_assinatura sent as a string, in a record and in an additional document', async () => {
    const app = await lbApp();
    const bad = { ...SIGNATURE, tipo_assinatura: '1' };
    const res = await post(
      app,
      body([
        record({
          assinaturas: [bad],
          documentos_adicionais: [{ nome: 'a', conteudo: pdf(), assinaturas: [SIGNATURE, bad] }],
        }),
      ]),
    );
    expect(res.statusCode).toBe(400);
    const paths = (res.json() as ErrorBody).details.map((d) => d.path);
    expect(paths).toEqual([
      '/registros/0/assinaturas/0/tipo_assinatura',
      '/registros/0/documentos_adicionais/0/assinaturas/1/tipo_assinatura',
    ]);
  });

  it.each([
    ['uf of three letters', { uf: 'SPO' }, '/registros/0/assinantes/0/endereco/uf'],
    ['uf with a digit', { uf: 'S1' }, '/registros/0/assinantes/0/endereco/uf'],
    ['numero with decimals', { numero: 10.5 }, '/registros/0/assinantes/0/endereco/numero'],
    ['an unknown address field', { pais: 'BR' }, '/registros/0/assinantes/0/endereco/pais'],
  ])('refuses %s', async (_name, change, path) => {
    const app = await lbApp();
    const signer = { ...SIGNER, endereco: { ...SIGNER.endereco, ...change } };
    const res = await post(app, body([record({ assinantes: [signer] })]));
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toContain(path);
  });

  it.each([
    [
      'a nested certificate field of the wrong type',
      { certificado_digital: { ...SIGNATURE.certificado_digital, numero_serie: 1234 } },
      '/registros/0/assinaturas/0/certificado_digital/numero_serie',
    ],
    [
      'an unknown field in carimbo_tempo',
      { carimbo_tempo: { ...SIGNATURE.carimbo_tempo, extra: 'x' } },
      '/registros/0/assinaturas/0/carimbo_tempo/extra',
    ],
    ['lcr as a string', { lcr: 'x' }, '/registros/0/assinaturas/0/lcr'],
    [
      'assinatura_eletronica.pin as a number',
      { assinatura_eletronica: { pin: 1234 } },
      '/registros/0/assinaturas/0/assinatura_eletronica/pin',
    ],
  ])('refuses %s with its pointer', async (_name, change, path) => {
    const app = await lbApp();
    const res = await post(app, body([record({ assinaturas: [{ ...SIGNATURE, ...change }] })]));
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toContain(path);
  });

  it.each([
    [
      'an installment value with three decimals',
      { parcelas: [{ numero: 1, valor: 10.005 }] },
      '/registros/0/parcelas/0/valor',
    ],
    ['an installment numero as a string', { parcelas: [{ numero: '1' }] }, '/registros/0/parcelas/0/numero'],
    ['assinado as a string', { assinado: 'true' }, '/registros/0/assinado'],
    ['an e-mail list of numbers', { emails_final_fluxo: [1] }, '/registros/0/emails_final_fluxo/0'],
    ['an unknown record field', { observacao: 'x' }, '/registros/0/observacao'],
    [
      'an additional document without conteudo',
      { documentos_adicionais: [{ nome: 'a' }] },
      '/registros/0/documentos_adicionais/0/conteudo',
    ],
  ])('refuses %s', async (_name, change, path) => {
    const app = await lbApp();
    const res = await post(app, body([record(change)]));
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toContain(path);
  });

  it('accepts a minimal record: only documento', async () => {
    const app = await lbApp();
    const res = await post(app, body([{ documento: pdf() }]));
    expect(res.statusCode).toBe(201);
  });

  it('refuses a request with one bad record whole, storing nothing', async () => {
    const app = await lbApp();
    const records = [record(), record(), record({ documento: Buffer.from('not a pdf').toString('base64') })];
    const res = await post(app, body(records));
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual(['/registros/2/documento']);
    expect(await registrationCount(app)).toBe(0);
    const docs = (await app.inject({ url: '/_sandbox/loanbond/documents' })).json() as { count: number };
    expect(docs.count).toBe(0);
  });

  it('refuses a body that is not JSON with a 400', async () => {
    const app = await lbApp();
    const res = await app.inject({
      method: 'POST',
      url: '/api/service/document/registrar',
      headers: { 'content-type': 'application/json' },
      payload: '{"versao":',
    });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).message).toContain('not valid JSON');
  });

  it('keeps a bad cpf_cnpj as a warning, shown by inspection', async () => {
    const app = await lbApp();
    const res = await post(app, body([record({ assinantes: [{ ...SIGNER, cpf_cnpj: '52998224724' }] })]));
    expect(res.statusCode).toBe(201);
    const id = (res.json() as Created).registros[0]?.codigo_identificador;
    const detail = (await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` })).json() as {
      warnings: Array<{ path: string; message: string }>;
    };
    expect(detail.warnings.map((w) => w.path)).toEqual(['/registros/0/assinantes/0/cpf_cnpj']);
  });

  it('takes cpf_cnpj bare or in its mask only: surrounding whitespace or other punctuation warns (400 in strict mode), and the value is kept as sent', async () => {
    const app = await lbApp();
    const odd = [' 52998224725', '112223330001/81'];
    const payload = body([
      record({ assinado: true, assinantes: [{ ...SIGNER, cpf_cnpj: odd[0] }], assinaturas: [{ ...SIGNATURE, cpf_cnpj: odd[1] }] }),
    ]);
    const res = await post(app, payload);
    expect(res.statusCode).toBe(201);
    const id = (res.json() as Created).registros[0]?.codigo_identificador;
    const detail = (await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` })).json() as {
      warnings: Array<{ path: string; message: string }>;
    };
    expect(detail.warnings.map((w) => w.path)).toEqual(['/registros/0/assinantes/0/cpf_cnpj', '/registros/0/assinaturas/0/cpf_cnpj']);
    for (const w of detail.warnings) expect(w.message).toMatch(/NNN\.NNN\.NNN-NN/);
    expect(JSON.stringify(detail)).toContain(JSON.stringify(odd[0]));
    expect(JSON.stringify(detail)).toContain(JSON.stringify(odd[1]));
    const strict = await app.inject({ method: 'POST', url: '/api/service/document/registrar', headers: { 'sandbox-strict': 'true' }, payload });
    expect(strict.statusCode).toBe(400);
    expect((strict.json() as ErrorBody).details.map((d) => d.path)).toEqual(detail.warnings.map((w) => w.path));
  });

  it('refuses a bad cpf_cnpj with its pointer when the sandbox is strict', async () => {
    const app = await lbApp({ strict: true });
    const res = await post(
      app,
      body([record(), record({ assinaturas: [{ ...SIGNATURE, cpf_cnpj: '11222333000180' }] })]),
    );
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual([
      '/registros/1/assinaturas/0/cpf_cnpj',
    ]);
    expect(await registrationCount(app)).toBe(0);
  });

  it('refuses a bad cpf_cnpj for one request with the header Sandbox-Strict: true', async () => {
    const app = await lbApp();
    const payload = body([record({ assinaturas: [{ ...SIGNATURE, cpf_cnpj: '11222333000180' }] })]);
    const res = await app.inject({
      method: 'POST',
      url: '/api/service/document/registrar',
      headers: { 'sandbox-strict': 'true' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual(['/registros/0/assinaturas/0/cpf_cnpj']);
    expect(await registrationCount(app)).toBe(0);
    expect((await post(app, payload)).statusCode).toBe(201);
  });

  it('reports a bad cpf_cnpj in strict mode beside the schema errors of the same body (fast-check)', async () => {
    const app = await lbApp();
    // A field of the wrong type somewhere in the body, and a cpf_cnpj with wrong check digits somewhere else.
    const schemaErrors: Array<[string, (b: Record<string, unknown>, r: Record<string, unknown>) => void]> = [
      ['/versao', (b) => (b.versao = 1)],
      ['/registros/0/nome_documento', (_b, r) => (r.nome_documento = 7)],
      ['/registros/0/assinado', (_b, r) => (r.assinado = 'true')],
      ['/registros/0/parcelas/0/numero', (_b, r) => (r.parcelas = [{ numero: '1', data_vencimento: '2026-12-10', valor: 1 }])],
      ['/registros/0/emails_final_fluxo', (_b, r) => (r.emails_final_fluxo = 'ops@example.com')],
    ];
    const badIds: Array<[string, (r: Record<string, unknown>, id: string) => void]> = [
      ['/registros/0/assinantes/0/cpf_cnpj', (r, id) => (r.assinantes = [{ ...SIGNER, cpf_cnpj: id }])],
      ['/registros/0/assinaturas/0/cpf_cnpj', (r, id) => (r.assinaturas = [{ ...SIGNATURE, cpf_cnpj: id }])],
      [
        '/registros/0/documentos_adicionais/0/assinaturas/0/cpf_cnpj',
        (r, id) => (r.documentos_adicionais = [{ nome: 'anexo.pdf', conteudo: pdf(), assinaturas: [{ ...SIGNATURE, cpf_cnpj: id }] }]),
      ],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...schemaErrors),
        fc.constantFrom(...badIds),
        fc.constantFrom('123', '11222333000180', '12345678900', '1122233300018a'),
        async ([schemaPath, breakSchema], [idPath, breakId], id) => {
          const r = record();
          const b = body([r]);
          breakSchema(b, r);
          breakId(r, id);
          const res = await app.inject({ method: 'POST', url: '/api/service/document/registrar', headers: { 'sandbox-strict': 'true' }, payload: b });
          expect(res.statusCode).toBe(400);
          const paths = (res.json() as ErrorBody).details.map((d) => d.path);
          expect(paths).toContain(schemaPath);
          expect(paths).toContain(idPath);
          // Without strict mode a bad tax id is a warning, never a 400 detail.
          const lax = await app.inject({ method: 'POST', url: '/api/service/document/registrar', payload: b });
          expect((lax.json() as ErrorBody).details.map((d) => d.path)).not.toContain(idPath);
        },
      ),
      { numRuns: 40 },
    );
    expect(await registrationCount(app)).toBe(0);
  });

  it('answers 501 naming the named-only operations for another path under the prefix', async () => {
    const app = await lbApp();
    const res = await app.inject({ method: 'POST', url: '/api/service/document/cancelar', payload: {} });
    expect(res.statusCode).toBe(501);
    expect((res.json() as { namedOnlyOperations: string[] }).namedOnlyOperations).toContain(
      'cancel loan-bond',
    );
  });
});

describe('POST /api/service/document/registrar: query parameters', () => {
  it('refuses a query parameter (none is documented) with a 400 naming it, and registers nothing', async () => {
    const app = await lbApp();
    const res = await app.inject({ method: 'POST', url: '/api/service/document/registrar?foo=1', payload: body([record()]) });
    expect(res.statusCode).toBe(400);
    const details = (res.json() as ErrorBody).details;
    expect(details.map((d) => d.path)).toEqual(['/foo']);
    expect(details[0]?.message).toContain('query parameter foo');
    expect(res.headers['sandbox-outcome']).toBe('register-loan-bond.query-invalid');
    expect(await registrationCount(app)).toBe(0);
  });

  it('names it with a missing token in one 400, as a refused header is named (lb-check-order)', async () => {
    const app = await lbApp();
    const payload = body([record()]);
    delete payload.token;
    const res = await app.inject({ method: 'POST', url: '/api/service/document/registrar?foo=1', payload });
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual(['/token', '/foo']);
  });
});
