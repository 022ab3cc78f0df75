// Near misses: a request that reached no documented operation (a 501 under an interface prefix, a 404
// outside them) is told the nearest documented one and what differs ("did you mean PUT
// .../{uid}/payment? your path has "payments" where it has "payment""). The distance is an edit
// distance over path segments (a {parameter} takes any non-empty segment; two literals cost their
// character edit distance over the longer length, so a typo costs less than a wrong word), plus half a
// segment for a different method.
import type { Operation } from './catalog.js';

export interface NearMiss {
  /** Operation id, as in GET /_sandbox/operations. */
  operation: string;
  method: string;
  /** The path template. */
  path: string;
  /** What differs, one sentence each. */
  differences: string[];
  /** The distance (0: the path fits and the method is the same). */
  distance: number;
}

const METHOD_COST = 0.5;

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/** Character edit distance (Levenshtein). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function substitution(sent: string, template: string): number {
  if (isParam(template)) return sent === '' ? 1 : 0;
  if (sent === template) return 0;
  return editDistance(sent, template) / Math.max(sent.length, template.length);
}

const segmentsOf = (path: string) => path.split('/').slice(1);

/** Segment alignment of `sent` against `template`: the distance and the differences it implies. */
function align(sent: string[], template: string[]): { distance: number; differences: string[] } {
  const n = sent.length;
  const m = template.length;
  const d: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const row = d[i] ?? [];
      row[j] = Math.min(
        (d[i - 1]?.[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (d[i - 1]?.[j - 1] ?? 0) + substitution(sent[i - 1] ?? '', template[j - 1] ?? ''),
      );
    }
  }
  const differences: string[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const here = d[i]?.[j] ?? 0;
    const s = sent[i - 1] ?? '';
    const t = template[j - 1] ?? '';
    if (i > 0 && j > 0 && Math.abs(here - ((d[i - 1]?.[j - 1] ?? 0) + substitution(s, t))) < 1e-9) {
      if (substitution(s, t) > 0) {
        differences.push(isParam(t) ? `your path leaves ${t} empty` : `your path has "${s}" where the operation has "${t}"`);
      }
      i--;
      j--;
    } else if (i > 0 && Math.abs(here - ((d[i - 1]?.[j] ?? 0) + 1)) < 1e-9) {
      differences.push(
        s === '' && i === n ? 'your path ends with a slash the operation does not have' : `your path has an extra segment "${s}"`,
      );
      i--;
    } else {
      differences.push(`your path lacks the segment "${t}"`);
      j--;
    }
  }
  return { distance: d[n]?.[m] ?? 0, differences: differences.reverse() };
}

/** How far a path is from a path template ({parameter} segments take any value), and what differs. */
export function pathDistance(path: string, template: string): { distance: number; differences: string[] } {
  return align(segmentsOf(path), segmentsOf(template));
}

/** The documented operation nearest to `method path` among `operations`, or null when none is documented. */
export function nearestOperation(method: string, path: string, operations: readonly Operation[]): NearMiss | null {
  const sent = segmentsOf(path);
  let best: NearMiss | null = null;
  for (const op of operations) {
    if (op.method === null || op.path === null) continue;
    const { distance, differences } = align(sent, segmentsOf(op.path));
    const total = distance + (op.method === method ? 0 : METHOD_COST);
    if (best !== null && total >= best.distance) continue;
    const all = op.method === method ? differences : [`the method is ${method}; the operation's is ${op.method}`, ...differences];
    if (all.length === 0) all.push('the path fits the template, but one of its segments is a word the sandbox reserves for another path (see the assumptions table)');
    best = { operation: op.id, method: op.method, path: op.path, differences: all, distance: Math.round(total * 100) / 100 };
  }
  return best;
}

/** "did you mean PUT /a/{uid}/payment? your path has ..." */
export function nearMissSentence(miss: NearMiss): string {
  return `did you mean ${miss.method} ${miss.path} (${miss.operation})? ${miss.differences.join('; ')}`;
}

/** How far a path outside every prefix may be from an operation to be suggested (a version or prefix typo). */
export const OUTSIDE_PREFIX_DISTANCE = 1.5;

/**
 * The candidate `text` is most likely a typo of: the nearest by edit distance, when within a third of
 * the text's length (at least 2 edits); undefined when none is that near.
 */
export function nearestName(text: string, candidates: readonly string[]): string | undefined {
  const within = Math.max(2, Math.floor(text.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(text, candidate);
    if (distance <= within && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Why `id` is no operation id of the catalog (null: it is one, documented or named only). A filter by
 * an id that names nothing would match nothing, and a check that none was sent would pass.
 */
export function operationIdProblem(id: string, operations: readonly Operation[]): string | null {
  if (operations.some((o) => o.id === id)) return null;
  const near = nearestName(id, operations.map((o) => o.id));
  return `${JSON.stringify(id.slice(0, 80))} is no operation id: ${near === undefined ? '' : `did you mean "${near}"? `}the ids are those of GET /_sandbox/operations`;
}
