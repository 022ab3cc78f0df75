// Shared fixtures of the bookkeeping tests: two tenants, one user each, a few bills.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { FixtureDocument } from '../../src/interfaces.js';
import { testApp } from '../helpers.js';

export const TENANT = '11222333000181';
export const OTHER_TENANT = '11444777000161';
export const TOKEN = 'bk-token-1';
export const OTHER_TOKEN = 'bk-token-2';
export const AUTH = { authorization: `Bearer ${TOKEN}` };
export const BASE = '/api/bookkeeping/integration/v1';

export type BookkeepingSection = NonNullable<FixtureDocument['bookkeeping']>;

export function fixtures(extra: Partial<BookkeepingSection> = {}): FixtureDocument {
  return {
    bookkeeping: {
      users: [
        { userId: 1, accessToken: TOKEN, tenants: [TENANT] },
        { userId: 2, accessToken: OTHER_TOKEN, tenants: [OTHER_TENANT] },
      ],
      ...extra,
    },
  };
}

export async function bookkeepingApp(extra: Partial<BookkeepingSection> = {}): Promise<FastifyInstance> {
  const app = await testApp({ fixtures: fixtures(extra) });
  // Payments compare paymentDate with the sandbox's date: pin it.
  app.runtime.clock.set(new Date('2026-11-20T12:00:00Z'), true);
  return app;
}

/** `n` extract requests of a tenant, ids from `firstId`, one minute apart. */
export function extractRequests(
  tenantId: string,
  n: number,
  firstId = 1,
): NonNullable<BookkeepingSection['extractRequests']> {
  return Array.from({ length: n }, (_, i) => ({
    tenantId,
    extractTradeReceivableRequestId: firstId + i,
    registeredAt: new Date(Date.UTC(2026, 10, 1, 10, i)).toISOString(),
    registeredByUserId: 1,
    protocolNumber: `PRT-${String(firstId + i).padStart(4, '0')}`,
    currentStepType: 'executed',
    generatedAt: new Date(Date.UTC(2026, 10, 1, 10, i, 30)).toISOString(),
  }));
}

export function extractUrl(tenantId: string, query = ''): string {
  return `${BASE}/${tenantId}/trade-receivable-certificates/extract${query ? `?${query}` : ''}`;
}

export function paymentUrl(tenantId: string, uid: string): string {
  return `${BASE}/${tenantId}/trade-receivable-certificates/${encodeURIComponent(uid)}/payment`;
}

export async function pay(
  app: FastifyInstance,
  uid: string,
  payload: Record<string, unknown>,
  options: { tenantId?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'PUT',
    url: paymentUrl(options.tenantId ?? TENANT, uid),
    headers: options.headers ?? AUTH,
    payload,
  });
}

export function declaration(paymentValue: number, isPartial: boolean, extra: Record<string, unknown> = {}) {
  return { type: 'bankSlip', informantId: 'directByDrawerHolder', isPartial, paymentValue, ...extra };
}

export async function inspectBill(app: FastifyInstance, uid: string, tenantId = TENANT) {
  const res = await app.inject({ url: `/_sandbox/bookkeeping/tenants/${tenantId}/trade-bills/${uid}` });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}
