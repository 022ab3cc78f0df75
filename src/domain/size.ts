// A number of bytes as the size settings read it (SANDBOX_BODY_LIMIT, SANDBOX_SNAPSHOTS_SIZE, ...):
// the help text, the defaults and the messages that name a setting's value write it so.

/** 268435456 -> '256mb': in the largest 1024-based unit that divides it, else in bytes. */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [['gb', 1024 ** 3], ['mb', 1024 ** 2], ['kb', 1024]] as const)
    if (bytes % factor === 0) return `${bytes / factor}${unit}`;
  return String(bytes);
}
