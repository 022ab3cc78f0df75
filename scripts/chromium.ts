// The Chromium that the inspector's browser tests and measurements drive. CHROMIUM_PATH wins when set;
// otherwise the Chromium that npm installs with the dev dependencies (@sparticuz/chromium: a headless
// shell with the few shared libraries and fonts it needs), so a fresh machine needs no apt and no
// root, and every machine runs the same browser. It is unpacked once into node_modules/.cache.
import { spawnSync } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

export interface Chromium {
  executablePath: string;
  source: 'CHROMIUM_PATH' | '@sparticuz/chromium';
  /** Environment for the browser process (the bundled libraries and fonts). */
  env: Record<string, string>;
  /** Flags for a headless run as a normal user. */
  args: string[];
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function inheritedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/** The package's directory: its entry is build/cjs/index.cjs (its exports map hides package.json). */
export function sparticuzDir(): string {
  return resolve(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '../..');
}

async function unbrotli(file: string, to: string): Promise<void> {
  await pipeline(createReadStream(file), createBrotliDecompress(), createWriteStream(to));
}

async function untarBrotli(file: string, into: string): Promise<void> {
  // Through a file: tar may stop reading at the archive's end marker, before a pipe is drained.
  const tarFile = join(into, '.unpacking.tar');
  await unbrotli(file, tarFile);
  const result = spawnSync('tar', ['-x', '-f', tarFile, '-C', into], { stdio: ['ignore', 'ignore', 'pipe'] });
  rmSync(tarFile, { force: true });
  if (result.status !== 0) throw new Error(`tar could not unpack ${file}: ${String(result.stderr)}`);
}

/**
 * The fontconfig file of a browser unpacked into `dir`: its own fonts only, the same on every machine;
 * with no font at all, a text field crashes the renderer. (The archive's fonts.conf names Lambda's
 * directories.) The paths are absolute, as fontconfig reads them.
 */
export function fontsConfig(dir: string): string {
  return `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`;
}

/**
 * Points the fontconfig file of `dir` at `dir` again when it names another place: node_modules copied
 * or moved to another checkout (or restored there from a CI cache) keeps the browser unpacked where it
 * was, whose fonts then no longer exist, and every page crashes.
 */
export function repointFonts(dir: string): boolean {
  const file = join(dir, 'fontconfig', 'fonts.conf');
  const wanted = fontsConfig(dir);
  if (existsSync(file) && readFileSync(file, 'utf8') === wanted) return false;
  mkdirSync(dirname(file), { recursive: true });
  const staging = `${file}.tmp-${process.pid}-${Date.now()}`;
  writeFileSync(staging, wanted);
  renameSync(staging, file);
  return true;
}

/** Unpacks the bundled browser into `dir` once; concurrent callers race on an atomic rename. */
async function unpack(bin: string, dir: string): Promise<void> {
  if (existsSync(join(dir, 'chromium'))) return;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(join(staging, 'lib'), { recursive: true });
  try {
    await unbrotli(join(bin, 'chromium.br'), join(staging, 'chromium'));
    chmodSync(join(staging, 'chromium'), 0o755);
    await untarBrotli(join(bin, 'swiftshader.tar.br'), staging);
    await untarBrotli(join(bin, 'fonts.tar.br'), staging);
    // nss, nspr and expat: the only libraries it needs beyond libc, absent from a bare machine.
    await untarBrotli(join(bin, 'al2023.tar.br'), staging);
    mkdirSync(join(staging, 'fontconfig'));
    writeFileSync(join(staging, 'fontconfig', 'fonts.conf'), fontsConfig(dir));
    try {
      renameSync(staging, dir);
    } catch (err) {
      if (!existsSync(join(dir, 'chromium'))) throw err; // another process won the race: use its copy
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** CHROMIUM_PATH when set, else the npm-installed Chromium (unpacked on first use). */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<Chromium> {
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, which does not exist`);
    return { executablePath: configured, source: 'CHROMIUM_PATH', env: inheritedEnv(), args: ARGS };
  }
  const pkg = sparticuzDir();
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const dir = join(pkg, '..', '..', '.cache', 'tradebill-sandbox', `chromium-${version}`);
  await unpack(join(pkg, 'bin'), dir);
  repointFonts(dir);
  const base = inheritedEnv();
  return {
    executablePath: join(dir, 'chromium'),
    source: '@sparticuz/chromium',
    env: {
      ...base,
      LD_LIBRARY_PATH: [join(dir, 'lib'), base.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_PATH: join(dir, 'fontconfig'),
    },
    args: ARGS,
  };
}
