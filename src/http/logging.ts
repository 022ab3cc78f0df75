// Logging: the logger's configuration, where secrets are censored (redaction lives here, not at each
// call), and the one line written per request.
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import { redactPathParameters } from '../runtime/redact.js';
import { pathOf } from './url.js';

/**
 * Paths pino censors wherever a handler logs them (headers, body fields one level down). Request
 * lines carry no headers or bodies at all; this is the net under a handler that logs by hand. Deeper
 * wildcards cost every log line a walk, so a whole `body` is censored instead.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["sandbox-admin-token"]',
  'headers.authorization',
  'headers["sandbox-admin-token"]',
  'authorization',
  'token',
  'accessToken',
  'token_acesso',
  'documento',
  'conteudo',
  'operationFile',
  '*.token',
  '*.accessToken',
  '*.token_acesso',
  '*.documento',
  '*.conteudo',
  '*.operationFile',
  'body',
  '*.body',
];

export interface LogSettings {
  level?: string;
  /** Where the JSON lines go (tests capture them); default stdout. */
  stream?: DestinationStream;
  /** Human-readable lines (pino-pretty), for a terminal. */
  pretty?: boolean;
}

export function loggerOptions(settings: LogSettings): LoggerOptions & { stream?: DestinationStream } {
  const options: LoggerOptions & { stream?: DestinationStream } = {
    level: settings.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  if (settings.stream) options.stream = settings.stream;
  else if (settings.pretty) options.transport = { target: 'pino-pretty', options: { colorize: true } };
  else options.stream = stdoutLines();
  return options;
}

/** A turn's lines past this many characters are written at once rather than at the turn's end. */
export const TURN_BUFFER_LIMIT = 1 << 20;

/**
 * Log lines gathered during one turn of the event loop and handed on together at its end (one write
 * instead of one per line, which costs a GET measurably: docs/benchmarks.md).
 * A line leaves within the turn it was logged in; on exit, however the process ends short of a
 * SIGKILL, what is gathered is written first.
 */
export class TurnLines implements DestinationStream {
  private text = '';

  /** `sink`: takes a batch of whole lines. */
  constructor(private readonly sink: (text: string) => void) {}

  write(line: string): void {
    if (this.text === '') setImmediate(() => this.flush());
    this.text += line;
    if (this.text.length > TURN_BUFFER_LIMIT) this.flush();
  }

  flush(): void {
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    this.sink(text);
  }
}

let stdout: TurnLines | undefined;

/** The process's one stdout destination, shared by every app in it (one exit hook, one order of lines). */
export function stdoutLines(): TurnLines {
  if (!stdout) {
    // sonic-boom writes each turn's batch without blocking the event loop: a reader that stops
    // reading (a paused pager) holds lines in memory, never requests. On exit it writes what it
    // holds synchronously, after this turn's lines.
    const fd1 = pino.destination({ dest: 1, sync: false });
    const lines = new TurnLines((text) => fd1.write(text));
    process.on('exit', () => {
      lines.flush();
      fd1.flushSync();
    });
    stdout = lines;
  }
  return stdout;
}

/**
 * Each request's own logger (request.log), made when the request first logs through it: most
 * requests log nothing but their request line, which has its own logger, and pino writes a child's
 * bindings through the redacting serializer (about 2-4 us with REDACT_PATHS' wildcards, against
 * 0.2-0.4 without). A class, so that a request pays for one small object: with a closure per method
 * (ten per request) the requests alive at each young-generation collection carried about 600 bytes
 * more each, and the collections took half as long again (docs/benchmarks.md).
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The request's pino child, made now if it was not yet. */
  get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.logger.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  // One method per level, set on the prototype below: each passes its call to the child.
  declare fatal: FastifyBaseLogger['fatal'];
  declare error: FastifyBaseLogger['error'];
  declare warn: FastifyBaseLogger['warn'];
  declare info: FastifyBaseLogger['info'];
  declare debug: FastifyBaseLogger['debug'];
  declare trace: FastifyBaseLogger['trace'];
  declare silent: FastifyBaseLogger['silent'];
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
for (const level of LEVELS) {
  LazyChildLogger.prototype[level] = function (this: LazyChildLogger, ...args: Parameters<FastifyBaseLogger['info']>) {
    this.logger[level](...args);
  };
}

/** Fastify's factory of each request's own logger: a LazyChildLogger. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}

/** One log line per request, with the operation it reached; no headers, no bodies. */
/** `workspaceOf`: the workspace a request reached (undefined: the default one). */
export function logRequests(app: FastifyInstance, workspaceOf: (request: FastifyRequest) => string | undefined): void {
  // The line's fields are fixed and none is a secret (a path parameter named like one is redacted:
  // /cart;jsessionid=[redacted]), so it is written by a child that skips the
  // redaction walk (pino's wildcard paths cost each line about 8 us, most of the line's cost); the
  // request's own logger, which handlers write to, keeps it.
  const requestLines = app.log.child({}, { redact: [] });
  app.addHook('onResponse', (request, reply, done) => {
    const config = request.routeOptions.config;
    requestLines.info(
      {
        reqId: request.id,
        method: request.method,
        url: redactPathParameters(pathOf(request.url)),
        workspace: workspaceOf(request),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
        interface: config.interface,
        operation: config.operation,
      },
      'request',
    );
    done();
  });
}
