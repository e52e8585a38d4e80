// The web section: the HTTP server's address, bounds, cache, TRUST_PROXY and the account pages' limits.
import { parseCidr, type Cidr } from '../domain/ip.js';
import { EnvReader, shownValue } from './env-reader.js';

export interface WebConfig {
  readonly host: string;
  readonly port: number;
  /** Base of the links in webhook bodies and pages. */
  readonly publicBaseUrl: string;
  /**
   * Addresses or CIDRs of the reverse proxies in front of the web process
   * (TRUST_PROXY). Only from these is X-Forwarded-For believed; empty: the
   * client is whoever connected.
   */
  readonly trustProxy: readonly string[];
  /** The HTTP server's bounds on every inbound connection (see SECURITY.md). */
  readonly http: HttpLimits;
  /** Seconds a cached read-model response may live even if no write invalidates it. */
  readonly cacheTtlSeconds: number;
  /** The response cache's budget per web process, in bytes (least recently used pages go first). */
  readonly cacheMaxBytes: number;
  /** How often each web process writes counted usage and keys' last use to Postgres (ms). */
  readonly usageFlushMs: number;
  /** Event-loop delay (ms) above which the API sheds load with 503 + Retry-After. */
  readonly overloadMaxEventLoopDelayMs: number;
  /** On SIGTERM the web process reports unready and keeps serving this long before closing. */
  readonly shutdownDrainMs: number;
  /** The account pages' bounds: password hashing per process, and pages per session and per account. */
  readonly pages: PagesLimits;
}

/** The account pages' bounds (see SECURITY.md); the defaults of an app built without settings too. */
export interface PagesLimits {
  /** scrypt hashes running at once per web process (SIGN_IN_HASH_CONCURRENCY); 0: unbounded, the benchmark's baseline only. */
  readonly hashConcurrent: number;
  /** Of those, the ones kept for browsers that signed in to the account before (SIGN_IN_HASH_RESERVED_KNOWN). */
  readonly hashReservedForKnown: number;
  /** Sign-ins that may wait for a hash, per lane (known browsers, everyone else); past it 503 + Retry-After (SIGN_IN_HASH_QUEUE). */
  readonly hashWaiting: number;
  /** Account pages one session may open a minute (ACCOUNT_PAGES_PER_MINUTE_SESSION). */
  readonly perSessionPerMinute: number;
  /** Account pages all sessions of one account may open a minute (ACCOUNT_PAGES_PER_MINUTE_ACCOUNT). */
  readonly perAccountPerMinute: number;
}

export const PAGES_DEFAULTS: PagesLimits = Object.freeze({
  hashConcurrent: 2,
  hashReservedForKnown: 1,
  hashWaiting: 16,
  perSessionPerMinute: 60,
  perAccountPerMinute: 240,
});

/** The HTTP limits' defaults, written once: loadConfig's and an app built without settings (tests). */
export const HTTP_DEFAULTS: HttpLimits = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2_000,
  maxConnectionsPerClient: 256,
  maxPipelined: 16,
  maxQueuedBytes: 1024 * 1024,
  maxQueuedTotalBytes: 64 * 1024 * 1024,
  unreadTimeoutMs: 30_000,
});

export interface HttpLimits {
  /** A whole request (headers and any body) must arrive within this. */
  readonly requestTimeoutMs: number;
  /** The request's headers must arrive within this. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Connections beyond this are refused at accept. */
  readonly maxConnections: number;
  /** Once half of maxConnections are open, a client (an IPv4 address, an IPv6 /64; TRUST_PROXY's proxies exempt) holding this many gets no more. */
  readonly maxConnectionsPerClient: number;
  /** Requests one connection may have in flight (pipelined); past it, it stops being read and is closed. */
  readonly maxPipelined: number;
  /** Bytes of answers one connection may leave unread in the process; past it, likewise. */
  readonly maxQueuedBytes: number;
  /** Bytes of unread answers over all connections; past it, the connections holding the most are closed. */
  readonly maxQueuedTotalBytes: number;
  /** A connection whose client has read none of its answers for this long is reset (answers in the kernel's buffer count too). */
  readonly unreadTimeoutMs: number;
}

/**
 * Why a TRUST_PROXY network is too wide to be a set of proxies, if it is:
 * 0.0.0.0/0, ::/0 or ::ffff:0:0/96 would let every sender choose the address
 * it is limited by. No network wider than a /8 of its family (IPv4 written
 * inside IPv6, under ::/80, counts as IPv4).
 */
function tooWideToTrust({ address, prefix }: Cidr): string | undefined {
  const carriesIpv4 = address.family === 6 && address.bytes.subarray(0, 10).every((b) => b === 0);
  const ipv4Prefix = address.family === 4 ? prefix : carriesIpv4 ? prefix - 96 : undefined;
  if (ipv4Prefix !== undefined ? ipv4Prefix < 8 : prefix < 8) {
    return 'is wider than a /8: list the proxies themselves; trusting that many senders would let any client choose the address it is limited by';
  }
  return undefined;
}

function loadTrustProxy(read: EnvReader): string[] {
  const trusted: string[] = [];
  const raw = read.text('TRUST_PROXY');
  if (raw === undefined || raw === 'false') return trusted;
  for (const cidr of raw.split(',').map((c) => c.trim())) {
    if (cidr === 'true' || cidr === '*') {
      read.check(
        false,
        'TRUST_PROXY must list the proxies (addresses or CIDRs such as 10.0.0.0/8); trusting every sender would let any client choose the address it is limited by',
      );
      continue;
    }
    try {
      const wide = tooWideToTrust(parseCidr(cidr));
      if (wide) read.check(false, `TRUST_PROXY: ${cidr} ${wide}`);
      else trusted.push(cidr);
    } catch (error) {
      read.check(false, `TRUST_PROXY: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return trusted;
}

function loadHttpLimits(read: EnvReader): HttpLimits {
  const limits = {
    requestTimeoutMs: read.integer('HTTP_REQUEST_TIMEOUT_MS', HTTP_DEFAULTS.requestTimeoutMs, 1_000, 600_000),
    headersTimeoutMs: read.integer('HTTP_HEADERS_TIMEOUT_MS', HTTP_DEFAULTS.headersTimeoutMs, 1_000, 600_000),
    keepAliveTimeoutMs: read.integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', HTTP_DEFAULTS.keepAliveTimeoutMs, 1_000, 600_000),
    maxConnections: read.integer('HTTP_MAX_CONNECTIONS', HTTP_DEFAULTS.maxConnections, 1, 1_000_000),
    maxConnectionsPerClient: read.integer('HTTP_MAX_CONNECTIONS_PER_CLIENT', HTTP_DEFAULTS.maxConnectionsPerClient, 1, 1_000_000),
    maxPipelined: read.integer('HTTP_MAX_PIPELINED', HTTP_DEFAULTS.maxPipelined, 1, 1_000),
    maxQueuedBytes: read.integer('HTTP_MAX_UNREAD_KB', HTTP_DEFAULTS.maxQueuedBytes / 1024, 64, 1_048_576) * 1024,
    maxQueuedTotalBytes: read.integer('HTTP_MAX_UNREAD_TOTAL_MB', HTTP_DEFAULTS.maxQueuedTotalBytes / 2 ** 20, 1, 65_536) * 2 ** 20,
    unreadTimeoutMs: read.integer('HTTP_UNREAD_TIMEOUT_MS', HTTP_DEFAULTS.unreadTimeoutMs, 1_000, 600_000),
  };
  read.check(
    limits.headersTimeoutMs <= limits.requestTimeoutMs,
    `HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
  );
  return Object.freeze(limits);
}

export function loadWebSection(read: EnvReader): WebConfig {
  const host = read.text('HOST') ?? '127.0.0.1';
  const port = read.integer('PORT', 3000, 0, 65535);
  // Links in webhook bodies point here; by default at this process's own address.
  const publicBaseUrl = (read.text('PUBLIC_BASE_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, '');
  try {
    const base = new URL(publicBaseUrl);
    read.check(
      base.protocol === 'http:' || base.protocol === 'https:',
      `PUBLIC_BASE_URL must be http:// or https:// (got ${base.protocol})`,
    );
  } catch {
    read.check(false, `PUBLIC_BASE_URL is not a valid URL (got ${shownValue(publicBaseUrl)})`);
  }
  return Object.freeze({
    host,
    port,
    publicBaseUrl,
    trustProxy: Object.freeze(loadTrustProxy(read)),
    http: loadHttpLimits(read),
    cacheTtlSeconds: read.integer('API_CACHE_TTL_SECONDS', 60, 0, 86_400),
    cacheMaxBytes: read.integer('API_CACHE_MAX_MB', 64, 1, 65_536) * 1024 * 1024,
    usageFlushMs: read.integer('USAGE_FLUSH_MS', 30_000, 100, 60_000),
    overloadMaxEventLoopDelayMs: read.integer('OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 500, 0, 60_000),
    shutdownDrainMs: read.integer('SHUTDOWN_DRAIN_MS', 1_000, 0, 60_000),
    pages: loadPagesLimits(read),
  });
}

function loadPagesLimits(read: EnvReader): PagesLimits {
  const limits = {
    hashConcurrent: read.integer('SIGN_IN_HASH_CONCURRENCY', PAGES_DEFAULTS.hashConcurrent, 0, 64),
    hashReservedForKnown: read.integer('SIGN_IN_HASH_RESERVED_KNOWN', PAGES_DEFAULTS.hashReservedForKnown, 0, 64),
    hashWaiting: read.integer('SIGN_IN_HASH_QUEUE', PAGES_DEFAULTS.hashWaiting, 0, 10_000),
    perSessionPerMinute: read.integer('ACCOUNT_PAGES_PER_MINUTE_SESSION', PAGES_DEFAULTS.perSessionPerMinute, 1, 100_000),
    perAccountPerMinute: read.integer('ACCOUNT_PAGES_PER_MINUTE_ACCOUNT', PAGES_DEFAULTS.perAccountPerMinute, 1, 1_000_000),
  };
  read.check(
    limits.hashConcurrent === 0 || limits.hashReservedForKnown < limits.hashConcurrent,
    `SIGN_IN_HASH_RESERVED_KNOWN (${limits.hashReservedForKnown}) must be below SIGN_IN_HASH_CONCURRENCY (${limits.hashConcurrent}): everyone else needs a slot too`,
  );
  return Object.freeze(limits);
}
