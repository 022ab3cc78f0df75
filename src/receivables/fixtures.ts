// The receivables section of the fixture document: funds, with a token or without one.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { checkTaxId } from '../domain/tax-id.js';
import { type ErrorDetail, pointer } from '../http/errors.js';
import { Strict } from '../http/schema.js';
import { type FixtureSection, recordsOf, textOf, UniqueKeys } from '../runtime/fixture-document.js';

export const ReceivablesFixtures = Strict({
  funds: Type.Optional(
    Type.Array(
      Strict({
        fundCnpj: Type.String({ description: 'CNPJ, numeric or alphanumeric, bare or in its mask NN.NNN.NNN/NNNN-NN' }),
        token: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
          description: 'null: the fund has no token, so every submission gets InvalidToken',
        }),
      }),
    ),
  ),
});
export type ReceivablesFixtures = Static<typeof ReceivablesFixtures>;

export const receivablesFixtureSection: FixtureSection<typeof ReceivablesFixtures> = {
  key: 'receivables',
  schema: ReceivablesFixtures,

  check(section, { store }) {
    const details: ErrorDetail[] = [];
    const funds = new UniqueKeys(details, 'fundCnpj', (k) => store.receivables.fund(k) !== undefined);
    for (const [i, f] of recordsOf(section, 'funds')) {
      const at = pointer('receivables', 'funds', i, 'fundCnpj');
      const cnpj = textOf(f.fundCnpj);
      if (cnpj === undefined) continue;
      const id = checkTaxId(cnpj, { kinds: ['cnpj'] });
      if (!id.ok) details.push({ path: at, message: id.reason });
      else funds.add(id.value, at);
    }
    return details;
  },

  load(section, { store }) {
    for (const f of section.funds ?? []) {
      const id = checkTaxId(f.fundCnpj, { kinds: ['cnpj'] });
      store.receivables.insertFund(id.ok ? id.value : f.fundCnpj, f.token);
    }
    return { funds: section.funds?.length ?? 0 };
  },
};
