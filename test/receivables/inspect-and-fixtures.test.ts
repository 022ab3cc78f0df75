import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, DEMO_FIXTURES, submitCnab, testApp } from '../helpers.js';
import { BRADESCO, bradescoGuarantor, bradescoMessages, cnabBytes, PAULISTA, returnFile } from './helpers.js';

describe('the demo CNAB files in fixtures/', () => {
  it('are processed without a warning against the demo fixtures', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const ids = [
      await submitCnab(app, readFileSync('fixtures/cnab400-demo.rem')),
      await submitCnab(app, readFileSync('fixtures/cnab444-demo.rem')),
    ];
    await app.runtime.work.drain();
    const [c400, c444] = await Promise.all(
      ids.map(async (id) => (await app.inject({ url: `/_sandbox/receivables/imports/${id}` })).json()),
    );
    expect(c400).toMatchObject({ status: 'processed', layout: 'cnab400', titleCount: 3, warningCount: 0 });
    expect(c400.totalFaceValue).toBe(2430.4);
    expect(c444).toMatchObject({
      status: 'processed',
      layout: 'cnab444-fidc',
      titleCount: 2,
      warningCount: 0,
    });
    expect(c444.titles.map((t: { nfeKey: string }) => t.nfeKey)).toHaveLength(2);
  });

  it('answers InvalidToken for the demo fund that has no token', async () => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      payload: {
        token: 'rc-demo-token-1',
        fundCnpj: '11444777000161',
        operationFile: readFileSync('fixtures/cnab400-demo.rem').toString('base64'),
        fileName: 'demo.rem',
        additiveNumber: 1,
      },
    });
    expect(res.json()).toMatchObject({ error: { code: 'InvalidToken', target: 'token' } });
  });
});

describe('inspection under /_sandbox/receivables', () => {
  it('lists the funds without their tokens', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ url: '/_sandbox/receivables/funds' });
    expect(res.json()).toEqual({
      total: 2,
      funds: [
        { fundCnpj: '11222333000181', hasToken: true, imports: 0 },
        { fundCnpj: '11444777000161', hasToken: false, imports: 0 },
      ],
      nextCursor: null,
    });
    expect(res.body).not.toContain('rc-token-1');
  });

  it("lists a fund's imports, the fund named with or without punctuation", async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    await submitCnab(app, cnabBytes('cnab400', [{}]), {
      token: 'rc-token-1',
      fileName: 'one.rem',
      additiveNumber: 42,
    });
    const res = await app.inject({
      url: `/_sandbox/receivables/funds/${encodeURIComponent('11.222.333/0001-81')}/imports`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().imports).toEqual([
      expect.objectContaining({ fileName: 'one.rem', additiveNumber: 42, status: 'pending', lineCount: 3 }),
    ]);
    expect((await app.inject({ url: '/_sandbox/receivables/funds/12ABC34501DE35/imports' })).statusCode).toBe(
      404,
    );
  });

  it('pages through the titles of an import', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const titles = Array.from({ length: 5 }, (_, i) => ({ documentNumber: `D-${i + 1}` }));
    const id = await submitCnab(app, cnabBytes('cnab444-400+44', titles, { others: ['2'] }), {
      token: 'rc-token-1',
    });
    await app.runtime.work.drain();
    const page = (
      await app.inject({ url: `/_sandbox/receivables/imports/${id}?titlesOffset=3&titlesLimit=10` })
    ).json();
    expect(page.titles.map((t: { documentNumber: string }) => t.documentNumber)).toEqual(['D-4', 'D-5']);
    expect(page).toMatchObject({ titleCount: 5, otherRecordCount: 1, layout: 'cnab444-400+44' });
    const none = await app.inject({ url: `/_sandbox/receivables/imports/${id}?titlesLimit=1001` });
    expect(none.statusCode).toBe(400);
  });

  it("shows each title's guarantor (Bradesco record 7) and its other records, and how the file's records were read", async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const guarantor = { address: 'RUA DOS AVALISTAS 77', cep: '20040002', city: 'RIO DE JANEIRO', state: 'RJ' };
    const file = cnabBytes(
      'cnab400',
      [
        { documentNumber: 'DOC-1', after: [bradescoMessages('cnab400', 'PROTESTAR APOS 5 DIAS'), bradescoGuarantor('cnab400', guarantor)] },
        { documentNumber: 'DOC-2' },
      ],
      { bank: BRADESCO },
    );
    const id = await submitCnab(app, file, { token: 'rc-token-1' });
    await app.runtime.work.drain();
    const detail = (await app.inject({ url: `/_sandbox/receivables/imports/${id}` })).json();
    expect(detail).toMatchObject({
      status: 'processed',
      titleCount: 2,
      otherRecordCount: 2,
      diagnostics: [],
      recordLayout: { id: 'bradesco-400', bankCode: '237', known: true, returnFile: false },
    });
    expect(detail.titles[0]).toMatchObject({ line: 2, documentNumber: 'DOC-1', guarantor });
    expect(detail.titles[0].records).toEqual([
      expect.objectContaining({ line: 3, recordType: '2', fields: expect.objectContaining({ message1: 'PROTESTAR APOS 5 DIAS' }) }),
      { line: 4, recordType: '7', meaning: 'Pagador Avalista (guarantor) of the title before it', fields: guarantor },
    ]);
    expect(detail.titles[1]).toMatchObject({ line: 5, documentNumber: 'DOC-2', guarantor: null, records: [] });
  });

  it('rejects a return file with one diagnostic and says so in the record layout', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const id = await submitCnab(app, returnFile('cnab444-fidc', PAULISTA, 30), { token: 'rc-token-1' });
    await app.runtime.work.drain();
    const detail = (await app.inject({ url: `/_sandbox/receivables/imports/${id}` })).json();
    expect(detail).toMatchObject({ status: 'rejected', errorCount: 1, warningCount: 0, titles: [] });
    expect(detail.recordLayout).toMatchObject({ id: 'fidc-444', returnFile: true });
    expect(detail.diagnostics.map((d: { rule: string }) => d.rule)).toEqual(['return-file']);
  });

  it('answers 404 for an unknown import', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const res = await app.inject({ url: '/_sandbox/receivables/imports/CNAB-NOPE' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toContain('CNAB-NOPE');
  });
});

describe('the OpenAPI document', () => {
  it('documents import-cnab with its 200 without body, its envelope and its assumptions', async () => {
    const app = await testApp();
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    const op = doc.paths['/v1/import-cnab'].post;
    expect(op['x-sandbox-assumption']).toContain('[rc-error-precedence]');
    expect(op.responses['200'].content).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(['200', '400']);
    // The body is the named schema ImportCnabBody (components.schemas).
    expect(op.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/ImportCnabBody');
    expect(doc.components.schemas.ImportCnabBody.required).toEqual([
      'token',
      'fundCnpj',
      'operationFile',
      'fileName',
      'additiveNumber',
    ]);
  });
});
