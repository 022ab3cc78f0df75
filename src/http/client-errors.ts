// Requests Node's HTTP parser refuses before Fastify sees them (a Content-Length that is no length or
// is given twice, a malformed chunked body, a header line without a colon, an unknown HTTP version):
// the answer is still a 400 in the interface's own error shape, with a message that says what was
// wrong, instead of Fastify's generic "Client Error". The path comes from the request line of the
// request that failed, when the chunk the parser was reading holds it (refusedRequestLine).
//
// HTTP/1.1 answers in request order: when the refused bytes follow requests the parser accepted on
// the same connection (pipelined, or a body one byte longer than its Content-Length, whose extra
// byte starts the "next request"), those requests are being handled and will be applied. Their
// answers go first, the 400 after the last of them, then the connection closes: a client never
// loses the answer of a change that was stored. Node keeps the responses waiting on a connection to
// itself, so trackAnswers() notes, per socket, the responses not yet finished (pruned as requests
// arrive, no listener per request), and the 400 waits for the last of them.
import { isUtf8 } from 'node:buffer';
import { IncomingMessage, METHODS, type Server, ServerResponse } from 'node:http';
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
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // The request's socket, not the response's: Node gives a pipelined request's response its socket
    // only once the answer before it is sent, so response.socket is null for every request but the
    // first still waiting on the connection, and those are the ones a 400 must wait for.
    const socket = request.socket;
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
  return (err: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }, socket: Socket): void => {
    if (refused.has(socket)) return;
    // A reset or a destroyed socket has nobody left to answer; a timeout keeps Node's own 408.
    if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    refused.add(socket);
    const packet = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : undefined;
    const line = packet ? refusedRequestLine(packet, typeof err.bytesParsed === 'number' ? err.bytesParsed : 0) : undefined;
    const path = line?.target.split('?')[0] ?? '';
    const shape = shapeOf(path.replace(WORKSPACE_PREFIX, ''));
    // A target with bytes a URL cannot hold, under an interface prefix: the request goes through the
    // sandbox like every other request (its interface's shape, the journal, the log), refused there.
    // Only from the line that holds the refused byte: never an earlier request of the packet again.
    const server = (socket as Socket & { server?: Server }).server;
    const rebuilt =
      err.code === 'HPE_INVALID_URL' && shape !== undefined && server && packet && line?.holdsRefusedByte
        ? rebuildRefusedTarget(packet.subarray(line.start), socket)
        : undefined;
    if (rebuilt && server) {
      const last = unanswered(socket).at(-1);
      const emit = () => (socket.destroyed ? undefined : answerOnce(server, rebuilt, socket));
      if (last) finished(last, emit);
      else emit();
      return;
    }
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
  server.on('connect', (request: IncomingMessage, socket: Socket) => answerOnce(server, request, socket));
}

/** Hands `request` to the app as its connection's last: answered, then the connection closes. */
function answerOnce(server: Server, request: IncomingMessage, socket: Socket): void {
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket);
  response.on('finish', () => {
    response.detachSocket(socket);
    socket.end();
  });
  socket.on('error', () => socket.destroy());
  server.emit('request', request, response);
}

/**
 * The request line that ends `line`, as /([A-Z]+) (\/[^ ]*) HTTP\/\S*$/ would find it: the run of
 * capitals (a method, maybe after the last bytes of a body), its index, and the target. Read from the
 * end in one pass, not by that expression: its backtracking is quadratic in the line (a refused line of
 * 32 000 capitals, a space, a slash and 32 000 more bytes held the event loop for 6.6 s).
 */
export function requestLineAtEnd(line: string): { index: number; capitals: string; target: string } | undefined {
  const version = line.lastIndexOf(' HTTP/');
  if (version < 0 || /\s/.test(line.slice(version + 6))) return undefined;
  const space = line.lastIndexOf(' ', version - 1);
  if (space < 0 || line[space + 1] !== '/') return undefined;
  let index = space;
  while (index > 0 && isCapital(line.charCodeAt(index - 1))) index -= 1;
  if (index === space) return undefined;
  return { index, capitals: line.slice(index, space), target: line.slice(space + 1, version) };
}

const isCapital = (code: number) => code >= 65 && code <= 90;

/**
 * The request line of the request Node's parser refused at byte `at` of `packet`: the packet is the
 * whole chunk the parser was reading, which may begin with requests it accepted (pipelined), so the
 * line is the last one at or before the refused byte that reads as a request line. Its method is
 * the longest HTTP method the run of capitals ends with, since a body framed by its Content-Length
 * can end right before it with no line break ("...ABCPOST /x HTTP/1.1"). Undefined when the packet
 * holds none (the head began in an earlier chunk). `holdsRefusedByte`: the line is the one the
 * refused byte is on (a bad target), not a line before it (a bad header line, version or body).
 */
function refusedRequestLine(packet: Buffer, at: number): { start: number; target: string; holdsRefusedByte: boolean } | undefined {
  const text = packet.toString('latin1');
  const from = Math.min(Math.max(at, 0), text.length);
  /** Where the line that ends at `end` (a CR LF, or the packet's end) begins: after the CR LF before it, else at 0. */
  const lineStart = (end: number) => {
    const crlf = end > 0 ? text.lastIndexOf('\r\n', end - 1) : -1;
    return crlf < 0 ? 0 : crlf + 2;
  };
  let end = text.indexOf('\r\n', from);
  if (end < 0) end = text.length;
  let start = lineStart(end);
  const first = start;
  for (;;) {
    const match = requestLineAtEnd(text.slice(start, end));
    const method = match ? METHODS_LONGEST_FIRST.find((m) => match.capitals.endsWith(m)) : undefined;
    if (match && method) {
      const offset = start + match.index + match.capitals.length - method.length;
      return { start: offset, target: match.target, holdsRefusedByte: start === first };
    }
    if (start < 2) return undefined;
    end = start - 2;
    start = lineStart(end);
  }
}

const METHODS_LONGEST_FIRST = [...METHODS].sort((a, b) => b.length - a.length);

/** A base URL /ws/{name} in front of an interface's prefix. */
const WORKSPACE_PREFIX = /^\/ws\/[^/?]+(?=\/)/;

/** Marks a request rebuilt from a head whose target Node refused: the message of its 400. */
const REFUSED_TARGET = Symbol('refusedTarget');

/**
 * The 400 message of a request whose target Node's parser refused (assumption journal-scope), for
 * the interface to answer; undefined for every other request.
 */
export function refusedTargetOf(request: IncomingMessage): string | undefined {
  return (request as IncomingMessage & { [REFUSED_TARGET]?: string })[REFUSED_TARGET];
}

/**
 * The request whose head `packet` holds, its target refused by Node's parser (raw bytes outside
 * ASCII, a control character), rebuilt so that the app answers and journals it; its body is not
 * read (the parser stopped at the target). The target is kept as sent: its bytes read as UTF-8
 * when they are UTF-8, else one Latin-1 character per byte, as Node reads header values.
 * Undefined when the packet does not hold a whole, otherwise well-formed head.
 */
function rebuildRefusedTarget(packet: Buffer, socket: Socket): IncomingMessage | undefined {
  const end = packet.indexOf('\r\n\r\n');
  if (end < 0 || end > 16 * 1024) return undefined;
  const lineEnd = packet.indexOf('\r\n');
  const line = /^([A-Z]+) (\/[^ ]*) HTTP\/1\.([01])$/.exec(packet.subarray(0, lineEnd).toString('latin1'));
  if (!line) return undefined;
  const [, method = '', target = '', minor = '1'] = line;
  const rawHeaders: string[] = [];
  if (lineEnd < end) {
    for (const field of packet.subarray(lineEnd + 2, end).toString('latin1').split('\r\n')) {
      const colon = field.indexOf(':');
      if (colon <= 0 || /[\s]/.test(field.slice(0, colon))) return undefined;
      rawHeaders.push(field.slice(0, colon), field.slice(colon + 1).trim());
    }
  }
  const bytes = Buffer.from(target, 'latin1');
  const request = new IncomingMessage(socket);
  request.method = method;
  request.url = isUtf8(bytes) ? bytes.toString('utf8') : target;
  request.httpVersionMajor = 1;
  request.httpVersionMinor = Number(minor);
  request.httpVersion = `1.${minor}`;
  request.rawHeaders = rawHeaders;
  request.complete = true;
  request.push(null);
  (request as IncomingMessage & { [REFUSED_TARGET]?: string })[REFUSED_TARGET] = targetProblem(bytes);
  return request;
}

/** What is wrong with a target Node's parser refused: its first byte a URL cannot hold, and where. */
function targetProblem(target: Buffer): string {
  const at = target.findIndex((b) => b <= 0x20 || b >= 0x7f);
  const query = target.indexOf(0x3f);
  const fragment = target.indexOf(0x23);
  const part = fragment !== -1 && at > fragment ? 'fragment' : query !== -1 && at > query ? 'query' : 'path';
  const prefix = 'the request is malformed at the HTTP level: the request target';
  if (at === -1) return `${prefix} is not a valid URL`;
  const byte = target[at] as number;
  const hex = (b: number) => b.toString(16).toUpperCase().padStart(2, '0');
  if (byte < 0x80)
    return `${prefix} holds the control character 0x${hex(byte)} at offset ${at}, in its ${part}: a URL carries it percent-encoded (RFC 3986, section 2.1): %${hex(byte)}`;
  let run = at;
  while (run < target.length && run - at < 4 && (target[run] as number) >= 0x80) run++;
  const escaped = [...target.subarray(at, run)].map((b) => `%${hex(b)}`).join('');
  return `${prefix} holds the byte 0x${hex(byte)} at offset ${at}, in its ${part}: a URL carries bytes outside ASCII percent-encoded (RFC 3986, section 2.1): ${escaped}`;
}
