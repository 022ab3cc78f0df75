import { describe, expect, it } from 'vitest';
import { Ring } from '../../src/runtime/ring.js';

describe('the ring', () => {
  it('keeps the last items, oldest and newest reachable by rank, and counts what it dropped', () => {
    const ring = new Ring<number>(3);
    for (let i = 1; i <= 5; i++) ring.push(i);
    expect(ring.count).toBe(3);
    expect(ring.dropped).toBe(2);
    expect([0, 1, 2, 3].map((i) => ring.oldest(i))).toEqual([3, 4, 5, undefined]);
    expect([0, 1, 2, 3].map((i) => ring.newest(i))).toEqual([5, 4, 3, undefined]);
    expect(ring.clear()).toBe(3);
    expect([ring.count, ring.dropped, ring.oldest(0)]).toEqual([0, 0, undefined]);
  });

  it('keeps nothing at capacity 0', () => {
    const ring = new Ring<number>(0);
    ring.push(1);
    expect([ring.count, ring.dropped, ring.newest(0)]).toEqual([0, 0, undefined]);
  });
});
