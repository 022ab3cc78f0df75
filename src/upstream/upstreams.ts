// Where proxy mode sends requests: `--upstream URL` for every interface (and the paths outside every
// prefix), or `--upstream IFACE=URL` per interface, repeatable, so the interfaces may live on
// different hosts. An interface given its own URL uses it; the others use the one for all, if any.

export class UpstreamConfigError extends Error {
  override name = 'UpstreamConfigError';
}

/** A base URL requests are forwarded under: the request's path and query are appended to its path. */
export interface Upstream {
  /** As configured, for messages and the journal. */
  url: string;
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** The base path, without a trailing slash ('' for the root). */
  basePath: string;
  /** The Host header the upstream expects. */
  host: string;
}

/**
 * A URL (or what was meant as one) as messages print it: the password of its credentials written
 * [redacted] (`user:[redacted]@`), a user alone too (it may be a token), whatever else is wrong with it.
 */
export function printableUrl(text: string): string {
  return text.replace(/^([^:/?#]+:\/\/)([^/?#]*)@/, (_, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon === -1 ? '[redacted]' : `${userinfo.slice(0, colon)}:[redacted]`}@`;
  });
}

export function parseUpstreamUrl(text: string): Upstream {
  const shown = printableUrl(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UpstreamConfigError(`the upstream "${shown}" is not a URL (write e.g. https://homologation.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamConfigError(`the upstream ${shown} must be http or https`);
  if (url.search || url.hash) throw new UpstreamConfigError(`the upstream ${shown} must have no query string or fragment`);
  if (url.username || url.password) throw new UpstreamConfigError(`the upstream ${shown} must carry no credentials: clients send their own`);
  return {
    url: text,
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    basePath: url.pathname.replace(/\/+$/, ''),
    host: url.host,
  };
}

export class Upstreams {
  private constructor(
    private readonly all: Upstream | undefined,
    private readonly byInterface: ReadonlyMap<string, Upstream>,
  ) {}

  static none(): Upstreams {
    return new Upstreams(undefined, new Map());
  }

  /**
   * Reads `--upstream` values: `URL` (every interface, and paths outside the prefixes) or `IFACE=URL`.
   * `interfaces` are the interface ids a value may name.
   */
  static parse(values: readonly string[], interfaces: readonly string[]): Upstreams {
    let all: Upstream | undefined;
    const byInterface = new Map<string, Upstream>();
    for (const value of values) {
      const m = /^([a-z][a-z0-9-]*)=(.+)$/.exec(value);
      if (m && !/^https?$/.test(m[1] ?? '')) {
        const id = m[1] ?? '';
        if (!interfaces.includes(id)) {
          throw new UpstreamConfigError(`--upstream ${id}=${printableUrl(m[2] ?? '')}: "${id}" is not an interface (one of ${interfaces.join(', ')})`);
        }
        if (byInterface.has(id)) throw new UpstreamConfigError(`--upstream names ${id} twice`);
        byInterface.set(id, parseUpstreamUrl(m[2] ?? ''));
      } else {
        if (all) throw new UpstreamConfigError('--upstream is given twice without an interface: give one URL for all, or IFACE=URL each');
        all = parseUpstreamUrl(value);
      }
    }
    return new Upstreams(all, byInterface);
  }

  get enabled(): boolean {
    return this.all !== undefined || this.byInterface.size > 0;
  }

  /** Where a request under an interface's prefix goes (null: outside every prefix). */
  for(interfaceId: string | null): Upstream | undefined {
    if (interfaceId === null) return this.all;
    return this.byInterface.get(interfaceId) ?? this.all;
  }

  /** Every upstream configured, by what it serves ('*' for all). */
  describe(): Array<{ interface: string; url: string }> {
    return [
      ...(this.all ? [{ interface: '*', url: this.all.url }] : []),
      ...[...this.byInterface].map(([id, u]) => ({ interface: id, url: u.url })),
    ];
  }
}
