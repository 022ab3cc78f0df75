// The HTTP edge every interface shares, tested on a bare Fastify with one route per error shape.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxError } from '../../src/http/errors.js';
import { serveInterface } from '../../src/http/interface-plugin.js';
import { INTERFACES } from '../../src/interfaces.js';
import { Money, Strict } from '../../src/http/schema.js';
import { validatorCompiler } from '../../src/http/validation.js';

const Body = Strict({
  name: Type.String({ maxLength: 5 }),
  amount: Type.Optional(Money()),
  items: Type.Optional(Type.Array(Strict({ n: Type.Integer() }))),
});

function plugin(id: 'bookkeeping' | 'receivables'): FastifyPluginAsyncTypebox {
  return async (app) => {
    serveInterface(app, INTERFACES.contract(id));
    app.post('/thing', { schema: { body: Body } }, async (request) => ({ got: request.body }));
    app.post('/teapot', async () => {
      throw new SandboxError(418, 'undocumented status');
    });
    app.post('/crash', async () => {
      throw new Error('secret internals');
    });
  };
}

const apps: Array<ReturnType<typeof Fastify>> = [];
afterEach(async () => {
  while (apps.length) await apps.pop()?.close();
});

async function build(bodyLimit = 1024 * 1024) {
  const app = Fastify({ bodyLimit });
  app.setValidatorCompiler(validatorCompiler);
  await app.register(plugin('bookkeeping'), { prefix: '/bk' });
  await app.register(plugin('receivables'), { prefix: '/rc' });
  apps.push(app);
  return app;
}

const post = (
  app: Awaited<ReturnType<typeof build>>,
  url: string,
  payload: string,
  type = 'application/json',
) => app.inject({ method: 'POST', url, payload, headers: type ? { 'content-type': type } : {} });

describe('the HTTP edge of an interface', () => {
  it('refuses malformed JSON with a 400 that says so', async () => {
    const app = await build();
    const res = await post(app, '/bk/thing', '{"name":');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/not valid JSON/);
  });

  it('says where malformed JSON stops being JSON: byte offset, line and column', async () => {
    const app = await build();
    const res = await post(app, '/bk/thing', '{\n  "name": "José",\n  "n": 1,\n}');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'the body is not valid JSON: unexpected "}"; expected a key in double quotes at byte offset 31 (line 4, column 1)',
    );
    const proto = await post(app, '/bk/thing', '{"__proto__": {"x": 1}}');
    expect(proto.json().message).toBe('the body is not valid JSON (keys named __proto__ or constructor are refused)');
  });

  it('refuses an empty body with a 400 that says so', async () => {
    const app = await build();
    const res = await post(app, '/bk/thing', '');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/empty/);
  });

  it('refuses a Content-Type other than JSON with a 400 naming it', async () => {
    const app = await build();
    const res = await post(app, '/bk/thing', 'name=x', 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/application\/json.*x-www-form-urlencoded/);
    const plain = await post(app, '/bk/thing', '{"name":"x"}', 'text/plain');
    expect(plain.statusCode).toBe(400);
  });

  it('refuses a body over the limit with a 400 stating the limit', async () => {
    const app = await build(2048);
    const res = await post(app, '/bk/thing', JSON.stringify({ name: 'x'.repeat(4000) }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/limit of 2048 bytes/);
  });

  it('refuses keys named __proto__', async () => {
    const app = await build();
    const res = await post(app, '/bk/thing', '{"name":"a","__proto__":{"polluted":true}}');
    expect(res.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names every bad field with its JSON pointer, unknown fields included', async () => {
    const app = await build();
    const res = await post(
      app,
      '/bk/thing',
      JSON.stringify({ name: 'toolong', extra: 1, items: [{ n: 1 }, { n: 'two' }] }),
    );
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['details', 'error', 'message', 'statusCode']);
    const paths = body.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['/extra', '/items/1/n', '/name']);
  });

  it('counts every problem in the message when only the first 100 are listed', async () => {
    const app = await build();
    const items = Array.from({ length: 250 }, () => ({ n: 'x' }));
    const res = await post(app, '/bk/thing', JSON.stringify({ name: 'a', items }));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.details).toHaveLength(100);
    expect(body.message).toBe('/items/0/n: must be integer (and 249 more problems; the first 100 are listed)');
  });

  it('never coerces a body type: a number sent as a string is refused', async () => {
    const app = await build();
    const res = await post(app, '/bk/thing', JSON.stringify({ name: 'a', items: [{ n: '1' }] }));
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: '/items/0/n', message: 'must be integer' }]);
  });

  it('refuses money with more than two decimal places and keeps 0.29 exact', async () => {
    const app = await build();
    const bad = await post(app, '/bk/thing', '{"name":"a","amount":10.295}');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toEqual({
      path: '/amount',
      message: 'must be an amount with at most two decimal places',
    });
    const ok = await post(app, '/bk/thing', '{"name":"a","amount":0.29}');
    expect(ok.statusCode).toBe(200);
  });

  it('answers receivables errors in the documented envelope with exactly its keys', async () => {
    const app = await build();
    const res = await post(app, '/rc/thing', JSON.stringify({ name: 'toolong' }));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'target']);
    expect(body.error).toMatchObject({ code: 'ValidationError', target: 'name' });
    const malformed = await post(app, '/rc/thing', '{');
    expect(malformed.json()).toEqual({
      error: { code: 'ValidationError', message: expect.any(String), target: null },
    });
  });

  it("maps an undocumented status to the interface's 400", async () => {
    const app = await build();
    const res = await post(app, '/bk/teapot', '{}');
    expect(res.statusCode).toBe(400);
  });

  it('answers an unexpected failure without leaking its message or stack', async () => {
    const app = await build();
    const res = await post(app, '/bk/crash', '{}');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret internals');
    expect(res.body).not.toContain('at ');
  });

  it('answers a sandbox fault with a 400 saying so where the interface documents no 5xx', async () => {
    const app = await build();
    const res = await post(app, '/rc/crash', '{}');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { code: 'SandboxFault', message: expect.stringMatching(/fault of the sandbox, not of your request/), target: null },
    });
    expect(res.body).not.toContain('secret internals');
  });

  it('answers 501 naming the interface and its named-only operations for an unknown path', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/bk/anything/else' });
    expect(res.statusCode).toBe(501);
    const body = res.json();
    expect(body.interface).toBe('bookkeeping');
    expect(body.namedOnlyOperations).toHaveLength(24);
    expect(body.namedOnlyOperations).toContain('block trade bill');
  });

  it('answers 501 for a documented path with the wrong method', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/rc/thing' });
    expect(res.statusCode).toBe(501);
    expect(res.json().error.code).toBe('NotImplemented');
  });
});
