// JSONPath as users write it for WireMock (runtime/jsonpath.ts): the syntax check, Jayway's `=~` matched
// whole by RE2, and filter scripts that could hold the sandbox refused before they run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jaywayNumberText } from '../../src/domain/java-number.js';
import { parseJsonAsWritten, parseJsonDocument } from '../../src/http/json.js';
import { JsonPathError, jsonPathQuery, jsonPathSyntaxProblem } from '../../src/runtime/jsonpath.js';
import { redact } from '../../src/runtime/redact.js';

describe('JSONPath syntax', () => {
  it('accepts the expressions jsonpath-plus reads as meant, and names the problem of each it would misread', () => {
    for (const ok of ['$', '$.a', '$.a.b[0]', '$..a', '$..*', '$..[0]', '$[*]', '$[-1]', '$[1:3]', "$['a b','c']", '$.a.size()', '$[?(@.name =~ /ab+c/i)]', '$.x[?(@.v > 2 && @.w == "q")].id', '$[(@.length-1)]']) {
      expect(jsonPathSyntaxProblem(ok), ok).toBeUndefined();
    }
    const bad: Array<[string, RegExp]> = [
      ['$[', /unclosed "\["/],
      ['$.a[', /unclosed "\["/],
      ['$[?(@.a', /unclosed "\("/],
      ['$[?(@.a==)]', /expression that cannot be read/],
      ['$..', /needs a name/],
      ['$.a]', /in brackets/],
      ["$['a", /unclosed quote/],
      ['$a', /where "\.", "\.\." or "\[" must come/],
      ['$[a b]', /a bracket holds/],
      ['status', /must start with \$/],
      [`$${'.a'.repeat(600)}`, /at most 1000/],
      // Names jsonpath-plus reads as its own operators (a type, the parent, property names, an escape, the root).
      ['$.@', /"@" .* operator/],
      ['$..@string', /"@" .* operator/],
      ['$.^', /"\^" .* operator/],
      ['$.a.~', /"~" .* operator/],
      ['$.`a', /"`" .* operator/],
      ['$.a$b', /"\$" .* operator/],
      ['$.a;b', /";" .* operator/],
      ["$['@']", /"@" .* operator/],
      ["$['a','^']", /"\^" .* operator/],
      ["$['$']", /"\$" .* operator/],
      ["$['a;b']", /";" .* operator/],
    ];
    for (const [path, problem] of bad) expect(jsonPathSyntaxProblem(path), path).toMatch(problem);
  });

  it('never throws, and whatever it accepts jsonpath-plus evaluates (fast-check)', () => {
    const part = fc.constantFrom('$', '.', '..', '[', ']', '*', 'a', '0', ':', "'", '"', '?', '(', ')', '@', '==', ' ', ',', '-', '^', '~', '`', ';', '%');
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }).map((ps) => ps.join('')), (path) => {
        const problem = jsonPathSyntaxProblem(path);
        if (problem === undefined) expect(() => jsonPathQuery({ a: [{ a: 1 }] }, path)).not.toThrow();
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('filter scripts', () => {
  const things = { things: [{ name: 'abc', n: 12 }, { name: 'xabcx', n: 3 }, { name: 'ABC', n: true }] };
  const names = (path: string) => (jsonPathQuery(things, path) as Array<{ name: string }>).map((t) => t.name);

  it("match =~ as Jayway does: the whole value, numbers and booleans as their text, flags i, m and s", () => {
    expect(names('$.things[?(@.name =~ /abc/)]')).toEqual(['abc']);
    expect(names('$.things[?(@.name =~ /.*abc.*/)]')).toEqual(['abc', 'xabcx']);
    expect(names('$.things[?(@.name =~ /abc/i)]')).toEqual(['abc', 'ABC']);
    expect(names('$.things[?(@.n =~ /\\d+/)]')).toEqual(['abc', 'xabcx']);
    expect(names('$.things[?(@.n =~ /true/)]')).toEqual(['ABC']);
    expect(names('$.things[?(@.name =~ /a"b\\/c/)]')).toEqual([]);
    expect(jsonPathQuery({ s: 'a\nb' }, '$[?(@.s =~ /a.b/s)]')).toHaveLength(1);
    expect(jsonPathQuery({ s: 'a\nb' }, '$[?(@.s =~ /a.b/)]')).toHaveLength(0);
  });

  it('match a number =~ as the text Java gives the value Jayway read, from the text the client wrote', () => {
    const sent = parseJsonAsWritten('{"list":[10.00,10,1500.50,1E+1,-0,12345678901234567890,0.00010],"v":10.00}');
    const matching = (re: string) => jsonPathQuery(sent, `$.list[?(@ =~ ${re})]`).length;
    expect(matching('/10\\.0/')).toBe(2);
    expect(matching('/10/')).toBe(1);
    expect(matching('/1500\\.5/')).toBe(1);
    expect(matching('/0/')).toBe(1);
    expect(matching('/12345678901234567890/')).toBe(1);
    expect(matching('/0\\.00010/')).toBe(1);
    // By the operand's holder and key, in whichever way the path names it.
    for (const path of ['$[?(@.v =~ /10\\.0/)]', "$[?(@['v'] =~ /10\\.0/)]", '$[?(@.list[0] =~ /10\\.0/)]', '$[?(@.list.size() =~ /7/)]'])
      expect(jsonPathQuery(sent, path), path).toHaveLength(1);
  });

  it('match a number =~ alike in a body as a mapping reads it, as the journal shows it and as a wait reads a view (fast-check)', () => {
    const numberText = fc.oneof(
      fc.stringMatching(/^-?(0|[1-9]\d{0,22})(\.\d{1,6})?([eE][+-]?\d{1,2})?$/),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    );
    const escaped = (text: string) => text.replace(/[.+]/g, '\\$&');
    fc.assert(
      fc.property(numberText, (text) => {
        const json = `{"v":${text}}`;
        const journaled = redact(parseJsonDocument(Buffer.from(json)));
        const java = jaywayNumberText(text);
        for (const pattern of [java, text, String(Number(text))]) {
          if (pattern === undefined) continue;
          const path = `$[?(@.v =~ /${escaped(pattern)}/)]`;
          const expected = pattern === java;
          expect(jsonPathQuery(parseJsonAsWritten(json), path).length === 1, `${text} =~ ${pattern}`).toBe(expected);
          expect(jsonPathQuery(journaled, path).length === 1, `${text} =~ ${pattern}, journaled`).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('run =~ by RE2: a pattern that backtracks in JavaScript answers at once against a long value', () => {
    const doc = { v: `${'a'.repeat(5000)}!` };
    // JavaScript's engine would take longer than the age of the universe here; RE2 is linear.
    expect(jsonPathQuery(doc, '$[?(@.v =~ /(a+)+b/)]')).toEqual([]);
    expect(jsonPathSyntaxProblem('$[?(@.v =~ /(a)\\1/)]')).toMatch(/cannot be read: .*backreferences/);
    expect(jsonPathSyntaxProblem('$[?(@.v =~ /a/x)]')).toMatch(/flag "x"/);
  });

  it('refuse what could hold the sandbox: regular expression literals, regex and string-building methods, computed calls', () => {
    const refused: Array<[string, RegExp]> = [
      ['$[?(@.v.match(/(a+)+b/))]', /calls match, which runs JavaScript's regular expressions/],
      ["$[?(@.v.replace(/(a+)+b/, 'x') == 'x')]", /regular expression \/\(a\+\)\+b\/ outside "=~"/],
      ["$[?(/(a+)+b/.test(@.v))]", /regular expression/],
      ["$[?(@.v.match('(a+)+b'))]", /calls match, which runs JavaScript's regular expressions/],
      ["$[?(@.v.search('a'))]", /calls search/],
      ["$[?(@.v.matchAll('a'))]", /calls matchAll/],
      ["$[?(@.v.repeat(1e9))]", /calls repeat, which builds a string of any length/],
      ["$[?(@.v.padStart(1e9))]", /calls padStart/],
      ["$[?(@.v['ma' + 'tch']('(a+)+b'))]", /computed value/],
      ["$[?(@.v['match']('(a+)+b'))]", /calls match/],
    ];
    for (const [path, problem] of refused) {
      expect(jsonPathSyntaxProblem(path), path).toMatch(problem);
      expect(() => jsonPathQuery({ v: 'aaaa' }, path), path).toThrow(JsonPathError);
    }
    // What stays: comparisons, lengths, string methods that take text as text.
    expect(names("$.things[?(@.name.startsWith('x') || @.name.toLowerCase() == 'abc')]")).toEqual(['abc', 'xabcx', 'ABC']);
    expect(names('$.things[?(@.name.size() == 5)]')).toEqual(['xabcx']);
  });
});
