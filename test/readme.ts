// The code blocks of the README and the docs/ pages, for the tests that run them.
import { readdirSync, readFileSync } from 'node:fs';

/** README.md, CONTRIBUTING.md and every page of docs/: the Markdown a reader is given. */
export function markdownFiles(): string[] {
  const docs = readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

/** The first ```lang block after the heading line `heading` (e.g. '## Jest (CommonJS)') of `file`. */
export function docBlock(file: string, heading: string, lang: string): string {
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${file} has no heading "${heading}"`);
  const block = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at))?.[1];
  if (block === undefined) throw new Error(`${file} has no ${lang} block under "${heading}"`);
  return block;
}

/** The first ```lang block after the heading line `heading` of the README. */
export function readmeBlock(heading: string, lang: string): string {
  return docBlock('README.md', heading, lang);
}

/** Files shown in one block of `file`, each introduced by a line `// file: <name>`. */
export function docFiles(file: string, heading: string, lang: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const part of docBlock(file, heading, lang).split(/^\/\/ file: /m).slice(1)) {
    const newline = part.indexOf('\n');
    files.set(part.slice(0, newline).trim(), part.slice(newline + 1).replace(/\n+$/, '\n'));
  }
  return files;
}

/** Every ```lang block of `file`, with the heading it sits under. */
export function blocksOf(file: string, lang: string): Array<{ heading: string; code: string }> {
  const out: Array<{ heading: string; code: string }> = [];
  let heading = '';
  let open: { lang: string; lines: string[] } | null = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        if (open.lang === lang) out.push({ heading, code: `${open.lines.join('\n')}\n` });
        open = null;
      } else open.lines.push(line);
    } else if (line.startsWith('```')) open = { lang: line.slice(3).trim(), lines: [] };
    else if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
  }
  return out;
}
