// The loan-bond section of the fixture document: callers and the products they contracted.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { type ErrorDetail, pointer } from '../http/errors.js';
import { Strict, StringEnum } from '../http/schema.js';
import { type FixtureSection, recordsOf, textOf, UniqueKeys } from '../runtime/fixture-document.js';
import type { Product } from '../store/loanbond.js';

export const PRODUCTS: readonly Product[] = ['electronic-signature', 'digital-loan-bond'];

export const LoanbondFixtures = Strict({
  callers: Type.Optional(
    Type.Array(
      Strict({
        callerId: Type.String({ minLength: 1, maxLength: 100 }),
        token: Type.String({ minLength: 1, maxLength: 4096, pattern: '^\\S+$' }),
        products: Type.Array(StringEnum(PRODUCTS), { uniqueItems: true }),
      }),
    ),
  ),
});
export type LoanbondFixtures = Static<typeof LoanbondFixtures>;

export const loanbondFixtureSection: FixtureSection<typeof LoanbondFixtures> = {
  key: 'loanbond',
  schema: LoanbondFixtures,

  check(section, { store }) {
    const details: ErrorDetail[] = [];
    const ids = new UniqueKeys(details, 'callerId', (k) => store.loanbond.callerExists(k));
    const tokens = new UniqueKeys(details, 'token', (k) => store.loanbond.tokenExists(k), true);
    for (const [i, c] of recordsOf(section, 'callers')) {
      const id = textOf(c.callerId);
      const token = textOf(c.token);
      if (id !== undefined) ids.add(id, pointer('loanbond', 'callers', i, 'callerId'));
      if (token !== undefined) tokens.add(token, pointer('loanbond', 'callers', i, 'token'));
    }
    return details;
  },

  load(section, { store }) {
    for (const c of section.callers ?? []) store.loanbond.insertCaller(c.callerId, c.token, c.products);
    return { callers: section.callers?.length ?? 0 };
  },
};
