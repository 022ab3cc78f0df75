import { describe, expect, it } from 'vitest';
import { bookkeepingApp, declaration, inspectBill, paymentUrl, TENANT, TOKEN } from './helpers.js';

describe('concurrent payments', () => {
  it('accepts exactly 30 of 50 parallel payments of 1.00 over real HTTP on a bill of 30.50', async () => {
    const app = await bookkeepingApp({ tradeBills: [{ tenantId: TENANT, uid: 'IUD-RACE', amount: 30.5 }] });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const body = JSON.stringify(declaration(1, true));
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${address}${paymentUrl(TENANT, 'IUD-RACE')}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.filter((s) => s === 204)).toHaveLength(30);
    expect(statuses.filter((s) => s === 400)).toHaveLength(20);
    const bill = await inspectBill(app, 'IUD-RACE');
    expect(bill.body).toMatchObject({ amount: 30.5, openValue: 0.5, status: 'partially-paid' });
    const payments = bill.body.payments as Array<{ openValueBefore: number; openValueAfter: number }>;
    expect(payments).toHaveLength(30);
    // No lost update: each payment starts from where the previous one left the bill.
    payments.forEach((p, i) => {
      expect(p.openValueBefore).toBe(30.5 - i);
      expect(p.openValueAfter).toBe(29.5 - i);
    });
  });
});
