import type { Assumption } from '../http/assumptions.js';

/** Decisions that apply to every interface or to the sandbox as a whole. */
export const assumptions: Assumption[] = [
  {
    id: 'error-body',
    interface: 'sandbox',
    topic: 'Error bodies of bookkeeping, registry and loan-bond are not shown',
    decision:
      'they answer {"statusCode","error","message","details":[{"path","message"}]}, one detail per problem, path a JSON pointer into the request',
    reason:
      "a client needs to know which field broke which rule; the shape is Fastify's, extended with details",
  },
  {
    id: 'strict-fields',
    interface: 'sandbox',
    topic: 'Whether unknown fields and wrong JSON types are refused is not shown',
    decision: 'unknown fields are a 400, and types are never coerced (a number sent as a string is a 400)',
    reason: 'a sandbox that silently drops or converts fields hides client bugs the real service may refuse',
  },
  {
    id: 'malformed-body',
    interface: 'sandbox',
    topic: 'Answers to malformed JSON, an empty body or a Content-Type other than JSON are not shown',
    decision: "each is a 400 in the interface's error shape, with a message that says which",
    reason: '400 is the documented validation status of every interface',
  },
  {
    id: 'body-limit',
    interface: 'sandbox',
    topic: 'The largest request body is not shown',
    decision:
      'SANDBOX_BODY_LIMIT, default 100mb (104857600 bytes); a larger body is a 400 that states the limit',
    reason: 'a loan-bond batch of 50 records carries PDFs of up to 15 MB each as base64',
  },
  {
    id: 'named-only-501',
    interface: 'sandbox',
    topic: 'Operations named without method, path or payload',
    decision:
      'any request under an interface prefix that matches no documented method and path is a 501 naming the interface and its named-only operations; outside the prefixes, 404',
    reason: 'inventing those operations would mislead; a 501 tells the client exactly what is not emulated',
  },
  {
    id: 'money-cents',
    interface: 'sandbox',
    topic: 'Precision of decimal amounts',
    decision: 'amounts are kept as integer cents; a number with more than two decimal places is a 400',
    reason: 'Brazilian amounts are in centavos; a third decimal would be rounded silently by a lax service',
  },
];
