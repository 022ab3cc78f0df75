// A subscription's URL is called as it was written: one the URL parser would have to mend (strip a
// CR or LF, escape a space or a non-ASCII character, read a backslash as a slash) is refused, naming
// /url, so that what the subscription shows is what the sandbox calls.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

const subscribe = (url: string) => ({ method: 'POST' as const, url: '/_sandbox/subscriptions', payload: { url, types: ['*'] } });

describe('a subscription URL', () => {
  it.each([
    'http://127.0.0.1:4901/ok\r\nX: y',
    'http://127.0.0.1:4901/ok\n',
    'http://127.0.0.1:4901/o k',
    ' http://127.0.0.1:4901/ok',
    'http://127.0.0.1:4901/ok\t',
    'http://127.0.0.1:4901/a\u00e7\u00e3o',
    'http://127.0.0.1:4901\\ok',
    'http://127.0.0.1:4901/ok%zz',
  ])('%j is a 400 naming /url, and nothing is stored', async (url) => {
    const app = await testApp();
    const res = await app.inject(subscribe(url));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ details: Array<{ path: string }> }>().details.map((d) => d.path)).toEqual(['/url']);
    expect((await app.inject({ url: '/_sandbox/subscriptions' })).json()).toEqual({ subscriptions: [] });
  });

  it.each(['http://127.0.0.1:4901/ok', 'https://hooks.example.com/a/b?x=1&y=%20z', 'http://[::1]:4901/ok'])('%j is stored as written', async (url) => {
    const app = await testApp();
    const res = await app.inject(subscribe(url));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ url: string }>().url).toBe(url);
  });
});
