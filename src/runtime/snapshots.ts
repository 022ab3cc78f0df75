// Snapshots of the whole sandbox: the database (every table, copied on the same connection), the
// clock's setting and the position of the key sequence, so that a restored sandbox answers the
// next request exactly as it did after the save. Journal and fault rules are not part of it.
import type { SnapshotStore } from '../store/snapshot-store.js';
import type { SandboxClock } from './clock.js';
import type { IdsState, SandboxIds } from './ids.js';

export interface SnapshotMeta {
  name: string;
  createdAt: string;
  clock: ReturnType<SandboxClock['save']>;
  /** The clock as it read when saved. */
  clockView: ReturnType<SandboxClock['describe']>;
  ids: IdsState;
  rows: Record<string, number>;
}

export class Snapshots {
  private readonly meta = new Map<string, SnapshotMeta>();

  constructor(
    private readonly store: SnapshotStore,
    private readonly clock: SandboxClock,
    private readonly ids: SandboxIds,
  ) {}

  /**
   * Saves the state under `name`, its rows copied in turns of the event loop (`turn()` awaited
   * between two: SnapshotStore.saveInTurns); the clock and the key sequence are taken in the same
   * turn as the last rows, so the three agree.
   */
  async save(name: string, turn: () => Promise<void>): Promise<{ meta: SnapshotMeta; replaced: boolean }> {
    let taken: Pick<SnapshotMeta, 'createdAt' | 'clock' | 'clockView' | 'ids'> | undefined;
    const rows = await this.store.saveInTurns(name, turn, () => {
      taken = { createdAt: new Date().toISOString(), clock: this.clock.save(), clockView: this.clock.describe(), ids: this.ids.save() };
    });
    if (!taken) throw new Error('the snapshot was saved without its clock and key sequence');
    const replaced = this.meta.has(name);
    const meta: SnapshotMeta = { name, ...taken, rows };
    this.meta.set(name, meta);
    return { meta, replaced };
  }

  restore(name: string): SnapshotMeta | undefined {
    const meta = this.meta.get(name);
    if (!meta || !this.store.restore(name)) return undefined;
    this.clock.restore(meta.clock);
    this.ids.restore(meta.ids);
    return meta;
  }

  get(name: string): SnapshotMeta | undefined {
    return this.meta.get(name);
  }

  list(): SnapshotMeta[] {
    return [...this.meta.values()];
  }

  delete(name: string): boolean {
    this.meta.delete(name);
    return this.store.delete(name);
  }
}
