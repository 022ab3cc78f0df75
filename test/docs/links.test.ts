// The README, CONTRIBUTING.md and docs/ hold together: no link to a missing file or heading (judged by
// remark-validate-links, with GitHub's heading slugs, across files as its command line does), every
// page of docs/ reachable from the README, and every repository path they name in code spans there.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { Nodes } from 'mdast';
import { remark } from 'remark';
import { engine } from 'unified-engine';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from '../readme.js';

/** remark-validate-links over every file at once (so links to headings of other files are checked). */
function deadLinks(files: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => engine(
    {
      processor: remark(),
      files,
      cwd: process.cwd(),
      // By name, as a configuration file names it: the engine loads it and hands it the file set.
      plugins: { 'remark-validate-links': { repository: false, root: process.cwd() } },
      output: false,
      out: false,
      quiet: true,
      silent: true,
      color: false,
      ignoreName: '.no-ignore-file',
      rcName: '.no-rc-file',
      packageField: 'no-package-field',
    },
    (error, _code, context) => {
      if (error) return reject(error);
      const found = (context?.files ?? []).flatMap((file) =>
        file.messages.map((m) => `${file.path}:${m.line ?? 0}:${m.column ?? 0} ${m.reason}`),
      );
      resolve(found);
    },
  ));
}

/** The link targets of one Markdown file, as remark parses it. */
function linksOf(file: string): string[] {
  const out: string[] = [];
  const walk = (node: Nodes) => {
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') out.push(node.url);
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(remark().parse(readFileSync(file, 'utf8')));
  return out;
}

describe('the documentation', () => {
  const files = markdownFiles();

  it('has no link to a missing file or heading', async () => {
    expect(await deadLinks(files)).toEqual([]);
  }, 60_000);

  it('finds a dead link when there is one (the checker is not asleep)', async () => {
    const dir = mkdtempSync(join('test', 'docs', 'probe-'));
    try {
      const probe = join(dir, 'probe.md');
      writeFileSync(probe, '# Probe\n\n[gone](../../../docs/no-such-page.md), [nowhere](../../../README.md#no-such-heading)\n');
      const found = (await deadLinks([probe, 'README.md'])).join('\n');
      expect(found).toMatch(/no-such-page\.md/);
      expect(found).toMatch(/no-such-heading/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('reaches every page of docs/ from the README, through links', () => {
    const seen = new Set<string>();
    const queue = ['README.md'];
    while (queue.length > 0) {
      const file = queue.shift() ?? '';
      if (seen.has(file)) continue;
      seen.add(file);
      for (const url of linksOf(file)) {
        const path = url.split('#')[0] ?? '';
        if (path === '' || /^[a-z]+:/i.test(path) || !path.endsWith('.md')) continue;
        queue.push(normalize(join(dirname(file), path)));
      }
    }
    expect(files.filter((f) => !seen.has(f))).toEqual([]);
  });

  it('names in code spans only repository paths that exist (or that a command writes: .gitignore)', () => {
    const written = new Set(readFileSync('.gitignore', 'utf8').split('\n'));
    const missing = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/`((?:src|test|bench|scripts|docs|fixtures)\/[\w./-]+)`/g)]
        .map((m) => m[1] ?? '')
        .filter((path) => !existsSync(path.replace(/\/$/, '')) && !written.has(path))
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('exists for every docs/ page the code names (comments, OpenAPI descriptions, assumptions)', () => {
    const code = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? code(join(dir, e.name)) : /\.(ts|js|mjs|html)$/.test(e.name) ? [join(dir, e.name)] : [],
      );
    // This file's probe names a missing page on purpose.
    const sources = ['src', 'test', 'bench', 'scripts'].flatMap(code).filter((f) => f !== join('test', 'docs', 'links.test.ts'));
    const named = sources.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bdocs\/[\w-]+\.(?:md|png)\b/g)].map((m) => ({ file, page: m[0] })),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((n) => !existsSync(n.page))).toEqual([]);
  });

  it('keeps the README at most 300 lines: details belong on a page of docs/', () => {
    expect(readFileSync('README.md', 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });
});
