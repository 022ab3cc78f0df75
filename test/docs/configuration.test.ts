// docs/configuration.md's table of settings, held to the code: the flags and variables `--help`
// prints, which setting each one sets, and the default the code applies when neither is given.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Config, DEMO_FIXTURES, HELP, parseConfig } from '../../src/config.js';

interface Row {
  setting: string;
  env: string | undefined;
  flag: string | undefined;
  defaultCell: string;
}

/** The rows of the page's table: `| setting | env | flag | default |`. */
function rows(): Row[] {
  const page = readFileSync('docs/configuration.md', 'utf8');
  const table = page.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| setting') && !/^\| -/.test(l));
  return table.map((line) => {
    const [setting = '', env = '', flag = '', defaultCell = ''] = line.slice(1, -1).split('|').map((c) => c.trim());
    // `SANDBOX_STRICT=true` names the variable and the value that turns the setting on.
    const first = (cell: string) => /`([^`=]+)/.exec(cell)?.[1];
    return { setting, env: first(env), flag: /`(--[a-z-]+)`/.exec(flag)?.[1], defaultCell };
  });
}

const config = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const parsed = parseConfig(argv, env);
  if (parsed === 'help') throw new Error('help');
  return parsed;
};
const DEFAULTS = config([]);

/** The settings one flag changes, tried with `value` (or alone, for a switch). */
function changedBy(argv: string[], env: NodeJS.ProcessEnv = {}): Array<keyof Config> {
  const set = config(argv, env);
  return (Object.keys(DEFAULTS) as Array<keyof Config>).filter((k) => set[k] !== DEFAULTS[k]);
}

describe('docs/configuration.md', () => {
  const table = rows();
  const switches = new Set(['--strict', '--seed-secrets', '--no-coverage', '--no-direct-writes']);
  /** Switches that turn off what is on by default. */
  const offSwitch = (flag: string) => flag.startsWith('--no-');
  /** A value each flag that takes one accepts and that differs from every default. */
  const SAMPLE: Record<string, string> = {
    '--host': '0.0.0.0',
    '--port': '4010',
    '--db': ':memory:',
    '--fixtures': 'none',
    '--log-level': 'warn',
    '--body-limit': '20mb',
    '--loanbond-body-limit': '2gb',
    '--seed': 's1',
    '--journal-size': '50',
    '--max-workspaces': '3',
    '--workspace-idle': '2h',
    '--events-size': '50',
    '--work-delay': '250ms',
    '--stubs': 'stubs',
    '--upstream': 'http://127.0.0.1:9',
    '--record': 'recorded',
    '--work-backlog': '50',
    '--max-snapshots': '5',
    '--snapshots-size': '64mb',
  };
  /** Flags whose default is none: the feature is off until given. */
  const OFF_UNTIL_GIVEN = new Set(['--stubs', '--upstream', '--record']);

  it('promises pretty logs on a terminal only with what an installed sandbox has: pino-pretty is a dependency, not a devDependency', () => {
    const log = rows().find((r) => r.env === 'LOG_LEVEL');
    expect(log?.defaultCell).toContain('pretty on a terminal');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.dependencies['pino-pretty']).toBeDefined();
    expect(pkg.devDependencies['pino-pretty']).toBeUndefined();
  });

  it('has a row for every flag and variable of --help, and no flag --help does not print', () => {
    const named = new Set(HELP.match(/--[a-z-]+|(?<=env )[A-Z_]+/g));
    expect(named.size).toBeGreaterThan(20);
    const documented = new Set(table.flatMap((r) => [r.flag, r.env]).filter((x) => x !== undefined));
    expect([...named].filter((n) => !documented.has(n))).toEqual([]);
    expect([...documented].filter((n) => !named.has(n))).toEqual([]);
  });

  it("sets, by each row's variable, the same setting as by its flag", () => {
    for (const row of table.filter((r) => r.env && r.flag)) {
      const { env = '', flag = '' } = row;
      const value = switches.has(flag) ? (offSwitch(flag) ? 'false' : 'true') : (SAMPLE[flag] ?? '');
      const byFlag = changedBy(switches.has(flag) ? [flag] : [flag, value]);
      expect(byFlag, flag).toHaveLength(1);
      expect(changedBy([], { [env]: value }), `${env} and ${flag}`).toEqual(byFlag);
    }
  });

  it('states the default the code applies for each setting', () => {
    for (const row of table.filter((r) => r.flag && r.flag !== '--help')) {
      const flag = row.flag ?? '';
      if (switches.has(flag)) {
        // A switch is off unless given: `--no-coverage` turns coverage, which is on, off.
        expect(row.defaultCell, flag).toMatch(offSwitch(flag) ? /^on\b/ : /^off\b/);
        continue;
      }
      const [key] = changedBy([flag, SAMPLE[flag] ?? '']);
      const stated = /^`([^`]+)`/.exec(row.defaultCell)?.[1];
      if (OFF_UNTIL_GIVEN.has(flag)) {
        expect(key && DEFAULTS[key], flag).toEqual(flag === '--upstream' ? [] : null);
        expect(row.defaultCell, flag).toMatch(/^none\b/);
      } else if (flag === '--seed') {
        expect(DEFAULTS.seed).toBeUndefined();
        expect(row.defaultCell).toMatch(/^none: random keys/);
      } else if (flag === '--fixtures') {
        // The package's own file, found from the code's location whatever the working directory.
        expect(DEFAULTS.fixtures).toBe(DEMO_FIXTURES);
        expect(row.defaultCell).toMatch(/^the package's `fixtures\/demo\.json`/);
        expect(DEMO_FIXTURES.endsWith('/fixtures/demo.json')).toBe(true);
      } else {
        expect(stated, `${flag} states its default first, in backticks`).toBeDefined();
        // Read by the code's own parser, the stated default is the one it applies.
        expect(key && config([flag, stated ?? ''])[key], flag).toBe(key && DEFAULTS[key]);
      }
    }
    expect(DEFAULTS.adminToken).toBeUndefined();
    expect(table.find((r) => r.env === 'SANDBOX_ADMIN_TOKEN')?.defaultCell).toMatch(/^unset/);
  });
});
