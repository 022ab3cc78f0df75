// Which browser the inspector's tests drive: a fresh machine has no system browser and no root, so
// the default is the Chromium that npm installs, whatever this machine happens to have in /usr/bin.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium, sparticuzDir } from '../../scripts/chromium.js';

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
});
