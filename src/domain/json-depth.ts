// How deep the sandbox reads JSON that users write: arrays and objects nested in one another. Code
// that walks a JSON value recursively (JSON.stringify, JSONPath's recursive descent, the comparison
// of equalToJson, the serializer of the control plane) runs out of stack somewhere past a few
// thousand levels, and no mapping, template parameter or body of a real client nests anywhere near
// this deep: so JSON beyond it is refused where a user gives it (a mapping) and left unread where a
// client sends it (a body a mapping would match), each saying so.

/** Arrays and objects nested in one another: the most the sandbox reads (`[[1]]` is 2 deep). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON `text` nests arrays and objects more than `limit` deep. Linear, allocating nothing:
 * strings are skipped with indexOf (their brackets are not nesting), so it may run before JSON.parse.
 */
export function jsonTextDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j === -1) return false;
        let backslashes = 0;
        while (text.charCodeAt(j - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * The path (keys and indexes) of the first array or object of a parsed JSON `value` that lies more
 * than `limit` deep, the root counting as 1; undefined when none does. Iterative, so it reads a value
 * of any depth, and it stops at the first one found.
 */
export function deeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): Array<string | number> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Array<{ value: object; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop() as { value: object; path: Array<string | number> };
    if (path.length + 1 > limit) return path;
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (let k = entries.length - 1; k >= 0; k--) {
      const [key, child] = entries[k] as [string | number, unknown];
      if (child !== null && typeof child === 'object') stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}
