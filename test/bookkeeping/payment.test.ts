import { describe, expect, it } from 'vitest';
import { AUTH, BASE, bookkeepingApp, declaration, inspectBill, OTHER_TENANT, pay, TENANT } from './helpers.js';
import { detailPaths } from '../helpers.js';

const bills = [
  { tenantId: TENANT, uid: 'IUD-OPEN', amount: 1500 },
  { tenantId: TENANT, uid: 'IUD-PART', amount: 830.5, openValue: 400.25, status: 'partially-paid' as const },
  { tenantId: TENANT, uid: 'IUD-PAID', amount: 99.9, status: 'paid' as const },
  { tenantId: TENANT, uid: 'IUD-CANC', amount: 10, status: 'cancelled' as const },
  { tenantId: TENANT, uid: 'IUD-BLKD', amount: 10, status: 'blocked' as const },
  { tenantId: TENANT, uid: 'IUD-CENTS', amount: 1 },
  { tenantId: TENANT, uid: 'IUD-TENTHS', amount: 0.3 },
  { tenantId: OTHER_TENANT, uid: 'IUD-OTHER', amount: 50 },
];

const app = () => bookkeepingApp({ tradeBills: bills });

describe('declaring a payment', () => {
  it('answers an accepted payment with 204 and no body', async () => {
    const a = await app();
    const res = await pay(a, 'IUD-OPEN', declaration(100, true));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
  });

  it('lowers the open value with a partial payment, shown through inspection', async () => {
    const a = await app();
    expect((await pay(a, 'IUD-OPEN', declaration(250.75, true))).statusCode).toBe(204);
    const { body } = await inspectBill(a, 'IUD-OPEN');
    expect(body).toMatchObject({ amount: 1500, openValue: 1249.25, status: 'partially-paid' });
  });

  it('refuses a second payment above the new open value and accepts one within it', async () => {
    const a = await app();
    expect((await pay(a, 'IUD-OPEN', declaration(1000, true))).statusCode).toBe(204);
    const above = await pay(a, 'IUD-OPEN', declaration(500.01, true));
    expect(above.statusCode).toBe(400);
    expect(above.json().details).toEqual([
      { path: '/paymentValue', message: '500.01 exceeds the open value of the trade bill (500.00)' },
    ]);
    expect((await pay(a, 'IUD-OPEN', declaration(499.99, true))).statusCode).toBe(204);
    expect((await inspectBill(a, 'IUD-OPEN')).body).toMatchObject({
      openValue: 0.01,
      status: 'partially-paid',
    });
  });

  it('settles the bill with a total payment, then refuses every payment', async () => {
    const a = await app();
    expect((await pay(a, 'IUD-PART', declaration(400.25, false))).statusCode).toBe(204);
    expect((await inspectBill(a, 'IUD-PART')).body).toMatchObject({ openValue: 0, status: 'paid' });
    for (const d of [declaration(0.01, true), declaration(400.25, false), declaration(1, false)]) {
      const res = await pay(a, 'IUD-PART', d);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain('is paid: only open or partially-paid bills accept a payment');
    }
  });

  it('refuses payments on paid, cancelled and blocked bills, naming the status', async () => {
    const a = await app();
    for (const [uid, status] of [
      ['IUD-PAID', 'paid'],
      ['IUD-CANC', 'cancelled'],
      ['IUD-BLKD', 'blocked'],
    ]) {
      const res = await pay(a, uid as string, declaration(1, true));
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain(`is ${status}`);
      expect(res.json().details).toEqual([{ path: '/uid', message: `path parameter uid: trade bill ${uid as string} is ${status}` }]);
    }
  });

  it('names the path parameter at the start of every detail about one, as query parameters are named (docs/errors.md)', async () => {
    const a = await app();
    const answers = [
      await pay(a, 'IUD-PAID', declaration(1, true)),
      await pay(a, 'IUD-PAID', { ...declaration(1, true), isPartial: 'yes' }),
      await pay(a, 'IUD-NOPE', declaration(1, true)),
      await a.inject({ method: 'PUT', url: `${BASE}/11222333000180/trade-receivable-certificates/IUD-OPEN/payment`, headers: AUTH, payload: declaration(1, true) }),
    ];
    const details = answers.flatMap((res) => (res.json() as { details: Array<{ path: string; message: string }> }).details);
    const aboutParameters = details.filter((d) => d.path === '/uid' || d.path === '/tenantId');
    expect(aboutParameters.length, JSON.stringify(answers.map((r) => r.body))).toBe(4);
    for (const d of aboutParameters) expect(d.message.startsWith(`path parameter ${d.path.slice(1)}`), d.message).toBe(true);
  });

  it('refuses an unknown uid with 400 (404 is not a documented status)', async () => {
    const a = await app();
    const res = await pay(a, 'IUD-NOPE', declaration(1, true));
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: '/uid', message: `path parameter uid: tenant ${TENANT} has no trade bill "IUD-NOPE"` },
    ]);
  });

  it('quotes an unknown uid as a JSON string, so a uid of a double quote reads as one character', async () => {
    const a = await app();
    const res = await pay(a, '"', declaration(1, true));
    expect(res.json().details).toEqual([{ path: '/uid', message: `path parameter uid: tenant ${TENANT} has no trade bill "\\""` }]);
    const inspected = await inspectBill(a, encodeURIComponent('"'));
    expect(inspected.body.message).toBe(`tenant ${TENANT} has no trade bill "\\""`);
  });

  it('refuses a remainingValue that is not the open value after the payment', async () => {
    const a = await app();
    const res = await pay(a, 'IUD-OPEN', declaration(100, true, { remainingValue: 1500 }));
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      {
        path: '/remainingValue',
        message:
          'must equal the open value after this payment: 1400.00 (open value 1500.00 - payment 100.00), got 1500',
      },
    ]);
    expect((await pay(a, 'IUD-OPEN', declaration(100, true, { remainingValue: 1400 }))).statusCode).toBe(204);
  });

  it('accepts remainingValue 0 with a total payment and refuses any other', async () => {
    const a = await app();
    expect((await pay(a, 'IUD-PART', declaration(400.25, false, { remainingValue: 0.01 }))).statusCode).toBe(
      400,
    );
    expect((await pay(a, 'IUD-PART', declaration(400.25, false, { remainingValue: 0 }))).statusCode).toBe(
      204,
    );
  });

  it('refuses a partial payment equal to the open value, pointing at isPartial', async () => {
    const a = await app();
    const res = await pay(a, 'IUD-PART', declaration(400.25, true));
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toEqual({
      path: '/isPartial',
      message: 'a partial payment must be below the open value (400.25); to settle it, send isPartial false',
    });
  });

  it('refuses a total payment below the open value', async () => {
    const a = await app();
    const res = await pay(a, 'IUD-PART', declaration(400, false));
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('/paymentValue');
    expect(res.json().details[0].message).toContain('must equal the open value (400.25)');
  });

  it('keeps amounts such as 0.29 and 0.1 + 0.2 exact to the cent', async () => {
    const a = await app();
    expect((await pay(a, 'IUD-CENTS', declaration(0.29, true, { remainingValue: 0.71 }))).statusCode).toBe(
      204,
    );
    expect((await pay(a, 'IUD-CENTS', declaration(0.7, true, { remainingValue: 0.01 }))).statusCode).toBe(
      204,
    );
    expect((await inspectBill(a, 'IUD-CENTS')).body).toMatchObject({ openValue: 0.01 });
    expect((await pay(a, 'IUD-TENTHS', declaration(0.1, true, { remainingValue: 0.2 }))).statusCode).toBe(
      204,
    );
    expect((await pay(a, 'IUD-TENTHS', declaration(0.2, false, { remainingValue: 0 }))).statusCode).toBe(204);
    const bill = (await inspectBill(a, 'IUD-TENTHS')).body;
    expect(bill).toMatchObject({ amount: 0.3, openValue: 0, status: 'paid' });
    expect(
      (bill.payments as Array<{ declaration: { paymentValue: number } }>).map(
        (p) => p.declaration.paymentValue,
      ),
    ).toEqual([0.1, 0.2]);
  });

  it('records every field sent, the user and the sandbox time', async () => {
    const a = await app();
    const sent = declaration(100, true, {
      remainingValue: 1400,
      beneficiaryDocument: '52998224725',
      paymentDate: '2026-11-19',
    });
    expect((await pay(a, 'IUD-OPEN', sent)).statusCode).toBe(204);
    expect((await pay(a, 'IUD-OPEN', declaration(1399.5, true))).statusCode).toBe(204);
    const { body } = await inspectBill(a, 'IUD-OPEN');
    expect(body.payments).toEqual([
      {
        declaration: sent,
        declaredByUserId: 1,
        recordedAt: '2026-11-20T12:00:00.000Z',
        openValueBefore: 1500,
        openValueAfter: 1400,
        statusAfter: 'partially-paid',
      },
      {
        declaration: declaration(1399.5, true),
        declaredByUserId: 1,
        recordedAt: '2026-11-20T12:00:00.000Z',
        openValueBefore: 1400,
        openValueAfter: 0.5,
        statusAfter: 'partially-paid',
      },
    ]);
  });
});

describe('payment body validation', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown field', { ...declaration(1, true), discount: 1 }, '/discount'],
    ['a missing type', { informantId: 'x', isPartial: true, paymentValue: 1 }, '/type'],
    ['a missing informantId', { type: 'bankSlip', isPartial: true, paymentValue: 1 }, '/informantId'],
    ['a missing isPartial', { type: 'bankSlip', informantId: 'x', paymentValue: 1 }, '/isPartial'],
    ['a missing paymentValue', { type: 'bankSlip', informantId: 'x', isPartial: true }, '/paymentValue'],
    ['an empty type', { ...declaration(1, true), type: '' }, '/type'],
    ['isPartial as a string', { ...declaration(1, true), isPartial: 'true' }, '/isPartial'],
    ['paymentValue as a string', { ...declaration(1, true), paymentValue: '1.00' }, '/paymentValue'],
    ['paymentValue with three decimals', declaration(1.005, true), '/paymentValue'],
    ['a zero paymentValue', declaration(0, true), '/paymentValue'],
    ['a negative paymentValue', declaration(-1, true), '/paymentValue'],
    ['a negative remainingValue', declaration(1, true, { remainingValue: -1 }), '/remainingValue'],
    [
      'remainingValue with three decimals',
      declaration(1, true, { remainingValue: 0.001 }),
      '/remainingValue',
    ],
    ['an impossible paymentDate', declaration(1, true, { paymentDate: '2026-02-30' }), '/paymentDate'],
    ['a paymentDate not YYYY-MM-DD', declaration(1, true, { paymentDate: '19/11/2026' }), '/paymentDate'],
    ['a paymentDate in the future', declaration(1, true, { paymentDate: '2026-11-21' }), '/paymentDate'],
    [
      'a beneficiaryDocument with bad check digits',
      declaration(1, true, { beneficiaryDocument: '52998224724' }),
      '/beneficiaryDocument',
    ],
    [
      'a punctuated beneficiaryDocument',
      declaration(1, true, { beneficiaryDocument: '529.982.247-25' }),
      '/beneficiaryDocument',
    ],
    [
      'a beneficiaryDocument of the wrong length',
      declaration(1, true, { beneficiaryDocument: '1234' }),
      '/beneficiaryDocument',
    ],
  ];
  for (const [what, payload, path] of cases) {
    it(`refuses ${what} with 400 naming ${path}`, async () => {
      const a = await app();
      const res = await pay(a, 'IUD-OPEN', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    });
  }

  it('accepts a paymentDate of today and an alphanumeric CNPJ as beneficiary', async () => {
    const a = await app();
    const res = await pay(
      a,
      'IUD-OPEN',
      declaration(1, true, { paymentDate: '2026-11-20', beneficiaryDocument: '12ABC34501DE35' }),
    );
    expect(res.statusCode).toBe(204);
  });

  it('reports every problem of a body at once', async () => {
    const a = await app();
    const res = await pay(a, 'IUD-OPEN', { type: 1, isPartial: 'no', paymentValue: 0.001 });
    expect(res.statusCode).toBe(400);
    expect(detailPaths(res)).toEqual(['/informantId', '/isPartial', '/paymentValue', '/type']);
  });

  it('refuses a body that is not JSON', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'PUT',
      url: `${BASE}/${TENANT}/trade-receivable-certificates/IUD-OPEN/payment`,
      headers: { ...AUTH, 'content-type': 'text/plain' },
      payload: 'pay 1',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('Content-Type must be application/json');
  });
});

describe('a refused payment', () => {
  it('changes nothing: inspection before and after are equal', async () => {
    const a = await app();
    expect((await pay(a, 'IUD-PART', declaration(100, true))).statusCode).toBe(204);
    const snapshot = async () => ({
      tenants: (await a.inject({ url: '/_sandbox/bookkeeping/tenants' })).json(),
      bills: (await a.inject({ url: `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills` })).json(),
      part: (await inspectBill(a, 'IUD-PART')).body,
      other: (await inspectBill(a, 'IUD-OTHER', OTHER_TENANT)).body,
    });
    const before = await snapshot();
    const refused = [
      await pay(a, 'IUD-PART', declaration(300.26, true)),
      await pay(a, 'IUD-PART', declaration(300.25, true)),
      await pay(a, 'IUD-PART', declaration(300, false)),
      await pay(a, 'IUD-PART', declaration(1, true, { remainingValue: 1 })),
      await pay(a, 'IUD-PART', declaration(1, true, { paymentDate: '2027-01-01' })),
      await pay(a, 'IUD-PART', { ...declaration(1, true), extra: true }),
      await pay(a, 'IUD-PAID', declaration(1, true)),
      await pay(a, 'IUD-OTHER', declaration(1, true)),
      await pay(a, 'IUD-OTHER', declaration(1, true), { tenantId: OTHER_TENANT }),
      await pay(a, 'IUD-PART', declaration(1, true), { headers: { authorization: 'Bearer x' } }),
    ];
    expect(refused.map((r) => r.statusCode)).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 403, 401]);
    expect(await snapshot()).toEqual(before);
  });
});
