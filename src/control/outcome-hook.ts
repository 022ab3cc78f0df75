// Client coverage as an answer is sent: the outcome its rule named is counted (runtime/coverage.ts)
// and named in the Sandbox-Outcome header. A tag whose status is not the one sent is a bug of the
// sandbox: logged, never counted.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { runtimeOf } from '../runtime/index.js';

/** The response header naming the outcome of an answer of a documented operation. */
export const OUTCOME_HEADER = 'sandbox-outcome';

/** Counts the outcome the request's rule set and names it in the header; returns its id, or null. */
export function countOutcome(request: FastifyRequest, reply: FastifyReply, slug: string): string | null {
  const { coverage } = runtimeOf(request);
  if (!coverage.enabled) return null;
  const operation = request.routeOptions.config.operation;
  const counter = operation === undefined ? undefined : coverage.find(operation, slug);
  if (counter === undefined || counter.outcome.status !== reply.statusCode) {
    request.log.error({ operation, outcome: slug, statusCode: reply.statusCode }, 'answer tagged with an outcome that does not fit it');
    return null;
  }
  coverage.hit(counter);
  reply.header(OUTCOME_HEADER, counter.outcome.id);
  return counter.outcome.id;
}
