// Requests Node's HTTP parser refuses before Fastify sees them (a Content-Length that is no length or
// is given twice, a malformed chunked body, a header line without a colon, an unknown HTTP version):
// the answer is still a 400 in the interface's own error shape, with a message that says what was
// wrong, instead of Fastify's generic "Client Error". The path comes from the request line of the
// bytes that failed, when they hold one.
//
// HTTP/1.1 answers in request order: when the refused bytes follow requests the parser accepted on
// the same connection (pipelined, or a body one byte longer than its Content-Length, whose extra
// byte starts the "next request"), those requests are being handled and will be applied. Their
// answers go first, the 400 after the last of them, then the connection closes: a client never
// loses the answer of a change that was stored. Node keeps the responses waiting on a connection to
// itself, so trackAnswers() notes, per socket, the responses not yet finished (pruned as requests
// arrive, no listener per request).
import { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream';
import { type ErrorShape, renderError, SandboxError, standardBody } from './errors.js';

/** The parser's reason for a request framed by both headers, whichever of them came first. */
const BOTH_FRAMINGS = /Content-Length can't be present with Transfer-Encoding|Transfer-Encoding can't be present with Content-Length/;
const BOTH_FRAMINGS_MESSAGE =
  'it sends Content-Length and Transfer-Encoding together: a request is framed by one of them (RFC 9112, section 6.3)';

const MESSAGES: Record<string, string> = {
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length must be one decimal length, sent once and without Transfer-Encoding',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length must be one decimal length, sent once and without Transfer-Encoding',
  HPE_INVALID_CHUNK_SIZE: 'the chunked body is malformed: a chunk size is not hexadecimal',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is not chunked alone, the one transfer coding the sandbox reads',
  HPE_INVALID_HEADER_TOKEN: 'a header line is malformed (a name with spaces, or no colon)',
  HPE_INVALID_VERSION: 'the HTTP version is not 1.0 or 1.1',
  HPE_INVALID_METHOD: 'the request method is not a valid HTTP method',
  HPE_INVALID_URL: 'the request target is not a valid URL',
  HPE_HEADER_OVERFLOW: 'the request headers are larger than the HTTP parser accepts (16 KiB)',
  HPE_LF_EXPECTED: 'a line of the request does not end with CR LF',
  HPE_CR_EXPECTED: 'a line of the request does not end with CR LF',
};

/** Per connection, the responses that may still be unfinished, in request order. */
const answers = new WeakMap<Socket, ServerResponse[]>();
/** Connections whose refused bytes are already answered (the parser reports each later chunk again). */
const refused = new WeakSet<Socket>();

/** Notes each request's response on its connection, so a 400 for later bytes can wait for it. */
export function trackAnswers(server: Server): void {
  server.on('request', (_request, response: ServerResponse) => {
    const socket = response.socket;
    if (!socket) return;
    const list = answers.get(socket);
    if (!list) {
      answers.set(socket, [response]);
      return;
    }
    // Keep-alive connections carry one request after another: drop the finished ones as we go.
    let kept = 0;
    for (const r of list) if (!r.writableFinished) list[kept++] = r;
    list.length = kept;
    list.push(response);
  });
}

/** The responses of requests the parser accepted in full on `socket` and that are not answered yet. */
function unanswered(socket: Socket): ServerResponse[] {
  return (answers.get(socket) ?? []).filter((r) => !r.writableFinished && !r.destroyed && r.req.complete);
}

export function clientErrorHandler(shapeOf: (path: string) => ErrorShape | undefined) {
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (refused.has(socket)) return;
    // A reset or a destroyed socket has nobody left to answer; a timeout keeps Node's own 408.
    if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    refused.add(socket);
    const head = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 2048).toString('latin1') : '';
    const path = /^[A-Z]+ (\/\S*) HTTP\//.exec(head)?.[1]?.split('?')[0] ?? '';
    const shape = shapeOf(path);
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timeout && shape === undefined ? 408 : 400;
    const message = `the request is malformed at the HTTP level: ${
      timeout
        ? 'it did not arrive in time'
        : BOTH_FRAMINGS.test(err.message)
          ? BOTH_FRAMINGS_MESSAGE
          : (MESSAGES[err.code ?? ''] ?? `the HTTP parser refused it (${err.code ?? 'unknown'})`)
    }`;
    const error = new SandboxError(status, message);
    const body = JSON.stringify(shape ? renderError(shape, error) : standardBody(status, message));
    const answer =
      `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Request Timeout'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    const send = () => {
      if (socket.destroyed || !socket.writable) socket.destroy();
      else socket.end(answer);
    };
    // Node sends a connection's responses in request order: once the last accepted one is done,
    // every one before it is too.
    const last = unanswered(socket).at(-1);
    if (last) finished(last, send);
    else send();
  };
}

/**
 * Requests Node answers on its own unless told otherwise, handed to Fastify so that they get the
 * answer any other request gets, in the interface's shape and in the journal:
 * - an Expect header other than 100-continue (Node's bare 417, a status no interface documents):
 *   the request goes on, and the interface refuses it with a 400 (http/json.ts, expectationError);
 * - a CONNECT (Node closes the connection without a word when nothing listens for it): answered as
 *   any other method the path does not serve (a 501 under an interface's prefix, else a 404), then
 *   the connection closes, since no tunnel is opened.
 */
export function answerUnusualRequests(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    server.emit('request', request, response);
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.on('finish', () => {
      response.detachSocket(socket);
      socket.end();
    });
    socket.on('error', () => socket.destroy());
    server.emit('request', request, response);
  });
}
