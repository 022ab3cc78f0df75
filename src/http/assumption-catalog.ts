// Every behaviour the specification leaves open and the sandbox decides is declared once, in an
// interface's assumptions.ts or in http/sandbox-assumptions.ts: docs/assumptions.md is written from
// them by `npm run docs`, and the OpenAPI document carries each text as `x-sandbox-assumption` (tests
// hold both to the code).
import type { InterfaceId } from './errors.js';

export interface Assumption {
  id: string;
  interface: InterfaceId | 'sandbox';
  /** What the specification leaves open. */
  topic: string;
  /** What the sandbox does. */
  decision: string;
  /** Why. */
  reason: string;
}

export function assumptionText(a: Assumption): string {
  return `${a.decision} (assumed: ${a.reason}) [${a.id}]`;
}

/**
 * The texts of assumptions of `list` by id, for `x-sandbox-assumption`: ids are typed from the list
 * (declared `as const`), so a misspelt one fails to compile.
 */
export function assumptionLookup<const L extends readonly Assumption[]>(list: L): (...ids: Array<L[number]['id']>) => string {
  const byId = new Map(list.map((a) => [a.id, a]));
  return (...ids: string[]) =>
    ids
      .map((id) => {
        const a = byId.get(id);
        if (!a) throw new Error(`unknown sandbox assumption "${id}"`);
        return assumptionText(a);
      })
      .join(' ');
}
