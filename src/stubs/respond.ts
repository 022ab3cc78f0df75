// A matched mapping's answer, as WireMock renders it: its status and reason phrase, its headers as
// given (nothing added but Matched-Stub-Id and Matched-Stub-Name, which WireMock adds too), its body
// bytes (jsonBody as compact JSON), rendered through the templates when the mapping asks for the
// response-template transformer.
import { asHeaderText, HEADER_TEXT_RULE, isHeaderName, isHeaderText } from '../http/header-text.js';
import { type HelperSet, TemplateError } from '../runtime/templates.js';
import { EMPTY_CONTENT_TYPE, FINAL_STATUS, type Stub } from './mapping.js';
import type { RequestView } from './match.js';
import { templateModel } from './model.js';

export interface StubAnswer {
  status: number;
  statusMessage: string | undefined;
  /** Name and value pairs, in order (a header given several values comes several times). */
  headers: Array<[string, string]>;
  body: Buffer;
  delayMs: number;
}

/**
 * Renders a mapping's response for one request; throws TemplateError when a template fails, or when
 * the head could not be written: a rendered value a header cannot carry (a client's "€" echoed), or
 * a mapping read before the rules that refuse it were checked (Node would throw while writing, and
 * take the server down with it).
 */
export function renderAnswer(stub: Stub, view: RequestView, pathParams: Record<string, string>, helpers: HelperSet): StubAnswer {
  const r = stub.response;
  if (r.status < 200 || r.status > 599) throw new TemplateError(`the status ${r.status} ${FINAL_STATUS}`);
  if (r.statusMessage !== undefined && !isHeaderText(r.statusMessage)) {
    throw new TemplateError(`the statusMessage holds a character a reason phrase cannot carry: it may hold only ${HEADER_TEXT_RULE}`);
  }
  const model = r.templated ? templateModel(view, pathParams, r.parameters) : {};
  const headers: Array<[string, string]> = r.headers.map(([name, value]) => [name, typeof value === 'string' ? value : value(model, helpers)]);
  for (const [name, value] of headers) {
    if (!isHeaderName(name)) throw new TemplateError('a header name is not an RFC 9110 token');
    // The value is not quoted: it may be what a client sent.
    if (!isHeaderText(value)) throw new TemplateError(`the header ${name} renders a character a header cannot carry: it may hold only ${HEADER_TEXT_RULE}`);
    if (value.trim() === '' && name.toLowerCase() === 'content-type') throw new TemplateError(`the header ${name} ${EMPTY_CONTENT_TYPE}`);
  }
  headers.push(['Matched-Stub-Id', stub.id]);
  if (stub.name !== null) headers.push(['Matched-Stub-Name', asHeaderText(stub.name)]);
  let body: Buffer;
  switch (r.body.kind) {
    case 'none':
      body = Buffer.alloc(0);
      break;
    case 'bytes':
      body = r.body.bytes;
      break;
    case 'template':
      body = Buffer.from(r.body.template(model, helpers), 'utf8');
      break;
  }
  return { status: r.status, statusMessage: r.statusMessage, headers, body, delayMs: r.delayMs };
}
