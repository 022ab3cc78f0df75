// Where bytes stop being UTF-8 (Unicode, table 3-7: well-formed byte sequences).

/** How many bytes the UTF-8 character led by `c` has (0: not a lead byte). */
export function sequenceLength(c: number): number {
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return 2;
  if (c >= 0xe0 && c <= 0xef) return 3;
  if (c >= 0xf0 && c <= 0xf4) return 4;
  return 0;
}

/** The second byte's range after a lead byte (the rest are 80-BF): no overlong forms, no surrogates, nothing above U+10FFFF. */
function secondRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** The offset of the first byte that starts no well-formed UTF-8 character; bytes.length when all do. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(c);
    if (n === 0 || i + n > bytes.length) return i;
    const [lo, hi] = secondRange(c);
    const second = bytes[i + 1] as number;
    if (second < lo || second > hi) return i;
    for (let k = 2; k < n; k++) {
      const b = bytes[i + k] as number;
      if (b < 0x80 || b > 0xbf) return i;
    }
    i += n;
  }
  return bytes.length;
}
