// How requests leave for Google: directly, or through an HTTP CONNECT proxy
// (TRENDS_PROXY_URLS). Each request gets an agent of its own, so its deadline
// can destroy exactly its sockets, the tunnel included. TLS runs end to end
// through the tunnel: the proxy sees only the host name.
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { parseProxyUrl } from '../../../domain/proxy-url.js';

export class EgressTimeoutError extends Error {
  override name = 'EgressTimeoutError';
}

export interface EgressRoute {
  /** "direct", or the proxy's host:port (never its credentials): how ops see it. */
  readonly name: string;
  readonly proxy?: URL;
  /** The proxy's Proxy-Authorization value, decoded from its URL once (see parseProxyUrl). */
  readonly proxyAuthorization?: string;
  /** The consent cookie the operator configured for this route (TRENDS_CONSENT_COOKIES): an EU address needs one. */
  readonly consentCookie?: string;
}

/**
 * Throws ProxyUrlError (which never repeats a password) for a URL that would
 * fail every request. `consentCookies`: each route's consent cookie, by route
 * name (TRENDS_CONSENT_COOKIES).
 */
export function routesFrom(proxyUrls: readonly string[], consentCookies: Readonly<Record<string, string>> = {}): EgressRoute[] {
  const consent = (name: string) => (consentCookies[name] ? { consentCookie: consentCookies[name] } : {});
  if (proxyUrls.length === 0) return [{ name: 'direct', ...consent('direct') }];
  return proxyUrls.map((raw) => {
    const proxy = parseProxyUrl(raw);
    return {
      name: proxy.name,
      proxy: proxy.url,
      ...(proxy.authorization ? { proxyAuthorization: proxy.authorization } : {}),
      ...consent(proxy.name),
    };
  });
}

interface AgentOptions {
  /** Extra CA certificates (tests that run a Google of their own); production uses the system's. */
  ca?: string | Buffer;
  /**
   * Connect to this host name instead of the request's, TLS still naming the
   * request's (curl's --connect-to): tests reach a name that does not resolve
   * (`*.invalid`) through the real client. Production never sets it.
   */
  connectTo?: string;
}

/** A name that did not resolve: Google's, or the egress proxy's. */
export interface UnresolvedHost {
  host: string;
  /** ENOTFOUND (no such name) or EAI_AGAIN (the resolver did not answer). */
  code: 'ENOTFOUND' | 'EAI_AGAIN';
  /** The name is the route's proxy's, not Google's. */
  proxy: boolean;
}

/** The DNS failure behind `error` (Node's getaddrinfo error, as the request raises it), if it is one. */
export function unresolvedHost(error: unknown, route: EgressRoute): UnresolvedHost | undefined {
  const e = error as { code?: unknown; hostname?: unknown } | null;
  if (typeof e !== 'object' || e === null || (e.code !== 'ENOTFOUND' && e.code !== 'EAI_AGAIN')) return undefined;
  const host = typeof e.hostname === 'string' ? e.hostname : 'trends.google.com';
  return { host, code: e.code, proxy: route.proxy !== undefined && route.proxy.hostname === host };
}

/** An agent whose sockets, tunnels and pending connects can all be destroyed at once. */
class EgressAgent extends https.Agent {
  private readonly opened = new Set<net.Socket>();
  private destroyed = false;

  constructor(
    private readonly route: EgressRoute,
    private readonly extra: AgentOptions,
  ) {
    super({ keepAlive: true, maxSockets: 1, ...(extra.ca ? { ca: extra.ca } : {}) });
  }

  override createConnection(
    requestOptions: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const options = requestOptions as https.RequestOptions & tls.ConnectionOptions;
    const done = callback ?? (() => {});
    if (!this.route.proxy) {
      const connectTo = this.extra.connectTo
        ? { host: this.extra.connectTo, servername: options.servername ?? options.host ?? undefined }
        : {};
      const socket = tls.connect({ ...options, ...connectTo, ...(this.extra.ca ? { ca: this.extra.ca } : {}) });
      this.track(socket);
      return socket;
    }
    const proxy = this.route.proxy;
    const host = this.extra.connectTo ?? options.host ?? 'trends.google.com';
    const port = Number(options.port ?? 443);
    const raw = net.connect({ host: proxy.hostname, port: Number(proxy.port || 80) });
    this.track(raw);
    const auth = this.route.proxyAuthorization ? `Proxy-Authorization: ${this.route.proxyAuthorization}\r\n` : '';
    raw.once('connect', () => raw.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth}\r\n`));
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > 8_192) fail(new Error(`proxy ${this.route.name} sent an oversized CONNECT answer`));
        return;
      }
      raw.off('data', onData);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      if (status !== 200) return fail(new Error(`proxy ${this.route.name} refused CONNECT ${host}:${port} (${status || 'no status'})`));
      const secure = tls.connect({
        ...options,
        socket: raw,
        servername: options.servername ?? host,
        ...(this.extra.ca ? { ca: this.extra.ca } : {}),
      });
      this.track(secure);
      done(null, secure);
    };
    const fail = (error: Error) => {
      raw.destroy();
      done(error, raw);
    };
    raw.on('data', onData);
    raw.once('error', fail);
    if (this.destroyed) raw.destroy();
    return undefined;
  }

  private track(socket: net.Socket): void {
    this.opened.add(socket);
    socket.once('close', () => this.opened.delete(socket));
  }

  override destroy(): void {
    this.destroyed = true;
    for (const socket of this.opened) socket.destroy();
    super.destroy();
  }
}

/** Runs a wait (the route's pace) with the request's deadline stopped: the time is ours, bounded by the pool, not Google's. */
export type OutsideDeadline = <T>(wait: () => Promise<T>) => Promise<T>;

/**
 * Runs `call` with a fresh agent for `route`, and destroys every socket it
 * opened when it settles or when `timeoutMs` of talking to Google have passed,
 * whichever is first: a Google (or proxy) that answers slowly, or not at all,
 * holds nothing longer. Waits run through `outsideDeadline` (pacing between
 * requests) do not count against it.
 */
export async function withEgress<T>(
  route: EgressRoute,
  timeoutMs: number,
  call: (agent: https.Agent, outsideDeadline: OutsideDeadline) => Promise<T>,
  options: AgentOptions = {},
): Promise<T> {
  const agent = new EgressAgent(route, options);
  let timer: NodeJS.Timeout | undefined;
  let remaining = timeoutMs;
  let armedAt = 0;
  let settled = false;
  let expire: (error: Error) => void = () => {};
  const deadline = new Promise<never>((_, reject) => {
    expire = reject;
  });
  const arm = () => {
    if (settled) return;
    armedAt = Date.now();
    timer = setTimeout(
      () => {
        expire(new EgressTimeoutError(`Google Trends did not answer within ${timeoutMs} ms (via ${route.name})`));
        agent.destroy();
      },
      Math.max(0, remaining),
    );
  };
  const outsideDeadline: OutsideDeadline = async (wait) => {
    clearTimeout(timer);
    remaining -= Date.now() - armedAt;
    try {
      return await wait();
    } finally {
      arm();
    }
  };
  arm();
  try {
    return await Promise.race([call(agent, outsideDeadline), deadline]);
  } finally {
    settled = true;
    clearTimeout(timer);
    agent.destroy();
  }
}
