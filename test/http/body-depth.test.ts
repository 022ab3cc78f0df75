// Assumption body-depth: a request body nests at most MAX_JSON_DEPTH arrays and objects. Every route
// answers the same 400 for a body that opens one more: read whole (the registry, the control plane),
// before JSON.parse spends seconds and memory on it, or read as a stream (the loan-bond registration,
// the receivables submission), wherever its pieces are cut.
import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/domain/json-depth.js';
import { DEMO_FIXTURES, testApp } from '../helpers.js';

const ROUTES = [
  { name: 'registry registration (read whole)', url: '/api/v1.0/service/dup/registrar_documentos', headers: { authorization: 'Bearer rg-demo-token-1' } },
  { name: 'loan-bond registration (streamed)', url: '/api/service/document/registrar', headers: {} },
  { name: 'receivables submission (streamed)', url: '/v1/import-cnab', headers: {} },
  { name: 'control plane', url: '/_sandbox/fixtures', headers: {} },
];

/** The message of an error answer: the standard shape's, or the receivables envelope's. */
function messageOf(answer: { message?: string; error?: { message?: string } }): string {
  return answer.message ?? answer.error?.message ?? '';
}

/** `{"registros": ...}` with `levels` arrays inside the field: the body nests levels + 1. */
const body = (levels: number) => `{"registros":${'['.repeat(levels)}${']'.repeat(levels)}}`;

describe('a body nesting past the limit gets the same 400 on every route, whole or in pieces (body-depth)', () => {
  it.each(ROUTES)('$name', async ({ url, headers }) => {
    const app = await testApp({ fixtures: DEMO_FIXTURES });
    const send = (text: string, size?: number) => {
      const bytes = Buffer.from(text);
      const pieces: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size ?? bytes.length) pieces.push(bytes.subarray(at, at + (size ?? bytes.length)));
      return app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes.length) },
        payload: size === undefined ? bytes : Readable.from(pieces),
      });
    };
    const path = `/registros${'/0'.repeat(MAX_JSON_DEPTH - 1)}`;
    const offset = '{"registros":'.length + MAX_JSON_DEPTH - 1;
    for (const size of [undefined, 1, 7, 4096]) {
      const deep = await send(body(MAX_JSON_DEPTH), size);
      expect(deep.statusCode, deep.body).toBe(400);
      expect(messageOf(deep.json())).toBe(
        `${path}: this "[" opens a level deeper than ${MAX_JSON_DEPTH}: the most this sandbox reads is ${MAX_JSON_DEPTH} arrays and objects nested in one another (at byte offset ${offset} (line 1, column ${offset + 1}))`,
      );
      // The standard error shape names the pointer in its details too; the receivables envelope has none.
      const details = (deep.json() as { details?: Array<{ path: string; message: string }> }).details;
      if (details !== undefined) expect(details.map((d) => `${d.path}: ${d.message}`)).toEqual([messageOf(deep.json())]);
      // One level less is read: whatever the route answers then, it is not this.
      const fits = await send(body(MAX_JSON_DEPTH - 1), size);
      expect(fits.body).not.toContain('deeper than');
    }
    // 20 MB of "[" in the field: the same answer, and the sandbox answers the next request.
    const bomb = `{"registros":${'['.repeat(20_000_000)}`;
    const refused = await send(bomb, 1 << 20);
    expect(refused.statusCode).toBe(400);
    expect(messageOf(refused.json()).startsWith(`${path}: `)).toBe(true);
    expect((await app.inject({ url: '/_sandbox/health' })).statusCode).toBe(200);
  });
});
