// Which browser the inspector's tests drive: a fresh machine has no system browser and no root, so
// the default is the Chromium that npm installs, whatever this machine happens to have in /usr/bin.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium, fontsConfig, repointFonts, sparticuzDir } from '../../scripts/chromium.js';

describe('the browser lookup of the inspector tests', () => {
  it('uses the npm-installed Chromium, with its own libraries and fonts, when CHROMIUM_PATH is unset', async () => {
    const browser = await findChromium({ PATH: '/nonexistent' });
    expect(browser.source).toBe('@sparticuz/chromium');
    expect(browser.executablePath.startsWith(join(sparticuzDir(), '..', '..', '.cache'))).toBe(true);
    expect(browser.executablePath).not.toMatch(/^\/usr\//);
    expect(statSync(browser.executablePath).mode & 0o111).not.toBe(0);
    const libs = browser.env.LD_LIBRARY_PATH?.split(':')[0] ?? '';
    expect(existsSync(join(libs, 'libnss3.so'))).toBe(true);
    expect(existsSync(join(browser.env.FONTCONFIG_PATH ?? '', 'fonts.conf'))).toBe(true);
  });

  it('drives the browser CHROMIUM_PATH names, and refuses one that does not exist', async () => {
    const npm = await findChromium({});
    const chosen = await findChromium({ CHROMIUM_PATH: npm.executablePath });
    expect(chosen).toMatchObject({ source: 'CHROMIUM_PATH', executablePath: npm.executablePath });
    await expect(findChromium({ CHROMIUM_PATH: '/nowhere/chromium' })).rejects.toThrow(
      'CHROMIUM_PATH is /nowhere/chromium, which does not exist',
    );
  });

  it('points the fonts at the folder the browser is in, after node_modules moved to another checkout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chromium-moved-'));
    try {
      // As unpacked by a checkout since removed: its fonts are gone, and every page would crash.
      mkdirSync(join(dir, 'fontconfig'));
      writeFileSync(join(dir, 'fontconfig', 'fonts.conf'), fontsConfig('/work/removed-checkout/node_modules/.cache/chromium'));
      expect(repointFonts(dir)).toBe(true);
      const config = readFileSync(join(dir, 'fontconfig', 'fonts.conf'), 'utf8');
      expect(config).toContain(`<dir>${join(dir, 'fonts')}</dir>`);
      expect(config).toContain(`<cachedir>${join(dir, 'fonts-cache')}</cachedir>`);
      expect(config).not.toContain('removed-checkout');
      expect(repointFonts(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the npm-installed browser a fontconfig file that names its own fonts', async () => {
    const browser = await findChromium({});
    const config = readFileSync(join(browser.env.FONTCONFIG_PATH ?? '', 'fonts.conf'), 'utf8');
    const fonts = /<dir>([^<]+)<\/dir>/.exec(config)?.[1] ?? '';
    expect(fonts).toBe(join(browser.executablePath, '..', 'fonts'));
    expect(existsSync(fonts)).toBe(true);
  });
});
