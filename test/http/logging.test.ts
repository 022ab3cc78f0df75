import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { lazyChildLogger, loggerOptions, TURN_BUFFER_LIMIT, TurnLines } from '../../src/http/logging.js';
import { BASE_FIXTURES, LogCapture, testApp } from '../helpers.js';

describe('logging', () => {
  it('writes one line per request, with the method, path and status', async () => {
    const capture = new LogCapture();
    const app = await testApp({ logger: { level: 'info', stream: capture } });
    await app.inject({ url: '/_sandbox/health' });
    await app.inject({ url: '/v1/unknown' });
    const lines = capture.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ method: 'GET', url: '/_sandbox/health', statusCode: 200 });
    // The request's id ties the line to whatever a handler logged for the same request.
    expect(lines[0]?.reqId).toBeTypeOf('string');
    expect(lines[1]?.reqId).not.toBe(lines[0]?.reqId);
    expect(lines[1]).toMatchObject({ method: 'GET', url: '/v1/unknown', statusCode: 501 });
  });

  it("writes a secret-named path parameter (a servlet's ;jsessionid=) redacted", async () => {
    const capture = new LogCapture();
    const app = await testApp({ logger: { level: 'info', stream: capture } });
    await app.inject({ url: '/v1/unknown;jsessionid=SECRET-LOG-SESSION;v=2?x=1' });
    await app.inject({ url: '/nowhere;Session_Id=SECRET-LOG-OUTSIDE/next' });
    // The line of a workspace's creation names the path that created it.
    await app.inject({ url: '/ws/pathlog/v1/unknown;jsessionid=SECRET-LOG-WORKSPACE' });
    expect(capture.lines.some((l) => l.includes("workspace 'pathlog' created by GET /ws/pathlog/v1/unknown;jsessionid=[redacted]"))).toBe(true);
    expect(capture.lines.join('\n')).not.toContain('SECRET-LOG');
    const urls = capture.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request').map((l) => l.url);
    expect(urls).toEqual(['/v1/unknown;jsessionid=[redacted];v=2', '/nowhere;Session_Id=[redacted]/next', '/v1/unknown;jsessionid=[redacted]']);
  });

  it('never writes an Authorization token or a body token, on any path', async () => {
    const capture = new LogCapture();
    const app = await testApp({ logger: { level: 'trace', stream: capture }, fixtures: BASE_FIXTURES });
    const secrets = ['Bearer-secret-abc123', 'body-token-xyz789', 'JVBERi0xLjcKc2VjcmV0'];
    const urls = [
      ['GET', '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract'],
      ['PUT', '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/IUD-1/payment'],
      ['POST', '/api/v1.0/service/dup/registrar_documentos'],
      ['POST', '/v1/import-cnab'],
      ['POST', '/api/service/document/registrar'],
      ['POST', '/_sandbox/fixtures'],
      ['POST', '/nowhere'],
    ] as const;
    for (const [method, url] of urls) {
      for (const payload of [
        JSON.stringify({
          token: secrets[1],
          operationFile: secrets[2],
          registros: [{ documento: secrets[2] }],
        }),
        `{"token":"${secrets[1]}",`,
      ]) {
        await app.inject({
          method,
          url,
          payload: method === 'GET' ? undefined : payload,
          headers: { authorization: `Bearer ${secrets[0]}`, 'content-type': 'application/json' },
        });
      }
    }
    // Whatever a handler logs is redacted by the logger's configuration too.
    app.log.info(
      { req: { headers: { authorization: `Bearer ${secrets[0]}` } }, token: secrets[1] },
      'by hand',
    );
    app.log.info({ body: { token: secrets[1], documento: secrets[2] } }, 'a body');
    expect(capture.lines.length).toBeGreaterThan(urls.length);
    for (const s of secrets) expect(capture.text).not.toContain(s);
    expect(capture.text).toContain('[redacted]');
  });

  it("makes a request's own logger when it first logs: with the request's id, redacted like every line", () => {
    const capture = new LogCapture();
    const base = pino(loggerOptions({ level: 'debug', stream: capture }), capture);
    let made = 0;
    const counting = Object.assign(Object.create(base) as typeof base, {
      child: (...args: Parameters<typeof base.child>) => {
        made += 1;
        return base.child(...args);
      },
    });
    const log = lazyChildLogger(counting, { reqId: 'req-7' }, {});
    expect(made).toBe(0);
    expect(log.level).toBe('debug');
    log.warn({ token: 'body-token-xyz789', headers: { authorization: 'Bearer-secret' } }, 'by a handler');
    log.debug('and again');
    log.child({ step: 'inner' }).info('from a child');
    expect(made).toBe(1);
    const lines = capture.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([
      ['req-7', 'by a handler'],
      ['req-7', 'and again'],
      ['req-7', 'from a child'],
    ]);
    expect(lines[0]).toMatchObject({ token: '[redacted]', headers: { authorization: '[redacted]' } });
    expect(lines[2]?.step).toBe('inner');
    expect(capture.text).not.toContain('xyz789');
  });

  it('writes the lines of one turn of the event loop together, in order, at the end of that turn', async () => {
    const writes: string[] = [];
    const lines = new TurnLines((text) => writes.push(text));
    lines.write('{"n":1}\n');
    lines.write('{"n":2}\n');
    lines.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    lines.write('{"n":4}\n');
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
    lines.flush();
    expect(writes).toHaveLength(2);
  });

  it('writes at once what outgrows the turn buffer, and on flush what is gathered', () => {
    const writes: string[] = [];
    const lines = new TurnLines((text) => writes.push(text));
    const big = `${'x'.repeat(TURN_BUFFER_LIMIT)}\n`;
    lines.write('{"n":1}\n');
    lines.write(big);
    expect(writes).toEqual([`{"n":1}\n${big}`]);
    lines.write('{"n":2}\n');
    lines.flush();
    expect(writes).toEqual([`{"n":1}\n${big}`, '{"n":2}\n']);
  });
});

