// A folder in WireMock's layout (mappings/ and __files/), written by hand from WireMock's documented
// format as WireMock exports it (id and uuid, persistent, insertionIndex, a {"mappings", "meta"} file),
// served with --stubs: it loads and answers as WireMock would.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';

const FOLDER = 'test/stubs/fixtures/wiremock';
const RG = '/api/v1.0/service/dup';

describe('a WireMock mapping folder', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({ db: ':memory:', logger: false, stubs: FOLDER, seed: 'wiremock' });
  });
  afterAll(() => app.close());

  it('loads every mapping, in the order WireMock tries them', async () => {
    const list = (await app.inject({ url: '/_sandbox/stubs' })).json() as { mappings: Array<{ id: string; sandbox: { source: string; file: string } }>; meta: { total: number } };
    expect(list.meta.total).toBe(6);
    // The priority-10 catch-all last; the rest by the reverse of file order.
    expect(list.mappings.at(-1)?.id).toBe('6c1a1b5e-1b7e-4a59-9a3e-3f3d1c1a0b03');
    expect(list.mappings.every((m) => m.sandbox.source === 'folder')).toBe(true);
  });

  it('answers the contractor authentication: exact url, header contains, equalToJson with a placeholder and extra elements', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `${RG}/autenticar`,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: { login: 'contractor', senha: 'whatever', extra: true },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['matched-stub-id']).toBe('6c1a1b5e-1b7e-4a59-9a3e-3f3d1c1a0b01');
    expect(res.headers['matched-stub-name']).toBe('contractor authentication');
    expect(res.body).toBe('{"access_token":"rg-token-1","expires_in":3600}');
    const wrongUser = await app.inject({ method: 'POST', url: `${RG}/autenticar`, headers: { 'content-type': 'application/json' }, payload: { login: 'other', senha: 'x' } });
    expect(wrongUser.statusCode).toBe(501);
  });

  it('answers the batch query from a body file, templated with the path parameter, query and headers', async () => {
    const res = await app.inject({ url: `${RG}/remessas/RM123?detalhe=completo`, headers: { authorization: 'Bearer t', 'x-client': 'erp' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-remessa']).toBe('RM123');
    expect(res.json()).toEqual({ chaveRemessa: 'RM123', situacao: 'PROCESSADA', detalhe: 'completo', consultadoPor: 'erp' });
    expect((await app.inject({ url: `${RG}/remessas/RM9`, headers: { authorization: 'Bearer t' } })).json().detalhe).toBe('resumo');
  });

  it('falls back to the lower-priority catch-all when the specific mapping does not match', async () => {
    for (const url of [`${RG}/remessas/rm-lower`, `${RG}/remessas/RM1?detalhe=outro`]) {
      const res = await app.inject({ url, headers: { authorization: 'Bearer t' } });
      expect(res.json(), url).toEqual({ mensagem: 'remessa desconhecida' });
    }
    expect((await app.inject({ url: `${RG}/remessas/RM1` })).json()).toEqual({ mensagem: 'remessa desconhecida' });
  });

  it('moves the cancellation scenario: the first answers, the next is refused with its reason phrase, after its delay', async () => {
    const body = { registros: [{ chaveRegistro: 'RG-1' }, { chaveRegistro: 'RG-2' }] };
    const first = await app.inject({ method: 'POST', url: `${RG}/cancelar?motivo=duplicidade`, payload: body });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ cancelados: 2, motivo: 'duplicidade', em: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    const started = process.hrtime.bigint();
    const again = await app.inject({ method: 'POST', url: `${RG}/cancelar?motivo=duplicidade`, payload: body });
    expect(again.statusCode).toBe(400);
    expect(again.statusMessage).toBe('Already Cancelled');
    expect(again.json()).toEqual({ mensagem: 'já cancelado' });
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeGreaterThanOrEqual(50);
    expect((await app.inject({ url: '/_sandbox/scenarios' })).json().scenarios).toEqual([
      { name: 'cancellation', state: 'Cancelled', possibleStates: ['Started', 'Cancelled'] },
    ]);
    // A key that does not match RG-[0-9]+ is no match at all.
    await app.inject({ method: 'POST', url: '/_sandbox/scenarios/reset' });
    const bad = await app.inject({ method: 'POST', url: `${RG}/cancelar?motivo=x`, payload: { registros: [{ chaveRegistro: 'X' }] } });
    expect(bad.statusCode).toBe(501);
  });

  it('answers outside every interface prefix: a form body, several values of a header, a seeded random value', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=erp-1&client_secret=s',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9]{20}$/), token_type: 'Bearer', client: 'erp-1' });
  });
});
