// WireMock's request model for response templates (`request.*`): url, path (also its segments by
// index and, under a urlPathTemplate, its parameters by name), pathSegments, query, headers, cookies
// (values that can be one or many print their first value and are indexed 0, 1, ..., first, last),
// method, body, bodyAsBase64, host, port, scheme, baseUrl, clientIp, id; and `parameters`, the
// mapping's transformerParameters.
import type { RequestView } from './match.js';

/** A value that may come several times: prints its first value, indexed like a list. */
class OneOrMany {
  [key: string]: unknown;

  constructor(values: readonly string[]) {
    values.forEach((v, i) => (this[String(i)] = v));
    this.first = values[0];
    this.last = values[values.length - 1];
    Object.defineProperty(this, 'values', { value: values, enumerable: false });
  }

  toString(): string {
    return String(this.first ?? '');
  }

  toJSON(): unknown {
    const values = (this as unknown as { values: readonly string[] }).values;
    return values.length === 1 ? values[0] : values;
  }
}

/** The request path: prints the path; its segments by index, and path-template parameters by name. */
class RequestPath {
  [key: string]: unknown;

  constructor(
    private readonly text: string,
    segments: readonly string[],
    params: Record<string, string>,
  ) {
    segments.forEach((s, i) => (this[String(i)] = s));
    Object.assign(this, params);
    Object.defineProperty(this, 'text', { enumerable: false });
  }

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

/** As WireMock prints a map of them (Java's Map.toString): {name=value, other=[a, b]}. */
function mapText(map: Record<string, OneOrMany>): string {
  const parts = Object.keys(map).map((name) => {
    const values = (map[name] as unknown as { values: readonly string[] }).values;
    return `${name}=${values.length === 1 ? values[0] : `[${values.join(', ')}]`}`;
  });
  return `{${parts.join(', ')}}`;
}

function multi(entries: Iterable<[string, readonly string[]]>): Record<string, OneOrMany> {
  const out: Record<string, OneOrMany> = {};
  for (const [name, values] of entries) out[name] = new OneOrMany(values);
  Object.defineProperty(out, 'toString', { value: () => mapText(out), enumerable: false });
  return out;
}

function cookiesOf(header: readonly string[]): Record<string, OneOrMany> {
  const found = new Map<string, string[]>();
  for (const line of header) {
    for (const pair of line.split(';')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const list = found.get(name) ?? [];
      list.push(pair.slice(eq + 1).trim());
      found.set(name, list);
    }
  }
  return multi(found);
}

/** Headers by name in any case (WireMock's header names ignore case), listed in lower case. */
function headersOf(view: RequestView): Record<string, OneOrMany> {
  const byName = multi(view.headers);
  const key = (prop: string | symbol) => (typeof prop === 'string' ? prop.toLowerCase() : prop);
  return new Proxy(byName, {
    // Its own toString (the names are in lower case, so none is "toString") prints it whole.
    get: (target, prop) => (prop === 'toString' ? Reflect.get(target, prop) : Reflect.get(target, key(prop))),
    has: (target, prop) => Reflect.has(target, key(prop)),
    getOwnPropertyDescriptor: (target, prop) => Reflect.getOwnPropertyDescriptor(target, key(prop)),
  });
}

/** The model a response template renders: `request` and `parameters`. */
export function templateModel(view: RequestView, pathParams: Record<string, string>, parameters: Record<string, unknown>): object {
  const segments = view.path.split('/').slice(1);
  // WireMock's baseUrl is the URL up to the path, so that baseUrl + url is the URL called: in a
  // workspace it ends with /ws/{name}, since url and path are relative to it (tester5 finding 7).
  const origin = `${view.scheme}://${view.host}${(view.scheme === 'http' && view.port === 80) || (view.scheme === 'https' && view.port === 443) ? '' : `:${view.port}`}`;
  const baseUrl = `${origin}${view.base}`;
  return {
    request: {
      id: view.id,
      url: view.url,
      path: new RequestPath(view.path, segments, pathParams),
      pathSegments: segments,
      query: multi(view.query),
      headers: headersOf(view),
      cookies: cookiesOf(view.headers.get('cookie') ?? []),
      method: view.method,
      body: view.text,
      bodyAsBase64: view.body.toString('base64'),
      host: view.host,
      port: view.port,
      scheme: view.scheme,
      baseUrl,
      clientIp: view.clientIp,
    },
    parameters,
  };
}
