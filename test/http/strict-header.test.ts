// The Sandbox-Strict header is read as a boolean query value is (assumption query-booleans): True,
// FALSE, 1, 0 are accepted; anything else is a problem named with the body's problems in one answer,
// and strict mode is never applied from a value the sandbox refuses.
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, detailPaths, testApp } from '../helpers.js';
import { REGISTER, validDocument } from '../registry/helpers.js';

type Detail = { path: string; message: string };

async function register(strict: string, doc: Record<string, unknown>) {
  const app = await testApp({ fixtures: BASE_FIXTURES });
  return app.inject({
    method: 'POST',
    url: REGISTER,
    headers: { authorization: 'Bearer rg-token-1', 'sandbox-strict': strict },
    payload: { registros: [{ ...validDocument(1), ...doc }] },
  });
}

const BAD_CNPJ = { cpfCnpjSacado: '11222333000182' };

describe('the Sandbox-Strict header', () => {
  it.each(['True', 'TRUE', '1'])('takes %s for true, as a boolean query value', async (value) => {
    const res = await register(value, BAD_CNPJ);
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/registros/0/cpfCnpjSacado']);
  });

  it.each(['False', '0'])('takes %s for false', async (value) => {
    const res = await register(value, BAD_CNPJ);
    expect(res.statusCode).toBe(200);
    expect(res.headers['sandbox-warnings']).toBe('1');
  });

  it('names a value it does not take beside the body\'s problems, and applies no strict mode from it', async () => {
    const res = await register('banana', { ...BAD_CNPJ, valorDuplicata: 'x' });
    expect(res.statusCode).toBe(400);
    const details = res.json().details as Detail[];
    expect(details.map((d) => d.path)).toEqual(['/registros/0/valorDuplicata', '/sandbox-strict']);
    expect(details[1]?.message).toMatch(/^header sandbox-strict must be true or false \(in any case, or 1 or 0\), got "banana"$/);
  });

  it('names a value it does not take beside a domain problem of a body the schema accepts', async () => {
    const res = await register('yes', { documento: 'not base64!' });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/registros/0/documento', '/sandbox-strict']);
  });

  it('applies a strict mode it takes to a body the schema refused', async () => {
    const res = await register('True', { ...BAD_CNPJ, valorDuplicata: 'x' });
    expect(detailPaths(res)).toEqual(['/registros/0/cpfCnpjSacado', '/registros/0/valorDuplicata']);
  });
});
