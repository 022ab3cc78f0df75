// Strict mode: domain checks (check digits, keys, dates) refuse instead of warning. The sandbox-wide
// setting (SANDBOX_STRICT / --strict) or, for one request, the header `Sandbox-Strict: true`; a
// header cannot loosen a strict sandbox.
import type { FastifyRequest } from 'fastify';
import { runtimeOf } from './index.js';

export function strictFor(request: FastifyRequest): boolean {
  return runtimeOf(request).settings.strict || String(request.headers['sandbox-strict']).toLowerCase() === 'true';
}
