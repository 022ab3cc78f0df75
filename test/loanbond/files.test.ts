import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../src/domain/pdf.js';
import {
  body,
  documentCount,
  type ErrorBody,
  lbApp,
  pdf,
  pdfBytes,
  post,
  plainRecord,
  registrationCount,
} from './helpers.js';
import { cmsSignedData, storedZip } from '../domain/helpers.js';


describe('loan-bond files (rules 3-5)', () => {
  it('refuses a file that is not a PDF (rule 4) with the pointer of the additional document', async () => {
    const app = await lbApp();
    const notPdf = Buffer.from('PK\u0003\u0004 a zip file, not a PDF').toString('base64');
    const extras = [
      { nome: 'ok.pdf', conteudo: pdf() },
      { nome: 'bad.zip', conteudo: notPdf },
    ];
    const records = [plainRecord(), plainRecord(), plainRecord(), plainRecord({ documentos_adicionais: extras })];
    const res = await post(app, body(records));
    expect(res.statusCode).toBe(400);
    const err = res.json() as ErrorBody;
    expect(err.details).toHaveLength(1);
    expect(err.details[0]?.path).toBe('/registros/3/documentos_adicionais/1/conteudo');
    expect(err.details[0]?.message).toMatch(/^rule 4 \(pdf-only\)/);
    expect(err.message).toContain('/registros/3/documentos_adicionais/1/conteudo');
    expect(await registrationCount(app)).toBe(0);
    expect(await documentCount(app)).toBe(0);
  });

  it('refuses an encrypted PDF (a trailer with /Encrypt, rule 3)', async () => {
    const app = await lbApp();
    const encrypted = pdf(800, { trailer: '/Encrypt 5 0 R /ID [<01><02>] ' });
    const res = await post(app, body([plainRecord(), plainRecord({ documento: encrypted })]));
    expect(res.statusCode).toBe(400);
    const detail = (res.json() as ErrorBody).details[0];
    expect(detail?.path).toBe('/registros/1/documento');
    expect(detail?.message).toMatch(/^rule 3 \(not-encrypted\)/);
  });

  it('accepts a PDF that names /EncryptMetadata only', async () => {
    const app = await lbApp();
    const res = await post(
      app,
      body([plainRecord({ documento: pdf(800, { trailer: '/EncryptMetadata false ' }) })]),
    );
    expect(res.statusCode).toBe(201);
  });

  it('refuses a file of 15 MB + 1 byte (rule 5), stating the limit', async () => {
    const app = await lbApp();
    const big = pdf(MAX_FILE_BYTES + 1);
    const res = await post(
      app,
      body([plainRecord({ documentos_adicionais: [{ nome: 'big.pdf', conteudo: big }] })]),
    );
    expect(res.statusCode).toBe(400);
    const detail = (res.json() as ErrorBody).details[0];
    expect(detail?.path).toBe('/registros/0/documentos_adicionais/0/conteudo');
    expect(detail?.message).toBe(
      'rule 5: the file is 15000001 bytes decoded; the limit is 15 MB (15000000 bytes)',
    );
  });

  it('accepts a PDF of exactly 15 MB', async () => {
    const app = await lbApp();
    const res = await post(app, body([plainRecord({ documento: pdf(MAX_FILE_BYTES) })]));
    expect(res.statusCode).toBe(201);
  });

  it('accepts a PDF of 14.5 MB and stores its size and hash', async () => {
    const app = await lbApp();
    const bytes = pdfBytes(14_500_000);
    const res = await post(app, body([plainRecord({ documento: bytes.toString('base64') })]));
    expect(res.statusCode).toBe(201);
    const id = (res.json() as { registros: Array<{ codigo_identificador: string }> }).registros[0]
      ?.codigo_identificador;
    const detail = (await app.inject({ url: `/_sandbox/loanbond/registrations/${id}` })).json() as {
      documento: { size: number; sha256: string };
    };
    const { createHash } = await import('node:crypto');
    expect(detail.documento.size).toBe(14_500_000);
    expect(detail.documento.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('accepts a PDF header after leading bytes, within the first 1024', async () => {
    const app = await lbApp();
    const bytes = Buffer.concat([Buffer.alloc(1000, 0x20), pdfBytes()]);
    const res = await post(app, body([plainRecord({ documento: bytes.toString('base64') })]));
    expect(res.statusCode).toBe(201);
  });

  it('accepts a "%PDF-" header ending exactly at byte 1024 and refuses one ending a byte later, naming its offset', async () => {
    const app = await lbApp();
    const at = (before: number) => Buffer.concat([Buffer.alloc(before, 0x20), pdfBytes()]).toString('base64');
    expect((await post(app, body([plainRecord({ documento: at(1019) })]))).statusCode).toBe(201);
    const late = await post(app, body([plainRecord({ documento: at(1020) })]));
    expect(late.statusCode).toBe(400);
    const detail = (late.json() as ErrorBody).details[0];
    expect(detail?.path).toBe('/registros/0/documento');
    expect(detail?.message).toContain('its "%PDF-" header starts at byte offset 1020 and ends at byte 1025, past the first 1024 bytes');
  });

  it('refuses a real PDF stored in a ZIP and one signed inside a CMS envelope (rule 4), and registers the PDF with 600 bytes before its header', async () => {
    const app = await lbApp();
    const inner = pdfBytes(900, { tag: 'contrato' });
    const zip = storedZip('contrato.pdf', inner).toString('base64');
    const p7s = cmsSignedData(inner).toString('base64');
    const refused = await post(app, body([plainRecord({ documento: zip }), plainRecord({ documento: p7s })]));
    expect(refused.statusCode).toBe(400);
    const details = (refused.json() as ErrorBody).details;
    expect(details.map((d) => d.path)).toEqual(['/registros/0/documento', '/registros/1/documento']);
    expect(details[0]?.message).toMatch(/^rule 4 \(pdf-only\).*a ZIP archive with a PDF inside/);
    expect(details[1]?.message).toMatch(/^rule 4 \(pdf-only\).*a CMS \/ PKCS#7 signed envelope/);
    expect(await documentCount(app)).toBe(0);

    const junk600 = Buffer.concat([Buffer.alloc(600, 0x0a), inner]).toString('base64');
    const accepted = await post(app, body([plainRecord({ documento: junk600 })]));
    expect(accepted.statusCode).toBe(201);
  });

  it('says what a documento is when it is not the base64 of a PDF: PDF text, a data: URI, a PDF encoded twice', async () => {
    const app = await lbApp();
    const twice = Buffer.from(pdf(), 'latin1').toString('base64');
    const records = [
      plainRecord({ documento: '%PDF-1.7 1 0 obj << >> endobj trailer << /Root 1 0 R >> %%EOF' }),
      plainRecord({ documento: `data:application/pdf;base64,${pdf()}` }),
      plainRecord({ documento: twice }),
    ];
    const res = await post(app, body(records));
    expect(res.statusCode).toBe(400);
    const messages = (res.json() as ErrorBody).details.map((d) => `${d.path}: ${d.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/^\/registros\/0\/documento: .*this looks like PDF text, not base64/),
      expect.stringMatching(/^\/registros\/1\/documento: .*a data: URI is not accepted: send only the base64 text/),
      expect.stringMatching(/^\/registros\/2\/documento: rule 4 \(pdf-only\): .*the file is base64-encoded twice/),
    ]);
  });

  it.each([
    ['URL-safe base64', `${pdf().replace(/\+/g, '-').replace(/\//g, '_')}-_`, 'URL-safe'],
    ['text that is not base64', 'this is not base64!', 'invalid base64 character'],
    ['base64 without padding', 'JVBERi0xLjc', 'multiple of 4'],
  ])('refuses %s with the pointer of the file', async (_name, text, reason) => {
    const app = await lbApp();
    const res = await post(app, body([plainRecord({ documento: text })]));
    expect(res.statusCode).toBe(400);
    const detail = (res.json() as ErrorBody).details[0];
    expect(detail?.path).toBe('/registros/0/documento');
    expect(detail?.message).toContain('is not valid base64');
    expect(detail?.message).toContain(reason);
  });

  it('refuses an empty documento as not a PDF', async () => {
    const app = await lbApp();
    const res = await post(app, body([plainRecord({ documento: '' })]));
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details[0]?.message).toMatch(/^rule 4/);
  });

  it('reports every bad file of the request, one detail each', async () => {
    const app = await lbApp();
    const junk = Buffer.from('junk').toString('base64');
    const records = [
      plainRecord({ documento: junk }),
      plainRecord(),
      plainRecord({ documentos_adicionais: [{ conteudo: pdf(800, { trailer: '/Encrypt 9 0 R ' }) }] }),
    ];
    const res = await post(app, body(records));
    expect(res.statusCode).toBe(400);
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual([
      '/registros/0/documento',
      '/registros/2/documentos_adicionais/0/conteudo',
    ]);
    expect(await documentCount(app)).toBe(0);
  });

  it('stores a file sent many times once, by hash and size', async () => {
    const app = await lbApp();
    const same = pdf(900, { tag: 'same' });
    const records = [
      plainRecord({ documento: same, documentos_adicionais: [{ conteudo: same }] }),
      plainRecord({ documento: same }),
      plainRecord({ documento: pdf(900, { tag: 'other' }) }),
    ];
    const res = await post(app, body(records));
    expect(res.statusCode).toBe(201);
    expect(await documentCount(app)).toBe(2);
    // A later request with the same file adds no copy either.
    expect((await post(app, body([plainRecord({ documento: same })]))).statusCode).toBe(201);
    expect(await documentCount(app)).toBe(2);
  });
});

describe('loan-bond large bodies', () => {
  it('accepts 50 records each with a 1 MiB PDF (about 70 MB of JSON) under the default limit', { timeout: 120_000 }, async () => {
    const app = await lbApp();
    const file = pdf(1024 * 1024, { tag: 'mib' });
    const records = Array.from({ length: 50 }, () => plainRecord({ documento: file }));
    const payload = JSON.stringify(body(records));
    expect(payload.length).toBeGreaterThan(50 * 1024 * 1024);
    const res = await app.inject({
      method: 'POST',
      url: '/api/service/document/registrar',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(201);
    expect((res.json() as { registros: unknown[] }).registros).toHaveLength(50);
    expect(await documentCount(app)).toBe(1);
  });

  it('refuses a body over the configured limit with a 400 stating the limit', async () => {
    const app = await lbApp({ loanbondBodyLimit: 64 * 1024 });
    const res = await post(app, body([plainRecord({ documento: pdf(100 * 1024) })]));
    expect(res.statusCode).toBe(400);
    const err = res.json() as ErrorBody;
    expect(err.message).toContain('65536 bytes');
    expect(err.message).toContain('SANDBOX_LOANBOND_BODY_LIMIT');
    expect(await registrationCount(app)).toBe(0);
  });
});
