// An empty operationFile is a problem of the body's shape, named beside a fundCnpj that is not a CNPJ
// and beside schema problems, whoever the caller (nothing of the file is decoded); the envelope's
// one target is the first problem, and the message lists the others (assumption rc-error-precedence).
import { describe, expect, it } from 'vitest';
import { BASE_FIXTURES, testApp } from '../helpers.js';

const body = (overrides: Record<string, unknown>) => ({
  token: 'rc-token-1',
  fundCnpj: '11222333000181',
  operationFile: '',
  fileName: 'x',
  additiveNumber: 1,
  ...overrides,
});

async function submit(payload: Record<string, unknown>) {
  const app = await testApp({ fixtures: BASE_FIXTURES });
  const res = await app.inject({ method: 'POST', url: '/v1/import-cnab', payload });
  return { res, error: res.json().error as { code: string; message: string; target: string | null } };
}

describe('an empty operationFile', () => {
  it('is named beside a fundCnpj with wrong check digits', async () => {
    const { res, error } = await submit(body({ fundCnpj: '11222333000182' }));
    expect(res.statusCode).toBe(400);
    expect(error.code).toBe('ValidationError');
    expect(error.target).toBe('fundCnpj');
    expect(error.message).toMatch(/^fundCnpj .*check digits.* \(and 1 more problem\): \/operationFile: is empty$/);
  });

  it('is named beside a schema problem and a fundCnpj that is not a CNPJ', async () => {
    const { error } = await submit(body({ fundCnpj: '1234', fileName: '' }));
    expect(error.target).toBe('fileName');
    expect(error.message).toMatch(/\(and 2 more problems\): \/fundCnpj: .*; \/operationFile: is empty$/);
  });

  it('is a ValidationError before the token is judged, as the rest of the body\'s shape', async () => {
    const { error } = await submit(body({ token: 'wrong' }));
    expect(error).toMatchObject({ code: 'ValidationError', target: 'operationFile' });
    expect(error.message).toBe('operationFile is empty');
  });
});
