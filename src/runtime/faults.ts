// Fault rules: for the next N matching requests (or until removed) an emulated interface answers a
// documented error status in its own error body, or answers late. Lets a user test a client's
// retries and timeouts against the real state of the sandbox.
import { type ErrorShape, type InterfaceId, pointer, renderError, SandboxError, validationError } from '../http/errors.js';
import type { InterfaceContract } from '../http/interface-module.js';

export const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const MAX_DELAY_MS = 300_000;

export interface FaultRuleInput {
  method?: (typeof FAULT_METHODS)[number];
  path?: string;
  interface?: InterfaceId;
  status?: number;
  code?: string;
  message?: string;
  delayMs?: number;
  times?: number;
}

export interface FaultRule {
  id: string;
  method: string | null;
  path: string;
  interface: InterfaceId;
  status: number | null;
  code: string | null;
  message: string | null;
  delayMs: number;
  /** null: every matching request until the rule is removed. */
  times: number | null;
  hits: number;
  /** Matches left; null when unlimited. 0: spent (listed, no longer matching). */
  remaining: number | null;
  createdAt: string;
}

/**
 * Whether `text` matches the path pattern `glob`, where `*` stands for any characters (slashes
 * included) and everything else is literal. The two-pointer wildcard match: on a mismatch it goes back
 * to just after the last `*` seen and lets that star take one more character, never to an earlier
 * star (a later star can take whatever an earlier one would have), so it makes at most about
 * (text length + 1) x (pattern length + 1) comparisons, whatever the pattern. A regular expression
 * with one `.*` per star would backtrack through every way of splitting the text between the stars,
 * and a pattern of 30 stars can hold the event loop for good. `counter`, when given, counts the
 * comparisons (the tests hold the bound with it).
 */
export function globMatches(glob: string, text: string, counter?: { steps: number }): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  let steps = 0;
  while (t < text.length) {
    steps += 1;
    if (p < glob.length && glob.charCodeAt(p) === 42 /* * */) {
      star = p;
      p += 1;
      resume = t;
    } else if (p < glob.length && glob.charCodeAt(p) === text.charCodeAt(t)) {
      p += 1;
      t += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else {
      if (counter) counter.steps += steps;
      return false;
    }
  }
  while (p < glob.length && glob.charCodeAt(p) === 42) {
    p += 1;
    steps += 1;
  }
  if (counter) counter.steps += steps;
  return p === glob.length;
}

interface CompiledRule {
  rule: FaultRule;
}

export class Faults {
  private rules: CompiledRule[] = [];
  private seq = 0;

  /**
   * Checks and adds a rule against the interfaces' prefixes, statuses and error shapes; throws a 400
   * naming each bad field.
   */
  add(input: FaultRuleInput, now: Date, interfaces: readonly InterfaceContract[]): FaultRule {
    const details: Array<{ path: string; message: string }> = [];
    const prefixes = interfaces.map((s) => s.prefix).join(', ');
    const contractOf = (id: InterfaceId) => interfaces.find((s) => s.id === id);
    let iface = input.interface;
    let path = input.path;
    if (path !== undefined) {
      const head = path.split('*')[0] ?? '';
      const owner = interfaces.find(
        (s) => head === s.prefix || head.startsWith(`${s.prefix}/`) || (head === '' && s.id === iface),
      );
      if (iface === undefined) {
        if (owner) iface = owner.id;
        else
          details.push({
            path: pointer('path'),
            message: `the pattern must start with an interface prefix (${prefixes}), or give "interface"`,
          });
      } else if (!owner || owner.id !== iface) {
        details.push({
          path: pointer('path'),
          message: `the pattern must start with the ${iface} prefix ${contractOf(iface)?.prefix ?? '?'} (or be "*")`,
        });
      }
    } else if (iface !== undefined) {
      path = `${contractOf(iface)?.prefix ?? ''}/*`;
    } else {
      details.push({ path: pointer('path'), message: 'give a path pattern, an interface, or both' });
    }
    const contract = iface === undefined ? undefined : contractOf(iface);
    if (contract && input.status !== undefined && !contract.statuses.includes(input.status)) {
      details.push({
        path: pointer('status'),
        message: `${input.status} is not a documented status of the ${contract.id} interface: one of ${contract.statuses.join(', ')}`,
      });
    }
    if (input.status === undefined && !input.delayMs) {
      details.push({ path: '', message: 'a rule needs a status, a delayMs above 0, or both' });
    }
    if (input.code !== undefined && contract && contract.shape !== 'envelope') {
      const envelopes = interfaces.filter((s) => s.shape === 'envelope').map((s) => s.id);
      details.push({
        path: pointer('code'),
        message: `code belongs to the error envelope (${envelopes.join(', ')}); the ${contract.id} error body has none`,
      });
    }
    if (details.length > 0 || contract === undefined || path === undefined) throw validationError(details);

    this.seq += 1;
    const pattern = path === '*' ? `${contract.prefix}/*` : path;
    const rule: FaultRule = {
      id: `fault-${this.seq}`,
      method: input.method ?? null,
      path: pattern,
      interface: contract.id,
      status: input.status ?? null,
      code: input.code ?? null,
      message: input.message ?? null,
      delayMs: input.delayMs ?? 0,
      times: input.times ?? null,
      hits: 0,
      remaining: input.times ?? null,
      createdAt: now.toISOString(),
    };
    this.rules.push({ rule });
    return rule;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r.rule }));
  }

  get size(): number {
    return this.rules.length;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.rule.id !== id);
    return this.rules.length < before;
  }

  clear(): number {
    const n = this.rules.length;
    this.rules = [];
    return n;
  }

  /**
   * The first rule, in the order they were added, that matches and has matches left; counts the hit
   * at once, so that N concurrent requests consume a rule for N exactly.
   */
  take(method: string, path: string, iface: InterfaceId): FaultRule | undefined {
    for (const { rule } of this.rules) {
      if (rule.interface !== iface || rule.remaining === 0) continue;
      if (rule.method !== null && rule.method !== method) continue;
      if (!globMatches(rule.path, path)) continue;
      rule.hits += 1;
      if (rule.remaining !== null) rule.remaining -= 1;
      return { ...rule };
    }
    return undefined;
  }
}

/** The body a fault answers, in the error shape of the rule's interface. */
export function faultBody(rule: FaultRule, shape: ErrorShape) {
  const status = rule.status ?? 500;
  const message =
    rule.message ??
    `the sandbox answered ${status} because of fault rule ${rule.id}; remove it with DELETE /_sandbox/faults/${rule.id}`;
  const err = new SandboxError(status, message, rule.code ? { code: rule.code } : {});
  return renderError(shape, err);
}
