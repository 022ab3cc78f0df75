// The contract files of contract/ are what `npm run docs` writes from the route schemas today (so they
// never drift from the code), and the sandbox serves them as they are committed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contractFiles } from '../../scripts/contract.js';
import { testApp } from '../helpers.js';

describe('the contract files', () => {
  it('are what `npm run docs` writes from the code (run it after changing a route schema)', async () => {
    const files = await contractFiles();
    expect(files.map((f) => f.path)).toContain('contract/openapi-3.0.json');
    for (const file of files) expect(readFileSync(file.path, 'utf8'), file.path).toBe(file.text);
  });

  it('are served as committed: /openapi-3.0.json, and the 3.1 file is the served /openapi.json', async () => {
    const app = await testApp();
    const served = await app.inject({ url: '/openapi-3.0.json' });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(served.body).toBe(readFileSync('contract/openapi-3.0.json', 'utf8'));
    expect((await app.inject({ url: '/openapi.json' })).json()).toEqual(JSON.parse(readFileSync('contract/openapi.json', 'utf8')));
  });
});
