// JSONPath as WireMock reads it (Jayway's dialect), run by jsonpath-plus with its safe evaluator: the
// expressions of stub matchers (matchesJsonPath), of the jsonPath template helper, and of the
// control plane's conditions (GET /_sandbox/requests/count, waits). Expressions come from users, so
// each is checked before it runs: its syntax (jsonpath-plus reads almost any text as some path), and
// what its filter scripts may do. A script could otherwise hold the event loop of every workspace
// (a JavaScript regular expression such as /(a+)+b/ backtracks for seconds or for good) or build a
// string of any length ('a'.repeat(1e9)). Jayway's `a =~ /re/flags` is matched as Jayway matches it,
// the whole value against the pattern, by RE2 (runtime/user-regex.ts), like every other user pattern.
import { createRequire } from 'node:module';
import type { JSONPath as JSONPathQuery } from 'jsonpath-plus';
import { jaywayNumberText } from '../domain/java-number.js';
import { DecimalText } from '../domain/money.js';
import { numberText } from '../http/exact-numbers.js';
import { type UserRegex, userRegex } from './user-regex.js';

// Loaded on first use: a sandbox that reads no JSONPath never needs it, and loading it is start-up time.
const load = createRequire(import.meta.url);
let jsonPathLibrary: typeof JSONPathQuery | undefined;
const jsonPathOf = (): typeof JSONPathQuery => (jsonPathLibrary ??= (load('jsonpath-plus') as { JSONPath: typeof JSONPathQuery }).JSONPath);

/** An expression that cannot be read or run; the message says why. */
export class JsonPathError extends Error {
  override name = 'JsonPathError';
}

/** The longest JSONPath expression accepted from a user: jsonpath-plus reads one with regular expressions whose time grows with the square of its length. */
export const MAX_JSONPATH_LENGTH = 1000;

/** True when a JSONPath names at most one node (no wildcard, recursion, filter, union or slice). */
export function isDefinite(path: string): boolean {
  return !/\*|\.\.|\[\?|,|:/.test(path);
}

/** The function a translated `=~` calls in a filter script (an identifier jsonpath-plus's own names cannot take). */
const MATCHES = '_$_sandboxMatches';

/** Jayway's `operand =~ /pattern/flags` in a filter. */
const REGEX_OPERATOR = /(@[\w.$[\]'"-]*)\s*=~\s*\/((?:\\.|[^/\\])+)\/([a-zA-Z]*)/g;

/** A pattern as the text of a string literal the script parser reads back to the same characters. */
function stringLiteral(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

/**
 * Jayway's dialect as jsonpath-plus reads it: `.size()` is `.length`, and `a =~ /re/i` a call of the
 * sandbox's whole-value RE2 match. Flags: i, m and s as RE2's inline flags; g, y and u change nothing
 * in a whole-value match of RE2 (which reads Unicode); any other is refused (throws).
 */
function translated(path: string): string {
  return path.replace(/\.size\(\)/g, '.length').replace(REGEX_OPERATOR, (_all, operand: string, source: string, flags: string) => {
    const unknown = [...flags].filter((f) => !'imsguy'.includes(f));
    if (unknown.length > 0) throw new Error(`has the regular expression flag "${unknown.join('')}" after /${source}/: i, m and s are read (g, u and y change nothing)`);
    const inline = [...new Set([...flags].filter((f) => 'ims'.includes(f)))].join('');
    return `${MATCHES}(${operand} , ${stringLiteral(inline === '' ? source : `(?${inline})${source}`)}${holderArguments(operand)})`;
  });
}

/** The last step of an operand: `.name`, `[0]` or a quoted name in brackets. */
const LAST_STEP = /^(@.*?)(?:\.([A-Za-z_$][\w$]*)|\[(\d+|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\])$/;

/**
 * The holder of an operand's value and its key, as further arguments of the match: a number's text
 * as the client wrote it is recorded by its holder and key (http/exact-numbers.ts), which a filter
 * script's value alone does not carry. `@` itself is an item of the array (or object) the filter
 * walks, which jsonpath-plus names only as @parent's @parentProperty; the item's key is @property.
 */
function holderArguments(operand: string): string {
  if (operand === '@') return ', @property , @parent , @parentProperty';
  const m = LAST_STEP.exec(operand);
  if (!m) return '';
  const [, holder = '@', name, bracket] = m;
  return `, ${holder} , ${name === undefined ? bracket : stringLiteral(name)}`;
}

/** The parts of a parsed filter script the check reads (jsep's expression tree). */
interface Node {
  type: string;
  value?: unknown;
  name?: string;
  computed?: boolean;
  property?: Node;
  object?: Node;
  callee?: Node;
  arguments?: Node[];
  [key: string]: unknown;
}

/**
 * Methods a script may not call: those that compile a string into a JavaScript regular expression
 * (match, matchAll, search) and those that build a string of a length the script chooses.
 */
const REFUSED_METHODS = new Set(['match', 'matchAll', 'search', 'repeat', 'padStart', 'padEnd']);

/**
 * Why a filter script may not run, or undefined: a regular expression literal (JavaScript's engine
 * backtracks; write Jayway's `=~`, read by RE2), a call of a refused method or of a method named by a
 * computed value, or a `=~` pattern RE2 cannot read.
 */
function expressionProblem(node: Node): string | undefined {
  if (node.type === 'Literal' && node.value instanceof RegExp)
    return `holds the regular expression ${String(node.value)} outside "=~": write it as @.field =~ /pattern/ (matched by RE2, the whole value)`;
  if (node.type === 'CallExpression') {
    const callee = node.callee as Node;
    if (callee.type === 'Identifier' && callee.name === MATCHES) {
      const pattern = node.arguments?.[1]?.value;
      try {
        compiled(String(pattern));
      } catch (err) {
        return `has a pattern after "=~" that cannot be read: ${(err as Error).message}`;
      }
    } else if (callee.type === 'MemberExpression') {
      const property = callee.property as Node;
      const name = callee.computed ? (property.type === 'Literal' ? String(property.value) : undefined) : property.name;
      if (name === undefined) return 'calls a method named by a computed value';
      if (REFUSED_METHODS.has(name))
        return name.startsWith('pad') || name === 'repeat'
          ? `calls ${name}, which builds a string of any length`
          : `calls ${name}, which runs JavaScript's regular expressions: write @.field =~ /pattern/ (matched by RE2, the whole value)`;
    }
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === 'value') continue;
    const children = Array.isArray(child) ? child : [child];
    for (const c of children) {
      if (c !== null && typeof c === 'object' && typeof (c as Node).type === 'string') {
        const problem = expressionProblem(c as Node);
        if (problem !== undefined) return problem;
      }
    }
  }
  return undefined;
}

// Patterns compile once; users write few, and the map is bounded anyway.
const patterns = new Map<string, UserRegex>();
const MAX_PATTERNS = 1024;

function compiled(source: string): UserRegex {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    pattern = userRegex(source);
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(source, pattern);
  }
  return pattern;
}

/**
 * Jayway's `=~`: a string or boolean as its text, a number as the text Java gives the value Jayway
 * read (domain/java-number.ts: 10.00 as 10.0, 1500.50 as 1500.5) from the text the client wrote (a
 * DecimalText's, else the one recorded by its holder and key, else its double's, which is then that
 * text), anything else as "", matched whole. A number Java reads as Infinity matches nothing.
 */
function sandboxMatches(value: unknown, source: string, ...where: unknown[]): boolean {
  let input: string | undefined = '';
  if (typeof value === 'string' || typeof value === 'boolean') input = String(value);
  else if (value instanceof DecimalText) input = jaywayNumberText(value.text);
  else if (typeof value === 'number') input = jaywayNumberText(writtenText(where) ?? String(value));
  return input !== undefined && compiled(source).matchesWhole(input);
}

const isKey = (key: unknown): key is string | number => typeof key === 'string' || typeof key === 'number';

/** The recorded text of a number from holderArguments: [holder, key], or [key, parent, parent's key] for `@`. */
function writtenText(where: unknown[]): string | undefined {
  if (where.length === 2) return isKey(where[1]) ? numberText(where[0], where[1]) : undefined;
  const [key, parent, parentKey] = where;
  if (!isKey(key) || !isKey(parentKey) || typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, parentKey)) return undefined;
  return numberText((parent as Record<string | number, unknown>)[parentKey], key);
}

// Each distinct expression is checked once. jsonpath-plus keeps every path and script it has read in
// a cache of its own that never shrinks; it is emptied with this one, so memory stays bounded however
// many distinct expressions users send.
/** Per expression: why it cannot run, or the translated expression jsonpath-plus reads. */
const verdicts = new Map<string, { problem: string } | { expression: string }>();
const MAX_VERDICTS = 1024;

/** The translated expression of a path that passed the check (checked and translated once per path). */
function checked(path: string): string {
  let verdict = verdicts.get(path);
  if (verdict === undefined) {
    const problem = jsonPathSyntaxProblem(path);
    verdict = problem === undefined ? { expression: translated(path) } : { problem };
    if (verdicts.size >= MAX_VERDICTS) {
      verdicts.clear();
      jsonPathOf().cache = {};
    }
    verdicts.set(path, verdict);
  }
  if ('problem' in verdict) throw new JsonPathError(`the JSONPath ${path} cannot be read: it ${verdict.problem}`);
  return verdict.expression;
}

/** What jsonpath-plus answers for each node with resultType "all" (the parts read here). */
interface Found {
  value: unknown;
  parent: unknown;
  parentProperty: string | number | null;
}

/** Runs a checked expression; a filter at the root tests the root itself. */
function run(json: unknown, path: string, resultType: 'value' | 'all'): unknown[] {
  const expression = checked(path);
  const rootFilter = /^\$\[\?/.test(expression) && json !== null && typeof json === 'object' && !Array.isArray(json);
  try {
    // The safe evaluator: a script reaches nothing but the document and the sandbox's match (a fresh
    // object per query: the library writes the current node into it).
    return jsonPathOf()({
      path: expression,
      json: (rootFilter ? [json] : json) as object,
      resultType,
      wrap: true,
      eval: 'safe',
      ignoreEvalErrors: true,
      // The library's types call the sandbox a Map; it reads and writes it as a plain object.
      sandbox: { [MATCHES]: sandboxMatches } as unknown as Map<string, unknown>,
    }) as unknown as unknown[];
  } catch (err) {
    throw new JsonPathError(`the JSONPath ${path} cannot be read: ${(err as Error).message}`);
  }
}

/**
 * The nodes a JSONPath expression written for WireMock selects, in document order; a filter at the
 * root tests the root itself. Throws JsonPathError when the expression cannot be read or run.
 */
export function jsonPathQuery(json: unknown, path: string): unknown[] {
  return run(json, path, 'value');
}

/**
 * The nodes jsonPathQuery selects, each number a double would change (recorded when its document was
 * read, http/exact-numbers.ts) as the DecimalText of its text: a selected number is a copy, no longer
 * beside the object that holds it, so its text is taken while the holder is known. Objects and arrays
 * are the document's own, whose numbers stringifyExact writes as they were read.
 */
export function jsonPathExactQuery(json: unknown, path: string): unknown[] {
  return (run(json, path, 'all') as Found[]).map(({ value, parent, parentProperty }) => {
    const text = typeof value === 'number' && parentProperty !== null ? numberText(parent, parentProperty) : undefined;
    return text === undefined ? value : new DecimalText(text);
  });
}

/**
 * The value a JSONPath selects, as WireMock's jsonPath helper gives it: one node, or a list; numbers
 * as the document wrote them (jsonPathExactQuery).
 */
export function jsonPathValue(json: unknown, path: string): unknown {
  const found = jsonPathExactQuery(json, path);
  return isDefinite(path) ? found[0] : found;
}

/** Index of the quote closing the one at `start` (backslash escapes), or -1. */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === quote) return i;
  }
  return -1;
}

/** Index of the parenthesis closing the one at `start` (quotes skipped), or -1. */
function closingParen(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      i = closingQuote(text, i);
      if (i === -1) return -1;
    } else if (c === '(') depth += 1;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

const BRACKET_ITEM = /^\s*(?:\*|-?\d+|-?\d*:-?\d*(?::-?\d*)?|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*$/;

/**
 * Why `path` is not a JSONPath expression, or undefined when it is one. jsonpath-plus reads almost any
 * text as some path (`$[` selects the root, a filter it cannot parse selects nothing), so an expression
 * is checked here before it is accepted: `$`, then `.name`, `.*`, `..name`, `..*`, `..[...]` and
 * brackets holding `*`, indexes, slices or quoted names (a comma between several), a filter `?(...)`
 * or a script `(...)` whose expression parses and is safe to run (expressionProblem). One pass over
 * the text, and at most MAX_JSONPATH_LENGTH characters.
 */
export function jsonPathSyntaxProblem(path: string): string | undefined {
  if (path.length > MAX_JSONPATH_LENGTH) return `is ${path.length} characters long: at most ${MAX_JSONPATH_LENGTH}`;
  let text: string;
  try {
    text = translated(path);
  } catch (err) {
    return (err as Error).message;
  }
  if (text[0] !== '$') return 'must start with $ (e.g. $.status)';
  let i = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      const recursive = text[i + 1] === '.';
      i += recursive ? 2 : 1;
      if (recursive && text[i] === '[') continue;
      const start = i;
      while (i < text.length && text[i] !== '.' && text[i] !== '[') i += 1;
      const name = text.slice(start, i);
      if (name === '') return `needs a name, * or a bracket after "${recursive ? '..' : '.'}" at character ${start}`;
      if (/[\]()'"\s]/.test(name)) return `has "${name}" after "." at character ${start}: write a name with such characters in brackets, ['like this']`;
      const operator = name === '*' ? undefined : /[@^~`$,;%*]/.exec(name)?.[0];
      if (operator !== undefined) return operatorInName(name, operator, start);
    } else if (c === '[') {
      const open = i;
      if (text[i + 1] === '?' || text[i + 1] === '(') {
        const paren = text[i + 1] === '?' ? i + 2 : i + 1;
        if (text[paren] !== '(') return `needs "(" after "[?" at character ${paren}`;
        const close = closingParen(text, paren);
        if (close === -1) return `has an unclosed "(" at character ${paren}`;
        if (text[close + 1] !== ']') return `needs "]" after the expression closed at character ${close}`;
        const expression = text.slice(paren + 1, close);
        let ast: Node;
        try {
          const Script = jsonPathOf().prototype.safeVm.Script as new (code: string) => { ast: Node };
          ast = new Script(expression.replace(/@/g, '_$$_v')).ast;
        } catch (err) {
          return `has an expression that cannot be read at character ${paren + 1}: ${(err as Error).message}`;
        }
        const unsafe = expressionProblem(ast);
        if (unsafe !== undefined) return `has an expression at character ${paren + 1} that ${unsafe}`;
        i = close + 2;
      } else {
        let j = i + 1;
        while (j < text.length && text[j] !== ']') {
          if (text[j] === "'" || text[j] === '"') {
            j = closingQuote(text, j);
            if (j === -1) return `has an unclosed quote in the bracket at character ${open}`;
          }
          j += 1;
        }
        if (j >= text.length) return `has an unclosed "[" at character ${open}`;
        const items = splitOutsideQuotes(text.slice(open + 1, j));
        if (items.some((item) => !BRACKET_ITEM.test(item)))
          return `has [${text.slice(open + 1, j)}] at character ${open}: a bracket holds *, indexes, slices (1:3) or quoted names, separated by commas`;
        for (const item of items) {
          const quoted = /^\s*['"](.*)['"]\s*$/.exec(item)?.[1];
          if (quoted === undefined) continue;
          const operator = ['$', '*', '..', '~'].includes(quoted) ? quoted : /[@^`,;%\]\\'"]/.exec(quoted)?.[0];
          if (operator !== undefined) return operatorInName(quoted, operator, open);
        }
        i = j + 1;
      }
    } else {
      return `has "${c}" at character ${i} where ".", ".." or "[" must come`;
    }
  }
  return undefined;
}

/**
 * A name jsonpath-plus would not read as a name: it takes @ (a type such as @string()), ^ (the
 * parent), ~ (property names), ` (an escape), $ (the root), * and , (wildcards and unions), and splits
 * at ; and % internally, in a name after a dot; in quotes it keeps . and ~ but not the others, nor a
 * quote or ] inside. Refused, since the expression would select something else than WireMock's
 * Jayway selects, or throw on a document later.
 */
function operatorInName(name: string, operator: string, at: number): string {
  return (
    `has the name "${name}" at character ${at}, whose "${operator}" the sandbox's JSONPath reader (jsonpath-plus) reads as an ` +
    'operator, not as part of a name: a name holding @ ^ ~ ` $ , ; % * (or, quoted, a quote or ]) cannot be selected here'
  );
}

/** The parts of a bracket's content between commas outside quotes. */
function splitOutsideQuotes(content: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (c === "'" || c === '"') i = Math.max(closingQuote(content, i), i);
    else if (c === ',') {
      parts.push(content.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(content.slice(start));
  return parts;
}
