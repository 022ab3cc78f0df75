// The template module on its own: what every user of it (stub responses, notification payloads) gets.
// The same helpers are driven over HTTP through stub mappings in test/stubs/.
import { describe, expect, it } from 'vitest';
import { SandboxIds } from '../../src/runtime/ids.js';
import {
  compileTemplate,
  formatDate,
  HELPER_NAMES,
  type HelperContext,
  templateHelpers,
  TemplateError,
} from '../../src/runtime/templates.js';

const AT = Date.parse('2026-11-05T13:04:05.678Z');

function helpers(over: Partial<HelperContext> = {}) {
  return templateHelpers({ clock: { nowMs: () => AT }, ids: new SandboxIds('templates'), ...over });
}

const render = (source: string, model: object = {}, set = helpers()) => compileTemplate(source)(model, set);

describe('compileTemplate', () => {
  it('refuses a template that does not parse, naming the line', () => {
    expect(() => compileTemplate('ok\n{{#if x}}never closed')).toThrow(TemplateError);
    expect(() => compileTemplate('ok\n{{#if x}}never closed')).toThrow(/line 2/);
  });

  it('renders the model, escaping HTML in {{ }} and not in {{{ }}}, as Handlebars does', () => {
    expect(render('{{a}}|{{{a}}}', { a: '<"x">' })).toBe('&lt;&quot;x&quot;&gt;|<"x">');
  });

  it('reads own properties only (no prototype access from a template)', () => {
    expect(render('[{{constructor.name}}]', {})).toBe('[]');
  });

  it('turns a failing helper into a TemplateError that names it', () => {
    expect(() => render("{{jsonPath body '$.a'}}", { body: 'not json' })).toThrow(/jsonPath: its first argument is not JSON/);
    expect(() => render("{{math 1 '^' 2}}")).toThrow(/math: the operator/);
  });
});

describe('time helpers read the clock they are given', () => {
  it('now, with an offset on the calendar and a SimpleDateFormat pattern', () => {
    expect(render('{{now}}')).toBe('2026-11-05T13:04:05Z');
    expect(render("{{now offset='3 days' format='yyyy-MM-dd'}}")).toBe('2026-11-08');
    expect(render("{{now offset='-1 months' format='dd/MM/yyyy HH:mm:ss.SSS'}}")).toBe('05/10/2026 13:04:05.678');
    expect(render("{{now format='epoch'}}|{{now format='unix'}}")).toBe(`${AT}|${Math.floor(AT / 1000)}`);
    expect(render("{{now timezone='America/Sao_Paulo' format=\"yyyy-MM-dd'T'HH:mm:ssXXX\"}}")).toBe('2026-11-05T10:04:05-03:00');
  });

  it('date and parseDate read ISO 8601, RFC 1123 and patterns', () => {
    expect(render("{{date (parseDate '2026-01-31') offset='1 months' format='yyyy-MM-dd'}}")).toBe('2026-02-28');
    expect(render("{{date (parseDate 'Tue, 15 Jun 2021 15:16:17 GMT')}}")).toBe('2021-06-15T15:16:17Z');
    expect(render("{{date (parseDate '31/12/2026' format='dd/MM/yyyy') format='EEE, d MMM yyyy'}}")).toBe('Thu, 31 Dec 2026');
    expect(() => render("{{parseDate '31/02/2026' format='dd/MM/yyyy'}}")).toThrow(TemplateError);
  });

  it('formatDate writes Java pattern letters, quoted text and zones', () => {
    const d = new Date(AT);
    expect(formatDate(d, "EEEE, MMMM d, yy h:mm a 'o''clock' Z", undefined)).toBe("Thursday, November 5, 26 1:04 PM o'clock +0000");
    expect(() => formatDate(d, 'yyyy-QQ', undefined)).toThrow(/the letter "Q"/);
  });
});

describe('generated values come from the key generator they are given', () => {
  it('repeat for the same seed and differ for another', () => {
    const source = "{{randomValue length=12 type='ALPHANUMERIC'}} {{randomValue type='UUID'}} {{randomInt lower=5 upper=9}}";
    const a = render(source, {}, helpers({ ids: new SandboxIds('s1') }));
    const b = render(source, {}, helpers({ ids: new SandboxIds('s1') }));
    const c = render(source, {}, helpers({ ids: new SandboxIds('s2') }));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    const [text, uuid, int] = a.split(' ');
    expect(text).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number(int)).toBeGreaterThanOrEqual(5);
    expect(Number(int)).toBeLessThanOrEqual(9);
  });

  it('honour the type, length and case asked for', () => {
    expect(render("{{randomValue length=40 type='NUMERIC'}}")).toMatch(/^\d{40}$/);
    expect(render("{{randomValue length=16 type='HEXADECIMAL' uppercase=true}}")).toMatch(/^[0-9A-F]{16}$/);
    expect(() => render("{{randomValue type='EMOJI'}}")).toThrow(/type must be one of/);
  });
});

describe('inspect reads the state through the function it is given', () => {
  it('returns the object, usable in with, each and as JSON', () => {
    const views: Record<string, unknown> = { '/registry/batches/RM1': { chaveRemessa: 'RM1', documents: [{ index: 0 }, { index: 1 }] } };
    const set = helpers({ inspect: (path) => views[path] ?? null });
    expect(render("{{#with (inspect (concat '/registry/batches/' key))}}{{chaveRemessa}}:{{size documents}}{{else}}none{{/with}}", { key: 'RM1' }, set)).toBe('RM1:2');
    expect(render("{{#with (inspect '/registry/batches/NOPE')}}{{chaveRemessa}}{{else}}none{{/with}}", {}, set)).toBe('none');
    expect(render("{{inspect '/registry/batches/RM1'}}", {}, set)).toBe(JSON.stringify(views['/registry/batches/RM1']));
  });

  it('is an error where no state can be inspected, or for a path not under /', () => {
    expect(() => render("{{inspect '/x'}}")).toThrow(/no sandbox state/);
    expect(() => render("{{inspect 'x'}}", {}, helpers({ inspect: () => null }))).toThrow(/must start with "\/"/);
  });
});

describe('JSON, text, list and condition helpers', () => {
  const body = JSON.stringify({ outer: { inner: 'Stuff' }, things: [{ name: 'a', n: 3 }, { name: 'b', n: 1 }], size: null });

  it('jsonPath selects a value, a sub-document or a list (Jayway filters read too)', () => {
    expect(render("{{jsonPath body '$.outer.inner'}}", { body })).toBe('Stuff');
    expect(render("{{{jsonPath body '$.outer'}}}", { body })).toBe('{"inner":"Stuff"}');
    expect(render("{{#each (jsonPath body '$.things[?(@.n > 2)]')}}{{name}}{{/each}}", { body })).toBe('a');
    expect(render("{{#each (jsonPath body '$.things[?(@.name =~ /B/i)]')}}{{name}}{{/each}}", { body })).toBe('b');
    expect(render("{{jsonPath body '$.size' default='M'}}", { body })).toBe('M');
  });

  it('parseJson, toJson and formatJson', () => {
    expect(render("{{parseJson body 'b'}}{{b.outer.inner}}", { body })).toBe('Stuff');
    expect(render('{{toJson (array 1 "two" true)}}')).toBe('[1,"two",true]');
    expect(render("{{#formatJson format='compact'}} { \"a\" : [ 1 ] } {{/formatJson}}")).toBe('{"a":[1]}');
  });

  it('text helpers', () => {
    expect(render("{{concat 'a' 1 'b'}}|{{upper 'x'}}|{{lower 'Y'}}|{{capitalize 'ab cd'}}|{{trim '  t  '}}")).toBe('a1b|X|y|Ab Cd|t');
    // {{ }} escapes "=" as handlebars.java (WireMock's engine) does; {{{ }}} prints it as it is.
    expect(render("{{base64 'hi'}}|{{{base64 'hi'}}}|{{base64 'aGk=' decode=true}}|{{urlEncode 'a b&c'}}")).toBe('aGk&#x3D;|aGk=|hi|a%20b%26c');
    expect(render("{{regexExtract 'ab-CD-12' '[A-Z]+'}}|{{regexExtract 'x' '[0-9]+' default='none'}}")).toBe('CD|none');
    expect(render("{{size 'abcde'}}|{{size (array 1 2)}}")).toBe('5|2');
  });

  it('numbers, lists and variables', () => {
    expect(render("{{math 7 '/' 2}}|{{math 1.5 '*' 2}}|{{math 10 '%' 3}}")).toBe('3|3|1');
    expect(render("{{arrayJoin ',' (range 1 4) prefix='[' suffix=']'}}|{{join (array 'a' 'b') '-'}}")).toBe('[1,2,3,4]|a-b');
    expect(render("{{val missing or='dflt'}}|{{val 'v' assign='x'}}{{x}}|{{#assign 'y'}}Y{{/assign}}{{y}}")).toBe('dflt|v|Y');
  });

  it('conditions work inline and as blocks', () => {
    expect(render("{{#eq a 'x'}}yes{{else}}no{{/eq}}|{{#if (neq a 'x')}}1{{else}}0{{/if}}", { a: 'x' })).toBe('yes|0');
    expect(render("{{#if (and (gt 3 2) (lte 2 2) (not false))}}ok{{/if}}|{{#or false 0 ''}}t{{else}}f{{/or}}")).toBe('ok|f');
    expect(render("{{#if (contains (array 'a' 'b') 'b')}}in{{/if}}|{{#matches '123' '[0-9]+'}}num{{/matches}}")).toBe('in|num');
  });

  it('lists every helper it knows (the docs name the same)', () => {
    expect(HELPER_NAMES).toEqual(expect.arrayContaining(['inspect', 'now', 'randomValue', 'jsonPath', 'concat', 'eq']));
  });
});

describe('a render is bounded', () => {
  it('stops nested #each blocks at the iteration limit, before running them all, naming the limit', () => {
    let ticks = 0;
    const model = {
      get tick() {
        ticks += 1;
        return '';
      },
    };
    const source = '{{#each (range 0 10000)}}{{#each (range 0 3000)}}x{{@root.tick}}{{/each}}{{/each}}';
    expect(() => render(source, model)).toThrow(TemplateError);
    ticks = 0;
    expect(() => render(source, model)).toThrow(/100000 block iterations/);
    expect(ticks).toBeGreaterThan(0);
    expect(ticks).toBeLessThanOrEqual(100_000);
  });

  it('counts the iterations of a list used as a block and of arrayJoin blocks alike', () => {
    const list = Array.from({ length: 100_001 }, (_, i) => i);
    expect(() => render('{{#list}}x{{/list}}', { list })).toThrow(/100000 block iterations/);
    expect(() => render("{{#arrayJoin ',' list}}x{{/arrayJoin}}", { list })).toThrow(/100000 block iterations/);
    expect(render('{{#list}}x{{/list}}', { list: list.slice(0, 100_000) })).toHaveLength(100_000);
  });

  it('stops a render whose output passes the character limit as the blocks produce it', () => {
    let reads = 0;
    const big = 'x'.repeat(1_000_000);
    const model = {
      get big() {
        reads += 1;
        return big;
      },
    };
    expect(() => render('{{#each (range 0 1000)}}{{@root.big}}{{/each}}', model)).toThrow(/16777216 characters/);
    expect(reads).toBeLessThanOrEqual(17);
    // Without blocks the whole text is measured once it is rendered.
    reads = 0;
    expect(() => render('{{big}}'.repeat(17), model)).toThrow(/16777216 characters/);
    expect(render('{{big}}', model)).toHaveLength(1_000_000);
  });

  it('counts the text a joining helper would build before building it: join, arrayJoin, concat', () => {
    // 10000 separators of 10000 characters: 100 million characters from one helper, before the fix
    // built in full (seconds of a held event loop) and only then measured, if at all.
    const wide = '(randomValue length=10000)';
    let built = 0;
    const model = {
      get sep() {
        built += 1;
        return 'y'.repeat(10_000);
      },
    };
    expect(() => render(`{{size (join (range 0 10000) ${wide})}}`)).toThrow(/16777216 characters/);
    expect(() => render(`{{size (arrayJoin ${wide} (range 0 10000))}}`)).toThrow(/16777216 characters/);
    expect(() => render(`{{#arrayJoin ${wide} (range 0 10000)}}x{{/arrayJoin}}`)).toThrow(/16777216 characters/);
    expect(() => render(`{{size (concat ${Array.from({ length: 20 }, () => '@root.big').join(' ')})}}`, { big: 'z'.repeat(1_000_000) })).toThrow(
      /16777216 characters/,
    );
    // Spread over a block: each join counts, so the render stops at the first join past the budget.
    expect(() => render(`{{#each (range 0 4)}}{{size (join (range 0 10000) @root.sep)}},{{/each}}`, model)).toThrow(/16777216 characters/);
    expect(built).toBe(1);
    // Within the budget they render as before.
    expect(render(`{{size (join (range 0 999) ${wide})}}`)).toBe(String(10 * 1 + 90 * 2 + 900 * 3 + 999 * 10_000));
    expect(render("{{join 'a' 'b' '-'}} {{arrayJoin ',' 'a' 'b'}} {{concat 'a' 'b'}}")).toBe('a-b a,b ab');
  });

  it('gives every render its own budget', () => {
    const template = compileTemplate('{{#each list}}x{{/each}}');
    const model = { list: Array.from({ length: 60_000 }, (_, i) => i) };
    const set = helpers();
    expect(template(model, set)).toHaveLength(60_000);
    expect(template(model, set)).toHaveLength(60_000);
  });
});

describe('a helper that fails names itself and the problem, never the value it was given', () => {
  const secret = 'LEAKSECRET1';
  const cases: Array<[string, object, RegExp]> = [
    ["{{jsonPath body '$.username'}}", { body: `username=u7&password=${secret}` }, /jsonPath: its first argument is not JSON \(text of \d+ characters\)/],
    ['{{parseDate v}}', { v: secret }, /parseDate: its first argument .* is not an ISO 8601 or RFC 1123 date/],
    ["{{parseDate v format='epoch'}}", { v: secret }, /parseDate: its first argument .* is not a number/],
    ["{{parseDate v format='yyyy-MM-dd'}}", { v: secret }, /parseDate: its first argument .* does not fit the format/],
    ['{{parseJson v}}', { v: secret }, /parseJson: /],
    ['{{formatJson v}}', { v: secret }, /formatJson: /],
    ["{{math v '+' 1}}", { v: secret }, /math: the left operand must be a number/],
    ['{{math 1 v 1}}', { v: secret }, /math: the operator must be one of/],
    ['{{now offset=v}}', { v: secret }, /now: the offset is not/],
    ['{{now timezone=v}}', { v: secret }, /the time zone is unknown/],
    ['{{now format=v}}', { v: secret }, /the date format uses the letters? "[A-Z]+", which/],
    ['{{randomValue type=v}}', { v: secret }, /randomValue: type must be one of/],
    ['{{randomValue length=v}}', { v: secret }, /randomValue: length must be a number/],
    ['{{inspect v}}', { v: secret }, /inspect: the path must start with "\/"/],
    ['{{regexExtract "abc" v}}', { v: `[0-9]${secret}` }, /regexExtract: the pattern matches nothing/],
    ['{{regexExtract "abc" v}}', { v: `(${secret}` }, /regexExtract: /],
    ['{{urlEncode v decode=true}}', { v: `%E0%A4%A${secret}` }, /urlEncode: /],
  ];
  for (const [source, model, message] of cases) {
    it(source, () => {
      let error: unknown;
      try {
        render(source, model, helpers({ inspect: () => null }));
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TemplateError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(secret);
    });
  }
});

describe('helpers refuse what they cannot render', () => {
  it('an offset that takes the date outside 0001-01-01..9998-12-31', () => {
    expect(() => render("{{now offset='100000000 years'}}")).toThrow(/0001-01-01 to 9998-12-31/);
    expect(() => render("{{now offset='-2100 years'}}")).toThrow(/0001-01-01 to 9998-12-31/);
    expect(() => render("{{date (parseDate '2026-01-01') offset='8000 years'}}")).toThrow(/0001-01-01 to 9998-12-31/);
    expect(render("{{now offset='7000 years' format='yyyy'}}")).toBe('9026');
  });

  it('a jsonPath expression that does not parse, as a template error naming the JSONPath', () => {
    expect(() => render("{{jsonPath body '$..['}}", { body: '{"a":[1]}' })).toThrow(TemplateError);
    expect(() => render("{{jsonPath body '$..['}}", { body: '{"a":[1]}' })).toThrow(/JSONPath \$\.\.\[ cannot be read/);
  });
});
