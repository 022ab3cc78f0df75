// The part of WireMock's stub mapping format the sandbox reads (its JSON "mappings", as WireMock's
// documentation describes them and as WireMock exports them), as a schema: Ajv checks a mapping's
// structure with it and names each problem by its JSON pointer; the OpenAPI document shows it.
// Meanings are checked after (regexes compile, templates parse, one operator per matcher): mapping.ts.
import { type Static, Type } from '@fastify/type-provider-typebox';

const text = (description: string) => Type.String({ description });

/** The operators one matcher may use; exactly one of them per matcher (mapping.ts checks it). */
const leafOperators = {
  equalTo: Type.Optional(text('the whole value equals this')),
  caseInsensitive: Type.Optional(Type.Boolean({ description: 'with equalTo: ignore case' })),
  contains: Type.Optional(text('the value contains this')),
  doesNotContain: Type.Optional(text('the value does not contain this')),
  matches: Type.Optional(text('the whole value matches this regular expression')),
  doesNotMatch: Type.Optional(text('the whole value does not match this regular expression')),
  absent: Type.Optional(Type.Boolean({ description: 'true: the parameter or header is not sent' })),
  equalToJson: Type.Optional(
    Type.Unknown({ description: 'the value is JSON equal to this (a JSON value, or its text); ${json-unit.*} placeholders' }),
  ),
  ignoreArrayOrder: Type.Optional(Type.Boolean({ description: 'with equalToJson: arrays in any order' })),
  ignoreExtraElements: Type.Optional(
    Type.Boolean({ description: 'with equalToJson: fields and array items beyond the expected ones are allowed' }),
  ),
};

/** A matcher inside and/or/not/hasExactly/includes, or under a JSONPath: no further nesting. */
export const LeafMatcher = Type.Object(leafOperators, { additionalProperties: false, title: 'StubLeafMatcher' });

const JsonPathMatcher = Type.Object(
  { expression: text('a JSONPath expression'), ...leafOperators },
  { additionalProperties: false, description: 'the values the expression selects must match the matcher given beside it' },
);

/** A WireMock StringValuePattern (and the multi-value ones for query parameters and headers). */
export const Matcher = Type.Object(
  {
    ...leafOperators,
    matchesJsonPath: Type.Optional(
      Type.Union([text('the body is JSON in which this JSONPath selects something'), JsonPathMatcher]),
    ),
    and: Type.Optional(Type.Array(LeafMatcher, { minItems: 1, description: 'every matcher matches' })),
    or: Type.Optional(Type.Array(LeafMatcher, { minItems: 1, description: 'at least one matcher matches' })),
    not: Type.Optional(LeafMatcher),
    hasExactly: Type.Optional(
      Type.Array(LeafMatcher, { minItems: 1, description: 'the values are exactly as many as the matchers, each matched by one' }),
    ),
    includes: Type.Optional(Type.Array(LeafMatcher, { minItems: 1, description: 'each matcher matches one of the values' })),
  },
  { additionalProperties: false, title: 'StubMatcher' },
);

const Matchers = Type.Record(Type.String(), Matcher);

export const StubRequest = Type.Object(
  {
    method: Type.Optional(text('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, or ANY (the default)')),
    url: Type.Optional(text('the path and query string, equal')),
    urlPath: Type.Optional(text('the path, equal')),
    urlPattern: Type.Optional(text('the path and query string match this regular expression')),
    urlPathPattern: Type.Optional(text('the path matches this regular expression')),
    urlPathTemplate: Type.Optional(text('the path fits this RFC 6570 template, e.g. /v1/batches/{chave}')),
    pathParameters: Type.Optional(Matchers),
    queryParameters: Type.Optional(Matchers),
    headers: Type.Optional(Matchers),
    bodyPatterns: Type.Optional(Type.Array(Matcher, { description: 'every pattern matches the body' })),
  },
  { additionalProperties: false, title: 'StubRequest' },
);

export const StubResponse = Type.Object(
  {
    status: Type.Optional(Type.Integer({ minimum: 200, maximum: 599, description: 'default 200; a final status, 200 to 599 (a 1xx is refused)' })),
    statusMessage: Type.Optional(text('the reason phrase: HTAB, SP, visible ASCII and U+0080 to U+00FF (RFC 9112)')),
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))),
    body: Type.Optional(text('the body as text')),
    jsonBody: Type.Optional(Type.Unknown({ description: 'the body as JSON' })),
    base64Body: Type.Optional(text('the body as base64 bytes')),
    bodyFileName: Type.Optional(text('a file under the stub folder\'s __files/ (folder mappings only)')),
    fixedDelayMilliseconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    transformers: Type.Optional(Type.Array(Type.String(), { description: '["response-template"]: body and headers are Handlebars templates' })),
    transformerParameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false, title: 'StubResponse' },
);

export const StubMapping = Type.Object(
  {
    id: Type.Optional(text('the mapping id (a UUID is generated when absent)')),
    uuid: Type.Optional(text('WireMock writes the id here too; equal to id when both are given')),
    name: Type.Optional(text('a name for people')),
    priority: Type.Optional(Type.Integer({ minimum: 1, description: '1 is tried first; default 5' })),
    scenarioName: Type.Optional(text('the scenario (a state machine per workspace) this mapping belongs to')),
    requiredScenarioState: Type.Optional(text('matches only while the scenario is in this state ("Started" first)')),
    newScenarioState: Type.Optional(text('the scenario moves to this state when the mapping answers')),
    persistent: Type.Optional(Type.Boolean({ description: 'read and ignored (WireMock exports it)' })),
    insertionIndex: Type.Optional(Type.Integer({ description: 'read and ignored (WireMock exports it)' })),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'free; metadata.sandbox.operation names the named-only operation (GET /_sandbox/operations) the mapping implements',
      }),
    ),
    request: StubRequest,
    response: Type.Optional(StubResponse),
  },
  { additionalProperties: false, title: 'StubMapping' },
);

export type StubMapping = Static<typeof StubMapping>;
export type Matcher = Static<typeof Matcher>;
export type LeafMatcher = Static<typeof LeafMatcher>;

/** WireMock features a mapping may carry that this sandbox does not read, with what to do instead. */
export const UNSUPPORTED: Readonly<Record<string, string>> = {
  cookies: 'match the Cookie header under headers instead',
  basicAuthCredentials: 'match the Authorization header under headers instead',
  basicAuth: 'match the Authorization header under headers instead',
  formParameters: 'match the body with contains or matches instead',
  multipartPatterns: 'multipart bodies are not matched by this sandbox',
  customMatcher: 'custom matchers are Java extensions',
  clientIp: 'the client address is not matched by this sandbox',
  host: 'the host is not matched by this sandbox',
  port: 'the port is not matched by this sandbox',
  scheme: 'the scheme is not matched by this sandbox',
  fault: 'simulate failures with POST /_sandbox/faults instead',
  proxyBaseUrl: 'proxy with --upstream instead',
  delayDistribution: 'use fixedDelayMilliseconds instead',
  chunkedDribbleDelay: 'use fixedDelayMilliseconds instead',
  postServeActions: 'webhooks are not sent by stubs',
  serveEventListeners: 'webhooks are not sent by stubs',
  binaryEqualTo: 'match the body with equalTo or contains instead',
  equalToXml: 'XML bodies are matched with contains or matches here',
  matchesXPath: 'XML bodies are matched with contains or matches here',
  matchesJsonSchema: 'use matchesJsonPath or equalToJson instead',
  before: 'dates are matched with matches here',
  after: 'dates are matched with matches here',
  equalToDateTime: 'dates are matched with matches here',
  equalToNumber: 'numbers are matched with equalTo here',
  greaterThanNumber: 'numbers are matched with matches here',
  lessThanNumber: 'numbers are matched with matches here',
};
