// A path the router cannot even read (a malformed percent-escape, an over-long parameter) is refused
// before any route, hence before any hook: without this Fastify answers in its own body, and with a
// 414 for the long parameter. The refusal is a 400 in the error shape of the interface whose prefix
// the path is under (the standard body elsewhere), and is recorded by the caller's `record`.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { firstInvalidUtf8, LATIN1_HINT, utf8Fault } from '../domain/utf8.js';
import { type ErrorShape, renderError, SandboxError, standardBody } from './errors.js';
import { pathOf } from './url.js';

export interface RouterErrorOptions {
  maxParamLength: number;
  /** The error shape of the interface a path is under; null outside every interface. */
  shapeOf: (path: string) => ErrorShape | null;
  /** Called with every refusal (the journal keeps it). */
  record: (request: FastifyRequest, status: number, body: unknown) => void;
}

export function routerErrorHandler(options: RouterErrorOptions) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const message =
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? `a path parameter is longer than ${options.maxParamLength} characters`
        : badPathMessage(pathOf(request.originalUrl));
    const shape = options.shapeOf(pathOf(request.url));
    const body = shape ? renderError(shape, new SandboxError(400, message)) : standardBody(400, message);
    options.record(request, 400, body);
    return reply.code(400).type('application/json').send(body);
  };
}

/**
 * Why the router could not decode a path: a percent-escape that is malformed (% not followed by two
 * hexadecimal digits), or well-formed escapes whose bytes are not UTF-8 (%E9, Latin-1 é), naming
 * the escape, its offset in the path as sent and what is wrong with the bytes.
 */
export function badPathMessage(path: string): string {
  const malformed = /%(?![0-9A-Fa-f]{2})/.exec(path);
  if (malformed)
    return `the path is not a valid URL: the percent-escape ${path.slice(malformed.index, malformed.index + 3)} at offset ${malformed.index} is malformed (% is followed by two hexadecimal digits; a % itself is written %25)`;
  // The path's bytes, each with the text it was written as and where.
  const bytes: number[] = [];
  const written: Array<[string, number]> = [];
  for (let i = 0; i < path.length; ) {
    const escaped = path[i] === '%';
    const text = escaped ? path.slice(i, i + 3) : (path[i] as string);
    bytes.push(escaped ? Number.parseInt(text.slice(1), 16) : text.charCodeAt(0) & 0xff);
    written.push([text, i]);
    i += text.length;
  }
  const decoded = Uint8Array.from(bytes);
  const at = firstInvalidUtf8(decoded);
  if (at === decoded.length) return 'the path is not a valid URL';
  const where = (i: number) => {
    const [text, offset] = written[i] ?? ['', 0];
    return `(${text} at offset ${offset})`;
  };
  const fault = utf8Fault(decoded, at, where, 'the path');
  const hex = (decoded[at] as number).toString(16).toUpperCase().padStart(2, '0');
  return (
    `the path is not a valid URL: its percent-escapes are well formed, but the bytes they encode are not UTF-8: the byte 0x${hex} ${where(at)} ` +
    `${fault.sentence}${fault.looksLatin1 ? ` ${LATIN1_HINT}` : ''}; percent-encode the UTF-8 bytes of each character (é as %C3%A9)`
  );
}
