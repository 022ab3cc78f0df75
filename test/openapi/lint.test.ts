import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';
import { blocksOf } from '../readme.js';
import { type Finding, redoclyFindings, spectralFindings } from './linters.js';

/** Warnings docs/openapi.md justifies (section "OpenAPI lint exceptions"): rule -> why. */
const JUSTIFIED: Record<string, string> = {
  'redocly/info-license-strict': 'package.json is private and grants no licence: an SPDX identifier or URL would claim one',
};

function summary(findings: Finding[]): string {
  return findings.map((f) => `${f.tool} ${f.severity} ${f.rule} at ${f.where}: ${f.message}`).join('\n');
}

async function servedJson(): Promise<string> {
  const app = await testApp();
  return (await app.inject({ url: '/openapi.json' })).body;
}

describe('the served OpenAPI document under outside linters', () => {
  it('lists every accepted warning in the table of docs/openapi.md, with a reason', () => {
    const page = readFileSync('docs/openapi.md', 'utf8');
    const section = page.slice(page.indexOf('## OpenAPI lint exceptions'));
    for (const key of Object.keys(JUSTIFIED)) {
      const [tool, rule] = key.split('/');
      expect(section, key).toMatch(new RegExp(`\\| ${tool === 'redocly' ? 'Redocly' : 'Spectral'} \\| \`${rule}\` \\| \\S`));
    }
  });

  it('passes Redocly recommended with no error and no unjustified warning', async () => {
    const findings = await redoclyFindings(await servedJson());
    if (process.env.LINT_PROBE) console.info(summary(findings));
    expect(summary(findings.filter((f) => !JUSTIFIED[`redocly/${f.rule}`]))).toBe('');
  });

  it('gives the Spectral CLI of docs/openapi.md a ruleset file its own block writes, with the rules applied here', () => {
    // The CLI cannot read a process substitution (<(...)) as its ruleset; the page writes a file first.
    const block = blocksOf('docs/openapi.md', 'sh').find((b) => b.code.includes('@stoplight/spectral-cli'))?.code ?? '';
    const lines = block.split('\n');
    const at = lines.findIndex((l) => l.includes('@stoplight/spectral-cli'));
    const ruleset = /--ruleset\s+(\S+)/.exec(lines[at] ?? '')?.[1] ?? '';
    expect(ruleset).toMatch(/^[\w.-]+$/);
    const dir = mkdtempSync(join(tmpdir(), 'spectral-ruleset-'));
    try {
      // The block's lines before the CLI that need no registry (the npx ones download tools).
      const local = lines.slice(0, at).filter((l) => l.trim() !== '' && !l.startsWith('npx '));
      for (const line of local) execFileSync('sh', ['-c', line], { cwd: dir });
      expect(existsSync(join(dir, ruleset)), `${ruleset} is written by the block`).toBe(true);
      expect(parseYaml(readFileSync(join(dir, ruleset), 'utf8'))).toEqual({ extends: 'spectral:oas' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes Spectral spectral:oas with no error and no unjustified warning', async () => {
    const findings = await spectralFindings(await servedJson());
    if (process.env.LINT_PROBE) console.info(summary(findings));
    expect(summary(findings.filter((f) => !JUSTIFIED[`spectral/${f.rule}`]))).toBe('');
  });
});
