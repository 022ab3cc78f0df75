// The run's temporary folder (test/global-setup.ts): the test files and the processes they start
// write their temporary files into a folder of the run's own, which the teardown removes whole.
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the temporary folder of a test run', () => {
  it("is the run's own, in a test file and in a process the test starts", () => {
    expect(basename(tmpdir())).toMatch(/^tradebill-tests-/);
    const child = execFileSync(process.execPath, ['-p', "require('node:os').tmpdir()"], { encoding: 'utf8' }).trim();
    expect(child).toBe(tmpdir());
  });
});
