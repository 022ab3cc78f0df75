// Credentials: bookkeeping and the registry take `Authorization: Bearer <token>` (the registry by
// assumption); receivables and the control plane compare a secret sent in the body or a header.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SandboxError } from './errors.js';

/** Whether a secret sent equals the one expected, in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What was wrong with the control plane's key on a request refused for it. */
export type AdminKeyProblem = 'missing' | 'empty' | 'wrong';

/** Why a request that does not carry the control plane's key was refused: no header, an empty one, or another value. */
export function adminKeyProblem(headers: IncomingHttpHeaders): AdminKeyProblem {
  const given = headers['sandbox-admin-token'];
  if (given === undefined) return 'missing';
  return String(given).trim() === '' ? 'empty' : 'wrong';
}

/**
 * What a control call refused for its key is told (a 401 whichever it is): a missing key and a wrong
 * one differ, so a user knows whether the header got lost on the way or holds another value. The
 * value sent is never echoed.
 */
export function adminKeyMessage(problem: AdminKeyProblem, headers: IncomingHttpHeaders = {}): string {
  if (problem === 'empty')
    return 'the Sandbox-Admin-Token header is empty (an unset variable?): send the key this sandbox\'s SANDBOX_ADMIN_TOKEN holds';
  if (problem === 'wrong')
    return 'the Sandbox-Admin-Token header does not match this sandbox\'s SANDBOX_ADMIN_TOKEN (the value sent is not echoed)';
  const bearer = headers.authorization === undefined ? '' : ' (an Authorization header is not read by the control plane)';
  return `this sandbox has SANDBOX_ADMIN_TOKEN set: send it in the Sandbox-Admin-Token header${bearer}`;
}

/** The control plane's 401 message for a request without the right key. */
export function adminKeyRefusal(headers: IncomingHttpHeaders): string {
  return adminKeyMessage(adminKeyProblem(headers), headers);
}

/** Whether a request carries the control plane's key (the Sandbox-Admin-Token header). */
export function carriesAdminKey(headers: IncomingHttpHeaders, adminToken: string): boolean {
  const given = headers['sandbox-admin-token'];
  return typeof given === 'string' && sameSecret(given, adminToken);
}

/**
 * The token of the request's Bearer header, or a 401 saying what is wrong with the header (and a
 * WWW-Authenticate challenge). `whose` completes "the access token of ..." in the messages.
 */
export function bearerToken(request: FastifyRequest, reply: FastifyReply, whose: string, challenge = 'Bearer'): string {
  const refuse = (message: string, outcome: string) => {
    reply.header('www-authenticate', challenge);
    return new SandboxError(401, message, { outcome });
  };
  const header = request.headers.authorization;
  if (typeof header !== 'string' || header.trim() === '') {
    throw refuse(
      `the Authorization header is missing: send "Authorization: Bearer <accessToken>" of ${whose}`,
      'token-missing',
    );
  }
  // The scheme is case-insensitive and one or more spaces (SP, not a tab) separate it from the token:
  // credentials = "Bearer" 1*SP b64token (RFC 6750, section 2.1; RFC 9110, section 11.4). The token
  // is one run of non-space characters.
  const token = /^Bearer +(\S+)$/i.exec(header.trim())?.[1];
  if (token === undefined)
    throw refuse(
      `the Authorization header must be "Bearer <accessToken>" of ${whose} (the value sent is not echoed)`,
      'token-malformed',
    );
  return token;
}
