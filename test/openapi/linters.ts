// The served OpenAPI document judged by tools nobody here wrote: Redocly (recommended ruleset) and
// Spectral (spectral:oas), both through their JS APIs so that no CLI and no network is involved.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { type RulesetDefinition, Spectral, Document as SpectralDocument } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

export interface Finding {
  tool: 'redocly' | 'spectral';
  rule: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  where: string;
  message: string;
}

export async function redoclyFindings(json: string): Promise<Finding[]> {
  process.env.REDOCLY_TELEMETRY = 'off';
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: json, absoluteRef: 'openapi.json', config });
  return problems
    .filter((p) => !p.ignored)
    .map((p) => ({
      tool: 'redocly' as const,
      rule: p.ruleId,
      severity: p.severity === 'error' ? 'error' : 'warning',
      where: p.location[0]?.pointer ?? '',
      message: p.message,
    }));
}

const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

export async function spectralFindings(json: string): Promise<Finding[]> {
  const spectral = new Spectral();
  // `extends: spectral:oas` as a .spectral.yaml would say it (its recommended rules).
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  const results = await spectral.run(new SpectralDocument(json, JsonParser, 'openapi.json'));
  return results.map((r) => ({
    tool: 'spectral' as const,
    rule: String(r.code),
    severity: SPECTRAL_SEVERITY[r.severity] ?? 'error',
    where: `#/${r.path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
    message: r.message,
  }));
}
