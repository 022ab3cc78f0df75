// Logging: the logger's configuration, where secrets are censored (redaction lives here, not at each
// call), and the one line written per request.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DestinationStream, LoggerOptions } from 'pino';
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
  return options;
}

/** One log line per request, with the operation it reached; no headers, no bodies. */
/** `workspaceOf`: the workspace a request reached (undefined: the default one). */
export function logRequests(app: FastifyInstance, workspaceOf: (request: FastifyRequest) => string | undefined): void {
  // The line's fields are fixed and none is a secret, so it is written by a child that skips the
  // redaction walk (pino's wildcard paths cost each line about 8 us, most of the line's cost); the
  // request's own logger, which handlers write to, keeps it.
  const requestLines = app.log.child({}, { redact: [] });
  app.addHook('onResponse', async (request, reply) => {
    const config = request.routeOptions.config;
    requestLines.info(
      {
        reqId: request.id,
        method: request.method,
        url: pathOf(request.url),
        workspace: workspaceOf(request),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
        interface: config.interface,
        operation: config.operation,
      },
      'request',
    );
  });
}
