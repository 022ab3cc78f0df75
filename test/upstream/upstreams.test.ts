// --upstream values refused at start: the message names the value, never the credentials it holds.
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { Upstreams } from '../../src/upstream/upstreams.js';
import { BASE_FIXTURES, LogCapture } from '../helpers.js';

const refusal = (value: string): string => {
  try {
    Upstreams.parse([value], ['registry']);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${value} was accepted`);
};

describe('an --upstream value refused', () => {
  it('never prints the password of a URL, whichever rule refused it', () => {
    expect(refusal('http://user:UPSTREAM-PW99@127.0.0.1:4801')).toBe('the upstream http://user:[redacted]@127.0.0.1:4801 must carry no credentials: clients send their own');
    expect(refusal('http://user:UPSTREAM-PW99@127.0.0.1:4801/?x=1')).toContain('http://user:[redacted]@127.0.0.1:4801/?x=1 must have no query string');
    expect(refusal('ftp://user:p@ss:UPSTREAM-PW99@host')).toContain('ftp://user:[redacted]@host');
    expect(refusal('http://user:UPSTREAM-PW99@host:99999')).toContain('"http://user:[redacted]@host:99999" is not a URL');
    expect(refusal('nope=http://user:UPSTREAM-PW99@host')).toContain('nope=http://user:[redacted]@host');
    expect(refusal('http://ACCESS-TOKEN-ONLY@host')).toContain('http://[redacted]@host');
    for (const value of ['http://user:UPSTREAM-PW99@host', 'http://user:UPSTREAM-PW99@host:99999']) expect(refusal(value)).not.toContain('UPSTREAM-PW99');
  });
});

describe('a refused --upstream or --record', () => {
  it.each([[['http://user:pw@127.0.0.1:1'], undefined], [[], 'rec']] as Array<[string[], string | undefined]>)('stops the start before the state is opened: no log line says fixtures were loaded (%j)', async (upstreams, record) => {
    const log = new LogCapture();
    const started = buildApp({ db: ':memory:', fixtures: BASE_FIXTURES, upstreams, ...(record ? { record } : {}), logger: { level: 'info', stream: log } });
    await expect(started).rejects.toThrow(/credentials|needs --upstream/);
    expect(log.text).not.toContain('fixtures loaded');
  });
});
