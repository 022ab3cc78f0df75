// What the docs promise about the checks and helpers is what the code has: each conformance check and
// every assumption it may cite is in docs/stubs.md, every cited id is an assumption of the catalog,
// and every template helper is named there.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS } from '../../src/interfaces.js';
import { HELPER_NAMES } from '../../src/runtime/templates.js';
import { ConformanceChecker } from '../../src/upstream/conformance.js';

const page = readFileSync('docs/stubs.md', 'utf8');

describe('docs/stubs.md', () => {
  it('lists every conformance check with the assumptions it may cite, each one a row of the assumptions', () => {
    const ids = new Set(ASSUMPTIONS.map((a) => a.id));
    for (const check of ConformanceChecker.checks) {
      const line = page.split('\n').find((l) => l.startsWith(`| \`${check.id}\` |`));
      expect(line, check.id).toBeDefined();
      for (const cited of check.cites) {
        expect(ids.has(cited), cited).toBe(true);
        expect(line, `${check.id} cites ${cited}`).toContain(`\`${cited}\``);
      }
    }
  });

  it('names every template helper', () => {
    expect(HELPER_NAMES.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });

  it('refuses a check that cites an assumption the catalog does not have', () => {
    expect(() => new ConformanceChecker({ paths: {} }, [], ASSUMPTIONS.filter((a) => a.id !== 'error-body'))).toThrow(/error-body/);
  });
});
