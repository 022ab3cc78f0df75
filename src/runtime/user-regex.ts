// Regular expressions a user writes (stub matchers, JSON placeholders, template helpers) are run by
// RE2 (re2js), whose time is linear in the input: JavaScript's own engine backtracks, so that a
// pattern such as (a+)+b against a few dozen characters holds the event loop of the whole sandbox,
// every workspace included, for seconds or for good. RE2's syntax is WireMock's (Java's) for what
// mappings use: classes, groups, named groups, quantifiers, anchors, inline flags such as (?i); it
// has no backreferences and no lookaround, and a pattern using them is refused with RE2's reason.
import { createRequire } from 'node:module';
import type { RE2JS as RE2 } from 're2js';

// Loaded on first use, as the template libraries are (runtime/templates.ts): a sandbox without stubs
// never needs it, and loading it is start-up time.
const load = createRequire(import.meta.url);
let engine: typeof RE2 | undefined;
const re2 = (): typeof RE2 => (engine ??= (load('re2js') as { RE2JS: typeof RE2 }).RE2JS);

export interface UserRegex {
  /** Whether the whole value matches (the pattern is anchored at both ends). */
  matchesWhole(value: string): boolean;
  /** The first match anywhere in `value`, shaped as RegExp.prototype.exec's, or null. */
  exec(value: string): RegExpExecArray | null;
}

/** The compiled pattern; throws an Error whose message is RE2's reason when it cannot be read. */
export function userRegex(source: string): UserRegex {
  let pattern: RE2;
  try {
    pattern = re2().compile(source);
  } catch (err) {
    throw new Error(`${(err as Error).message} (the sandbox reads patterns with RE2: no backreferences, no lookaround)`);
  }
  return {
    matchesWhole: (value) => pattern.testExact(value),
    exec: (value) => pattern.exec(value) as RegExpExecArray | null,
  };
}
