// A loan-bond request whose schema refuses one field still names the problems of its files, for a
// caller the token authenticates (rules 1-2 first, as lb-check-order says): one answer, one detail
// per problem; a file whose own field the schema refused is not judged again.
import { describe, expect, it } from 'vitest';
import { body, type ErrorBody, lbApp, pdf, post, plainRecord } from './helpers.js';

const ENCRYPTED = pdf(800, { trailer: '/Encrypt << /Filter /Standard /V 2 /R 3 >> ' });
const NOT_PDF = Buffer.from('hello').toString('base64');

const batch = (valor: number) => [
  plainRecord({ parcelas: [{ numero: 1, data_vencimento: '2026-12-10', valor }] }),
  plainRecord({ documento: ENCRYPTED }),
  plainRecord({ documento: NOT_PDF }),
  plainRecord({ documento: '!!' }),
];

describe('a loan-bond request with a schema problem and bad files', () => {
  it('names the files beside the schema problem', async () => {
    const app = await lbApp();
    const res = await post(app, body(batch(1.001)));
    expect(res.statusCode).toBe(400);
    const { details, message } = res.json() as ErrorBody;
    expect(details.map((d) => d.path)).toEqual([
      '/registros/0/parcelas/0/valor',
      '/registros/1/documento',
      '/registros/2/documento',
      '/registros/3/documento',
    ]);
    expect(details[1]?.message).toMatch(/rule 3/);
    expect(details[2]?.message).toMatch(/rule 4/);
    expect(message).toMatch(/\(and 3 more problems\)$/);
  });

  it('names the same file problems as a request whose schema passes', async () => {
    const app = await lbApp();
    const refused = (await post(app, body(batch(1.001)))).json() as ErrorBody;
    const valid = (await post(app, body(batch(1)))).json() as ErrorBody;
    expect(refused.details.slice(1)).toEqual(valid.details);
  });

  it('judges no file of a caller the token does not authenticate', async () => {
    const app = await lbApp();
    for (const token of ['unknown-token', 'lb-no-ccb']) {
      const res = await post(app, body(batch(1.001), token));
      expect(res.statusCode).toBe(400);
      expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual(['/registros/0/parcelas/0/valor']);
    }
  });

  it('does not judge a file whose field the schema refused', async () => {
    const app = await lbApp();
    const res = await post(app, body([plainRecord({ documento: ENCRYPTED, nome_documento: 5 }), plainRecord({ documento: 5 })]));
    expect((res.json() as ErrorBody).details.map((d) => d.path)).toEqual([
      '/registros/0/nome_documento',
      '/registros/1/documento',
      '/registros/0/documento',
    ]);
  });
});
