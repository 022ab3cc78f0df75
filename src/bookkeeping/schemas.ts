// The bookkeeping wire format, field for field as the specification's tables.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { CalendarDate, Money, Strict, StringEnum, UtcTimestamp } from '../http/schema.js';
import { EXTRACT_SORT_COLUMNS, type ExtractSortField, TRADE_BILL_STATUSES } from '../store/bookkeeping.js';
import { assumptions as sandboxAssumptions } from '../http/sandbox-assumptions.js';
import { assumptions } from './assumptions.js';

const assumed = assumptionLookup(assumptions);
const assumedSandbox = assumptionLookup(sandboxAssumptions);

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
/** A 32-bit page number, so a page echoed back is always a plain integer. */
export const MAX_PAGE = 2_147_483_647;
export const SORT_FIELDS = Object.keys(EXTRACT_SORT_COLUMNS) as ExtractSortField[];

export const TenantParams = Strict({
  tenantId: Type.String({
    description: 'tenant tax id: CPF (11 digits) or CNPJ (14 digits), digits only',
    'x-sandbox-assumption': assumed('bk-tenant-id'),
  }),
});

export const PaymentParams = Strict({
  tenantId: TenantParams.properties.tenantId,
  uid: Type.String({
    minLength: 1,
    description: 'unique identifier of the trade bill (IUD)',
    'x-sandbox-assumption': assumed('bk-unknown-uid'),
  }),
});

export const ExtractQuery = Strict(
  {
    // All four are optional (the specification says so); Ajv fills the defaults.
    page: Type.Optional(
      Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: 1,
      description: 'page number, from 1',
      'x-sandbox-assumption': assumed('bk-page-base'),
      }),
    ),
    pageSize: Type.Optional(
      Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: 'items per page',
      'x-sandbox-assumption': assumed('bk-page-size'),
      }),
    ),
    sortBy: Type.Optional(
      StringEnum(SORT_FIELDS, {
      default: 'registeredAt',
      description: 'field of the extract item to sort by',
      'x-sandbox-assumption': assumed('bk-sort'),
      }),
    ),
    desc: Type.Optional(
      Type.Boolean({
      default: false,
      description: 'descending order: true or false in any case, or 1 or 0',
      'x-sandbox-assumption': assumedSandbox('query-booleans'),
      }),
    ),
  },
  { 'x-sandbox-assumption': assumed('bk-unknown-query') },
);
export type ExtractQuery = Static<typeof ExtractQuery>;

export const ExtractItem = Strict({
  extractTradeReceivableRequestId: Type.Integer({ description: 'identifier of the request' }),
  registeredAt: UtcTimestamp({
    description: 'when the request was registered, as the fixture wrote it',
    'x-sandbox-assumption': assumed('bk-extract-timestamps'),
  }),
  registeredByUserId: Type.Integer({ description: 'user who registered it' }),
  protocolNumber: Type.String({ description: 'protocol of the request' }),
  currentStepType: Type.String({
    description: 'current step of the request',
    'x-sandbox-assumption': assumed('bk-extract-steps'),
  }),
  generatedAt: UtcTimestamp({
    description: 'when the extract was generated, as the fixture wrote it',
    'x-sandbox-assumption': assumed('bk-extract-timestamps'),
  }),
}, { title: 'ExtractItem' });

export const Pagination = Strict({
  page: Type.Integer({ description: 'current page' }),
  size: Type.Integer({ description: 'page size' }),
  totalItems: Type.Integer(),
  totalPages: Type.Integer({ description: 'ceil(totalItems / size)' }),
}, { title: 'Pagination' });

export const ExtractList = Strict(
  {
    extractTradeReceivables: Type.Array(ExtractItem),
    pagination: Pagination,
  },
  { title: 'ExtractList', 'x-sandbox-assumption': assumed('bk-page-past-end') },
);
export type ExtractList = Static<typeof ExtractList>;

export const PaymentDeclaration = Strict({
  type: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'payment form (in use: bankSlip)',
    'x-sandbox-assumption': assumed('bk-payment-text-fields'),
  }),
  informantId: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'who declares the settlement (in use: directByDrawerHolder)',
    'x-sandbox-assumption': assumed('bk-payment-text-fields'),
  }),
  isPartial: Type.Boolean({
    description: 'true for partial settlement, false for total',
    'x-sandbox-assumption': assumed('bk-partial-equal-open', 'bk-total-below-open'),
  }),
  paymentValue: Money({
    exclusiveMinimum: 0,
    description: 'amount paid',
    'x-sandbox-assumption': assumed('bk-payment-positive'),
  }),
  remainingValue: Type.Optional(
    Money({
      minimum: 0,
      description: 'amount still open after this payment',
      'x-sandbox-assumption': assumed('bk-remaining-value'),
    }),
  ),
  beneficiaryDocument: Type.Optional(
    Type.String({
      description: 'document of the beneficiary receiving the payment',
      'x-sandbox-assumption': assumed('bk-beneficiary-document'),
    }),
  ),
  paymentDate: Type.Optional(
    CalendarDate({
      description: 'date the payment actually happened',
      'x-sandbox-assumption': assumed('bk-payment-date'),
    }),
  ),
}, { title: 'PaymentDeclaration' });
export type PaymentDeclaration = Static<typeof PaymentDeclaration>;

export const NoBody = Type.Null({
  description: 'no body',
  'x-sandbox-assumption': assumed('bk-payment-no-body'),
});

export const TradeBillStatusSchema = StringEnum(TRADE_BILL_STATUSES, {
  'x-sandbox-assumption': assumed('bk-trade-bill-statuses'),
});
