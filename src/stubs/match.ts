// Matching a request against stub mappings as WireMock does: the method, the URL rule, every query
// parameter, header and body pattern, and the scenario state; among the mappings that match, the
// lowest priority number wins, then the mapping added last. A request that matches none is told the
// closest mapping and why it did not match.
import { pathDistance } from '../http/near-miss.js';
import { isRedactedKey, REDACTED, redactSecretText, redactUrlSecrets } from '../runtime/redact.js';
import type { Stub } from './mapping.js';

/** What a mapping is matched against: one request, read once. */
export interface RequestView {
  method: string;
  /** Path and query string as sent (relative to the workspace's base URL). */
  url: string;
  path: string;
  /** Query parameters, decoded, in order. */
  query: ReadonlyMap<string, string[]>;
  /** Header names in lower case. */
  headers: ReadonlyMap<string, string[]>;
  /** Names and values as sent, alternating (Node's rawHeaders). */
  rawHeaders: readonly string[];
  body: Buffer;
  /** The body read as UTF-8. */
  text: string;
  host: string;
  port: number;
  scheme: string;
  /** The workspace's base path as the client wrote it, `/ws/{name}`, or '' outside every workspace. */
  base: string;
  clientIp: string;
  id: string;
}

export type MatchResult =
  | { matched: true; pathParams: Record<string, string> }
  | { matched: false; distance: number; differences: string[] };

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path parameters of a path template, or undefined when the path does not fit it. */
function templateParams(stub: Stub, path: string): Record<string, string> | undefined {
  if (stub.request.url.kind !== 'urlPathTemplate') return {};
  const segments = stub.request.url.segments;
  const sent = path.split('/').slice(1);
  if (sent.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const value = sent[i] ?? '';
    if (s === undefined) return undefined;
    if ('param' in s) {
      if (value === '') return undefined;
      params[s.param] = decoded(value);
    } else if (s.literal !== value) return undefined;
  }
  return params;
}

/** How far the URL is from the mapping's URL rule (0: it fits), and what differs. */
function urlDifference(stub: Stub, view: RequestView): { distance: number; differences: string[] } {
  const url = stub.request.url;
  switch (url.kind) {
    case 'any':
      return { distance: 0, differences: [] };
    case 'url':
      if (view.url === url.text) return { distance: 0, differences: [] };
      if (view.path === url.text.split('?')[0]) {
        const sent = redactUrlSecrets(view.url.slice(view.path.length));
        return { distance: 0.5, differences: [`the query string is "${sent}"; the mapping's url has "${redactUrlSecrets(url.text.slice(view.path.length))}"`] };
      }
      return pathOff(view.path, url.text.split('?')[0] ?? '', 'url');
    case 'urlPath':
      return view.path === url.text ? { distance: 0, differences: [] } : pathOff(view.path, url.text, 'urlPath');
    case 'urlPattern':
    case 'urlPathPattern': {
      const value = url.kind === 'urlPattern' ? view.url : view.path;
      return url.regex.matchesWhole(value)
        ? { distance: 0, differences: [] }
        : { distance: 2, differences: [`the ${url.kind === 'urlPattern' ? 'URL' : 'path'} ${redactUrlSecrets(value)} does not match ${url.kind} /${redactSecretText(url.text)}/`] };
    }
    case 'urlPathTemplate':
      return templateParams(stub, view.path) ? { distance: 0, differences: [] } : pathOff(view.path, url.text, 'urlPathTemplate');
  }
}

function pathOff(path: string, expected: string, rule: string): { distance: number; differences: string[] } {
  const { distance, differences } = pathDistance(path, expected);
  const why = differences.length > 0 ? differences.join('; ') : `it is not ${expected}`;
  // A path off the mapping's weighs more than any one matcher: the mapping is about another resource.
  return { distance: 1 + Math.min(distance, 3), differences: [`the path ${path} is not the ${rule} ${expected}: ${why.replace(/the operation/g, "the mapping")}`] };
}

/**
 * How far the request is at least from the mapping by its method and URL alone (0: both fit), never
 * more than matchStub's distance: the cheap first look of the search for the nearest mapping.
 */
export function leastDistance(stub: Stub, view: RequestView): number {
  const method = stub.request.method !== 'ANY' && stub.request.method !== view.method ? 1 : 0;
  const url = stub.request.url;
  switch (url.kind) {
    case 'any':
      return method;
    case 'url':
      return method + (view.url === url.text ? 0 : view.path === url.text.split('?')[0] ? 0.5 : 1);
    case 'urlPath':
      return method + (view.path === url.text ? 0 : 1);
    case 'urlPattern':
      return method + (url.regex.matchesWhole(view.url) ? 0 : 2);
    case 'urlPathPattern':
      return method + (url.regex.matchesWhole(view.path) ? 0 : 2);
    case 'urlPathTemplate':
      return method + (templateParams(stub, view.path) ? 0 : 1);
  }
}

/**
 * The path parameters when the request matches the mapping, else undefined: matchStub's verdict
 * without its reasons, stopping at the first part that does not fit (the body last, the costliest).
 * Call it only when leastDistance is 0.
 */
export function fits(stub: Stub, view: RequestView, state: string | undefined): Record<string, string> | undefined {
  const rule = stub.request;
  if (stub.scenario?.required && stub.scenario.required !== state) return undefined;
  const params = templateParams(stub, view.path) ?? {};
  for (const [name, m] of rule.pathParameters) if (!m.test(params[name] ?? null)) return undefined;
  for (const [name, m] of rule.queryParameters) if (!m.test(view.query.get(name) ?? [])) return undefined;
  for (const [name, m] of rule.headers) if (!m.test(view.headers.get(name) ?? [])) return undefined;
  for (const m of rule.bodyPatterns) if (!m.test(view.text)) return undefined;
  return params;
}

/**
 * Why the values sent under a name that names a secret (the journal's rule, isRedactedKey) did not
 * fit its matcher, quoting neither them nor the mapping's: only the matcher's operator.
 */
function secretReason(m: { text: string }, values: readonly string[]): string {
  const operator = m.text.split(' ')[0] ?? '';
  const text = operator === 'absent' ? operator : `${operator} ${REDACTED}`;
  const n = values.length;
  return `(${text}): ${n === 0 ? 'it is absent' : `the value${n === 1 ? '' : 's'} sent (${REDACTED}) ${n === 1 ? 'does' : 'do'} not fit`}`;
}

/** Matches one request against one mapping; `state` is the current state of the mapping's scenario. */
export function matchStub(stub: Stub, view: RequestView, state: string | undefined): MatchResult {
  const rule = stub.request;
  const differences: string[] = [];
  let distance = 0;
  if (rule.method !== 'ANY' && rule.method !== view.method) {
    distance += 1;
    differences.push(`the method is ${view.method}; the mapping's is ${rule.method}`);
  }
  const url = urlDifference(stub, view);
  distance += url.distance;
  differences.push(...url.differences);
  const params = url.distance === 0 ? (templateParams(stub, view.path) ?? {}) : {};
  if (url.distance === 0) {
    for (const [name, m] of rule.pathParameters) {
      const value = params[name] ?? null;
      if (!m.test(value)) {
        distance += 0.5;
        differences.push(`path parameter ${name}${isRedactedKey(name) ? ` ${secretReason(m, value === null ? [] : [value])}` : `: ${m.why(value)}`}`);
      }
    }
  }
  for (const [name, m] of rule.queryParameters) {
    const values = view.query.get(name) ?? [];
    if (!m.test(values)) {
      distance += 0.5;
      differences.push(`query parameter ${name} ${isRedactedKey(name) ? secretReason(m, values) : `(${m.text}): ${m.why(values)}`}`);
    }
  }
  for (const [name, m] of rule.headers) {
    const values = view.headers.get(name) ?? [];
    if (!m.test(values)) {
      distance += 0.5;
      differences.push(`header ${name} ${isRedactedKey(name) ? secretReason(m, values) : `(${m.text}): ${m.why(values)}`}`);
    }
  }
  for (const m of rule.bodyPatterns) {
    if (!m.test(view.text)) {
      distance += 0.5;
      differences.push(`body (${m.text}): ${m.why(view.text)}`);
    }
  }
  if (stub.scenario?.required && stub.scenario.required !== state) {
    distance += 0.25;
    differences.push(`scenario "${stub.scenario.name}" is in state "${state}"; the mapping needs "${stub.scenario.required}"`);
  }
  return differences.length === 0 ? { matched: true, pathParams: params } : { matched: false, distance, differences };
}

/** Priority first (1 before 5), then the mapping added last: the order WireMock tries mappings in. */
export function byPrecedence(a: Stub & { seq: number }, b: Stub & { seq: number }): number {
  return a.priority - b.priority || b.seq - a.seq;
}
