// Which requests the documented operations own. A user-defined operation (a stub mapping, or the
// upstream in proxy mode) may answer only requests that no documented operation owns: the sandbox
// keeps emulating what the specification documents. Ownership is read from the catalog's method
// and path templates, as the router reads them: a {parameter} takes any non-empty segment, except a
// word another documented path of the same interface has at that place (".../extract" is the
// extract list, never a trade bill whose uid is "extract").
import type { Operation } from '../http/catalog.js';
import type { StubRequestRule } from './mapping.js';

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');
const segmentsOf = (path: string) => path.split('/').slice(1);

interface Template {
  operation: Operation;
  segments: string[];
}

const cache = new WeakMap<readonly Operation[], Template[]>();

function templates(operations: readonly Operation[]): Template[] {
  let list = cache.get(operations);
  if (!list) {
    list = operations
      .filter((o) => o.method !== null && o.path !== null)
      .map((operation) => ({ operation, segments: segmentsOf(operation.path ?? '') }));
    cache.set(operations, list);
  }
  return list;
}

/** A word that another documented path has where `template` has a parameter: not a parameter value. */
function reserved(template: Template, index: number, value: string, all: readonly Template[]): boolean {
  return all.some(
    (other) =>
      other !== template &&
      other.segments[index] === value &&
      template.segments.slice(0, index).every((s, i) => {
        const o = other.segments[i];
        return o !== undefined && (s === o || (isParam(s) && isParam(o)));
      }),
  );
}

function fits(template: Template, sent: readonly string[], all: readonly Template[]): boolean {
  if (sent.length !== template.segments.length) return false;
  return template.segments.every((segment, i) => {
    const value = sent[i] ?? '';
    if (isParam(segment)) return value !== '' && !reserved(template, i, value, all);
    return value === segment;
  });
}

/** The documented operation that owns `method path` (path without its query string), if any. */
export function ownerOfRequest(method: string, path: string, operations: readonly Operation[]): Operation | undefined {
  const all = templates(operations);
  const sent = segmentsOf(path);
  return all.find((t) => t.operation.method === method && fits(t, sent, all))?.operation;
}

/** True when every value a mapping's template segment can take is one the documented segment takes. */
function segmentWithin(mapping: string, documented: string, index: number, template: Template, all: readonly Template[]): boolean {
  if (isParam(mapping)) {
    // A parameter takes any value: within a documented parameter that reserves no word here.
    return isParam(documented) && !all.some((other) => other !== template && other.segments[index] !== undefined && !isParam(other.segments[index] ?? '') && reserved(template, index, other.segments[index] ?? '', all));
  }
  if (isParam(documented)) return mapping !== '' && !reserved(template, index, mapping, all);
  return mapping === documented;
}

/** The text a regular expression matches when it matches one text only (`a\\.b` is "a.b"); else undefined. */
function literalOf(pattern: string): string | undefined {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[A-Za-z0-9]/.test(next) || next === '') return undefined;
      out += next;
      i++;
    } else if ('^$.|?*+()[]{}'.includes(c)) {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * The documented operation a mapping can only ever match requests of, if any: then it would never
 * answer, and is refused. A mapping that could also match other requests (another method, a pattern,
 * a template whose parameter also takes other values) is accepted: the documented operation keeps
 * its requests and the mapping gets the rest. A regular expression is taken to reach beyond a
 * documented path unless it is a literal path.
 */
export function documentedOwner(rule: StubRequestRule, operations: readonly Operation[]): Operation | undefined {
  if (rule.method === 'ANY') return undefined;
  const all = templates(operations);
  const candidates = all.filter((t) => t.operation.method === rule.method);
  const url = rule.url;
  let literal: string | undefined;
  switch (url.kind) {
    case 'any':
      return undefined;
    case 'url':
      literal = url.text.split('?')[0];
      break;
    case 'urlPath':
      literal = url.text;
      break;
    case 'urlPattern':
    case 'urlPathPattern': {
      // A pattern with no regular-expression syntax (escaped punctuation aside) is a literal path.
      literal = literalOf(url.kind === 'urlPattern' ? (url.text.split('\\?')[0] ?? '') : url.text);
      if (literal === undefined) return undefined;
      break;
    }
    case 'urlPathTemplate': {
      const mapped = url.segments.map((s) => ('param' in s ? `{${s.param}}` : s.literal));
      return candidates.find(
        (t) => t.segments.length === mapped.length && mapped.every((s, i) => segmentWithin(s, t.segments[i] ?? '', i, t, all)),
      )?.operation;
    }
  }
  if (literal === undefined) return undefined;
  const sent = segmentsOf(literal);
  return candidates.find((t) => fits(t, sent, all))?.operation;
}
