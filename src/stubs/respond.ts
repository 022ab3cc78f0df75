// A matched mapping's answer, as WireMock renders it: its status and reason phrase, its headers as
// given (nothing added but Matched-Stub-Id and Matched-Stub-Name, which WireMock adds too), its body
// bytes (jsonBody as compact JSON), rendered through the templates when the mapping asks for the
// response-template transformer.
import { type HelperSet, TemplateError } from '../runtime/templates.js';
import type { Stub } from './mapping.js';
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

/** Renders a mapping's response for one request; throws TemplateError when a template fails. */
export function renderAnswer(stub: Stub, view: RequestView, pathParams: Record<string, string>, helpers: HelperSet): StubAnswer {
  const r = stub.response;
  const model = r.templated ? templateModel(view, pathParams, r.parameters) : {};
  const headers: Array<[string, string]> = r.headers.map(([name, value]) => [name, typeof value === 'string' ? value : value(model, helpers)]);
  for (const [, value] of headers) {
    if (/[\r\n\0]/.test(value)) throw new TemplateError('a templated header value holds CR, LF or NUL');
  }
  headers.push(['Matched-Stub-Id', stub.id]);
  if (stub.name !== null) headers.push(['Matched-Stub-Name', stub.name.replace(/[^\t\x20-\x7e]/g, '?')]);
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
