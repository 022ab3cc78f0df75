import { describe, expect, it } from 'vitest';
import { DEMO_FIXTURES, LogCapture, testApp } from '../helpers.js';
import { FIXTURES, post, REGISTER, TOKEN } from './helpers.js';

describe('registry over a real socket', () => {
  it('answers the example of docs/registry.md with the demo token: 200, a batch key and Sandbox-Warnings: 1', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${address}/api/v1.0/service/dup/registrar_documentos`, {
      method: 'POST',
      headers: { authorization: 'Bearer rg-demo-token-1', 'content-type': 'application/json' },
      body: JSON.stringify({
        registros: [
          {
            numeroDuplicata: 'DUP-1',
            dataEmissao: '2026-11-01',
            dataVencimento: '2026-12-01',
            valorDuplicata: 1500.5,
            cpfCnpjSacado: '11.222.333/0001-82',
            codigoIBGEPracaPagamento: 3550308,
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('sandbox-warnings')).toBe('1');
    const body = (await res.json()) as { mensagem: string; chaveRemessa: string };
    expect(body.mensagem).toBe('1 document registered');

    const inspected = await fetch(`${address}/_sandbox/registry/batches/${body.chaveRemessa}`);
    const view = (await inspected.json()) as { participantId: string; warnings: Array<{ path: string }> };
    expect(view.participantId).toBe('PART-1');
    expect(view.warnings.map((w) => w.path)).toEqual(['/registros/0/cpfCnpjSacado']);
  });
});

describe('registry logs', () => {
  it('log neither the bearer token nor the documento text', async () => {
    const logs = new LogCapture();
    const app = await testApp({ fixtures: FIXTURES, logger: { level: 'debug', stream: logs } });
    const documento = Buffer.from('confidential-bytes-of-a-document').toString('base64');
    const ok = await post(app, REGISTER, { registros: [{ documento }] });
    expect(ok.statusCode).toBe(200);
    const bad = await post(app, REGISTER, { registros: [{ documento: `${documento}!` }] });
    expect(bad.statusCode).toBe(400);
    expect(logs.lines.some((l) => l.includes('documents registered'))).toBe(true);
    expect(logs.text).not.toContain(TOKEN);
    expect(logs.text).not.toContain(documento);
    expect(bad.body).not.toContain(documento);
  });
});
