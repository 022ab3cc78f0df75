// The README's code blocks, for the tests that run them.
import { readFileSync } from 'node:fs';

/** The first ```lang block after the heading line `heading` (e.g. '#### Vitest'). */
export function readmeBlock(heading: string, lang: string): string {
  const readme = readFileSync('README.md', 'utf8');
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`the README has no heading "${heading}"`);
  const block = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(readme.slice(at))?.[1];
  if (block === undefined) throw new Error(`the README has no ${lang} block under "${heading}"`);
  return block;
}

/** Files shown in one block, each introduced by a line `// file: <name>`. */
export function readmeFiles(heading: string, lang: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const part of readmeBlock(heading, lang).split(/^\/\/ file: /m).slice(1)) {
    const newline = part.indexOf('\n');
    files.set(part.slice(0, newline).trim(), part.slice(newline + 1).replace(/\n+$/, '\n'));
  }
  return files;
}
