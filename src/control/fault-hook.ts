// Fault rules applied to a request under an interface prefix (runtime/faults.ts keeps them,
// control/fault-routes.ts manages them). It runs before everything the interface checks
// (credentials, body): a rule stands for the service itself failing, so a faulted request's body is
// never read.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InterfaceModule } from '../http/interface-module.js';
import { faultSlug } from '../http/outcomes.js';
import { faultBody } from '../runtime/faults.js';
import { runtimeOf } from '../runtime/index.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Applies the first matching fault rule, if any: waits its delay, then answers its status in the
 * interface's error body. Returns the rule's id and whether it answered (the caller then stops the
 * request), or null when no rule matched.
 */
export async function applyFault(
  request: FastifyRequest,
  reply: FastifyReply,
  owner: InterfaceModule,
  path: string,
  taken: (id: string) => void,
): Promise<{ id: string; answered: boolean } | null> {
  const rule = runtimeOf(request).faults.take(request.method, path, owner.contract.id);
  if (!rule) return null;
  // Told before the answer goes: the journal entry is written once the answer is sent.
  taken(rule.id);
  request.log.debug({ fault: rule.id }, 'fault rule applied');
  if (rule.delayMs > 0) await sleep(rule.delayMs);
  if (rule.status !== null) {
    // Answered by the rule, not by the service: the operation's fault outcome for that status.
    if (request.routeOptions.config.operation !== undefined) request.outcome = faultSlug(rule.status);
    reply.code(rule.status).type('application/json').send(faultBody(rule, owner.contract.shape));
  }
  return { id: rule.id, answered: rule.status !== null };
}
