// Environment and command-line flags -> one typed Config, parsed once (docs/configuration.md).
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_REGISTRATION_BODY_LIMIT } from './loanbond/index.js';
import { formatSize } from './domain/size.js';
import { parseSpanMs } from './runtime/duration.js';
import { DEFAULT_MAX_SNAPSHOTS, DEFAULT_SNAPSHOTS_SIZE, MIN_SNAPSHOTS_SIZE } from './runtime/snapshots.js';
import { DEFAULT_WORK_BACKLOG } from './runtime/work.js';
import { DEFAULT_MAX_WORKSPACES, DEFAULT_WORKSPACE_IDLE_MS } from './runtime/workspaces.js';

/** The demo fixtures shipped in the package: found from this file, so any working directory works. */
export const DEMO_FIXTURES = fileURLToPath(new URL('../fixtures/demo.json', import.meta.url));

/**
 * Every setting's default, in one place: parseConfig, buildApp, the --help text and the docs read
 * them here (buildApp's own database default is ':memory:', for in-process use).
 */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  db: 'data/sandbox.db',
  logLevel: 'info',
  bodyLimit: 100 * 1024 * 1024,
  /** The loan-bond interface's own (lb-body-limit): 50 files of 15 MB as base64, plus 16 MiB of fields. */
  loanbondBodyLimit: DEFAULT_REGISTRATION_BODY_LIMIT,
  journalSize: 1000,
  maxWorkspaces: DEFAULT_MAX_WORKSPACES,
  workspaceIdleMs: DEFAULT_WORKSPACE_IDLE_MS,
  workBacklog: DEFAULT_WORK_BACKLOG,
  maxSnapshots: DEFAULT_MAX_SNAPSHOTS,
  snapshotsSize: DEFAULT_SNAPSHOTS_SIZE,
  eventsSize: 1000,
  /** Sandbox time between storing asynchronous work and processing it (docs/events.md). */
  workDelayMs: 1000,
  /** No folder of mappings: only the ones added at run time. */
  stubs: null,
  /** No upstream: the sandbox answers everything itself. */
  upstreams: Object.freeze([]) as readonly string[],
  /** Nothing recorded. */
  record: null,
} as const;

/** 3600000 -> '60m': a duration as --workspace-idle reads it, in minutes when whole, else seconds. */
export function formatIdle(ms: number): string {
  if (ms === 0) return '0';
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

export interface Config {
  host: string;
  port: number;
  /** Database file, or ':memory:'. */
  db: string;
  /** Fixture file loaded when the database is new; null for an empty start. */
  fixtures: string | null;
  logLevel: string;
  /** Largest request body of every route but the loan-bond registration, in bytes. */
  bodyLimit: number;
  /** Largest body of the loan-bond registration (lb-body-limit). */
  loanbondBodyLimit: number;
  adminToken: string | undefined;
  /** Registry and receivables domain checks refuse (400) instead of warning. */
  strict: boolean;
  /** Seed for reproducible generated keys. */
  seed: string | undefined;
  /** With a seed: secrets (token_acesso) are reproducible too. */
  seedSecrets: boolean;
  /** Entries the request journal keeps; 0 turns it off. */
  journalSize: number;
  /** Client coverage: answers carry Sandbox-Outcome and are counted (GET /_sandbox/coverage). */
  coverage: boolean;
  /** Loan-bond files past their first MiB are written around the page cache (O_DIRECT), where the file system takes it. */
  directWrites: boolean;
  /** Workspaces allowed besides `default`. */
  maxWorkspaces: number;
  /** In-memory workspaces unused this long are removed; 0: never. */
  workspaceIdleMs: number;
  /** Events the event feed of each workspace keeps. */
  eventsSize: number;
  /** Sandbox-clock milliseconds before stored asynchronous work is processed; 0: at once. */
  workDelayMs: number;
  /** A folder of WireMock mappings served in every workspace; null: none. */
  stubs: string | null;
  /** Proxy mode: `URL` for every interface, or `IFACE=URL` each. */
  upstreams: readonly string[];
  /** With an upstream: the folder where exchanges of named-only operations are recorded. */
  record: string | null;
  /** Pending asynchronous items per interface and workspace before submissions are refused. */
  workBacklog: number;
  /** Snapshots one workspace keeps (snapshot-limits). */
  maxSnapshots: number;
  /** Bytes the snapshots of every workspace take together (snapshot-limits). */
  snapshotsSize: number;
}

export const HELP = `tradebill-sandbox: a stateful sandbox of the trade-bill bookkeeping, registry,
receivables (CNAB) and loan-bond (CCB) interfaces.

Usage: tradebill-sandbox [options]   (npx tradebill-sandbox, npm start -- [options], node dist/server.js)

  --host <addr>         listen address            env HOST                default ${DEFAULTS.host}
  --port <n>            listen port               env PORT                default ${DEFAULTS.port}
  --db <path>           database file or :memory: env SANDBOX_DB          default ./${DEFAULTS.db}
  --fixtures <path>     fixtures for a new db     env SANDBOX_FIXTURES    default the package's
                        ('none' for an empty start)                       fixtures/demo.json
  --log-level <level>   fatal|error|warn|info|debug|trace|silent
                                                  env LOG_LEVEL           default ${DEFAULTS.logLevel}
  --body-limit <size>   largest request body, e.g. 100mb, 512kb, 1048576 (kb/mb/gb are 1024-based)
                                                  env SANDBOX_BODY_LIMIT  default ${formatSize(DEFAULTS.bodyLimit)}
                        (every route but the loan-bond registration)
  --loanbond-body-limit <size>  largest loan-bond registration body (read as a stream)
                                  env SANDBOX_LOANBOND_BODY_LIMIT default ${formatSize(DEFAULTS.loanbondBodyLimit)} bytes:
                                  50 files of 15 MB as base64, plus 16 MiB of other fields
  --strict              domain checks refuse instead of warning
                                                  env SANDBOX_STRICT=true default off
  --seed <text>         reproducible generated keys
                                                  env SANDBOX_SEED        default random keys
  --seed-secrets        with --seed, secrets (token_acesso) are reproducible too
                                                  env SANDBOX_SEED_SECRETS=true default off
  --journal-size <n>    requests kept by GET /_sandbox/requests (0: off)
                                                  env SANDBOX_JOURNAL_SIZE default ${DEFAULTS.journalSize}
  --no-coverage         answers carry no Sandbox-Outcome header and no coverage is counted
                                                  env SANDBOX_COVERAGE=false default on
  --no-direct-writes    loan-bond files are written whole through the page cache (a slow disk)
                                                  env SANDBOX_DIRECT_WRITES=false default on: past 1 MiB, around it
  --max-workspaces <n>  workspaces (/ws/{name}/...) allowed besides default
                                                  env SANDBOX_MAX_WORKSPACES default ${DEFAULTS.maxWorkspaces}
  --workspace-idle <t>  remove in-memory workspaces unused this long: 90s, 30m, 2h; 0 never
                                                  env SANDBOX_WORKSPACE_IDLE default ${formatIdle(DEFAULTS.workspaceIdleMs)}
  --events-size <n>     events kept by GET /_sandbox/events, per workspace
                                                  env SANDBOX_EVENTS_SIZE default ${DEFAULTS.eventsSize}
  --work-delay <t>      sandbox time before CNAB imports and loan-bond batches are processed:
                        500ms, 2s, PT1M; 0 at once
                                                  env SANDBOX_WORK_DELAY  default ${formatIdle(DEFAULTS.workDelayMs)}
  --stubs <dir>         WireMock mappings (user-defined operations) for every workspace
                                                  env SANDBOX_STUBS       default none
  --upstream <url>      proxy mode: every interface to url, or IFACE=url for one (repeatable)
                                                  env SANDBOX_UPSTREAM (space-separated) default none
  --record <dir>        with --upstream, record the named-only operations as mappings in dir
                                                  env SANDBOX_RECORD      default none
  --work-backlog <n>    CNAB imports (and loan-bond registrations) waiting for processing,
                        per workspace, before submissions are refused
                                                  env SANDBOX_WORK_BACKLOG default ${DEFAULTS.workBacklog}
  --max-snapshots <n>   snapshots one workspace keeps (one more is refused)
                                                  env SANDBOX_MAX_SNAPSHOTS default ${DEFAULTS.maxSnapshots}
  --snapshots-size <size>  memory the snapshots of every workspace take together, e.g. 1gb
                        (a save past it is refused)
                                                  env SANDBOX_SNAPSHOTS_SIZE default ${formatSize(DEFAULTS.snapshotsSize)}
  -h, --help            this text
  env SANDBOX_ADMIN_TOKEN: when set, /_sandbox calls need the header Sandbox-Admin-Token, and only a
                        request carrying it creates a workspace. Unset, the control plane is open.
  PORT, HOST, SANDBOX_DB, SANDBOX_FIXTURES or SANDBOX_ADMIN_TOKEN set but empty (or an empty --port,
  --host, --db, --fixtures) is refused at start.
`;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * '100mb' -> 104857600. Units b, kb, mb, gb, 1024-based as Fastify and most Node tools read them.
 * `what`: the setting, as messages name it; `least`: the smallest it takes (default 1kb).
 */
export function parseSize(text: string, what: string, least: { bytes: number; shown: string } = { bytes: 1024, shown: '1kb' }): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!m) throw new ConfigError(`cannot read the size "${text}" of ${what}: write e.g. 100mb, 512kb or 1048576`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[unit] ?? 1;
  const bytes = Math.floor(Number(m[1]) * factor);
  if (bytes < least.bytes) throw new ConfigError(`${what} ${text} is below ${least.shown}`);
  return bytes;
}

/** '30m' -> 1800000. Units ms, s, m, h (no unit: seconds); 0 or 'off' -> 0 (never). */
export function parseIdle(text: string): number {
  const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (/^\s*(off|never)\s*$/i.test(text)) return 0;
  if (!m) throw new ConfigError(`cannot read the idle time "${text}": write e.g. 90s, 30m, 2h, or 0 for never`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's').toLowerCase()] ?? 1000;
  const ms = Number(m[1]) * factor;
  if (ms !== 0 && ms < 1000) throw new ConfigError(`the idle time ${text} is below one second (0 turns eviction off)`);
  return ms;
}

function parseCount(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max)
    throw new ConfigError(`invalid ${name} "${text}": a whole number from ${min} to ${max}`);
  return n;
}

/** '2s' -> 2000; '0' -> 0 (at once). The units of parseSpanMs: ms, s, m, h or an ISO 8601 duration. */
export function parseDelay(text: string): number {
  if (/^\s*0\s*$/.test(text)) return 0;
  const ms = parseSpanMs(text);
  if (ms === undefined || ms > 86_400_000)
    throw new ConfigError(`cannot read the work delay "${text}": write e.g. 500ms, 2s, PT1M (at most a day), or 0 for at once`);
  return ms;
}

function parseBool(name: string, text: string | undefined): boolean {
  if (text === undefined || text === '') return false;
  if (/^(true|1|yes|on)$/i.test(text)) return true;
  if (/^(false|0|no|off)$/i.test(text)) return false;
  throw new ConfigError(`${name} must be true or false, got "${text}"`);
}

/** A setting on by default: off with its --no- flag, or its variable set false (unset or empty: on). */
function onUnless(noFlag: boolean | undefined, name: string, text: string | undefined): boolean {
  return noFlag !== true && (text === undefined || text === '' || parseBool(name, text));
}

/** Parses flags (which win) and environment; returns 'help' when --help was asked. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config | 'help' {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n\n${HELP}`);
  }
  if (values.help) return 'help';
  const portText =
    nonEmpty(
      { name: '--port', value: values.port, advice: ': give a port, or 0 for any free one' },
      {
        name: 'PORT',
        value: env.PORT,
        advice: `, which would listen on any free port, not a known one: unset it to listen on ${DEFAULTS.port}, or set PORT=0 to mean any free port`,
      },
    ) ?? String(DEFAULTS.port);
  const port = Number(portText);
  if (!/^\s*\d+\s*$/.test(portText) || port > 65535) throw new ConfigError(`invalid port "${portText}": a whole number from 0 to 65535`);
  const logLevel = (values['log-level'] ?? env.LOG_LEVEL ?? DEFAULTS.logLevel).toLowerCase();
  if (!LEVELS.includes(logLevel))
    throw new ConfigError(`invalid log level "${logLevel}": one of ${LEVELS.join(', ')}`);
  const journalText = values['journal-size'] ?? env.SANDBOX_JOURNAL_SIZE ?? String(DEFAULTS.journalSize);
  const journalSize = Number(journalText);
  if (!/^\d+$/.test(journalText.trim()) || journalSize > 1_000_000)
    throw new ConfigError(`invalid journal size "${journalText}": a whole number from 0 to 1000000`);
  const maxText = values['max-workspaces'] ?? env.SANDBOX_MAX_WORKSPACES ?? String(DEFAULTS.maxWorkspaces);
  const maxWorkspaces = Number(maxText);
  if (!/^\d+$/.test(maxText.trim()) || maxWorkspaces > 100_000)
    throw new ConfigError(`invalid SANDBOX_MAX_WORKSPACES "${maxText}": a whole number from 0 to 100000`);
  const backlogText = values['work-backlog'] ?? env.SANDBOX_WORK_BACKLOG ?? String(DEFAULTS.workBacklog);
  const workBacklog = Number(backlogText);
  if (!/^\d+$/.test(backlogText.trim()) || workBacklog < 1 || workBacklog > 1_000_000)
    throw new ConfigError(`invalid SANDBOX_WORK_BACKLOG "${backlogText}": a whole number from 1 to 1000000`);
  const fixtures =
    nonEmpty(
      { name: '--fixtures', value: values.fixtures, advice: ": give a file, or 'none' for an empty start" },
      {
        name: 'SANDBOX_FIXTURES',
        value: env.SANDBOX_FIXTURES,
        advice:
          ', which would silently start without fixtures (the demo credentials missing): unset it to load the demo ' +
          "fixtures, or set SANDBOX_FIXTURES=none to start empty on purpose",
      },
    ) ?? DEMO_FIXTURES;
  const stubs = values.stubs ?? (env.SANDBOX_STUBS || DEFAULTS.stubs);
  const given = values.upstream ?? (env.SANDBOX_UPSTREAM ?? '').split(/\s+/).filter((u) => u !== '');
  const upstreams = given.length === 0 ? DEFAULTS.upstreams : given;
  const record = values.record ?? (env.SANDBOX_RECORD || DEFAULTS.record);
  return {
    host: hostOf(values.host, env.HOST),
    port,
    db:
      nonEmpty(
        { name: '--db', value: values.db, advice: ': give a file, or :memory: for a database gone at exit' },
        {
          name: 'SANDBOX_DB',
          value: env.SANDBOX_DB,
          advice:
            ', which would open a temporary database whose data is gone at restart: unset it to use ' +
            `${DEFAULTS.db}, give a file, or set SANDBOX_DB=:memory: to mean a database gone at exit`,
        },
      ) ?? DEFAULTS.db,
    fixtures: fixtures === 'none' ? null : fixtures,
    logLevel,
    bodyLimit: parseSize(values['body-limit'] ?? env.SANDBOX_BODY_LIMIT ?? formatSize(DEFAULTS.bodyLimit), 'SANDBOX_BODY_LIMIT'),
    loanbondBodyLimit: parseSize(
      values['loanbond-body-limit'] ?? env.SANDBOX_LOANBOND_BODY_LIMIT ?? formatSize(DEFAULTS.loanbondBodyLimit),
      'SANDBOX_LOANBOND_BODY_LIMIT',
    ),
    adminToken: adminTokenOf(env.SANDBOX_ADMIN_TOKEN),
    strict: values.strict === true || parseBool('SANDBOX_STRICT', env.SANDBOX_STRICT),
    seed: values.seed ?? (env.SANDBOX_SEED || undefined),
    seedSecrets:
      values['seed-secrets'] === true || parseBool('SANDBOX_SEED_SECRETS', env.SANDBOX_SEED_SECRETS),
    journalSize,
    coverage: onUnless(values['no-coverage'], 'SANDBOX_COVERAGE', env.SANDBOX_COVERAGE),
    directWrites: onUnless(values['no-direct-writes'], 'SANDBOX_DIRECT_WRITES', env.SANDBOX_DIRECT_WRITES),
    maxWorkspaces,
    workspaceIdleMs: parseIdle(values['workspace-idle'] ?? env.SANDBOX_WORKSPACE_IDLE ?? formatIdle(DEFAULTS.workspaceIdleMs)),
    eventsSize: parseCount('SANDBOX_EVENTS_SIZE', values['events-size'] ?? env.SANDBOX_EVENTS_SIZE ?? String(DEFAULTS.eventsSize), 1, 1_000_000),
    workDelayMs: parseDelay(values['work-delay'] ?? env.SANDBOX_WORK_DELAY ?? formatIdle(DEFAULTS.workDelayMs)),
    stubs,
    upstreams,
    record,
    workBacklog,
    maxSnapshots: parseCount(
      'SANDBOX_MAX_SNAPSHOTS',
      values['max-snapshots'] ?? env.SANDBOX_MAX_SNAPSHOTS ?? String(DEFAULTS.maxSnapshots),
      1,
      100_000,
    ),
    snapshotsSize: parseSize(
      values['snapshots-size'] ?? env.SANDBOX_SNAPSHOTS_SIZE ?? formatSize(DEFAULTS.snapshotsSize),
      'SANDBOX_SNAPSHOTS_SIZE',
      { bytes: MIN_SNAPSHOTS_SIZE, shown: formatSize(MIN_SNAPSHOTS_SIZE) },
    ),
  };
}

// An empty value is refused rather than read: a compose file's unset ${VAR} gives one, and each would
// silently mean something the user did not ask for: HOST= listening on every interface, an empty key
// an open control plane, SANDBOX_DB= a temporary database lost at restart, SANDBOX_FIXTURES= no fixtures,
// PORT= any free port.

interface Source {
  /** '--host' or 'HOST', as the message names it. */
  name: string;
  value: string | undefined;
  /** What the message says after the name: what the empty value would have meant and what to do. */
  advice: string;
}

/** The flag's value, else the variable's (undefined when neither is given); empty or blank is refused. */
function nonEmpty(flag: Source | undefined, variable: Source): string | undefined {
  if (flag?.value !== undefined) {
    if (flag.value.trim() === '') throw new ConfigError(`${flag.name} is empty${flag.advice}`);
    return flag.value;
  }
  if (variable.value === undefined) return undefined;
  if (variable.value.trim() === '') throw new ConfigError(`${variable.name} is set but empty${variable.advice}`);
  return variable.value;
}

function hostOf(flag: string | undefined, variable: string | undefined): string {
  return (
    nonEmpty(
      { name: '--host', value: flag, advice: ': give an address (127.0.0.1, or 0.0.0.0 for every interface)' },
      {
        name: 'HOST',
        value: variable,
        advice:
          ', which would listen on every interface: unset it to listen on 127.0.0.1 only, ' +
          'or set HOST=0.0.0.0 to mean every interface',
      },
    ) ?? DEFAULTS.host
  );
}

function adminTokenOf(variable: string | undefined): string | undefined {
  return nonEmpty(undefined, {
    name: 'SANDBOX_ADMIN_TOKEN',
    value: variable,
    advice:
      ': the control plane would be open to anyone who reaches the port. ' +
      'Give it a key, or unset it to run with an open control plane on purpose',
  });
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      db: { type: 'string' },
      fixtures: { type: 'string' },
      'log-level': { type: 'string' },
      'body-limit': { type: 'string' },
      'loanbond-body-limit': { type: 'string' },
      strict: { type: 'boolean' },
      seed: { type: 'string' },
      'seed-secrets': { type: 'boolean' },
      'journal-size': { type: 'string' },
      'no-coverage': { type: 'boolean' },
      'no-direct-writes': { type: 'boolean' },
      'max-workspaces': { type: 'string' },
      'workspace-idle': { type: 'string' },
      'events-size': { type: 'string' },
      'work-delay': { type: 'string' },
      stubs: { type: 'string' },
      upstream: { type: 'string', multiple: true },
      record: { type: 'string' },
      'work-backlog': { type: 'string' },
      'max-snapshots': { type: 'string' },
      'snapshots-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
