import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { ConfigError, DEFAULTS, DEMO_FIXTURES, formatIdle, HELP, parseConfig, parseIdle, parseSize } from '../src/config.js';
import { formatSize } from '../src/domain/size.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(parseConfig([], {})).toEqual({
      host: '127.0.0.1',
      port: 3000,
      db: 'data/sandbox.db',
      fixtures: DEMO_FIXTURES, // the package's own file, whatever the working directory
      logLevel: 'info',
      bodyLimit: 100 * 1024 * 1024,
      loanbondBodyLimit: 1_069_408_816,
      adminToken: undefined,
      strict: false,
      seed: undefined,
      seedSecrets: false,
      journalSize: 1000,
      coverage: true,
      directWrites: true,
      maxWorkspaces: 256,
      workspaceIdleMs: 60 * 60 * 1000,
      eventsSize: 1000,
      workDelayMs: 1000,
      stubs: null,
      upstreams: [],
      record: null,
      workBacklog: 1000,
      maxSnapshots: 100,
      snapshotsSize: 256 * 1024 * 1024,
    });
  });

  it('takes every default from DEFAULTS, which --help and buildApp read too', async () => {
    const config = parseConfig([], {});
    if (config === 'help') throw new Error('no --help was given');
    // Every setting DEFAULTS declares is what parseConfig applies when nothing is given.
    const applied = Object.fromEntries(Object.keys(DEFAULTS).map((key) => [key, config[key as keyof typeof config]]));
    expect(applied).toEqual(DEFAULTS);
    expect(Object.keys(DEFAULTS).length).toBeGreaterThan(10);
    for (const shown of [
      `env HOST                default ${DEFAULTS.host}`,
      `env PORT                default ${DEFAULTS.port}`,
      `default ./${DEFAULTS.db}`,
      `env LOG_LEVEL           default ${DEFAULTS.logLevel}`,
      'env SANDBOX_BODY_LIMIT  default 100mb',
      `env SANDBOX_LOANBOND_BODY_LIMIT default ${DEFAULTS.loanbondBodyLimit} bytes`,
      `env SANDBOX_JOURNAL_SIZE default ${DEFAULTS.journalSize}`,
      `env SANDBOX_MAX_WORKSPACES default ${DEFAULTS.maxWorkspaces}`,
      'env SANDBOX_WORKSPACE_IDLE default 60m',
      `env SANDBOX_WORK_BACKLOG default ${DEFAULTS.workBacklog}`,
      `env SANDBOX_MAX_SNAPSHOTS default ${DEFAULTS.maxSnapshots}`,
      'env SANDBOX_SNAPSHOTS_SIZE default 256mb',
      `env SANDBOX_EVENTS_SIZE default ${DEFAULTS.eventsSize}`,
      'env SANDBOX_WORK_DELAY  default 1s',
      'env SANDBOX_STUBS       default none',
      'env SANDBOX_UPSTREAM (space-separated) default none',
      'env SANDBOX_RECORD      default none',
    ])
      expect(HELP).toContain(shown);
    expect(parseSize(formatSize(DEFAULTS.bodyLimit), 'SANDBOX_BODY_LIMIT')).toBe(DEFAULTS.bodyLimit);
    expect(parseIdle(formatIdle(DEFAULTS.workspaceIdleMs))).toBe(DEFAULTS.workspaceIdleMs);
    const app = await buildApp({ logger: false });
    try {
      expect(app.settings.bodyLimit).toBe(DEFAULTS.bodyLimit);
      expect(app.settings.loanbondBodyLimit).toBe(DEFAULTS.loanbondBodyLimit);
      expect(app.runtime.journal.capacity).toBe(DEFAULTS.journalSize);
      expect(app.workspaces.max).toBe(DEFAULTS.maxWorkspaces);
      expect(app.runtime.work.maxBacklog).toBe(DEFAULTS.workBacklog);
      expect(app.runtime.events.capacity).toBe(DEFAULTS.eventsSize);
      expect(app.runtime.settings.workDelayMs).toBe(DEFAULTS.workDelayMs);
      expect(app.runtime.snapshots.room.maxPerWorkspace).toBe(DEFAULTS.maxSnapshots);
      expect(app.runtime.snapshots.room.maxBytes).toBe(DEFAULTS.snapshotsSize);
    } finally {
      await app.close();
    }
  });

  it('reads the environment, and flags win over it', () => {
    const env = {
      HOST: '0.0.0.0',
      PORT: '8080',
      SANDBOX_DB: ':memory:',
      SANDBOX_FIXTURES: 'none',
      LOG_LEVEL: 'warn',
      SANDBOX_BODY_LIMIT: '20mb',
      SANDBOX_LOANBOND_BODY_LIMIT: '2gb',
      SANDBOX_ADMIN_TOKEN: 'adm',
      SANDBOX_STRICT: 'true',
      SANDBOX_SEED: 's1',
      SANDBOX_SEED_SECRETS: 'true',
      SANDBOX_JOURNAL_SIZE: '50',
      SANDBOX_COVERAGE: 'false',
      SANDBOX_DIRECT_WRITES: 'false',
      SANDBOX_MAX_WORKSPACES: '16',
      SANDBOX_WORKSPACE_IDLE: '90s',
      SANDBOX_EVENTS_SIZE: '50',
      SANDBOX_WORK_DELAY: '0',
      SANDBOX_STUBS: 'stubs',
      SANDBOX_UPSTREAM: 'https://all.example  registry=http://rg.example:8080',
      SANDBOX_RECORD: 'recorded',
      SANDBOX_WORK_BACKLOG: '50',
      SANDBOX_MAX_SNAPSHOTS: '20',
      SANDBOX_SNAPSHOTS_SIZE: '2gb',
    };
    expect(parseConfig([], env)).toEqual({
      host: '0.0.0.0',
      port: 8080,
      db: ':memory:',
      fixtures: null,
      logLevel: 'warn',
      bodyLimit: 20 * 1024 * 1024,
      loanbondBodyLimit: 2 * 1024 ** 3,
      adminToken: 'adm',
      strict: true,
      seed: 's1',
      seedSecrets: true,
      journalSize: 50,
      coverage: false,
      directWrites: false,
      maxWorkspaces: 16,
      workspaceIdleMs: 90_000,
      eventsSize: 50,
      workDelayMs: 0,
      stubs: 'stubs',
      upstreams: ['https://all.example', 'registry=http://rg.example:8080'],
      record: 'recorded',
      workBacklog: 50,
      maxSnapshots: 20,
      snapshotsSize: 2 * 1024 ** 3,
    });
    const flags = [
      '--port',
      '9',
      '--db',
      'x.db',
      '--fixtures',
      'f.json',
      '--log-level',
      'debug',
      '--body-limit',
      '512kb',
      '--seed',
      's2',
      '--max-workspaces',
      '3',
      '--workspace-idle',
      '2h',
      '--events-size',
      '7',
      '--work-delay',
      'PT1M',
      '--upstream',
      'bookkeeping=http://bk.example',
      '--upstream',
      'loanbond=http://lb.example',
      '--stubs',
      'mine',
      '--work-backlog',
      '7',
      '--max-snapshots',
      '5',
      '--snapshots-size',
      '64mb',
    ];
    expect(parseConfig(flags, env)).toMatchObject({
      port: 9,
      db: 'x.db',
      fixtures: 'f.json',
      logLevel: 'debug',
      bodyLimit: 512 * 1024,
      seed: 's2',
      maxWorkspaces: 3,
      workspaceIdleMs: 2 * 3_600_000,
      eventsSize: 7,
      workDelayMs: 60_000,
      upstreams: ['bookkeeping=http://bk.example', 'loanbond=http://lb.example'],
      stubs: 'mine',
      workBacklog: 7,
      maxSnapshots: 5,
      snapshotsSize: 64 * 1024 ** 2,
    });
  });

  it('refuses --record without an upstream to record, when the sandbox starts', async () => {
    await expect(buildApp({ record: 'dir' })).rejects.toThrow(/--record needs --upstream/);
  });

  it('names in --help every variable and flag refused when empty, and no other', () => {
    const sentence = /([A-Z_, ]+ or [A-Z_]+) set but empty \(or an empty ([-a-z, ]+)\) is refused at start/.exec(HELP.replace(/\s+/g, ' '));
    expect(sentence).not.toBeNull();
    const namedVariables = new Set((sentence?.[1] ?? '').trim().split(/, | or /));
    const namedFlags = new Set((sentence?.[2] ?? '').split(', '));
    // Every variable and flag --help shows, each tried empty on its own.
    const variables = new Set([...HELP.matchAll(/\b(PORT|HOST|LOG_LEVEL|SANDBOX_[A-Z_]+)\b/g)].map((m) => m[1] as string));
    const flags = new Set([...HELP.matchAll(/(--[a-z-]+) </g)].map((m) => m[1] as string));
    const refused = (run: () => unknown) => {
      try {
        run();
        return false;
      } catch (err) {
        return err instanceof ConfigError && /is (set but )?empty/.test(err.message);
      }
    };
    expect([...variables].filter((v) => refused(() => parseConfig([], { [v]: '' }))).sort()).toEqual([...namedVariables].sort());
    expect([...flags].filter((f) => refused(() => parseConfig([`${f}=`], {}))).sort()).toEqual([...namedFlags].sort());
  });

  it('answers --help', () => {
    expect(parseConfig(['--help'], {})).toBe('help');
    expect(parseConfig(['-h'], {})).toBe('help');
  });

  it('refuses unknown flags and bad values with a clear message', () => {
    expect(() => parseConfig(['--prot', '1'], {})).toThrow(ConfigError);
    expect(() => parseConfig([], { PORT: 'eighty' })).toThrow(/invalid port/);
    expect(() => parseConfig([], { LOG_LEVEL: 'loud' })).toThrow(/invalid log level/);
    expect(() => parseConfig([], { SANDBOX_MAX_WORKSPACES: 'many' })).toThrow(/SANDBOX_MAX_WORKSPACES/);
    expect(() => parseConfig([], { SANDBOX_WORKSPACE_IDLE: '5 minutes' })).toThrow(/idle time/);
    expect(() => parseConfig([], { SANDBOX_WORKSPACE_IDLE: '10ms' })).toThrow(/below one second/);
    expect(parseConfig([], { SANDBOX_WORKSPACE_IDLE: 'off' })).toMatchObject({ workspaceIdleMs: 0 });
    expect(() => parseConfig([], { SANDBOX_STRICT: 'maybe' })).toThrow(/SANDBOX_STRICT/);
    expect(() => parseConfig([], { SANDBOX_JOURNAL_SIZE: '-1' })).toThrow(/journal size/);
    expect(() => parseConfig([], { SANDBOX_EVENTS_SIZE: '0' })).toThrow(/SANDBOX_EVENTS_SIZE/);
    expect(() => parseConfig([], { SANDBOX_WORK_DELAY: 'soon' })).toThrow(/work delay/);
    expect(() => parseConfig([], { SANDBOX_WORK_DELAY: 'P1M' })).toThrow(/work delay/);
    expect(parseConfig([], { SANDBOX_WORK_DELAY: '250ms' })).toMatchObject({ workDelayMs: 250 });
    expect(() => parseConfig([], { SANDBOX_WORK_BACKLOG: '0' })).toThrow(/SANDBOX_WORK_BACKLOG/);
    expect(() => parseConfig(['--work-backlog', 'lots'], {})).toThrow(/SANDBOX_WORK_BACKLOG/);
    for (const bad of ['0', 'many', '-1', '1.5', '100001'])
      expect(() => parseConfig([], { SANDBOX_MAX_SNAPSHOTS: bad }), bad).toThrow(/SANDBOX_MAX_SNAPSHOTS.*from 1 to 100000/);
    expect(() => parseConfig(['--max-snapshots', 'lots'], {})).toThrow(/SANDBOX_MAX_SNAPSHOTS/);
    for (const bad of ['lots', '512kb', '0'])
      expect(() => parseConfig([], { SANDBOX_SNAPSHOTS_SIZE: bad }), bad).toThrow(/SANDBOX_SNAPSHOTS_SIZE/);
    expect(() => parseConfig([], { SANDBOX_SNAPSHOTS_SIZE: '512kb' })).toThrow(/below 1mb/);
    expect(() => parseConfig(['--snapshots-size', '1 zettabyte'], {})).toThrow(/SANDBOX_SNAPSHOTS_SIZE/);
    expect(parseConfig([], { SANDBOX_SNAPSHOTS_SIZE: '1mb' })).toMatchObject({ snapshotsSize: 1024 * 1024 });
  });

  it('refuses an empty HOST or SANDBOX_ADMIN_TOKEN, saying what each would have meant', () => {
    // HOST= would bind every interface; an empty key would leave the control plane open.
    for (const host of ['', '  ']) {
      expect(() => parseConfig([], { HOST: host })).toThrow(ConfigError);
      expect(() => parseConfig([], { HOST: host })).toThrow(/HOST is set but empty.*unset it to listen on 127\.0\.0\.1.*0\.0\.0\.0/);
      expect(() => parseConfig(['--host', host], {})).toThrow(/--host is empty/);
    }
    for (const token of ['', ' ']) {
      expect(() => parseConfig([], { SANDBOX_ADMIN_TOKEN: token })).toThrow(ConfigError);
      expect(() => parseConfig([], { SANDBOX_ADMIN_TOKEN: token })).toThrow(
        /SANDBOX_ADMIN_TOKEN is set but empty: the control plane would be open.*unset it/,
      );
    }
    // Unset, both keep their defaults; a flag wins over an empty variable.
    expect(parseConfig([], {})).toMatchObject({ host: '127.0.0.1', adminToken: undefined });
    expect(parseConfig(['--host', '0.0.0.0'], { HOST: '' })).toMatchObject({ host: '0.0.0.0' });
  });

  it('refuses an empty PORT or --port (not read as 0, any free port) and every other empty number or size', () => {
    // PORT= (a compose file's unset ${SANDBOX_PORT}) listened on a random port: a healthy-looking
    // container nobody could reach.
    for (const empty of ['', ' ']) {
      expect(() => parseConfig([], { PORT: empty })).toThrow(/PORT is set but empty.*unset it to listen on 3000.*PORT=0/);
      expect(() => parseConfig(['--port', empty], {})).toThrow(/--port is empty/);
      for (const name of [
        'SANDBOX_JOURNAL_SIZE',
        'SANDBOX_MAX_WORKSPACES',
        'SANDBOX_WORK_BACKLOG',
        'SANDBOX_MAX_SNAPSHOTS',
        'SANDBOX_SNAPSHOTS_SIZE',
        'SANDBOX_BODY_LIMIT',
        'SANDBOX_LOANBOND_BODY_LIMIT',
        'SANDBOX_EVENTS_SIZE',
        'SANDBOX_WORKSPACE_IDLE',
        'SANDBOX_WORK_DELAY',
        'LOG_LEVEL',
      ]) {
        expect(() => parseConfig([], { [name]: empty }), name).toThrow(ConfigError);
      }
    }
    expect(() => parseConfig([], { PORT: '3000x' })).toThrow(/invalid port "3000x"/);
    expect(() => parseConfig([], { PORT: '0x10' })).toThrow(/invalid port/);
    expect(parseConfig([], { PORT: '0' })).toMatchObject({ port: 0 });
    expect(parseConfig([], {})).toMatchObject({ port: 3000 });
    expect(parseConfig(['--port', '3001'], { PORT: '' })).toMatchObject({ port: 3001 });
  });

  it('refuses an empty SANDBOX_DB, SANDBOX_FIXTURES, --db or --fixtures, saying what each would have meant', () => {
    // SANDBOX_DB= (a compose file's unset variable) would open a temporary database whose data is
    // gone at restart; SANDBOX_FIXTURES= would silently mean no fixtures (the demo tokens missing).
    for (const empty of ['', ' ']) {
      expect(() => parseConfig([], { SANDBOX_DB: empty })).toThrow(ConfigError);
      expect(() => parseConfig([], { SANDBOX_DB: empty })).toThrow(
        /SANDBOX_DB is set but empty.*temporary database.*unset it to use data\/sandbox\.db.*:memory:/,
      );
      expect(() => parseConfig(['--db', empty], {})).toThrow(/--db is empty/);
      expect(() => parseConfig([], { SANDBOX_FIXTURES: empty })).toThrow(ConfigError);
      expect(() => parseConfig([], { SANDBOX_FIXTURES: empty })).toThrow(
        /SANDBOX_FIXTURES is set but empty.*unset it to load the demo fixtures.*none/,
      );
      expect(() => parseConfig(['--fixtures', empty], {})).toThrow(/--fixtures is empty.*none/);
    }
    // Unset, both keep their defaults; 'none' still means no fixtures; a flag wins over an empty variable.
    expect(parseConfig([], {})).toMatchObject({ db: 'data/sandbox.db', fixtures: DEMO_FIXTURES });
    expect(parseConfig([], { SANDBOX_FIXTURES: 'none' })).toMatchObject({ fixtures: null });
    expect(parseConfig(['--db', ':memory:', '--fixtures', 'none'], { SANDBOX_DB: '', SANDBOX_FIXTURES: '' })).toMatchObject({
      db: ':memory:',
      fixtures: null,
    });
  });

  it('reads sizes in bytes, kb, mb and gb (1024-based)', () => {
    expect(parseSize('100mb', 'SANDBOX_BODY_LIMIT')).toBe(104857600);
    expect(parseSize('1.5MB', 'SANDBOX_BODY_LIMIT')).toBe(1572864);
    expect(parseSize('2048', 'SANDBOX_BODY_LIMIT')).toBe(2048);
    expect(parseSize('1gb', 'SANDBOX_BODY_LIMIT')).toBe(1073741824);
    expect(() => parseSize('lots', 'SANDBOX_BODY_LIMIT')).toThrow('cannot read the size "lots" of SANDBOX_BODY_LIMIT');
    expect(() => parseSize('10b', 'SANDBOX_BODY_LIMIT')).toThrow('SANDBOX_BODY_LIMIT 10b is below 1kb');
  });

  it('names, in a size it cannot take, the setting it was given for', () => {
    for (const [name, flag] of [
      ['SANDBOX_BODY_LIMIT', '--body-limit'],
      ['SANDBOX_LOANBOND_BODY_LIMIT', '--loanbond-body-limit'],
      ['SANDBOX_SNAPSHOTS_SIZE', '--snapshots-size'],
    ] as const) {
      expect(() => parseConfig([], { [name]: 'lots' })).toThrow(`cannot read the size "lots" of ${name}`);
      expect(() => parseConfig([flag, '10b'], {})).toThrow(new RegExp(`^${name} 10b is below`));
    }
  });
});
