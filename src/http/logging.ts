// Logger configuration: secrets never reach a log line. Redaction lives here, in the logger's
// configuration, not at each call.
import type { DestinationStream, LoggerOptions } from 'pino';

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
