// The fixture document (SANDBOX.md): every section optional, unknown fields refused, loaded all or
// nothing: an invalid document names each bad field and changes nothing.
import { readFileSync } from 'node:fs';
import { type Static, Type } from '@fastify/type-provider-typebox';
import { bookkeepingFixtureSection } from '../bookkeeping/fixtures.js';
import { SandboxError, validationError } from '../http/errors.js';
import { Strict } from '../http/schema.js';
import { bodyAjv, detailsFromAjv } from '../http/validation.js';
import { loanbondFixtureSection } from '../loanbond/fixtures.js';
import { receivablesFixtureSection } from '../receivables/fixtures.js';
import { registryFixtureSection } from '../registry/fixtures.js';
import type { FixtureContext, FixtureSection } from '../runtime/fixture-section.js';

const sections = [
  bookkeepingFixtureSection,
  registryFixtureSection,
  receivablesFixtureSection,
  loanbondFixtureSection,
] as const;

export const FixtureDocument = Strict(
  {
    bookkeeping: Type.Optional(bookkeepingFixtureSection.schema),
    registry: Type.Optional(registryFixtureSection.schema),
    receivables: Type.Optional(receivablesFixtureSection.schema),
    loanbond: Type.Optional(loanbondFixtureSection.schema),
  },
  { description: 'A fixture document: every section and list optional, unknown fields refused.' },
);
export type FixtureDocument = Static<typeof FixtureDocument>;

export type LoadCounts = Partial<Record<(typeof sections)[number]['key'], Record<string, number>>>;

// Compiled on first use: at import it would cost every start-up, fixtures or not.
let validator: ReturnType<typeof bodyAjv.compile> | undefined;
const validateDocument = (doc: unknown) => (validator ??= bodyAjv.compile(FixtureDocument))(doc);

/** Checks a fixture document against the schema and the current state; throws a 400 naming every problem. */
export function checkFixtures(doc: unknown, ctx: FixtureContext): FixtureDocument {
  if (!validateDocument(doc)) {
    const errors = validator?.errors ?? [];
    throw validationError(detailsFromAjv(errors), undefined, errors.length);
  }
  const valid = doc as FixtureDocument;
  const details = sections.flatMap((s) => {
    const section = valid[s.key];
    return section ? (s as FixtureSection).check(section, ctx) : [];
  });
  if (details.length > 0) throw validationError(details);
  return valid;
}

/** Validates then loads a fixture document in one transaction. */
export function loadFixtures(doc: unknown, ctx: FixtureContext): LoadCounts {
  return ctx.store.transaction(() => {
    const valid = checkFixtures(doc, ctx);
    const counts: LoadCounts = {};
    for (const s of sections) {
      const section = valid[s.key];
      if (section) counts[s.key] = (s as FixtureSection).load(section, ctx);
    }
    return counts;
  });
}

/** Wipes the state and loads `doc` (undefined: nothing) in one transaction: a refused document changes nothing. */
export function replaceState(doc: unknown, ctx: FixtureContext): LoadCounts {
  return ctx.store.transaction(() => {
    ctx.store.wipe();
    const counts = doc === undefined ? {} : loadFixtures(doc, ctx);
    ctx.store.setMetaValue('lastReset', ctx.clock.now().toISOString());
    return counts;
  });
}

/** Reads a fixture file; a missing or malformed file is a clear error naming the file. */
export function readFixtureFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SandboxError(400, `cannot read the fixture file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SandboxError(400, `the fixture file ${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Runs `fn`; a refused fixture document's pointers are prefixed with where it sits in the request. */
export function under<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SandboxError && err.details.length > 0)
      throw validationError(err.details.map((d) => ({ path: prefix + d.path, message: d.message })));
    throw err;
  }
}
