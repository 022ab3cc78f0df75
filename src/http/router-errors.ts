// A path the router cannot even read (a malformed percent-escape, an over-long parameter) is refused
// before any route, hence before any hook: without this Fastify answers in its own body, and with a
// 414 for the long parameter. The refusal is a 400 in the error shape of the interface whose prefix
// the path is under (the standard body elsewhere), and is recorded by the caller's `record`.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
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
        : 'the path is not a valid URL: a percent-escape in it is malformed';
    const shape = options.shapeOf(pathOf(request.url));
    const body = shape ? renderError(shape, new SandboxError(400, message)) : standardBody(400, message);
    options.record(request, 400, body);
    return reply.code(400).type('application/json').send(body);
  };
}
