// A count and its noun in a message: "1 byte", "2 bytes". Messages name counts the client can make
// 1 (a line of one byte, a file with one byte before its header), so the noun follows the count.

/** "1 document", "2 documents"; `many` for a noun whose plural is not the word and an s. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
