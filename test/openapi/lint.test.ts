import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';
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

  it('passes Spectral spectral:oas with no error and no unjustified warning', async () => {
    const findings = await spectralFindings(await servedJson());
    if (process.env.LINT_PROBE) console.info(summary(findings));
    expect(summary(findings.filter((f) => !JUSTIFIED[`spectral/${f.rule}`]))).toBe('');
  });
});
