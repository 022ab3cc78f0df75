// A JSON body is UTF-8 or refused: Latin-1 bytes (what Brazilian legacy systems send for "José") are
// never decoded into replacement characters and stored, a declared charset other than UTF-8 is named,
// and the refusal says where the first bad byte is.
import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8 } from '../../src/domain/utf8.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { FIXTURES as LB_FIXTURES, pdf, TOKEN as LB_TOKEN, URL as LB_URL } from '../loanbond/helpers.js';
import { REGISTER } from '../registry/helpers.js';

const TENANT = '11222333000181';
const PAYMENT = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/IUD-1/payment`;
const AUTH = { authorization: 'Bearer bk-token-1' };

async function app(): Promise<FastifyInstance> {
  return testApp({
    fixtures: { ...BASE_FIXTURES, bookkeeping: { ...BASE_FIXTURES.bookkeeping, tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 100 }] } },
  });
}

/** The body text with `name` in place of NAME, encoded as `encoding`. */
function payment(name: string, encoding: BufferEncoding = 'utf8'): Buffer {
  return Buffer.from(
    `{"type":"bankSlip","informantId":"${name}","isPartial":true,"paymentValue":10}`,
    encoding,
  );
}

async function openValue(a: FastifyInstance): Promise<number> {
  return (await a.inject({ url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-1` })).json().openValue as number;
}

describe('bodies that are not UTF-8', () => {
  it('refuses Latin-1 "José" naming the byte, its offset, line and column, and records nothing', async () => {
    const a = await app();
    const body = payment('José', 'latin1');
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: { ...AUTH, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    const offset = body.indexOf(0xe9);
    expect(res.json().message).toBe(
      `the body is not valid UTF-8: the byte 0xE9 at byte offset ${offset} (line 1, column ${offset + 1}) starts a 3-byte UTF-8 character, but the byte 0x22 at byte offset ${offset + 1} is not a continuation byte (80 to BF) (text in Latin-1 or Windows-1252, such as José written with the single byte E9, is not UTF-8); send the body encoded as UTF-8`,
    );
    expect(await openValue(a)).toBe(100);
  });

  it('counts lines and columns in characters, after accented letters written in UTF-8', async () => {
    const a = await app();
    const body = Buffer.concat([Buffer.from('{\n  "type": "bankSlip", "informantId": "João', 'utf8'), Buffer.from([0xe7]), Buffer.from('ão"}', 'utf8')]);
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: { ...AUTH, 'content-type': 'application/json' }, payload: body });
    expect(res.json().message).toContain(`at byte offset ${body.indexOf(0xe7)} (line 2, column 43)`);
  });

  it('refuses a Latin-1 registry document in the receivables and registry shapes alike', async () => {
    const a = await app();
    const registry = await a.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Bearer rg-token-1', 'content-type': 'application/json' },
      payload: Buffer.from('{"registros":[{"nomeTitular":"João da Conceição"}]}', 'latin1'),
    });
    expect(registry.statusCode).toBe(400);
    const at = '{"registros":[{"nomeTitular":"Jo'.length;
    expect(registry.json().message).toMatch(new RegExp(`^the body is not valid UTF-8: the byte 0xE3 at byte offset ${at} `));
    expect((await a.inject({ url: '/_sandbox/registry/participants' })).json().participants[0].documentCount).toBe(0);
    const receivables = await a.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      headers: { 'content-type': 'application/json' },
      payload: Buffer.from('{"fileName":"remessa_São_Paulo.rem"}', 'latin1'),
    });
    expect(receivables.statusCode).toBe(400);
    expect(receivables.json().error).toMatchObject({ code: 'ValidationError', target: null });
    expect(receivables.json().error.message).toContain(`the byte 0xE3 at byte offset ${'{"fileName":"remessa_S'.length} `);
  });

  it.each([
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a lone continuation byte', [0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
  ])('refuses %s at its first byte', async (_what, bytes) => {
    const a = await app();
    const head = Buffer.from('{"type":"bankSlip","informantId":"', 'utf8');
    const body = Buffer.concat([head, Buffer.from(bytes), Buffer.from('","isPartial":true,"paymentValue":10}')]);
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: { ...AUTH, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(`at byte offset ${head.length} `);
  });

  it('stores UTF-8 text exactly as sent, accents and all', async () => {
    const a = await app();
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: { ...AUTH, 'content-type': 'application/json' }, payload: payment('João da Conceição ✓ 😀') });
    expect(res.statusCode, res.body).toBe(204);
    const bill = await a.inject({ url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-1` });
    expect(bill.json().payments[0].declaration.informantId).toBe('João da Conceição ✓ 😀');
  });

  it('refuses a fixture document in Latin-1 on the control plane too', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      headers: { 'content-type': 'application/json' },
      payload: Buffer.from('{"loanbond":{"callers":[{"callerId":"Ação","token":"t","products":[]}]}}', 'latin1'),
    });
    expect(res.statusCode).toBe(400);
    const at = '{"loanbond":{"callers":[{"callerId":"A'.length;
    expect(res.json().message).toMatch(new RegExp(`^the body is not valid UTF-8: the byte 0xE7 at byte offset ${at} `));
  });
});

describe('a declared charset', () => {
  it.each(['iso-8859-1', 'ISO-8859-1', 'latin1', 'windows-1252', '"iso-8859-1"', 'us-ascii'])(
    'refuses charset=%s, naming it, even for an ASCII body',
    async (charset) => {
      const a = await app();
      const res = await a.inject({
        method: 'PUT',
        url: PAYMENT,
        headers: { ...AUTH, 'content-type': `application/json; charset=${charset}` },
        payload: payment('Jose'),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain(`Content-Type declares charset=${charset.replaceAll('"', '')}`);
      expect(res.json().message).toContain('a JSON body must be UTF-8');
      expect(await openValue(a)).toBe(100);
    },
  );

  it('names a charset no encoding has', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'PUT',
      url: PAYMENT,
      headers: { ...AUTH, 'content-type': 'application/json; charset=klingon' },
      payload: payment('Jose'),
    });
    expect(res.json().message).toContain('charset=klingon (not a known character encoding)');
  });

  it.each(['utf-8', 'UTF-8', '"utf-8"', 'utf8', 'unicode-1-1-utf-8'])('accepts charset=%s', async (charset) => {
    const a = await app();
    const res = await a.inject({
      method: 'PUT',
      url: PAYMENT,
      headers: { ...AUTH, 'content-type': `application/json; charset=${charset}` },
      payload: payment('José'),
    });
    expect(res.statusCode, res.body).toBe(204);
  });
});

describe('a declared charset on the streamed loan-bond registration', () => {
  it.each(['iso-8859-1', 'utf-16'])('refuses charset=%s as every other route does, storing nothing', async (charset) => {
    const a = await testApp({ fixtures: LB_FIXTURES });
    const res = await a.inject({
      method: 'POST',
      url: LB_URL,
      headers: { 'content-type': `application/json; charset=${charset}` },
      payload: JSON.stringify({ versao: '2.0', token: LB_TOKEN, registros: [{ nome_documento: 'a.pdf', documento: pdf() }] }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(`Content-Type declares charset=${charset}`);
    expect((await a.inject({ url: '/_sandbox/loanbond/documents' })).json()).toMatchObject({ count: 0 });
  });
});

describe('a compressed body', () => {
  it.each([
    ['PUT', PAYMENT, AUTH],
    ['POST', REGISTER, { authorization: 'Bearer rg-token-1' }],
    ['POST', '/v1/import-cnab', {}],
    ['POST', LB_URL, {}],
    ['POST', '/_sandbox/workspaces', {}],
  ] as const)('is refused on %s %s naming Content-Encoding, not as bytes that are not UTF-8', async (method, url, auth) => {
    const a = await testApp({ fixtures: { ...LB_FIXTURES, bookkeeping: { ...BASE_FIXTURES.bookkeeping, tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 100 }] } } });
    const res = await a.inject({
      method,
      url,
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(payment('José')),
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain(
      'Content-Encoding: gzip: compressed bodies are not accepted; send the body uncompressed (no Content-Encoding, or identity)',
    );
  });

  it('takes Content-Encoding: identity as no encoding', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'PUT',
      url: PAYMENT,
      headers: { ...AUTH, 'content-type': 'application/json', 'content-encoding': 'Identity' },
      payload: payment('José'),
    });
    expect(res.statusCode, res.body).toBe(204);
  });
});

describe('the fault a body that is not UTF-8 has', () => {
  const LATIN1 = 'Latin-1';
  it.each([
    ['a truncated character followed by ASCII (E2 82 b)', [0xe2, 0x82, 0x62], 0, 'the byte 0xE2 at byte offset {0} (line 1, column {c}) starts a 3-byte UTF-8 character, but the byte 0x62 at byte offset {2} is not a continuation byte (80 to BF)'],
    ['a truncated character at the end of the body (E2 82)', [0xe2, 0x82], 0, 'the byte 0xE2 at byte offset {0} (line 1, column {c}) starts a 3-byte UTF-8 character, but the body ends after 2 of its bytes'],
    ['a UTF-16 surrogate encoded in UTF-8 (ED A0 80)', [0xed, 0xa0, 0x80], 0, 'the byte 0xED at byte offset {0} (line 1, column {c}) followed by 0xA0 encodes a UTF-16 surrogate (U+D800 to U+DFFF), which UTF-8 does not carry'],
    ['an overlong "/" (C0 AF)', [0xc0, 0xaf], 0, 'the byte 0xC0 at byte offset {0} (line 1, column {c}) never appears in UTF-8'],
    ['a code point above U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 0, 'the byte 0xF4 at byte offset {0} (line 1, column {c}) followed by 0x90 encodes a code point above U+10FFFF'],
    ['a lone continuation byte (80)', [0x80], 0, 'the byte 0x80 at byte offset {0} (line 1, column {c}) is a continuation byte (80 to BF) with no lead byte before it'],
    ['an overlong 3-byte form (E0 80 AF)', [0xe0, 0x80, 0xaf], 0, 'followed by 0x80 encodes a character below U+0800 in 3 bytes, an overlong form'],
  ] as const)('names %s, with no Latin-1 hint', async (_name, bad, _unused, expected) => {
    const a = await app();
    const body = Buffer.concat([Buffer.from('{"type":"bankSlip","informantId":"a', 'utf8'), Buffer.from(bad), Buffer.from(bad.length === 2 && bad[0] === 0xe2 ? '' : 'b","isPartial":true,"paymentValue":10}', 'utf8')]);
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: { ...AUTH, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    const at = body.indexOf(Buffer.from(bad));
    const message = res.json().message as string;
    expect(message).toContain(expected.replace('{0}', String(at)).replace('{2}', String(at + 2)).replace('{c}', String(at + 1)));
    expect(message).not.toContain('starts no UTF-8 character');
    expect(message).not.toContain(LATIN1);
    expect(await openValue(a)).toBe(100);
  });

  it('keeps the Latin-1 hint for a byte that looks like Latin-1 text (C0 before ASCII)', async () => {
    const a = await app();
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: { ...AUTH, 'content-type': 'application/json' }, payload: payment('\u00c0s', 'latin1') });
    expect(res.json().message).toContain('never appears in UTF-8');
    expect(res.json().message).toContain(LATIN1);
  });

  it('names the same fault in the streamed loan-bond registration', async () => {
    const a = await testApp({ fixtures: LB_FIXTURES });
    const body = Buffer.concat([Buffer.from(`{"versao":"2.0","token":"${LB_TOKEN}","registros":[{"nome_documento":"a`, 'utf8'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(`.pdf","documento":"${pdf()}"}]}`, 'utf8')]);
    const res = await a.inject({ method: 'POST', url: LB_URL, headers: { 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('followed by 0xA0 encodes a UTF-16 surrogate');
  });

  it('says a well-formed percent-escape in the path encodes bytes that are not UTF-8', async () => {
    const a = await app();
    const res = await a.inject({ method: 'PUT', url: PAYMENT.replace('IUD-1', 'IUD-%E9'), headers: { ...AUTH, 'content-type': 'application/json' }, payload: payment('Jose') });
    expect(res.statusCode).toBe(400);
    const message = res.json().message as string;
    expect(message).toContain('the path is not a valid URL: its percent-escapes are well formed, but the bytes they encode are not UTF-8: the byte 0xE9 (%E9 at offset');
    expect(message).toContain('starts a 3-byte UTF-8 character, but the byte 0x2F (/ at offset');
    expect(message).toContain(LATIN1);
    expect(message).not.toContain('malformed');
    const malformed = await a.inject({ method: 'PUT', url: PAYMENT.replace('IUD-1', 'IUD-%zz'), headers: { ...AUTH, 'content-type': 'application/json' }, payload: payment('Jose') });
    expect(malformed.json().message).toContain('the path is not a valid URL: the percent-escape %zz at offset');
  });
});

describe('a byte-order mark', () => {
  it('is called a byte-order mark, not a letter', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'PUT',
      url: PAYMENT,
      headers: { ...AUTH, 'content-type': 'application/json' },
      payload: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), payment('Jose')]),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('byte-order mark');
    expect(await openValue(a)).toBe(100);
  });
});

describe('firstInvalidUtf8', () => {
  it('agrees with the platform decoder on where valid UTF-8 ends', () => {
    const samples = [[0x61, 0xc3, 0xa9], [0xf0, 0x9f, 0x98, 0x80, 0xff], [0xe0, 0x80, 0x80], [0xef, 0xbf, 0xbd, 0xc2]];
    for (const s of samples) {
      const bytes = Buffer.from(s);
      const at = firstInvalidUtf8(bytes);
      // Everything before it decodes strictly; it is where a strict decoder first fails.
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, at))).not.toThrow();
      if (at < bytes.length) expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    }
  });
});
