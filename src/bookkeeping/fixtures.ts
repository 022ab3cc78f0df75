// The bookkeeping section of the fixture document: users with their tenants, trade bills, extract requests.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { toIsoUtc } from '../domain/dates.js';
import { isMoney } from '../domain/money.js';
import { isValidCnpj, isValidCpf } from '../domain/tax-id.js';
import { type ErrorDetail, pointer } from '../http/errors.js';
import { moneyCents } from '../http/exact-numbers.js';
import { Money, Strict, StringEnum, UtcTimestamp } from '../http/schema.js';
import { type FixtureSection, recordsOf, textOf, UniqueKeys } from '../runtime/fixture-document.js';
import { TRADE_BILL_STATUSES } from '../store/bookkeeping.js';


const TenantId = Type.String({
  description: 'tenant tax id: CPF (11 digits) or CNPJ (14 digits), digits only',
});

export const BookkeepingFixtures = Strict({
  users: Type.Optional(
    Type.Array(
      Strict({
        userId: Type.Integer({ minimum: 1 }),
        accessToken: Type.String({ minLength: 1, maxLength: 4096, pattern: '^\\S+$' }),
        tenants: Type.Array(TenantId),
      }),
    ),
  ),
  tradeBills: Type.Optional(
    Type.Array(
      Strict({
        tenantId: TenantId,
        uid: Type.String({ minLength: 1, maxLength: 100 }),
        amount: Money({ exclusiveMinimum: 0 }),
        openValue: Type.Optional(
          Money({ minimum: 0, description: 'defaults to amount (to 0 for a paid bill)' }),
        ),
        status: Type.Optional(StringEnum(TRADE_BILL_STATUSES, { default: 'open' })),
      }),
    ),
  ),
  extractRequests: Type.Optional(
    Type.Array(
      Strict({
        tenantId: TenantId,
        extractTradeReceivableRequestId: Type.Integer({ minimum: 1 }),
        registeredAt: Type.Optional(UtcTimestamp({ description: 'defaults to the sandbox clock' })),
        registeredByUserId: Type.Integer({ minimum: 1 }),
        protocolNumber: Type.String({ minLength: 1 }),
        currentStepType: Type.Optional(Type.String({ minLength: 1, default: 'executed' })),
        generatedAt: Type.Optional(UtcTimestamp({ description: 'defaults to registeredAt' })),
      }),
    ),
  ),
});
export type BookkeepingFixtures = Static<typeof BookkeepingFixtures>;

/** A tenant id is a CPF or a CNPJ written in digits only, with valid check digits. */
export function tenantIdProblem(value: string): string | undefined {
  if (!/^(\d{11}|\d{14})$/.test(value)) return 'must be a CPF (11 digits) or a CNPJ (14 digits), digits only';
  if (value.length === 11 ? !isValidCpf(value) : !isValidCnpj(value)) {
    return `is not a valid ${value.length === 11 ? 'CPF' : 'CNPJ'}: its check digits do not match`;
  }
  return undefined;
}

function billOpenCents(bill: NonNullable<BookkeepingFixtures['tradeBills']>[number]): number {
  if (bill.openValue !== undefined) return moneyCents(bill, 'openValue');
  return bill.status === 'paid' ? 0 : moneyCents(bill, 'amount');
}

export const bookkeepingFixtureSection: FixtureSection<typeof BookkeepingFixtures> = {
  key: 'bookkeeping',
  schema: BookkeepingFixtures,

  check(section, { store }) {
    const details: ErrorDetail[] = [];
    const users = new UniqueKeys(details, 'userId', (k) => store.bookkeeping.userExists(Number(k)));
    const tokens = new UniqueKeys(
      details,
      'accessToken',
      (k) => store.bookkeeping.userIdByToken(k) !== undefined,
      true,
    );
    const tenantProblem = (value: unknown, path: string) => {
      const problem = typeof value === 'string' ? tenantIdProblem(value) : undefined;
      if (problem) details.push({ path, message: problem });
    };
    for (const [i, u] of recordsOf(section, 'users')) {
      if (Number.isSafeInteger(u.userId)) users.add(String(u.userId), pointer('bookkeeping', 'users', i, 'userId'));
      const token = textOf(u.accessToken);
      if (token !== undefined) tokens.add(token, pointer('bookkeeping', 'users', i, 'accessToken'));
      if (Array.isArray(u.tenants))
        u.tenants.forEach((t: unknown, j) => tenantProblem(t, pointer('bookkeeping', 'users', i, 'tenants', j)));
    }
    const bills = new UniqueKeys(details, 'trade bill', (k) => {
      const [tenant = '', uid = ''] = k.split('\u0000');
      return store.bookkeeping.tradeBill(tenant, uid) !== undefined;
    });
    for (const [i, b] of recordsOf(section, 'tradeBills')) {
      const at = (field: string) => pointer('bookkeeping', 'tradeBills', i, field);
      tenantProblem(b.tenantId, at('tenantId'));
      const tenantId = textOf(b.tenantId);
      const uid = textOf(b.uid);
      if (tenantId !== undefined && uid !== undefined) bills.add(`${tenantId}\u0000${uid}`, at('uid'), `${JSON.stringify(uid)} of tenant ${tenantId}`);
      if (uid === 'extract')
        details.push({
          path: at('uid'),
          message: '"extract" names the extract list in the path: it cannot be a uid',
        });
      if (!isMoney(b.amount) || (b.openValue !== undefined && !isMoney(b.openValue))) continue;
      const bill = b as NonNullable<BookkeepingFixtures['tradeBills']>[number];
      const amount = moneyCents(bill, 'amount');
      const open = billOpenCents(bill);
      const status = bill.status ?? 'open';
      if (open > amount) details.push({ path: at('openValue'), message: 'must not exceed amount' });
      else if (status === 'open' && open !== amount)
        details.push({
          path: at('openValue'),
          message: 'an open bill has received no payment: openValue must equal amount',
        });
      else if (status === 'partially-paid' && (open === 0 || open === amount))
        details.push({ path: at('openValue'), message: 'a partially-paid bill has 0 < openValue < amount' });
      else if (status === 'paid' && open !== 0)
        details.push({ path: at('openValue'), message: 'a paid bill has openValue 0' });
    }
    const requests = new UniqueKeys(details, 'extractTradeReceivableRequestId', (k) =>
      store.bookkeeping.extractRequestExists(Number(k)),
    );
    for (const [i, r] of recordsOf(section, 'extractRequests')) {
      tenantProblem(r.tenantId, pointer('bookkeeping', 'extractRequests', i, 'tenantId'));
      if (Number.isSafeInteger(r.extractTradeReceivableRequestId))
        requests.add(
          String(r.extractTradeReceivableRequestId),
          pointer('bookkeeping', 'extractRequests', i, 'extractTradeReceivableRequestId'),
        );
    }
    return details;
  },

  load(section, { store, clock }) {
    const bk = store.bookkeeping;
    for (const u of section.users ?? []) bk.insertUser(u.userId, u.accessToken, u.tenants);
    for (const b of section.tradeBills ?? []) {
      bk.insertTradeBill({
        tenantId: b.tenantId,
        uid: b.uid,
        amountCents: moneyCents(b, 'amount'),
        openCents: billOpenCents(b),
        status: b.status ?? 'open',
      });
    }
    for (const r of section.extractRequests ?? []) {
      // Kept as written (the store sorts by a key of full precision); the clock's time as the sandbox
      // writes its own timestamps (toIsoUtc).
      const registeredAt = r.registeredAt ?? toIsoUtc(clock.now());
      bk.insertExtractRequest({
        extractTradeReceivableRequestId: r.extractTradeReceivableRequestId,
        tenantId: r.tenantId,
        registeredAt,
        registeredByUserId: r.registeredByUserId,
        protocolNumber: r.protocolNumber,
        currentStepType: r.currentStepType ?? 'executed',
        generatedAt: r.generatedAt ?? registeredAt,
      });
    }
    return {
      users: section.users?.length ?? 0,
      tradeBills: section.tradeBills?.length ?? 0,
      extractRequests: section.extractRequests?.length ?? 0,
    };
  },
};
