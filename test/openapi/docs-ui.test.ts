// /docs: the browsable document, served by @fastify/swagger-ui (opened on the first call to /docs).
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

describe('/docs', () => {
  it('serves the page, its files and the same document as /openapi.json', async () => {
    const app = await testApp();
    const page = await app.inject({ url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const css = await app.inject({ url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
    expect(css.headers['content-length']).toBe(String(css.rawPayload.length));
    const head = await app.inject({ method: 'HEAD', url: '/docs/static/swagger-ui.css' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(css.rawPayload.length));
    expect((await app.inject({ url: '/docs/json' })).json()).toEqual((await app.inject({ url: '/openapi.json' })).json());
    expect((await app.inject({ url: '/docs/yaml' })).body).toMatch(/^openapi: 3\.1\.0/m);
  });

  it('answers a path it has no file for with the sandbox 404, and other methods as before', async () => {
    const app = await testApp();
    const missing = await app.inject({ url: '/docs/no-such-file' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toMatch(/outside every emulated interface/);
    expect((await app.inject({ method: 'POST', url: '/docs/' })).statusCode).toBe(404);
  });

  it('is left out of the document', async () => {
    const app = await testApp();
    const paths = Object.keys((await app.inject({ url: '/openapi.json' })).json().paths as object);
    expect(paths.filter((p) => p.startsWith('/docs'))).toEqual([]);
  });
});
