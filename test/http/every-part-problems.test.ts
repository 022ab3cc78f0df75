// Fastify validates a request's parts in the order params, body, querystring, headers and stops at
// the first it refuses; the sandbox's answer names the problems of every part at once, in that order
// (a body's other checks right after its schema's), each with the pointer and message it gets alone
// (assumption error-body). Every documented route that validates more than one part is here.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { serveInterface, useStandardErrors } from '../../src/http/interface-plugin.js';
import { Strict, StrictHeaders } from '../../src/http/schema.js';
import { validatorCompiler } from '../../src/http/validation.js';
import { INTERFACES } from '../../src/interfaces.js';
import { AUTH, BASE, bookkeepingApp, paymentUrl, TENANT } from '../bookkeeping/helpers.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { body as lbBody, lbApp, record as lbRecord } from '../loanbond/helpers.js';
import { RECONCILE, REGISTER, validDocument } from '../registry/helpers.js';

type Detail = { path: string; message: string };
const details = (res: LightMyRequestResponse) => (res.json() as { details: Detail[] }).details;
const paths = (res: LightMyRequestResponse) => details(res).map((d) => d.path);

/** The answer to each request alone, and to all of them at once: the details of each, in order. */
function expectEachAsAlone(together: LightMyRequestResponse, ...alone: LightMyRequestResponse[]) {
  expect(together.statusCode).toBe(400);
  for (const res of alone) expect(res.statusCode).toBe(400);
  expect(details(together)).toEqual(alone.flatMap(details));
  const count = alone.reduce((n, res) => n + details(res).length, 0);
  expect((together.json() as { message: string }).message).toMatch(new RegExp(`\\(and ${count - 1} more problems?\\)$`));
}

describe('a route of every part (params, body, querystring, headers), all refused', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    while (apps.length) await apps.pop()?.close();
  });

  const route: FastifyPluginAsyncTypebox = async (app) => {
    app.put(
      '/thing/:id',
      {
        schema: {
          params: Type.Object({ id: Type.String({ maxLength: 3 }) }),
          body: Strict({ name: Type.String() }),
          querystring: Strict({ page: Type.Optional(Type.Integer({ minimum: 1 })) }),
          headers: StrictHeaders('test'),
        },
      },
      async () => ({ ok: true }),
    );
  };

  async function build(): Promise<FastifyInstance> {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    await app.register(async (bk) => {
      serveInterface(bk, INTERFACES.contract('bookkeeping'));
      await bk.register(route);
    }, { prefix: '/bk' });
    await app.register(async (control) => {
      useStandardErrors(control, () => 'no such route');
      await control.register(route);
    }, { prefix: '/control' });
    apps.push(app);
    return app;
  }

  const send = (app: FastifyInstance, prefix: string, parts: { id?: string; body?: unknown; query?: string; strict?: string }) =>
    app.inject({
      method: 'PUT',
      url: `${prefix}/thing/${parts.id ?? 'ok'}${parts.query ?? ''}`,
      headers: parts.strict === undefined ? {} : { 'sandbox-strict': parts.strict },
      payload: (parts.body ?? { name: 'x' }) as object,
    });

  it.each(['/bk', '/control'])('%s: names each part\'s problems in Fastify\'s order, as each part alone names them', async (prefix) => {
    const app = await build();
    const bad = { id: 'long', body: { name: 5 }, query: '?page=0', strict: 'maybe' };
    const together = await send(app, prefix, bad);
    expect(paths(together)).toEqual(['/id', '/name', '/page', '/sandbox-strict']);
    expectEachAsAlone(
      together,
      await send(app, prefix, { id: bad.id }),
      await send(app, prefix, { body: bad.body }),
      await send(app, prefix, { query: bad.query }),
      await send(app, prefix, { strict: bad.strict }),
    );
  });

  it('names a bad query parameter beside a refused body', async () => {
    const app = await build();
    const res = await send(app, '/bk', { body: { name: 5, other: 1 }, query: '?page=x' });
    expect(paths(res)).toEqual(['/other', '/name', '/page']);
    expect(details(res)[2]?.message).toBe('query parameter page must be an integer written in decimal digits');
  });

  it('names the body beside a malformed path parameter, and accepts what passes', async () => {
    const app = await build();
    expect(paths(await send(app, '/bk', { id: 'long', body: {} }))).toEqual(['/id', '/name']);
    expect((await send(app, '/bk', { query: '?page=2', strict: 'true' })).statusCode).toBe(200);
  });
});

describe('the documented routes that validate more than one part', () => {
  it('PUT payment: an empty uid is named beside the body\'s problems', async () => {
    const app = await bookkeepingApp({ tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 100 }] });
    const url = `${BASE}/${TENANT}/trade-receivable-certificates//payment`;
    const bad = { type: 'bankSlip', informantId: 'x', isPartial: 'yes', paymentValue: 10 };
    const res = await app.inject({ method: 'PUT', url, headers: AUTH, payload: bad });
    expect(res.statusCode).toBe(400);
    expect(paths(res)).toEqual(['/uid', '/isPartial']);
    expect(details(res)[0]?.message).toBe('path parameter uid must NOT have fewer than 1 characters');
    // The same body on a real uid: the body's problem alone, as before.
    const alone = await app.inject({ method: 'PUT', url: paymentUrl(TENANT, 'IUD-1'), headers: AUTH, payload: bad });
    expect(paths(alone)).toEqual(['/isPartial']);
  });

  it('GET extract: a malformed tenantId first, then every problem of the query (bk-credential-order, unchanged)', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: `${BASE}/1122233300018X/trade-receivable-certificates/extract?page=0&desc=maybe`, headers: AUTH });
    expect(paths(res)).toEqual(['/tenantId', '/desc', '/page']);
  });

  describe.each([
    ['registrar_documentos', REGISTER],
    ['conciliar_documentos', RECONCILE],
  ])('POST %s', (_name, url) => {
    const post = async (strict: string | undefined, registros: unknown[]) => {
      const app = await testApp({ fixtures: BASE_FIXTURES });
      return app.inject({
        method: 'POST',
        url,
        headers: { authorization: 'Bearer rg-token-1', ...(strict === undefined ? {} : { 'sandbox-strict': strict }) },
        payload: { registros },
      });
    };
    const schemaRefused = url === REGISTER ? { ...validDocument(1), dataEmissao: 'yesterday' } : { chaveRegistro: 5 };
    const schemaPath = url === REGISTER ? '/registros/0/dataEmissao' : '/registros/0/chaveRegistro';
    const accepted = url === REGISTER ? validDocument(3) : { chaveRegistro: 'K' };
    const notBase64 = url === REGISTER ? { ...validDocument(2), documento: 'not base64!' } : { chaveRegistro: 'K', documento: 'not base64!' };

    it('names the header after the body\'s schema problems and its other checks, whichever part Fastify refused', async () => {
      const both = await post('maybe', [schemaRefused, notBase64]);
      expect(paths(both)).toEqual([schemaPath, '/registros/1/documento', '/sandbox-strict']);
      const headerAndCheck = await post('maybe', [notBase64]);
      expect(paths(headerAndCheck)).toEqual(['/registros/0/documento', '/sandbox-strict']);
      expectEachAsAlone(headerAndCheck, await post(undefined, [notBase64]), await post('maybe', [accepted]));
    });
  });

  describe('POST /v1/import-cnab', () => {
    const valid = { token: 'rc-token-1', fundCnpj: '11222333000181', operationFile: 'MDE=', fileName: 'f.rem', additiveNumber: 1 };
    const post = async (strict: string | undefined, body: Record<string, unknown>) => {
      const app = await testApp({ fixtures: BASE_FIXTURES });
      const res = await app.inject({
        method: 'POST',
        url: '/v1/import-cnab',
        headers: strict === undefined ? {} : { 'sandbox-strict': strict },
        payload: body,
      });
      return res.json() as { error: { code: string; message: string; target: string | null } };
    };

    it('targets the body\'s first problem and names the header last in the message, whichever part Fastify refused', async () => {
      // 'MDE=' is a file of one 2-byte line: a problem of the file, read for this authenticated caller.
      const shape = await post('maybe', { ...valid, fileName: 'x'.repeat(151) });
      expect(shape.error).toMatchObject({ code: 'ValidationError', target: 'fileName' });
      expect(shape.error.message).toMatch(/\(and 2 more problems\): \/operationFile: .*; \/sandbox-strict: header sandbox-strict must be true or false/);
      const cnpj = await post('maybe', { ...valid, fundCnpj: '11222333000100' });
      expect(cnpj.error).toMatchObject({ code: 'ValidationError', target: 'fundCnpj' });
      expect(cnpj.error.message).toMatch(/\(and 1 more problem\): \/sandbox-strict: header sandbox-strict/);
    });
  });

  it('POST registrar (loan-bond): a Sandbox-Strict value it does not take is named beside the body\'s problems', async () => {
    const app = await lbApp();
    const send = (strict: string | undefined, payload: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: '/api/service/document/registrar',
        headers: strict === undefined ? {} : { 'sandbox-strict': strict },
        payload,
      });
    const bad = { ...lbBody([lbRecord()]), versao: 1 };
    const together = await send('maybe', bad);
    expect(paths(together)).toEqual(['/versao', '/sandbox-strict']);
    expectEachAsAlone(together, await send(undefined, bad), await send('maybe', lbBody([lbRecord()])));
  });

  it('POST registrar (loan-bond): a missing token is the 401 (lb-check-order), unless a header is refused too', async () => {
    const app = await lbApp();
    const { token: _token, ...tokenless } = lbBody([lbRecord()]);
    const send = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/api/service/document/registrar', headers, payload: tokenless });
    expect((await send({})).statusCode).toBe(401);
    expect((await send({ 'sandbox-strict': 'true' })).statusCode).toBe(401);
    const both = await send({ 'sandbox-strict': 'maybe' });
    expect(both.statusCode).toBe(400);
    expect(paths(both)).toEqual(['/token', '/sandbox-strict']);
  });

  describe('the control plane\'s subscriptions', () => {
    const LONG = 's'.repeat(101);

    it('GET /_sandbox/subscriptions/{id}/deliveries: an id too long is named beside the query\'s problems', async () => {
      const app = await testApp();
      const together = await app.inject({ url: `/_sandbox/subscriptions/${LONG}/deliveries?limit=0&status=lost` });
      expect(paths(together)).toEqual(['/id', '/status', '/limit']);
      expectEachAsAlone(
        together,
        await app.inject({ url: `/_sandbox/subscriptions/${LONG}/deliveries` }),
        await app.inject({ url: '/_sandbox/subscriptions/S-1/deliveries?limit=0&status=lost' }),
      );
    });

    it('PUT /_sandbox/subscriptions/{id}/faults: an id too long is named beside the body\'s problems', async () => {
      const app = await testApp();
      const put = (id: string, payload: object) => app.inject({ method: 'PUT', url: `/_sandbox/subscriptions/${id}/faults`, payload });
      const together = await put(LONG, { failFirst: 11, fast: true });
      expect(paths(together)).toEqual(['/id', '/fast', '/failFirst']);
      expectEachAsAlone(together, await put(LONG, {}), await put('S-1', { failFirst: 11, fast: true }));
      // The delay's reading, which the route makes beyond the schema, is named too.
      const delay = await put(LONG, { delay: 'soon' });
      expect(paths(delay)).toEqual(['/id', '/delay']);
      expect(details(delay)[1]).toEqual(details(await put('S-1', { delay: 'soon' }))[0]);
    });
  });
});
