// An HTTP CONNECT proxy URL (TRENDS_PROXY_URLS), checked whole at start-up:
// a value that parses but would fail on every request later (a bad %-escape in
// its user name or password, a path, a query) is refused there, and the
// credentials are decoded once. Nothing here ever repeats a password: what a
// message may show of a proxy is its scheme, host and port.

export interface ProxyUrl {
  readonly url: URL;
  /** host:port, as ops see the route (never its credentials). */
  readonly name: string;
  /** The Proxy-Authorization header's value, or undefined without credentials. */
  readonly authorization: string | undefined;
}

export class ProxyUrlError extends Error {
  constructor(
    /** What is wrong, without the value's credentials. */
    readonly reason: string,
    /** What of the value may be shown: scheme, host and port, or nothing when it does not parse. */
    readonly shown: string | undefined,
  ) {
    super(`${shown ? `${shown}: ` : ''}${reason}`);
    this.name = 'ProxyUrlError';
  }
}

const EXAMPLE = 'http://user:pass@10.0.0.5:3128';

export function parseProxyUrl(raw: string): ProxyUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not shown: a password with a "/" or "@" in it ends up anywhere in a value that does not parse.
    throw new ProxyUrlError(
      `it is not a URL like ${EXAMPLE} (a "/", "@" or ":" in a user name or password must be written %2F, %40, %3A)`,
      undefined,
    );
  }
  const shown = `${url.protocol}//${url.host}`;
  const fail = (reason: string): never => {
    throw new ProxyUrlError(reason, shown);
  };
  if (url.protocol !== 'http:') fail(`it must use http:// (an HTTP CONNECT proxy), like ${EXAMPLE}`);
  if (!url.hostname) fail('it names no host');
  if (url.pathname.length > 1 || url.search || url.hash)
    fail('it must be only http://user:pass@host:port, with no path, query or fragment');
  let username = '';
  let password = '';
  try {
    username = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    fail('its user name or password has a bad %-escape (write "%" itself as %25)');
  }
  return {
    url,
    name: url.host,
    authorization: url.username || url.password ? `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` : undefined,
  };
}
