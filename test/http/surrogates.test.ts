// A \u escape that leaves half of a surrogate pair writes no Unicode character: JSON.parse takes it,
// but stored as UTF-8 (SQLite's TEXT) the string would come back with U+FFFD in its place. Every
// body refuses it, keys and values, naming the field (assumption json-utf8); a well-formed string,
// astral characters escaped as pairs or sent as they are, is stored exactly.
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loneSurrogates, mayHoldLoneSurrogate } from '../../src/http/json.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';
import { pdf, TOKEN as LB_TOKEN, URL as LB_URL, FIXTURES as LB_FIXTURES } from '../loanbond/helpers.js';
import { REGISTER } from '../registry/helpers.js';

const TENANT = '11222333000181';
const PAYMENT = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates/IUD-1/payment`;
const BK = { authorization: 'Bearer bk-token-1', 'content-type': 'application/json' };
const BILL = `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-1`;

async function app(): Promise<FastifyInstance> {
  return testApp({
    fixtures: { ...LB_FIXTURES, bookkeeping: { ...BASE_FIXTURES.bookkeeping, tradeBills: [{ tenantId: TENANT, uid: 'IUD-1', amount: 1000000 }] } },
  });
}

/** A JSON string literal of `s` with every unit outside printable ASCII written as a \u escape. */
function escaped(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0x20 && u < 0x7f && u !== 0x22 && u !== 0x5c) out += s[i];
    else out += `\\u${u.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/** A payment whose informantId is the JSON string literal `literal`. */
function payment(literal: string): string {
  return `{"type":"bankSlip","informantId":${literal},"isPartial":true,"paymentValue":1}`;
}

function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Strings of any UTF-16 units, with at least one unpaired surrogate somewhere. */
const withLoneSurrogate = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 20 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ unit: 'binary', maxLength: 20 }))
  .map(([a, u, b]) => `${a}${String.fromCharCode(u)}${b}`)
  .filter((s) => !isWellFormed(s));

describe('unpaired surrogate escapes', () => {
  it('refuses the six characters \\uD800 in a payment type, naming the field, the escape and its offset, and records nothing', async () => {
    const a = await app();
    const body = '{"type":"bank\\uD800","informantId":"x","isPartial":true,"paymentValue":1}';
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: body });
    expect(res.statusCode).toBe(400);
    const offset = body.indexOf('\\uD800');
    expect(res.json().details).toEqual([
      {
        path: '/type',
        message: expect.stringMatching(
          new RegExp(`^holds the escape \\\\uD800 at byte offset ${offset}, an unpaired surrogate escape .*not Unicode text`),
        ),
      },
    ]);
    expect((await a.inject({ url: BILL })).json().payments).toEqual([]);
  });

  it('refuses any string with an unpaired surrogate escaped, in a value or a key', async () => {
    const a = await app();
    await fc.assert(
      fc.asyncProperty(withLoneSurrogate, async (s) => {
        const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment(escaped(s)) });
        expect(res.statusCode).toBe(400);
        expect(res.json().details[0]).toMatchObject({ path: '/informantId', message: expect.stringContaining('unpaired surrogate escape') });
        // JSON.stringify writes a lone surrogate as an escape (and a pair as the character itself).
        const key = await a.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: `{${JSON.stringify(s)}:1}` });
        expect(key.statusCode).toBe(400);
        expect(key.json().details[0].path).toBe(`/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      }),
      { numRuns: 60 },
    );
    expect((await a.inject({ url: BILL })).json().payments).toEqual([]);
  });

  it('stores any well-formed string exactly, astral characters escaped as pairs or sent as they are', async () => {
    const a = await app();
    let paid = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), fc.boolean(), async (s, escape) => {
        const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment(escape ? escaped(s) : JSON.stringify(s)) });
        expect(res.statusCode, res.body).toBe(204);
        paid++;
        const payments = (await a.inject({ url: BILL })).json().payments as Array<{ declaration: { informantId: string } }>;
        expect(payments).toHaveLength(paid);
        expect(payments[paid - 1]?.declaration.informantId).toBe(s);
      }),
      { numRuns: 60 },
    );
  });

  it('takes an escaped backslash followed by uD800 as text, not as an escape', async () => {
    const a = await app();
    const res = await a.inject({ method: 'PUT', url: PAYMENT, headers: BK, payload: payment('"a\\\\uD800"') });
    expect(res.statusCode, res.body).toBe(204);
    expect((await a.inject({ url: BILL })).json().payments[0].declaration.informantId).toBe('a\\uD800');
  });

  it('finds exactly the escapes that leave a surrogate unpaired, as JSON.parse reads them', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), fc.boolean(), (s, raw) => {
        const text = raw ? JSON.stringify({ k: s }) : `{"k":${escaped(s)}}`;
        const parsed = (JSON.parse(text) as { k: string }).k;
        expect(loneSurrogates(text).length > 0).toBe(!isWellFormed(parsed));
        if (!isWellFormed(parsed)) expect(mayHoldLoneSurrogate(text)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses one in a registry document, a receivables fileName and the control plane alike', async () => {
    const a = await app();
    const registry = await a.inject({
      method: 'POST',
      url: REGISTER,
      headers: { authorization: 'Bearer rg-token-1', 'content-type': 'application/json' },
      payload: '{"registros":[{"numeroDuplicata":"A\\udc00"}]}',
    });
    expect(registry.statusCode).toBe(400);
    expect(registry.json().details).toEqual([{ path: '/registros/0/numeroDuplicata', message: expect.stringContaining('\\uDC00') }]);
    const receivables = await a.inject({
      method: 'POST',
      url: '/v1/import-cnab',
      headers: { 'content-type': 'application/json' },
      payload: '{"token":"rc-token-1","fundCnpj":"11222333000181","operationFile":"MDE=","fileName":"a\\uD800b.rem","additiveNumber":1}',
    });
    expect(receivables.statusCode).toBe(400);
    expect(JSON.stringify(receivables.json())).toContain('unpaired surrogate escape');
    const control = await a.inject({
      method: 'POST',
      url: '/_sandbox/workspaces',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"w\\uDBFF"}',
    });
    expect(control.statusCode).toBe(400);
    expect(control.json().details[0]).toMatchObject({ path: '/name', message: expect.stringContaining('unpaired surrogate escape') });
  });

  it('refuses one in a streamed loan-bond registration, naming the field without an offset', async () => {
    const a = await app();
    const body = `{"versao":"2.0","token":"${LB_TOKEN}","registros":[{"nome_documento":"a\\ud800.pdf","documento":"${pdf()}"}]}`;
    const res = await a.inject({ method: 'POST', url: LB_URL, headers: { 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    const detail = res.json().details[0];
    expect(detail).toMatchObject({ path: '/registros/0/nome_documento', message: expect.stringContaining('unpaired surrogate escape') });
    expect(detail.message).not.toContain('byte offset');
  });
});
