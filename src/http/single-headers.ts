// Headers the sandbox reads that take one value (assumption repeated-headers in
// http/sandbox-assumptions.ts): sent twice, Node keeps the first Content-Type, Authorization or Host
// and drops the rest, and joins a Sandbox-* header's values with ", ". Either way the sandbox would
// act on a value the client may not have meant, so the request is refused, naming the header.
import { SandboxError } from './errors.js';

/**
 * The single-valued headers the sandbox reads, by lower-case name: Content-Type (RFC 9110, section
 * 8.3), Authorization (section 11.6.2), Host (RFC 9112, section 3.2, which requires the 400), and
 * every Sandbox-* header, each of which the sandbox defines with one value. Content-Length is
 * Node's: its parser refuses two before the sandbox sees the request.
 */
const SINGLE_VALUED = new Map([
  ['content-type', 'Content-Type'],
  ['authorization', 'Authorization'],
  ['host', 'Host'],
]);
const SANDBOX_PREFIX = 'sandbox-';

/** 'sandbox-admin-token' -> 'Sandbox-Admin-Token'. */
function displayName(lower: string): string {
  return SINGLE_VALUED.get(lower) ?? lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * A 400 naming the first single-valued header sent more than once, from Node's raw header list
 * (name, value, name, value...); undefined when each is sent at most once. The values are not
 * echoed: Authorization and Sandbox-Admin-Token carry secrets.
 */
export function repeatedHeaderError(raw: readonly string[]): SandboxError | undefined {
  let seen: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (!SINGLE_VALUED.has(name) && !name.startsWith(SANDBOX_PREFIX)) continue;
    if (seen === undefined) seen = [name];
    else if (!seen.includes(name)) seen.push(name);
    else {
      let count = 0;
      for (let j = 0; j < raw.length; j += 2) if ((raw[j] as string).toLowerCase() === name) count++;
      const header = displayName(name);
      return new SandboxError(
        400,
        `the request has ${count} ${header} headers: ${header} takes one value (RFC 9110, section 5.3), and the sandbox reads none of them rather than pick one (the values are not echoed); send ${header} once`,
      );
    }
  }
  return undefined;
}
