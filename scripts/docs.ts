// `npm run docs`: writes the pages of docs/ that are generated from the code, so that each fact has
// one source, and the contract files (scripts/contract.ts). test/assumptions.test.ts and
// test/openapi/contract.test.ts fail when a committed file differs from what this writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Assumption } from '../src/http/assumption-catalog.js';
import { ASSUMPTIONS, INTERFACES } from '../src/interfaces.js';
import { contractFiles, ROOT } from './contract.js';

/** The title of an assumptions section: the whole sandbox's, or the interface's as the inspector names it. */
function sectionTitle(id: string): string {
  if (id === 'sandbox') return 'Whole sandbox';
  const title = INTERFACES.get(id)?.inspection.panel.title;
  if (title === undefined) throw new Error(`an assumption names the interface "${id}", which the list does not have`);
  return title;
}

/**
 * A table cell: one line; a pipe escaped so it does not end the cell, and `<` so that `<accessToken>`
 * shows as text instead of being read as an HTML tag.
 */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;');
}

/** GitHub's anchor for a heading made of letters, digits, spaces and hyphens. */
function anchor(heading: string): string {
  return heading.toLowerCase().replace(/ /g, '-');
}

/** docs/assumptions.md, from the sandbox's assumptions and those of every interface of the list. */
export function assumptionsPage(list: readonly Assumption[] = ASSUMPTIONS): string {
  const groups = new Map<string, Assumption[]>();
  for (const a of list) groups.set(a.interface, [...(groups.get(a.interface) ?? []), a]);
  const out = [
    '<!-- Written by `npm run docs` from the assumptions declared in src/: edit those, not this page. -->',
    '',
    '# Assumptions',
    '',
    'Every behaviour the specification leaves open and the sandbox decides, as the code declares it:',
    '`ASSUMPTIONS` in `src/interfaces.ts`, the whole-sandbox list of `src/http/sandbox-assumptions.ts`',
    "then each interface's from its `assumptions.ts`. Each id also appears in the OpenAPI document",
    'served at `/openapi.json`: `x-sandbox-assumption` on the operation or field it concerns, and the',
    'whole list in `info.x-sandbox-assumptions`.',
    '',
    [...groups].map(([id, rows]) => `[${sectionTitle(id)}](#${anchor(sectionTitle(id))}) (${rows.length})`).join(' · '),
  ];
  for (const [id, rows] of groups) {
    out.push('', `## ${sectionTitle(id)}`, '');
    out.push('| id | the specification leaves open | the sandbox does | why |', '| --- | --- | --- | --- |');
    for (const a of rows) out.push(`| \`${a.id}\` | ${cell(a.topic)} | ${cell(a.decision)} | ${cell(a.reason)} |`);
  }
  return `${out.join('\n')}\n`;
}

/** Every generated page: its path from the repository's root, and its text. */
export function generatedPages(): Array<{ path: string; text: string }> {
  return [{ path: 'docs/assumptions.md', text: assumptionsPage() }];
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  for (const page of [...generatedPages(), ...(await contractFiles())]) {
    const file = new URL(page.path, ROOT);
    mkdirSync(new URL('.', file), { recursive: true });
    writeFileSync(file, page.text);
    process.stdout.write(`wrote ${page.path}\n`);
  }
}
