// Patterns users write (stub matchers, JSON placeholders, template helpers) run in time linear in the
// input: a pattern that makes a backtracking engine take exponential time answers at once here, and
// for the patterns both engines read, RE2's verdict is JavaScript's (V8's engine as the judge).
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { userRegex } from '../../src/runtime/user-regex.js';
import { RG, stubbed } from '../stubs/helpers.js';

/** Patterns that backtrack exponentially in JavaScript on a run of "a" that does not end as they want. */
const CATASTROPHIC = ['(a+)+b', '(a|a)*b', '(a|aa)+$b', '(.*a){30}b', '(a*)*b'];

describe('user regular expressions', () => {
  it('answer in time linear in the input where a backtracking engine would take exponential time', () => {
    const input = 'a'.repeat(100_000);
    for (const source of CATASTROPHIC) {
      const re = userRegex(source);
      expect(re.matchesWhole(input), source).toBe(false);
      expect(re.exec(input), source).toBeNull();
    }
    expect(userRegex('(a+)+b').matchesWhole('aaab')).toBe(true);
  });

  it("agree with JavaScript's engine on the patterns both read", () => {
    // Small patterns over a small alphabet, so that matches and near misses both occur.
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', '1');
    const pattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
      term: fc.oneof(
        { depthSize: 'small' },
        atom,
        fc.tuple(tie('term'), fc.constantFrom('*', '+', '?', '{1,2}')).map(([t, q]) => `(?:${t})${q}`),
        fc.tuple(tie('term'), tie('term')).map(([x, y]) => `${x}${y}`),
        fc.tuple(tie('term'), tie('term')).map(([x, y]) => `(${x}|${y})`),
      ),
    })).term as fc.Arbitrary<string>;
    fc.assert(
      fc.property(pattern, fc.stringMatching(/^[ab1c]{0,8}$/), (source, value) => {
        const ours = userRegex(source);
        const js = new RegExp(`^(?:${source})$`);
        expect(ours.matchesWhole(value)).toBe(js.test(value));
        const found = ours.exec(value);
        const expected = new RegExp(source).exec(value);
        expect(found === null).toBe(expected === null);
        if (found && expected) expect(found.index).toBe(expected.index);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse what RE2 cannot read, saying why', () => {
    expect(() => userRegex('(?=a)b')).toThrow(/lookaround/);
    expect(() => userRegex('(a)\\1')).toThrow(/backreferences/);
    expect(() => userRegex('[')).toThrow(/missing closing \]/);
  });
});

describe('a stub whose pattern would backtrack', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({ db: ':memory:', logger: false });
  });
  afterAll(() => app.close());

  it('is matched against a long body at once, and the sandbox goes on answering', async () => {
    await stubbed(app, {
      request: { method: 'POST', urlPath: `${RG}/redos`, bodyPatterns: [{ matches: '(a+)+b' }] },
      response: { status: 200, body: 'matched' },
    });
    const long = await app.inject({ method: 'POST', url: `${RG}/redos`, payload: 'a'.repeat(50_000), headers: { 'content-type': 'text/plain' } });
    expect(long.statusCode).toBe(501);
    const short = await app.inject({ method: 'POST', url: `${RG}/redos`, payload: 'aaab', headers: { 'content-type': 'text/plain' } });
    expect(short.statusCode).toBe(200);
    expect((await app.inject({ url: '/_sandbox/health' })).statusCode).toBe(200);
  });

  it('refuses a mapping whose pattern uses lookaround, naming the field', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/_sandbox/stubs',
      payload: { request: { method: 'GET', urlPathPattern: `${RG}/(?!x).*` }, response: { status: 200 } },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('/request/urlPathPattern');
  });
});
