// Reading a proxied exchange the same way for the recorder and the conformance report: the answer's
// body as the upstream meant it (its Content-Encoding undone), and the secrets the exchange carried,
// to be replaced wherever the answer echoes them (a real service that quotes the request).
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { sentBodyValue } from '../runtime/journal.js';
import { collectSecretValues, EchoSecrets, isFormType, pairSecretValues } from '../runtime/redact.js';
import type { Exchange } from './proxy.js';

/** The first value of a response header, by name in any case. */
export function responseHeader(x: Exchange, name: string): string | undefined {
  const lower = name.toLowerCase();
  return x.responseHeaders.find(([n]) => n.toLowerCase() === lower)?.[1];
}

/**
 * The answer's body without its transfer compression (gzip, deflate, br), so that it can be read as
 * JSON and its secrets masked; as it came when it is not compressed or does not decode. Null: larger
 * than the capture limit.
 */
export function plainResponseBody(x: Exchange): Buffer | null {
  const body = x.responseBody;
  if (body === null || body.length === 0) return body;
  const encoding = responseHeader(x, 'content-encoding')?.trim().toLowerCase();
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body);
    if (encoding === 'deflate') return inflateSync(body);
    if (encoding === 'br') return brotliDecompressSync(body);
  } catch {
    return body;
  }
  return body;
}

function parsed(bytes: Buffer | null): unknown {
  if (bytes === null || bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The secrets of an exchange: the request's (secret headers, path and query parameters and body fields, as the
 * journal reads them), and the answer's own (a Set-Cookie's or X-Auth-Token's value, a token of its
 * JSON or form body), which a Location or a later field may repeat.
 */
export function exchangeSecrets(x: Exchange): EchoSecrets {
  const requestHeaders = [...x.requestHeaders].flatMap(([name, values]) => values.map((v) => [name, v] as const));
  const secrets = EchoSecrets.ofRequest(
    requestHeaders,
    x.url,
    sentBodyValue(x.requestBody, x.requestHeaders.get('content-type')?.[0]),
  );
  for (const [name, value] of x.responseHeaders) secrets.addHeader(name, value);
  const body = plainResponseBody(x);
  if (body !== null && body.length > 0) {
    if (isFormType(responseHeader(x, 'content-type'))) pairSecretValues(body.toString('utf8'), (v) => secrets.add(v));
    else collectSecretValues(parsed(body), (v) => secrets.add(v));
  }
  return secrets;
}
