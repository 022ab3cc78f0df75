// What each interface contributes to the fixture document: its section's schema, the checks the
// schema cannot express (check digits, duplicates, clashes with the current state), and the load.
import type { Static, TSchema } from '@fastify/type-provider-typebox';
import type { ErrorDetail, InterfaceId } from '../http/errors.js';
import type { Store } from '../store/index.js';
import type { Clock } from './clock.js';

export interface FixtureContext {
  store: Store;
  clock: Clock;
}

export interface FixtureSection<S extends TSchema = TSchema> {
  key: InterfaceId;
  schema: S;
  /** Problems of a schema-valid section, with pointers under `/<key>`; empty when it can be loaded. */
  check(section: Static<S>, ctx: FixtureContext): ErrorDetail[];
  /** Inserts the section (inside the caller's transaction); returns the count per list. */
  load(section: Static<S>, ctx: FixtureContext): Record<string, number>;
}

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

  add(key: string, path: string): void {
    const first = this.seen.get(key);
    const named = this.secret ? `this ${this.what}` : `${this.what} "${key}"`;
    if (first !== undefined) {
      this.details.push({ path, message: `${named} appears twice in the document (first at ${first})` });
    } else if (this.exists(key)) {
      this.details.push({ path, message: `${named} already exists in the sandbox` });
    }
    this.seen.set(key, first ?? path);
  }
}
