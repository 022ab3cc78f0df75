// Snapshots of the whole sandbox: the database (every table, copied on the same connection), the
// clock's setting and the position of the key sequence, so that a restored sandbox answers the
// next request exactly as it did after the save. Journal and fault rules are not part of it.
// Bounded (assumption snapshot-limits): SANDBOX_MAX_SNAPSHOTS per workspace, SANDBOX_SNAPSHOTS_SIZE
// bytes across the sandbox (a SnapshotRoom every workspace's Snapshots share).
import { formatSize } from '../domain/size.js';
import { SandboxError } from '../http/errors.js';
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
  /** The bytes its copies take in memory. */
  bytes: number;
}

/** Snapshots a workspace keeps at most (SANDBOX_MAX_SNAPSHOTS). */
export const DEFAULT_MAX_SNAPSHOTS = 100;
/** Bytes the snapshots of every workspace take together at most (SANDBOX_SNAPSHOTS_SIZE): 256 MiB. */
export const DEFAULT_SNAPSHOTS_SIZE = 256 * 1024 * 1024;
/** The least SANDBOX_SNAPSHOTS_SIZE: a snapshot of an empty state takes a page per table and index. */
export const MIN_SNAPSHOTS_SIZE = 1024 * 1024;

/** 1536 -> "1.5 KiB": a size in a message. */
function showBytes(bytes: number): string {
  for (const [unit, factor] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const)
    if (bytes >= factor) return `${(bytes / factor).toFixed(1)} ${unit}`;
  return `${bytes} bytes`;
}

/**
 * The room snapshots have: how many one workspace keeps, and the bytes all of the sandbox's take,
 * counted as each save, delete and workspace removal changes them. One per sandbox, shared by the
 * Snapshots of every workspace.
 */
export class SnapshotRoom {
  private held = 0;

  constructor(
    readonly maxPerWorkspace: number = DEFAULT_MAX_SNAPSHOTS,
    readonly maxBytes: number = DEFAULT_SNAPSHOTS_SIZE,
  ) {
    if (!Number.isInteger(maxPerWorkspace) || maxPerWorkspace < 1)
      throw new Error(`maxSnapshots must be a whole number, 1 or more (got ${maxPerWorkspace})`);
    if (!Number.isInteger(maxBytes) || maxBytes < MIN_SNAPSHOTS_SIZE)
      throw new Error(`snapshotsSize must be a whole number of bytes, ${MIN_SNAPSHOTS_SIZE} or more (got ${maxBytes})`);
  }

  /** The bytes the snapshots of every workspace take now. */
  get bytes(): number {
    return this.held;
  }

  /** A workspace holding `count` snapshots may save a new name: else a 409 saying how to make room. */
  checkCount(count: number, workspace: string): void {
    if (count < this.maxPerWorkspace) return;
    throw new SandboxError(
      409,
      `workspace "${workspace}" holds ${count} snapshots, the most one keeps (SANDBOX_MAX_SNAPSHOTS=${this.maxPerWorkspace}): ` +
        'nothing was saved. Delete one no longer used (DELETE /_sandbox/snapshots/{name}), save under the name of one ' +
        'to replace it, or start the sandbox with a higher SANDBOX_MAX_SNAPSHOTS',
    );
  }

  /**
   * Takes `bytes` for a snapshot replacing one of `replacing` bytes (0: a new name), or refuses with
   * a 429 when the sandbox's snapshots would take more than maxBytes; `bytes` undefined only checks
   * that some room is left, before anything is copied.
   */
  take(bytes: number | undefined, replacing: number): void {
    const after = this.held - replacing + (bytes ?? 0);
    if (bytes === undefined ? after < this.maxBytes : after <= this.maxBytes) {
      if (bytes !== undefined) this.held = after;
      return;
    }
    const needs = bytes === undefined ? '' : ` and this one would take ${showBytes(bytes)}${replacing > 0 ? ` (the one it replaces ${showBytes(replacing)})` : ''}`;
    throw new SandboxError(
      429,
      `the snapshots of this sandbox take ${showBytes(this.held)} (every workspace's counted)${needs}: ` +
        `the most they may take is ${showBytes(this.maxBytes)} (SANDBOX_SNAPSHOTS_SIZE=${formatSize(this.maxBytes)}), so nothing was saved. ` +
        'Delete snapshots no longer used (DELETE /_sandbox/snapshots/{name}, in any workspace, or remove a workspace), ' +
        'or start the sandbox with a higher SANDBOX_SNAPSHOTS_SIZE',
    );
  }

  /** Gives back the bytes of snapshots deleted. */
  free(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

export class Snapshots {
  private readonly meta = new Map<string, SnapshotMeta>();
  private released = false;

  /** `workspace`: the name messages give; `room`: shared by every workspace of the sandbox. */
  constructor(
    private readonly store: SnapshotStore,
    private readonly clock: SandboxClock,
    private readonly ids: SandboxIds,
    readonly room: SnapshotRoom = new SnapshotRoom(),
    private readonly workspace = 'default',
  ) {}

  /**
   * Saves the state under `name`, its rows copied in turns of the event loop (`turn()` awaited
   * between two: SnapshotStore.saveInTurns); the clock and the key sequence are taken in the same
   * turn as the last rows, so the three agree.
   *
   * Refused, with nothing saved and every snapshot kept, when a new name would take the workspace
   * past the room's count (a 409), or the copy the sandbox's snapshots past its bytes (a 429): what
   * is known before copying is checked first, the rest once the copy's bytes are known.
   */
  async save(name: string, turn: () => Promise<void>): Promise<{ meta: SnapshotMeta; replaced: boolean }> {
    if (!this.store.has(name)) this.room.checkCount(this.store.size, this.workspace);
    this.room.take(undefined, this.store.bytes(name) ?? 0);
    let taken: Pick<SnapshotMeta, 'createdAt' | 'clock' | 'clockView' | 'ids'> | undefined;
    let bytes = 0;
    const rows = await this.store.saveInTurns(
      name,
      turn,
      () => {
        taken = { createdAt: new Date().toISOString(), clock: this.clock.save(), clockView: this.clock.describe(), ids: this.ids.save() };
      },
      undefined,
      (size, replacing) => {
        // Checked again: other saves of this workspace may have ended while this one copied.
        bytes = size;
        // A workspace closing meanwhile: its snapshots go with its database, nothing to take.
        if (this.released) return;
        if (replacing === undefined) this.room.checkCount(this.store.size, this.workspace);
        this.room.take(size, replacing ?? 0);
      },
    );
    if (!taken) throw new Error('the snapshot was saved without its clock and key sequence');
    const replaced = this.meta.has(name);
    const meta: SnapshotMeta = { name, ...taken, rows, bytes };
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
    const bytes = this.store.bytes(name);
    this.meta.delete(name);
    if (!this.store.delete(name)) return false;
    this.room.free(bytes ?? 0);
    return true;
  }

  /** The workspace is closing (its database goes with its snapshots): gives their bytes back to the room. */
  release(): void {
    if (this.released) return;
    this.released = true;
    for (const { bytes } of this.store.list()) this.room.free(bytes);
  }
}
