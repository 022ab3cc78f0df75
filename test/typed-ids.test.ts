// Operation ids, outcome slugs, CNAB rule names and assumption ids are typed from their catalogs: a
// misspelt one fails to compile. Each @ts-expect-error below is a misspelling `npm run typecheck`
// must refuse (an unused one is itself an error), and each correct spelling is checked at run time.
import { describe, expect, it } from 'vitest';
import { contract } from '../src/bookkeeping/contract.js';
import { outcome } from '../src/bookkeeping/outcomes.js';
import { assumptionLookup } from '../src/http/assumption-catalog.js';
import { assumptions } from '../src/bookkeeping/assumptions.js';
import { CNAB_RULES, type CnabRule } from '../src/receivables/cnab-checks.js';
import { importResultSlug } from '../src/receivables/outcomes.js';
import { INTERFACES } from '../src/interfaces.js';

describe('typed catalog ids', () => {
  it('refuse a misspelt operation id, outcome slug, CNAB rule or assumption id when compiled', () => {
    const misspelt = () => {
      // @ts-expect-error an operation the contract does not document
      contract.route('list-extract-request');
      // @ts-expect-error an outcome the catalog does not have
      outcome('listd');
      // @ts-expect-error a rule the CNAB checks do not have
      const rule: CnabRule = 'trailer-cout';
      // @ts-expect-error an assumption the interface does not declare
      assumptionLookup(assumptions)('bk-page-bse');
      return rule;
    };
    expect(misspelt).toThrow('list-extract-request is not a documented operation of bookkeeping');
  });

  it('accept the ids the catalogs hold', () => {
    expect(contract.route('declare-payment')).toEqual({
      url: '/integration/v1/:tenantId/trade-receivable-certificates/:uid/payment',
      config: { interface: 'bookkeeping', operation: 'declare-payment' },
    });
    const ids = new Set(INTERFACES.outcomes.map((o) => o.id));
    expect(ids.has(`list-extract-requests.${outcome('listed')}`)).toBe(true);
    for (const rule of Object.keys(CNAB_RULES) as CnabRule[])
      expect(ids.has(`import-cnab.${importResultSlug(rule)}`), rule).toBe(true);
    expect(assumptionLookup(assumptions)('bk-page-base')).toContain('[bk-page-base]');
  });

  it('derive each documented path once: absolute in the catalog, relative in the route', () => {
    for (const m of INTERFACES.modules) {
      for (const op of m.contract.operations.filter((o) => o.status === 'implemented')) {
        const { url } = m.contract.route(op.id);
        expect(`${m.contract.prefix}${url.replace(/:([^/]+)/g, '{$1}')}`).toBe(op.path);
      }
    }
  });
});
