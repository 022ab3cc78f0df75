import { describe, expect, it } from 'vitest';
import { reconciliationDue } from '../../src/registry/overdue.js';

describe('the monthly reconciliation deadline', () => {
  it('has no deadline before the first registration', () => {
    expect(reconciliationDue(null, null, new Date('2030-01-01T00:00:00Z'))).toEqual({
      dueBy: null,
      overdue: false,
    });
  });

  it('counts one calendar month from the first registration, clamping to the month end', () => {
    const due = reconciliationDue('2026-01-31T10:00:00.000Z', null, new Date('2026-02-28T10:00:00.000Z'));
    expect(due.dueBy?.toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(due.overdue).toBe(false);
    expect(
      reconciliationDue('2026-01-31T10:00:00.000Z', null, new Date('2026-02-28T10:00:00.001Z')).overdue,
    ).toBe(true);
  });

  it('counts from the last reconciliation when it is later than the first registration', () => {
    const due = reconciliationDue(
      '2026-01-01T00:00:00.000Z',
      '2026-03-15T00:00:00.000Z',
      new Date('2026-04-10T00:00:00Z'),
    );
    expect(due.dueBy?.toISOString()).toBe('2026-04-15T00:00:00.000Z');
    expect(due.overdue).toBe(false);
  });

  it('ignores a reconciliation made before the first registration', () => {
    const due = reconciliationDue(
      '2026-05-10T00:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
      new Date('2026-06-05T00:00:00Z'),
    );
    expect(due.dueBy?.toISOString()).toBe('2026-06-10T00:00:00.000Z');
  });
});
