// The fixture document (docs/fixtures.md): one section per interface, every section optional, unknown
// fields refused, loaded all or nothing: an invalid document names each bad field and changes nothing.
// Each interface contributes its section's schema, the checks the schema cannot express (check digits,
// duplicates, clashes with the current state) and the load; this module assembles them.
import { readFileSync } from 'node:fs';
import { type Static, type TObject, type TSchema, Type } from '@fastify/type-provider-typebox';
import { type ErrorDetail, type InterfaceId, SandboxError, validationError } from '../http/errors.js';
import { parseJsonDocument } from '../http/json.js';
import { Strict } from '../http/schema.js';
import { besideRefused, bodyAjv, collapseAlternatives, detailsFromAjv, MAX_DETAILS, validateBody } from '../http/validation.js';
import type { Store } from '../store/index.js';
import type { Clock } from './clock.js';

export interface FixtureContext {
  store: Store;
  clock: Clock;
}

export interface FixtureSection<S extends TSchema = TSchema> {
  key: InterfaceId;
  schema: S;
  /**
   * Problems of the section the schema cannot see (check digits, duplicates, clashes with the state),
   * with pointers under `/<key>`; empty when it can be loaded. It also runs on a section the schema
   * refused, so that one answer names every problem: it reads only items that are objects and fields
   * of the right type (recordsOf, textOf), and what it says of a field the schema refused is dropped.
   */
  check(section: unknown, ctx: FixtureContext): ErrorDetail[];
  /** Inserts the section (inside the caller's transaction); returns the count per list. */
  load(section: Static<S>, ctx: FixtureContext): Record<string, number>;
}

/** How a duplicate's message points at the first occurrence: `under` prefixes that pointer too. */
const FIRST_AT = 'first at';
const FIRST_AT_POINTER = /\(first at (\/[^)]*|)\)/g;

/** Reports every later occurrence of a key already seen in the document or present in the store. */
export class UniqueKeys {
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly details: ErrorDetail[],
    private readonly what: string,
    private readonly exists: (key: string) => boolean = () => false,
    /** A secret (a token): its value is never repeated in a message. */
    private readonly secret = false,
  ) {}

  /** `shown` is how a message names a key that is not itself readable (one made of several fields). */
  add(key: string, path: string, shown = JSON.stringify(key)): void {
    const first = this.seen.get(key);
    const named = this.secret ? `this ${this.what}` : `${this.what} ${shown}`;
    if (first !== undefined) {
      this.details.push({ path, message: `${named} appears twice in the document (${FIRST_AT} ${first})` });
    } else if (this.exists(key)) {
      this.details.push({ path, message: `${named} already exists in the sandbox` });
    }
    this.seen.set(key, first ?? path);
  }
}

/** The items of the list `holder[key]` that are objects, with their index (a check's view of a list). */
export function recordsOf(holder: unknown, key: string): Array<[number, Record<string, unknown>]> {
  const list = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[key] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown, i) =>
    typeof item === 'object' && item !== null && !Array.isArray(item) ? [[i, item as Record<string, unknown>] as [number, Record<string, unknown>]] : [],
  );
}

/** A field's value when it is text (a check's view of a field the schema may have refused). */
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Rows loaded per interface and list. */
export type LoadCounts = Record<string, Record<string, number>>;

/** The fixture document of a list of interfaces: its schema, its checks and its load. */
export class FixtureDocuments {
  readonly schema: TObject;
  private validator: ReturnType<typeof bodyAjv.compile> | undefined;

  constructor(private readonly sections: readonly FixtureSection[]) {
    this.schema = Strict(Object.fromEntries(sections.map((s) => [s.key, Type.Optional(s.schema)])), {
      description: 'A fixture document: every section and list optional, unknown fields refused.',
    });
  }

  /** Checks a document against the schema and the current state; throws a 400 naming every problem. */
  check(doc: unknown, ctx: FixtureContext): Record<string, unknown> {
    // Compiled on first use: at start-up it would cost every sandbox, fixtures or not.
    const validate = (this.validator ??= bodyAjv.compile(this.schema));
    const errors = validateBody(validate, doc);
    const schema = errors ? detailsFromAjv(errors) : [];
    const checked = this.problems(doc, ctx);
    const domain = errors ? besideRefused(schema, checked) : checked;
    const total = (errors ? collapseAlternatives(errors).length : 0) + domain.length;
    if (total > 0) throw validationError([...schema, ...domain].slice(0, MAX_DETAILS), undefined, total);
    return doc as Record<string, unknown>;
  }

  /**
   * What every section's checks find in a document, also one its schema refused (error-body: one
   * answer names every problem); the caller drops what they say of a field the schema refused.
   */
  problems(doc: unknown, ctx: FixtureContext): ErrorDetail[] {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
    const fields = doc as Record<string, unknown>;
    return this.sections.flatMap((s) => (fields[s.key] === undefined ? [] : s.check(fields[s.key], ctx)));
  }

  /** Validates then loads a document in one transaction. */
  load(doc: unknown, ctx: FixtureContext): LoadCounts {
    return ctx.store.transaction(() => {
      const valid = this.check(doc, ctx);
      const counts: LoadCounts = {};
      for (const s of this.sections) {
        const section = valid[s.key];
        if (section !== undefined) counts[s.key] = s.load(section, ctx);
      }
      return counts;
    });
  }

  /** Wipes the state and loads `doc` (undefined: nothing) in one transaction: a refused document changes nothing. */
  replace(doc: unknown, ctx: FixtureContext): LoadCounts {
    return ctx.store.transaction(() => {
      ctx.store.wipe();
      const counts = doc === undefined ? {} : this.load(doc, ctx);
      ctx.store.setMetaValue('lastReset', ctx.clock.now().toISOString());
      return counts;
    });
  }
}

/** Reads a fixture file; a missing or malformed file is a clear error naming the file. */
export function readFixtureFile(path: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new SandboxError(400, `cannot read the fixture file ${path}: ${(err as Error).message}`);
  }
  try {
    return parseJsonDocument(bytes);
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
      throw validationError(
        err.details.map((d) => ({
          path: prefix + d.path,
          // A pointer quoted in the message names a place in the same request as the detail's path.
          message: d.message.replace(FIRST_AT_POINTER, (_, first: string) => `(${FIRST_AT} ${prefix}${first})`),
        })),
      );
    throw err;
  }
}
