// Strict mode: domain checks (check digits, keys, dates) refuse instead of warning. The sandbox-wide
// setting (SANDBOX_STRICT / --strict) or, for one request, the header `Sandbox-Strict: true`, read as
// a boolean query value is (http/validation.ts, readBoolean); a header cannot loosen a strict
// sandbox, and a value the sandbox refuses (a 400 naming it) never turns strict mode on.
import type { FastifyRequest } from 'fastify';
import { readBoolean } from '../http/validation.js';
import { runtimeOf } from './index.js';

export function strictFor(request: FastifyRequest): boolean {
  if (runtimeOf(request).settings.strict) return true;
  const header = request.headers['sandbox-strict'];
  return typeof header === 'string' && readBoolean(header) === true;
}
