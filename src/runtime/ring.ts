// A ring of fixed capacity: the newest items replace the oldest, so memory stays flat however many
// pass. The request journal and the event feed both keep their entries in one.

export class Ring<T> {
  private readonly slots: Array<T | undefined>;
  /** Where the next item goes. */
  private head = 0;
  private size = 0;
  private pushedSinceClear = 0;

  /** `capacity` 0 keeps nothing (push does nothing). */
  constructor(readonly capacity: number) {
    this.slots = new Array(Math.max(0, capacity));
  }

  push(item: T): void {
    if (this.capacity === 0) return;
    this.slots[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
    if (this.size < this.capacity) this.size += 1;
    this.pushedSinceClear += 1;
  }

  /** Items held now. */
  get count(): number {
    return this.size;
  }

  /** Items pushed since the last clear that no longer fit. */
  get dropped(): number {
    return this.pushedSinceClear - this.size;
  }

  /** The i-th oldest item held (0: the oldest). */
  oldest(i: number): T | undefined {
    if (i < 0 || i >= this.size) return undefined;
    return this.slots[(this.head - this.size + i + this.capacity) % this.capacity];
  }

  /** The i-th newest item held (0: the newest). */
  newest(i: number): T | undefined {
    if (i < 0 || i >= this.size) return undefined;
    return this.slots[(this.head - 1 - i + this.capacity) % this.capacity];
  }

  /** Forgets every item; answers how many there were. */
  clear(): number {
    const n = this.size;
    this.slots.fill(undefined);
    this.head = 0;
    this.size = 0;
    this.pushedSinceClear = 0;
    return n;
  }
}
