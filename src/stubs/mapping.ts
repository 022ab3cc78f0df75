// Reading one WireMock mapping into a stub the sandbox can match and answer with: its structure
// checked by Ajv against schema.ts, then its meaning (one operator per matcher, regular expressions
// that compile, templates that parse, a path template whose parameters exist, a scenario that is
// whole, a named-only operation that exists, and no claim on a documented operation's requests).
// Every problem is reported with its JSON pointer, all at once.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, normalize, relative } from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { Operation } from '../http/catalog.js';
import type { ErrorDetail, InterfaceId } from '../http/errors.js';
import { pointer } from '../http/errors.js';
import { deeperThan, jsonTextDeeperThan, MAX_JSON_DEPTH } from '../domain/json-depth.js';
import { HEADER_TEXT_RULE, isHeaderName, isHeaderText } from '../http/header-text.js';
import { exactCopy, stringifyExact } from '../http/exact-numbers.js';
import { parseJsonAsWritten, parseJsonExact } from '../http/json.js';
import { bodyAjv, detailsFromAjv, MAX_DETAILS, statingRanges } from '../http/validation.js';
import { isDefinite, jsonPathQuery, jsonPathSyntaxProblem } from '../runtime/jsonpath.js';
import { isRedactedKey, REDACTED, redact, redactSecretText } from '../runtime/redact.js';
import { compileTemplate, type Template } from '../runtime/templates.js';
import { type UserRegex, userRegex } from '../runtime/user-regex.js';
import { jsonDifference } from './json-equal.js';
import { documentedOwner } from './ownership.js';
import { type LeafMatcher, type Matcher, StubMapping, UNSUPPORTED } from './schema.js';

export const DEFAULT_PRIORITY = 5;
export const STARTED = 'Started';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'ANY'];
const ID = /^[A-Za-z0-9._~-]{1,100}$/;

/** A value matcher compiled: what it expects, whether a value fits, and why not. */
export interface ValueMatcher {
  /** 'equalTo "x"', for near-miss sentences and the stubs listing. */
  readonly text: string;
  /** `null`: the parameter or header is absent. */
  test(value: string | null): boolean;
  /** Why `value` does not fit (called only when test() is false). */
  why(value: string | null): string;
}

/** A matcher of a query parameter or header, which may come several times. */
export interface MultiMatcher {
  readonly text: string;
  test(values: readonly string[]): boolean;
  why(values: readonly string[]): string;
}

export type UrlRule =
  | { kind: 'any' }
  | { kind: 'url' | 'urlPath'; text: string }
  | { kind: 'urlPattern' | 'urlPathPattern'; text: string; regex: UserRegex }
  | { kind: 'urlPathTemplate'; text: string; segments: Array<{ literal: string } | { param: string }> };

export interface StubRequestRule {
  method: string;
  url: UrlRule;
  pathParameters: Array<[string, ValueMatcher]>;
  queryParameters: Array<[string, MultiMatcher]>;
  /** Header names in lower case. */
  headers: Array<[string, MultiMatcher]>;
  bodyPatterns: ValueMatcher[];
}

export type StubBody =
  | { kind: 'none' }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'template'; template: Template };

export interface StubResponseRule {
  status: number;
  statusMessage: string | undefined;
  /** Values as given, or their templates when the response is templated. */
  headers: Array<[string, string | Template]>;
  body: StubBody;
  delayMs: number;
  templated: boolean;
  parameters: Record<string, unknown>;
}

/** A mapping ready to match and answer. */
export interface Stub {
  id: string;
  name: string | null;
  priority: number;
  /** Where it came from: the --stubs folder (kept by reset) or the control plane. */
  source: 'folder' | 'runtime';
  /** The file it was read from (folder stubs). */
  file: string | null;
  scenario: { name: string; required: string | null; next: string | null } | null;
  /** The interface its requests belong to, and the named-only operation it implements, if any. */
  interface: InterfaceId | null;
  operation: string | null;
  request: StubRequestRule;
  response: StubResponseRule;
  /** The mapping as given, with its id: what GET /_sandbox/stubs shows and snapshots keep. */
  mapping: StubMapping;
}

export interface ReadContext {
  source: 'folder' | 'runtime';
  /** The file a folder mapping comes from, and the folder its bodyFileName is read under. */
  file?: string;
  filesDir?: string;
  /** The catalog: documented operations own their requests; named-only ones may be implemented. */
  operations: readonly Operation[];
  interfaceOfPath(path: string): InterfaceId | null;
  /** A new mapping id when the mapping has none. */
  newId(): string;
}

export type ReadResult = { stub: Stub } | { problems: ErrorDetail[] };

let validateStructure: ValidateFunction | undefined;

/** Reads one mapping; `at` is the pointer of the mapping in what was sent ('' or '/mappings/3'). */
export function readMapping(raw: unknown, at: string, context: ReadContext): ReadResult {
  // Before anything walks it: the checks and copies below recurse into the mapping's JSON values.
  const deep = deeperThan(raw);
  if (deep !== undefined) return { problems: [{ path: `${at}${pointer(...deep)}`, message: TOO_DEEP }] };
  validateStructure ??= bodyAjv.compile(StubMapping);
  if (!validateStructure(raw)) {
    const details = detailsFromAjv(statingRanges(StubMapping, validateStructure.errors) ?? []);
    // A 1xx is told why it is no answer, beyond the range.
    const status = (raw as { response?: { status?: unknown } } | null)?.response?.status;
    const informational = typeof status === 'number' && status >= 100 && status < 200;
    return {
      problems: structureProblems(
        details.map((d) => (informational && d.path === '/response/status' ? { ...d, message: FINAL_STATUS } : d)),
        at,
      ),
    };
  }
  const mapping = raw as StubMapping;
  const problems: ErrorDetail[] = [];
  const problem = (path: string, message: string) => {
    if (problems.length < MAX_DETAILS) problems.push({ path: `${at}${path}`, message });
  };

  if (mapping.id !== undefined && mapping.uuid !== undefined && mapping.id !== mapping.uuid) {
    problem('/uuid', `differs from id "${mapping.id}": give one, or the same in both`);
  }
  const id = mapping.id ?? mapping.uuid ?? context.newId();
  if (!ID.test(id)) problem(mapping.id !== undefined ? '/id' : '/uuid', 'must be 1 to 100 letters, digits or . _ ~ - (a UUID, as WireMock writes)');

  const request = readRequest(mapping, problem);
  const response = readResponse(mapping, context, problem);
  const scenario = readScenario(mapping, problem);
  const binding = readBinding(mapping, request, context, problem);

  if (request && problems.length === 0) {
    const owner = documentedOwner(request, context.operations);
    if (owner) {
      problem(
        '/request',
        `can only match requests of ${owner.id} (${owner.method} ${owner.path}), a documented operation the sandbox emulates: a mapping may answer only requests no documented operation owns`,
      );
    }
  }
  if (problems.length > 0 || !request || !response) return { problems };
  return {
    stub: {
      id,
      name: mapping.name ?? null,
      priority: mapping.priority ?? DEFAULT_PRIORITY,
      source: context.source,
      file: context.file ?? null,
      scenario,
      interface: binding.interface,
      operation: binding.operation,
      request,
      response,
      // Numbers as written (a double would change a 20-digit id): what is shown and stored.
      mapping: { ...(exactCopy(mapping) as StubMapping), id },
    },
  };
}

/** Ajv's details, re-pointed under `at`, with unknown fields told apart from unsupported WireMock features. */
function structureProblems(details: ErrorDetail[], at: string): ErrorDetail[] {
  return details.map((d) => {
    const key = d.path.split('/').pop() ?? '';
    if (!d.message.startsWith('is not a documented field')) return { path: `${at}${d.path}`, message: d.message };
    const hint = UNSUPPORTED[key.replace(/~1/g, '/').replace(/~0/g, '~')];
    return {
      path: `${at}${d.path}`,
      message: hint
        ? `is a WireMock feature this sandbox does not read: ${hint} (docs/stubs.md lists what it reads)`
        : 'is not part of the WireMock mapping format this sandbox reads (docs/stubs.md lists it)',
    };
  });
}

type Problem = (path: string, message: string) => void;

const TOO_DEEP = `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (the mapping itself is the first), the most this sandbox reads in a mapping`;

function compileRegex(source: string, path: string, problem: Problem): UserRegex | undefined {
  try {
    return userRegex(source);
  } catch (err) {
    problem(path, `is not a regular expression this sandbox can read: ${(err as Error).message}`);
    return undefined;
  }
}

/** What a matcher matches: a parameter or header value (quoted in reasons), a body, or a value selected in one. */
type Where = 'value' | 'body' | 'selected value';

const quote = (value: string | null) => (value === null ? 'absent' : JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value));

/**
 * A text of the mapping's own (an expected value, a part, a pattern, a JSONPath) as a reason quotes
 * it: the values it gives under names that name a secret redacted by the journal's rule (a fixture's
 * client_secret in an expected form body, a token in a JSON fragment), before it is cut to length.
 */
const own = (text: string) => redactSecretText(text);

const OPERATORS = ['equalTo', 'contains', 'doesNotContain', 'matches', 'doesNotMatch', 'absent', 'equalToJson', 'matchesJsonPath', 'and', 'or', 'not', 'hasExactly', 'includes'] as const;

function operatorOf(m: Matcher, path: string, problem: Problem): (typeof OPERATORS)[number] | undefined {
  const present = OPERATORS.filter((op) => (m as Record<string, unknown>)[op] !== undefined);
  if (present.length !== 1) {
    problem(path, present.length === 0 ? `names no operator: give one of ${OPERATORS.join(', ')}` : `gives ${present.join(' and ')}: give exactly one operator`);
    return undefined;
  }
  const op = present[0];
  if (m.caseInsensitive !== undefined && op !== 'equalTo') problem(`${path}/caseInsensitive`, 'applies to equalTo only');
  if ((m.ignoreArrayOrder !== undefined || m.ignoreExtraElements !== undefined) && op !== 'equalToJson') {
    problem(path, 'ignoreArrayOrder and ignoreExtraElements apply to equalToJson only');
  }
  if (op === 'absent' && m.absent !== true) problem(`${path}/absent`, 'must be true (leave the matcher out to allow either)');
  return op;
}

type JsonRead = { ok: true; value: unknown; queries: Map<string, unknown[]> } | { ok: false; deep: boolean };

/**
 * The last text read as JSON, per kind of text: every mapping of a workspace is tried against the same
 * body, which is then parsed once (and each JSONPath run on it once), not once per mapping.
 */
const lastRead = new Map<Where, { text: string; read: JsonRead }>();

/**
 * A body (or a value selected in one) read as JSON: numbers a double would change recorded, and
 * nothing read when it nests deeper than MAX_JSON_DEPTH (`deep`), which JSONPath and the comparison
 * of equalToJson walk recursively.
 */
function readJson(text: string, where: Where): JsonRead {
  const last = lastRead.get(where);
  if (last !== undefined && last.text === text) return last.read;
  let read: JsonRead;
  if (jsonTextDeeperThan(text)) read = { ok: false, deep: true };
  else {
    try {
      read = { ok: true, value: parseJsonExact(text), queries: new Map() };
    } catch {
      read = { ok: false, deep: false };
    }
  }
  lastRead.set(where, { text, read });
  return read;
}

/** Forgets the texts read (a body can be megabytes): called once a request has been tried against every mapping. */
export function forgetReadJson(): void {
  lastRead.clear();
}

/** Why a text gave no JSON to match. */
const notJson = (read: JsonRead & { ok: false }, where: Where) =>
  read.deep
    ? `the ${where} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, which JSON patterns do not read`
    : `the ${where} is not JSON`;

/** A mapping's JSON given as text (equalToJson as a string), read as the mapping's own values are. */
function parseMappingJson(text: string): { ok: true; value: unknown } | { ok: false; deep: boolean } {
  if (jsonTextDeeperThan(text)) return { ok: false, deep: true };
  try {
    return { ok: true, value: exactCopy(parseJsonAsWritten(text)) };
  } catch {
    return { ok: false, deep: false };
  }
}

/** Compiles one matcher (a leaf, or and/or/not of leaves); `where` says what it matches, for messages. */
export function compileMatcher(m: Matcher | LeafMatcher, path: string, problem: Problem, where: Where): ValueMatcher | undefined {
  const op = operatorOf(m as Matcher, path, problem);
  // A body, or a value selected in it, may hold a secret: the reasons name it, never quote it.
  const seen = (v: string | null) => (v === null ? 'absent' : where === 'value' ? quote(v) : `the ${where}`);
  if (op === undefined) return undefined;
  const full = m as Matcher;
  switch (op) {
    case 'equalTo': {
      const expected = full.equalTo ?? '';
      const ci = full.caseInsensitive === true;
      const folded = expected.toLowerCase();
      return {
        text: `equalTo ${quote(own(expected))}${ci ? ' (any case)' : ''}`,
        test: (v) => v !== null && (ci ? v.toLowerCase() === folded : v === expected),
        why: (v) => `${seen(v)} is not equal to ${quote(own(expected))}${ci ? ' in any case' : ''}`,
      };
    }
    case 'contains':
    case 'doesNotContain': {
      const part = (op === 'contains' ? full.contains : full.doesNotContain) ?? '';
      const wanted = op === 'contains';
      return {
        text: `${op} ${quote(own(part))}`,
        test: (v) => v !== null && v.includes(part) === wanted,
        why: (v) => (v === null ? 'it is absent' : `${seen(v)} ${wanted ? 'does not contain' : 'contains'} ${quote(own(part))}`),
      };
    }
    case 'matches':
    case 'doesNotMatch': {
      const source = (op === 'matches' ? full.matches : full.doesNotMatch) ?? '';
      const regex = compileRegex(source, `${path}/${op}`, problem);
      if (!regex) return undefined;
      const wanted = op === 'matches';
      return {
        text: `${op} /${own(source)}/`,
        test: (v) => v !== null && regex.matchesWhole(v) === wanted,
        why: (v) => (v === null ? 'it is absent' : `${seen(v)} ${wanted ? 'does not match' : 'matches'} /${own(source)}/`),
      };
    }
    case 'absent':
      return { text: 'absent', test: (v) => v === null, why: (v) => `it is present (${seen(v)})` };
    case 'equalToJson': {
      // Numbers as written: compared by their exact decimal value.
      let expected = exactCopy(full.equalToJson);
      if (typeof expected === 'string') {
        const parsed = parseMappingJson(expected);
        if (!parsed.ok) {
          problem(`${path}/equalToJson`, parsed.deep ? `is JSON text that ${TOO_DEEP}` : 'is a string that is not JSON: give the JSON value itself, or its text');
          return undefined;
        }
        expected = parsed.value;
      }
      const options = { ignoreArrayOrder: full.ignoreArrayOrder === true, ignoreExtraElements: full.ignoreExtraElements === true };
      const difference = (v: string | null): string | null => {
        if (v === null) return `the ${where} is absent`;
        const read = readJson(v, where);
        if (!read.ok) return notJson(read, where);
        return jsonDifference(expected, read.value, options);
      };
      const flags = [options.ignoreArrayOrder ? 'ignoreArrayOrder' : '', options.ignoreExtraElements ? 'ignoreExtraElements' : ''].filter(Boolean);
      return {
        // The mapping's own secrets (a fixture's password) are no more quoted than the request's.
        text: `equalToJson ${stringifyExact(redact(expected)).slice(0, 80)}${flags.length ? ` (${flags.join(', ')})` : ''}`,
        test: (v) => difference(v) === null,
        why: (v) => `not the expected JSON: ${difference(v) ?? ''}`,
      };
    }
    case 'matchesJsonPath':
      return jsonPathMatcher(full, path, problem, where);
    case 'and':
    case 'or': {
      const parts = (full[op] ?? []).map((leaf, i) => compileMatcher(leaf, `${path}/${op}/${i}`, problem, where));
      if (parts.some((p) => p === undefined)) return undefined;
      const all = parts as ValueMatcher[];
      const every = op === 'and';
      return {
        text: `${op} [${all.map((p) => p.text).join(', ')}]`,
        test: (v) => (every ? all.every((p) => p.test(v)) : all.some((p) => p.test(v))),
        why: (v) =>
          every
            ? all.filter((p) => !p.test(v)).map((p) => p.why(v)).join('; ')
            : `none of ${all.map((p) => p.text).join(', ')} fits: ${all.map((p) => p.why(v)).join('; ')}`,
      };
    }
    case 'not': {
      const inner = compileMatcher(full.not ?? {}, `${path}/not`, problem, where);
      if (!inner) return undefined;
      return { text: `not ${inner.text}`, test: (v) => !inner.test(v), why: (v) => `${seen(v)} fits ${inner.text}` };
    }
    case 'hasExactly':
    case 'includes':
      problem(`${path}/${op}`, `applies to query parameters and headers only (their several values)`);
      return undefined;
  }
}

/** WireMock's matchesJsonPath: presence, or the selected values matched by the matcher beside the expression. */
function jsonPathMatcher(m: Matcher, path: string, problem: Problem, where: Where): ValueMatcher | undefined {
  const spec = m.matchesJsonPath;
  const expression = typeof spec === 'string' ? spec : (spec?.expression ?? '');
  const syntax = jsonPathSyntaxProblem(expression);
  if (syntax !== undefined) {
    problem(`${path}/matchesJsonPath${typeof spec === 'string' ? '' : '/expression'}`, `is not a JSONPath expression: it ${syntax}`);
    return undefined;
  }
  try {
    jsonPathQuery({}, expression);
  } catch (err) {
    problem(`${path}/matchesJsonPath`, (err as Error).message);
    return undefined;
  }
  const select = (v: string | null): { json: boolean; why: string; found: unknown[]; value: unknown } => {
    const read: JsonRead = v === null ? { ok: false, deep: false } : readJson(v, where);
    if (!read.ok) return { json: false, why: notJson(read, where), found: [], value: undefined };
    let found = read.queries.get(expression);
    if (found === undefined) read.queries.set(expression, (found = jsonPathQuery(read.value, expression)));
    return { json: true, why: '', found, value: isDefinite(expression) ? found[0] : found };
  };
  const shown = own(expression);
  if (typeof spec === 'string') {
    const present = (value: unknown) =>
      Array.isArray(value) ? value.length > 0 : value !== null && typeof value === 'object' ? Object.keys(value).length > 0 : value !== undefined && value !== null;
    return {
      text: `matchesJsonPath ${shown}`,
      test: (v) => present(select(v).value),
      why: (v) => {
        const selected = select(v);
        return selected.json ? `${shown} selects nothing in the ${where}` : selected.why;
      },
    };
  }
  const { expression: _expression, ...sub } = spec ?? { expression: '' };
  const compiled = compileMatcher(sub, `${path}/matchesJsonPath`, problem, 'selected value');
  if (!compiled) return undefined;
  // A value selected under a name that names a secret (`$.client_secret`): neither it nor what the
  // mapping expects of it is quoted, only the matcher's operator.
  const underSecret = (expression.match(/[\p{L}\p{N}_-]+/gu) ?? []).some(isRedactedKey);
  const operator = compiled.text.split(' ')[0] ?? '';
  const inner: ValueMatcher = underSecret
    ? { text: `${operator} ${REDACTED}`, test: compiled.test, why: () => `a value that does not fit ${operator} ${REDACTED}` }
    : compiled;
  const usesJson = sub.equalToJson !== undefined;
  const candidates = (v: string | null): Array<string | null> => {
    const { value } = select(v);
    if (value === undefined || value === null) return inner.test(null) ? [null] : [];
    // Numbers a double would change are written as the body wrote them (http/exact-numbers.ts).
    if (Array.isArray(value) && !usesJson) return value.map((x) => (typeof x === 'string' ? x : stringifyExact(x)));
    return [typeof value === 'string' ? value : stringifyExact(value)];
  };
  return {
    text: `matchesJsonPath ${shown} ${inner.text}`,
    test: (v) => candidates(v).some((c) => inner.test(c)),
    why: (v) => {
      const selected = select(v);
      if (!selected.json) return selected.why;
      const values = candidates(v);
      return values.length === 0 ? `${shown} selects nothing` : `${shown} selects ${values.map((c) => inner.why(c)).join('; ')}`;
    },
  };
}

/** A query-parameter or header matcher: one matcher against any of the values, or hasExactly/includes. */
function compileMultiMatcher(m: Matcher, path: string, problem: Problem): MultiMatcher | undefined {
  const list = m.hasExactly ?? m.includes;
  if (list !== undefined) {
    const op = m.hasExactly !== undefined ? 'hasExactly' : 'includes';
    if (operatorOf(m, path, problem) === undefined) return undefined;
    const parts = list.map((leaf, i) => compileMatcher(leaf, `${path}/${op}/${i}`, problem, 'value'));
    if (parts.some((p) => p === undefined)) return undefined;
    const all = parts as ValueMatcher[];
    const covered = (values: readonly string[]) => all.every((p) => values.some((v) => p.test(v)));
    const test = (values: readonly string[]) =>
      covered(values) && (op === 'includes' || (values.length === all.length && values.every((v) => all.some((p) => p.test(v)))));
    return {
      text: `${op} [${all.map((p) => p.text).join(', ')}]`,
      test,
      why: (values) => `the values ${JSON.stringify(values)} do not fit ${op} [${all.map((p) => p.text).join(', ')}]`,
    };
  }
  const one = compileMatcher(m, path, problem, 'value');
  if (!one) return undefined;
  return {
    text: one.text,
    test: (values) => (values.length === 0 ? one.test(null) : values.some((v) => one.test(v))),
    why: (values) => (values.length === 0 ? one.why(null) : values.map((v) => one.why(v)).join('; ')),
  };
}

const URL_KEYS = ['url', 'urlPath', 'urlPattern', 'urlPathPattern', 'urlPathTemplate'] as const;

function readRequest(mapping: StubMapping, problem: Problem): StubRequestRule | undefined {
  const r = mapping.request;
  const method = (r.method ?? 'ANY').toUpperCase();
  if (!METHODS.includes(method)) problem('/request/method', `must be one of ${METHODS.join(', ')}`);
  const given = URL_KEYS.filter((k) => r[k] !== undefined);
  if (given.length > 1) problem(`/request/${given[1]}`, `gives a second URL rule beside ${given[0]}: give one`);
  let url: UrlRule = { kind: 'any' };
  const key = given[0];
  if (key !== undefined) {
    const value = r[key] ?? '';
    const at = `/request/${key}`;
    if (key === 'url' || key === 'urlPath') {
      if (!value.startsWith('/')) problem(at, 'must start with "/"');
      else urlText(value, at, problem);
      url = { kind: key, text: value };
    } else if (key === 'urlPattern' || key === 'urlPathPattern') {
      const regex = compileRegex(value, at, problem);
      if (regex) url = { kind: key, text: value, regex };
    } else if (urlText(value, at, problem)) {
      const segments = templateSegments(value, at, problem);
      if (segments) url = { kind: 'urlPathTemplate', text: value, segments };
    }
  }
  const templateParams = url.kind === 'urlPathTemplate' ? url.segments.flatMap((s) => ('param' in s ? [s.param] : [])) : [];
  const pathParameters: Array<[string, ValueMatcher]> = [];
  for (const [name, m] of Object.entries(r.pathParameters ?? {})) {
    const at = `/request/pathParameters${pointer(name)}`;
    if (!templateParams.includes(name)) {
      problem(at, url.kind === 'urlPathTemplate' ? `is not a parameter of ${url.text}` : 'needs a urlPathTemplate that names it');
      continue;
    }
    const compiled = compileMatcher(m, at, problem, 'value');
    if (compiled) pathParameters.push([name, compiled]);
  }
  const multi = (entries: Record<string, Matcher> | undefined, base: string, lower: boolean): Array<[string, MultiMatcher]> => {
    const out: Array<[string, MultiMatcher]> = [];
    for (const [name, m] of Object.entries(entries ?? {})) {
      const compiled = compileMultiMatcher(m, `${base}${pointer(name)}`, problem);
      if (compiled) out.push([lower ? name.toLowerCase() : name, compiled]);
    }
    return out;
  };
  const bodyPatterns: ValueMatcher[] = [];
  (r.bodyPatterns ?? []).forEach((m, i) => {
    const compiled = compileMatcher(m, `/request/bodyPatterns/${i}`, problem, 'body');
    if (compiled) bodyPatterns.push(compiled);
  });
  return {
    method,
    url,
    pathParameters,
    queryParameters: multi(r.queryParameters, '/request/queryParameters', false),
    headers: multi(r.headers, '/request/headers', true),
    bodyPatterns,
  };
}

/**
 * A literal URL is compared with the request's as the client sends it, percent-encoded: a space, a
 * control character, "#" (a fragment is never sent) or a character outside ASCII never comes as it
 * is, so a mapping holding one could never match. WireMock compares the same way and accepts it;
 * the sandbox says so instead, with the form to write.
 */
function urlText(value: string, at: string, problem: Problem): boolean {
  if (!/[^\x21-\x7e]|#/.test(value)) return true;
  const encoded = Array.from(value, (c) => (/[^\x21-\x7e]|#/.test(c) ? [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('') : c)).join('');
  problem(
    at,
    `holds a character a request's URL never carries as it is (a space, a control character, "#" or one outside ASCII): clients send it percent-encoded, and the mapping is compared with what they send; write ${JSON.stringify(encoded)}`,
  );
  return false;
}

/** `/v1/batches/{chave}` -> literal and parameter segments; RFC 6570's simple form only. */
function templateSegments(template: string, at: string, problem: Problem): Array<{ literal: string } | { param: string }> | undefined {
  if (!template.startsWith('/')) {
    problem(at, 'must start with "/"');
    return undefined;
  }
  const seen = new Set<string>();
  const segments: Array<{ literal: string } | { param: string }> = [];
  for (const segment of template.split('/').slice(1)) {
    const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(segment);
    if (m) {
      const name = m[1] ?? '';
      if (seen.has(name)) problem(at, `names the parameter {${name}} twice`);
      seen.add(name);
      segments.push({ param: name });
    } else if (/[{}]/.test(segment)) {
      problem(at, `the segment "${segment}" is not a literal nor one whole {parameter} (the form this sandbox reads)`);
      return undefined;
    } else {
      segments.push({ literal: segment });
    }
  }
  return segments;
}

function compileText(source: string, templated: boolean, path: string, problem: Problem): string | Template | undefined {
  if (!templated) return source;
  try {
    return compileTemplate(source);
  } catch (err) {
    problem(path, (err as Error).message);
    return undefined;
  }
}

/**
 * Response headers the server writes itself: the body's framing (Content-Length, Transfer-Encoding)
 * and the connection's hop-by-hop headers (RFC 9110 section 7.6.1). One given by a mapping would
 * contradict the framing the server writes (a client refuses an answer with both Content-Length and
 * Transfer-Encoding) or the connection's state.
 */
const SERVER_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

/** Why a 1xx is refused (RFC 9110 section 15.2). */
export const FINAL_STATUS =
  'is informational (1xx): an interim answer that a final one must follow (101 switches the connection to another protocol), so a client would wait forever; a mapping answers a final status, 200 to 599';

/** Why an empty Content-Type is refused (RFC 9110 section 8.3). */
export const EMPTY_CONTENT_TYPE = 'is empty: a Content-Type is a media type such as text/plain (leave the header out to send none)';

function readResponse(mapping: StubMapping, context: ReadContext, problem: Problem): StubResponseRule | undefined {
  const r = mapping.response ?? {};
  const transformers = r.transformers ?? [];
  transformers.forEach((t, i) => {
    if (t !== 'response-template') problem(`/response/transformers/${i}`, `"${t}" is not a transformer this sandbox has: only "response-template"`);
  });
  const templated = transformers.includes('response-template');
  const bodies = (['body', 'jsonBody', 'base64Body', 'bodyFileName'] as const).filter((k) => r[k] !== undefined);
  if (bodies.length > 1) problem(`/response/${bodies[1]}`, `gives a second body beside ${bodies[0]}: give one`);

  const headers: Array<[string, string | Template]> = [];
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    if (!isHeaderName(name)) problem(`/response/headers${pointer(name)}`, 'is not a valid header name');
    else if (SERVER_HEADERS.has(name.toLowerCase()))
      problem(
        `/response/headers${pointer(name)}`,
        `is a framing or hop-by-hop header (${[...SERVER_HEADERS].join(', ')}): the sandbox writes it from the body and the connection, a mapping may not give it`,
      );
    const values = Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      const at = `/response/headers${pointer(name)}${Array.isArray(value) ? `/${i}` : ''}`;
      // A template's text is checked as it renders (a character of a helper's argument need not be sent).
      if (templated ? /[\r\n\0]/.test(v) : !isHeaderText(v)) problem(at, `must hold only ${HEADER_TEXT_RULE}`);
      else if (name.toLowerCase() === 'content-type' && v.trim() === '') problem(at, EMPTY_CONTENT_TYPE);
      const compiled = compileText(v, templated, at, problem);
      if (compiled !== undefined) headers.push([name, compiled]);
    });
  }

  let body: StubBody = { kind: 'none' };
  if (r.base64Body !== undefined) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(r.base64Body.replace(/\s/g, ''))) problem('/response/base64Body', 'is not base64');
    else body = { kind: 'bytes', bytes: Buffer.from(r.base64Body, 'base64') };
  } else if (r.body !== undefined || r.jsonBody !== undefined || r.bodyFileName !== undefined) {
    let source: string | undefined;
    if (r.body !== undefined) source = r.body;
    else if (r.jsonBody !== undefined) source = stringifyExact(exactCopy(r.jsonBody));
    else source = readBodyFile(r.bodyFileName ?? '', context, problem);
    if (source !== undefined) {
      const at = `/response/${bodies[0] ?? 'body'}`;
      const compiled = compileText(source, templated, at, problem);
      if (compiled !== undefined) {
        body = typeof compiled === 'string' ? { kind: 'bytes', bytes: Buffer.from(compiled, 'utf8') } : { kind: 'template', template: compiled };
      }
    }
  }
  if (r.statusMessage !== undefined && !isHeaderText(r.statusMessage)) problem('/response/statusMessage', `must hold only ${HEADER_TEXT_RULE}`);
  return {
    status: r.status ?? 200,
    statusMessage: r.statusMessage,
    headers,
    body,
    delayMs: r.fixedDelayMilliseconds ?? 0,
    templated,
    parameters: r.transformerParameters ?? {},
  };
}

/** bodyFileName: a file under the folder's __files/, read once when the folder is loaded. */
function readBodyFile(name: string, context: ReadContext, problem: Problem): string | undefined {
  const at = '/response/bodyFileName';
  if (context.source !== 'folder' || !context.filesDir) {
    problem(at, 'names a file of a stub folder: only mappings read from --stubs DIR may use it (send body or jsonBody instead)');
    return undefined;
  }
  const path = normalize(join(context.filesDir, name));
  const inside = relative(context.filesDir, path);
  if (isAbsolute(name) || inside.startsWith('..') || isAbsolute(inside)) {
    problem(at, 'must be a path under the folder\'s __files/');
    return undefined;
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    problem(at, `cannot be read from ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return undefined;
  }
}

function readScenario(mapping: StubMapping, problem: Problem): Stub['scenario'] {
  const { scenarioName, requiredScenarioState, newScenarioState } = mapping;
  if (scenarioName === undefined) {
    if (requiredScenarioState !== undefined) problem('/requiredScenarioState', 'needs a scenarioName');
    if (newScenarioState !== undefined) problem('/newScenarioState', 'needs a scenarioName');
    return null;
  }
  if (scenarioName === '') problem('/scenarioName', 'must not be empty');
  return { name: scenarioName, required: requiredScenarioState ?? null, next: newScenarioState ?? null };
}

/** The interface of a mapping (its operation's, else its URL's prefix) and the named-only operation it implements. */
function readBinding(
  mapping: StubMapping,
  request: StubRequestRule | undefined,
  context: ReadContext,
  problem: Problem,
): { interface: InterfaceId | null; operation: string | null } {
  const sandbox = mapping.metadata?.sandbox;
  let operation: Operation | undefined;
  if (sandbox !== undefined) {
    if (sandbox === null || typeof sandbox !== 'object' || Array.isArray(sandbox)) {
      problem('/metadata/sandbox', 'must be an object such as {"operation": "login"}');
    } else {
      const { operation: name, ...rest } = sandbox as Record<string, unknown>;
      for (const key of Object.keys(rest)) problem(`/metadata/sandbox${pointer(key)}`, 'is not read: only operation');
      if (name !== undefined) {
        operation = context.operations.find((o) => o.id === name);
        if (typeof name !== 'string' || !operation) {
          problem('/metadata/sandbox/operation', 'must be the id of an operation of GET /_sandbox/operations');
        } else if (operation.status !== 'named-only') {
          problem('/metadata/sandbox/operation', `${operation.id} is a documented operation the sandbox emulates: a mapping may implement only an operation the specification names without a path`);
        }
      }
    }
  }
  const literal = request && (request.url.kind === 'url' || request.url.kind === 'urlPath' || request.url.kind === 'urlPathTemplate') ? request.url.text.split('?')[0] ?? '' : null;
  const byPrefix = literal === null ? null : context.interfaceOfPath(literal);
  if (operation && byPrefix !== null && byPrefix !== operation.interface) {
    problem('/metadata/sandbox/operation', `${operation.id} belongs to ${operation.interface}, but the mapping's URL is under the ${byPrefix} prefix`);
  }
  return { interface: operation?.interface ?? byPrefix, operation: operation?.id ?? null };
}

