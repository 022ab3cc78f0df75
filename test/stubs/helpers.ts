// Shared plumbing of the user-defined operation tests: adding mappings and calling the sandbox.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** POSTs one mapping or {"mappings": [...]} to /_sandbox/stubs (optionally in a workspace). */
export async function addStubs(app: FastifyInstance, body: unknown, base = ''): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: `${base}/_sandbox/stubs`, payload: body as object });
}

/** Adds mappings and expects the 201; answers the ids given. */
export async function stubbed(app: FastifyInstance, body: unknown, base = ''): Promise<string[]> {
  const res = await addStubs(app, body, base);
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { mappings: Array<{ id: string }> }).mappings.map((m) => m.id);
}

export const BK = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates';
export const RG = '/api/v1.0/service/dup';
