// docs/receivables.md's layouts table is the code's record layouts, row for row: what each record type of
// each layout is read as, and which of its fields inspection shows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ALL_LAYOUTS,
  BANK_LAYOUTS,
  describes,
  RECORD_DIGITS,
  type RecordLayout,
  type RecordMeaning,
} from '../../src/receivables/cnab-layouts.js';

const pos = (n: number) => String(n).padStart(3, '0');

function shown(meaning: RecordMeaning): string {
  if (meaning.role === 'title') {
    const id = meaning.titleId ?? { from: 38, to: 62 };
    return `the title's fields; control number at ${pos(id.from)}-${pos(id.to)}`;
  }
  return meaning.fields.map((f) => `${f.name} ${pos(f.from)}-${pos(f.to)}`).join(', ') || 'not read';
}

/**
 * The table's rows of one layout, `| layout | used for | record | read as | inspection shows |`, the
 * layout named on its first row only.
 */
function rows(layout: RecordLayout): string {
  const described = RECORD_DIGITS.filter((d) => describes(layout, d));
  const others = RECORD_DIGITS.filter((d) => !describes(layout, d));
  const cells = described.map((d) => [`\`${d}\``, layout.records[d].meaning, shown(layout.records[d])]);
  const rest = layout.records[others[0] ?? '8'];
  if (others.length > 0) cells.push([others.map((d) => `\`${d}\``).join(' '), rest.meaning, 'not read']);
  return cells
    .map((c, i) => {
      const head = i === 0 ? `${layout.name} (layout \`${layout.id}\`) | ${layout.appliesTo}` : ' | ';
      return `| ${head} | ${c.join(' | ')} |`;
    })
    .join('\n');
}

describe('the layouts table of docs/receivables.md', () => {
  const page = readFileSync('docs/receivables.md', 'utf8');

  it('lists, per layout, every record type read and what it means', () => {
    const missing = ALL_LAYOUTS.map(rows).filter((block) => !page.includes(block));
    expect(missing).toEqual([]);
  });

  it('names, for each bank layout, the banks the code maps to it', () => {
    for (const [code, { layout }] of BANK_LAYOUTS) expect(layout.appliesTo, code).toContain(code);
  });
});
