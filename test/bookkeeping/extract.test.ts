import { describe, expect, it } from 'vitest';
import { AUTH, bookkeepingApp, extractRequests, extractUrl, TENANT } from './helpers.js';

interface Item {
  extractTradeReceivableRequestId: number;
  registeredAt: string;
  registeredByUserId: number;
  protocolNumber: string;
  currentStepType: string;
  generatedAt: string;
}
interface ListBody {
  extractTradeReceivables: Item[];
  pagination: { page: number; size: number; totalItems: number; totalPages: number };
}

const ids = (body: ListBody) => body.extractTradeReceivables.map((r) => r.extractTradeReceivableRequestId);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function list(app: Awaited<ReturnType<typeof bookkeepingApp>>, query = '') {
  const res = await app.inject({ url: extractUrl(TENANT, query), headers: AUTH });
  return { status: res.statusCode, body: res.json() as ListBody };
}

describe('extract list pagination', () => {
  it('pages 23 items at size 10 as 10, 10 and 3, with page 4 empty and the same totals', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 23) });
    const totals = { size: 10, totalItems: 23, totalPages: 3 };
    const p1 = await list(app, 'page=1&pageSize=10');
    expect(p1.status).toBe(200);
    expect(ids(p1.body)).toEqual(range(1, 10));
    expect(p1.body.pagination).toEqual({ page: 1, ...totals });
    const p2 = await list(app, 'page=2&pageSize=10');
    expect(ids(p2.body)).toEqual(range(11, 20));
    expect(p2.body.pagination).toEqual({ page: 2, ...totals });
    const p3 = await list(app, 'page=3&pageSize=10');
    expect(ids(p3.body)).toEqual(range(21, 23));
    expect(p3.body.pagination).toEqual({ page: 3, ...totals });
    const p4 = await list(app, 'page=4&pageSize=10');
    expect(p4.body).toEqual({ extractTradeReceivables: [], pagination: { page: 4, ...totals } });
  });

  it('defaults to page 1 of 10 items in ascending registeredAt order', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 23).reverse() });
    const { body } = await list(app);
    expect(ids(body)).toEqual(range(1, 10));
    expect(body.pagination).toEqual({ page: 1, size: 10, totalItems: 23, totalPages: 3 });
  });

  it('reads desc as true or false in any case, or 1 or 0, as Python and .NET clients write it', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 23) });
    for (const desc of ['True', 'TRUE', 'true', '1']) {
      expect(ids((await list(app, `desc=${desc}&page=3`)).body), desc).toEqual([3, 2, 1]);
    }
    for (const desc of ['False', 'FALSE', 'false', '0']) {
      expect(ids((await list(app, `desc=${desc}&page=3`)).body), desc).toEqual([21, 22, 23]);
    }
    for (const desc of ['yes', 'on', '', 'truee', '2', 'True&desc=False']) {
      const res = await list(app, `desc=${desc}`);
      expect(res.status, desc).toBe(400);
      expect((res.body as unknown as { details: Array<{ path: string }> }).details[0]?.path).toBe('/desc');
    }
  });

  it('orders descending with desc=true, across pages', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 23) });
    expect(ids((await list(app, 'desc=true&sortBy=registeredAt')).body)).toEqual(range(14, 23).reverse());
    expect(ids((await list(app, 'desc=true&page=3')).body)).toEqual([3, 2, 1]);
    expect(ids((await list(app, 'desc=false&page=3')).body)).toEqual([21, 22, 23]);
  });

  it('answers an empty tenant with an empty list and zero pages', async () => {
    const app = await bookkeepingApp();
    const { status, body } = await list(app);
    expect(status).toBe(200);
    expect(body).toEqual({
      extractTradeReceivables: [],
      pagination: { page: 1, size: 10, totalItems: 0, totalPages: 0 },
    });
  });

  it('returns items with exactly the six documented fields, the timestamps as the fixture wrote them', async () => {
    const app = await bookkeepingApp({
      extractRequests: [
        {
          tenantId: TENANT,
          extractTradeReceivableRequestId: 42,
          registeredAt: '2026-11-01T10:00:00Z',
          registeredByUserId: 7,
          protocolNumber: 'PRT-42',
          currentStepType: 'executed',
          generatedAt: '2026-11-01T10:05:00.5Z',
        },
      ],
    });
    const { body } = await list(app);
    expect(Object.keys(body)).toEqual(['extractTradeReceivables', 'pagination']);
    expect(body.extractTradeReceivables).toEqual([
      {
        extractTradeReceivableRequestId: 42,
        registeredAt: '2026-11-01T10:00:00Z',
        registeredByUserId: 7,
        protocolNumber: 'PRT-42',
        currentStepType: 'executed',
        generatedAt: '2026-11-01T10:05:00.5Z',
      },
    ]);
  });
});

describe('extract list sorting', () => {
  // Ties everywhere: 3 users, 2 steps, registeredAt repeating every 4 items.
  const rows = Array.from({ length: 37 }, (_, i) => ({
    tenantId: TENANT,
    extractTradeReceivableRequestId: 100 + ((i * 17) % 37),
    registeredAt: new Date(Date.UTC(2026, 10, 1, 10, i % 4)).toISOString(),
    registeredByUserId: 1 + (i % 3),
    protocolNumber: `PRT-${String.fromCharCode(65 + (i % 5))}`,
    currentStepType: i % 2 ? 'executed' : 'processing',
    generatedAt: new Date(Date.UTC(2026, 10, 2, 10, i % 6)).toISOString(),
  }));
  const fields = [
    'extractTradeReceivableRequestId',
    'registeredAt',
    'registeredByUserId',
    'protocolNumber',
    'currentStepType',
    'generatedAt',
  ] as const;

  function expected(field: (typeof fields)[number], desc: boolean): number[] {
    const normalised = rows.map((r) => ({
      ...r,
      registeredAt: new Date(r.registeredAt).toISOString(),
      generatedAt: new Date(r.generatedAt).toISOString(),
    }));
    const sorted = normalised.sort((x, y) => {
      const a = x[field];
      const b = y[field];
      const c =
        a < b ? -1 : a > b ? 1 : x.extractTradeReceivableRequestId - y.extractTradeReceivableRequestId;
      return desc ? -c : c;
    });
    return sorted.map((r) => r.extractTradeReceivableRequestId);
  }

  for (const field of fields) {
    for (const desc of [false, true]) {
      it(`pages by ${field}${desc ? ' descending' : ''} with ties broken by id, never overlapping`, async () => {
        const app = await bookkeepingApp({ extractRequests: rows });
        const seen: number[] = [];
        // Size 5: pages in the first half read forward, the rest from the far end.
        for (let page = 1; page <= 8; page++) {
          const { body } = await list(app, `sortBy=${field}&desc=${desc}&page=${page}&pageSize=5`);
          seen.push(...ids(body));
        }
        expect(seen).toEqual(expected(field, desc));
      });
    }
  }
});

describe('extract list query parameters', () => {
  const cases: Array<[string, string]> = [
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=2147483648', 'page'],
    ['pageSize=0', 'pageSize'],
    ['pageSize=101', 'pageSize'],
    ['pageSize=ten', 'pageSize'],
    ['sortBy=amount', 'sortBy'],
    ['desc=yes', 'desc'],
    ['size=20', 'size'],
  ];
  for (const [query, name] of cases) {
    it(`refuses ${query} with 400 naming ${name}`, async () => {
      const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 3) });
      const res = await app.inject({ url: extractUrl(TENANT, query), headers: AUTH });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.details[0].path).toBe(`/${name}`);
      expect(body.details[0].message).toContain(`query parameter ${name}`);
    });
  }

  it('lists the sortable fields when sortBy is unknown', async () => {
    const app = await bookkeepingApp();
    const res = await app.inject({ url: extractUrl(TENANT, 'sortBy=uid'), headers: AUTH });
    expect(res.json().message).toContain('"registeredAt"');
    expect(res.json().message).toContain('"generatedAt"');
  });

  it('keeps the tenant counter in step with fixtures loaded later', async () => {
    const app = await bookkeepingApp({ extractRequests: extractRequests(TENANT, 4) });
    const more = await app.inject({
      method: 'POST',
      url: '/_sandbox/fixtures',
      payload: { bookkeeping: { extractRequests: extractRequests(TENANT, 3, 50) } },
    });
    expect(more.statusCode).toBe(200);
    const { body } = await list(app, 'pageSize=2&page=4&sortBy=extractTradeReceivableRequestId');
    expect(body.pagination).toEqual({ page: 4, size: 2, totalItems: 7, totalPages: 4 });
    expect(ids(body)).toEqual([52]);
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect((await list(app)).status).toBe(401);
  });
});

describe('extract list timestamps as the fixture wrote them', () => {
  // The fixture schema takes 0 to 9 fractional digits; each form is answered as written.
  const written = [
    { id: 1, registeredAt: '2026-10-02T04:00:00.123457Z', generatedAt: '2026-10-02T04:05:00Z' },
    { id: 2, registeredAt: '2026-10-02T04:00:00.123456789Z', generatedAt: '2026-10-02T04:05:00.5Z' },
    { id: 3, registeredAt: '2026-10-02T04:00:00Z', generatedAt: '2026-10-02T04:05:00.000000001Z' },
    { id: 4, registeredAt: '2026-10-02T04:00:00.1Z', generatedAt: '2026-10-02T04:04:59.999999999Z' },
  ];
  const rows = written.map((w) => ({
    tenantId: TENANT,
    extractTradeReceivableRequestId: w.id,
    registeredAt: w.registeredAt,
    registeredByUserId: 1,
    protocolNumber: `P${w.id}`,
    generatedAt: w.generatedAt,
  }));

  it('answers registeredAt and generatedAt digit for digit, with no fraction added or cut', async () => {
    const app = await bookkeepingApp({ extractRequests: rows });
    const { body } = await list(app, 'sortBy=extractTradeReceivableRequestId');
    expect(body.extractTradeReceivables.map((r) => [r.registeredAt, r.generatedAt])).toEqual(
      written.map((w) => [w.registeredAt, w.generatedAt]),
    );
  });

  it('orders by the full precision: a microsecond, a nanosecond and no fraction at all', async () => {
    const app = await bookkeepingApp({ extractRequests: rows });
    // 04:00:00 < .1 < .123456789 < .123457
    expect(ids((await list(app, 'sortBy=registeredAt')).body)).toEqual([3, 4, 2, 1]);
    expect(ids((await list(app, 'sortBy=registeredAt&desc=true')).body)).toEqual([1, 2, 4, 3]);
    // 04:04:59.999999999 < 04:05:00 < 04:05:00.000000001 < 04:05:00.5
    expect(ids((await list(app, 'sortBy=generatedAt')).body)).toEqual([4, 1, 3, 2]);
    expect(ids((await list(app, 'sortBy=generatedAt&desc=true&pageSize=2&page=2')).body)).toEqual([1, 4]);
  });

  it('writes the timestamps it sets itself as toISOString does (milliseconds)', async () => {
    const app = await bookkeepingApp({
      extractRequests: [{ tenantId: TENANT, extractTradeReceivableRequestId: 9, registeredByUserId: 1, protocolNumber: 'P9' }],
    });
    const [item] = (await list(app)).body.extractTradeReceivables;
    expect(item?.registeredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(item?.generatedAt).toBe(item?.registeredAt);
  });
});
