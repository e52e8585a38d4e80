// The only module that reads process.env. Everything is parsed once, every
// problem is reported in a single error, and the result is frozen.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CronExpressionParser } from 'cron-parser';
import { parseCidrs } from './domain/webhooks/address-policy.js';
import { TRENDS_PLANS, type TrendsPlanName } from './research/trends-plan.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The repository root, whether running from src/ (tests) or dist/src/ (built). */
export const PROJECT_ROOT = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
})();

export interface Config {
  /** Unset means: start the embedded Postgres (PGlite) under dataDir. */
  readonly databaseUrl: string | undefined;
  /** A streaming replica web processes read from, once it has replayed what a response needs (see db/read-router.ts). */
  readonly databaseReadUrl: string | undefined;
  /** Connections per process. 1 when DATABASE_URL points at an embedded (PGlite) server: it has one session. */
  readonly databasePoolSize: number;
  /** Unset means: Redis on 127.0.0.1:6379, else a redis-server started under dataDir. */
  readonly redisUrl: string | undefined;
  /** Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES=host:port,…); replaces REDIS_URL. */
  readonly redisClusterNodes: Array<{ host: string; port: number }> | undefined;
  readonly host: string;
  readonly port: number;
  readonly logLevel: LogLevel;
  /** Where embedded Postgres and Redis keep their files. */
  readonly dataDir: string;
  /** Prefix for every Redis key (queues, quotas, caches). Use a {hash tag} on Redis Cluster. */
  readonly redisPrefix: string;
  /** Default folder of real Google Trends series for `insights seed --demo`. */
  readonly demoSeriesDir: string;
  /** Seconds a cached read-model response may live even if no write invalidates it. */
  readonly apiCacheTtlSeconds: number;
  /** The response cache's budget per web process, in bytes (least recently used pages go first). */
  readonly apiCacheMaxBytes: number;
  /** How often each web process writes counted usage and keys' last use to Postgres (ms). */
  readonly usageFlushMs: number;
  /** Where Google Trends data comes from: live Google, recorded answers, or generated data (load tests only). */
  readonly trendsProvider: TrendsProviderName;
  /** Live Google Trends requests (trends jobs) per minute per egress route, across all workers; 0 = no limit. */
  readonly trendsRatePerMinute: number;
  /** HTTP CONNECT proxies requests to Google leave through, each with its own rate and pause; empty = direct. */
  readonly trendsProxyUrls: string[];
  /**
   * The fixed term every idea is compared with to calibrate demand (step 12),
   * and its maps when the two are comparable (17, 18). Unset: "weather", or
   * "bagel" for replay (see anchorTermFor).
   */
  readonly trendsAnchor: string | undefined;
  /** How research runs ask Google Trends: "batched" (few requests, the default) or "single" (one keyword per request, the baseline). */
  readonly trendsRequestPlan: TrendsPlanName;
  /** Geography of interest-over-time requests ('' = worldwide). */
  readonly trendsGeo: string;
  /** Recorded Google Trends exchanges served by the replay provider. */
  readonly recordedTrendsDir: string;
  /** Research steps one worker process runs at once. */
  readonly researchConcurrency: number;
  /** Webhook deliveries one worker process has in flight (I/O-bound: a slow receiver holds one for at most webhookTimeoutMs). */
  readonly webhookConcurrency: number;
  /** Overall deadline of one webhook delivery attempt, from connect to the end of the answer. */
  readonly webhookTimeoutMs: number;
  /** Each synthetic Trends answer takes this long (load and chaos tests: runs then last as long as real ones, in proportion). */
  readonly syntheticLatencyMs: number;
  /** How long a worker's job lock lasts; a crashed worker's jobs are retried after about this long. */
  readonly jobLockMs: number;
  /** Pause of the trends queue after Google's first 429; doubles per 429 in a row, up to 10 minutes. */
  readonly trendsPauseMs: number;
  /** How long a step or refresh waits for a trends answer before sleeping (without spending an attempt). */
  readonly trendsWaitMs: number;
  /** Overall deadline of one Google Trends request, all its HTTPS exchanges included. */
  readonly trendsRequestTimeoutMs: number;
  /** Cron (UTC) of the daily refresh of every researched insight's series, forecast and scores. */
  readonly refreshCron: string;
  /** Cron (UTC) of the daily discovery of candidate ideas from Google daily trends. */
  readonly discoveryCron: string;
  /** Geographies discovery reads daily trends for. */
  readonly discoveryGeos: string[];
  /** At most this many discovery research runs per UTC day. */
  readonly discoveryDailyCap: number;
  /** Outbound webhooks may reach private, loopback and link-local addresses (never cloud metadata unless listed). */
  readonly webhookAllowPrivate: boolean;
  /** CIDRs webhooks may always reach, e.g. 10.1.0.0/16. */
  readonly webhookAllowedCidrs: string[];
  /** A subscription failing without a break for this long is disabled. */
  readonly webhookDisableAfterHours: number;
  /** After rotate-secret, the old secret keeps signing this long. */
  readonly webhookSecretOverlapHours: number;
  /** base64 of 32 bytes that encrypt webhook secrets at rest; unset: a key generated once under DATA_DIR. */
  readonly webhookEncryptionKey: string | undefined;
  /** Base of the links in webhook bodies. */
  readonly publicBaseUrl: string;
  /** Multiplies the webhook retry schedule (1 in production; tests and staging shrink it). */
  readonly webhookRetryScale: number;
  /** Event-loop delay (ms) above which the API sheds load with 503 + Retry-After. */
  readonly overloadMaxEventLoopDelayMs: number;
  /** Guards /metrics and /admin/queues (Bearer, or Basic with it as password); both are off when unset. */
  readonly adminToken: string | undefined;
  /** A worker process serves /metrics on this port when set. */
  readonly metricsPort: number | undefined;
  /** On SIGTERM the web process reports unready and keeps serving this long before closing. */
  readonly shutdownDrainMs: number;
  /** The HTTP server's bounds on every inbound connection (see SECURITY.md). */
  readonly http: HttpLimits;
}

export interface HttpLimits {
  /** A whole request (headers and any body) must arrive within this. */
  readonly requestTimeoutMs: number;
  /** The request's headers must arrive within this. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Connections beyond this are refused at accept. */
  readonly maxConnections: number;
}

export const TRENDS_PROVIDERS = ['google', 'replay', 'synthetic'] as const;
export type TrendsProviderName = (typeof TRENDS_PROVIDERS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}\nSee .env.example for every variable.`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const url = (name: string, protocols: readonly string[]): string | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  };
  const cron = (name: string, fallback: string): string => {
    const value = text(name) ?? fallback;
    try {
      if (!/^(\S+\s+){4}\S+$/.test(value)) throw new Error('not 5 fields');
      // The parser BullMQ's schedulers use: what passes here, they accept.
      CronExpressionParser.parse(value, { tz: 'UTC' });
    } catch (error) {
      problems.push(`${name} must be a 5-field cron expression in UTC such as "0 3 * * *" (got "${value}": ${error instanceof Error ? error.message : String(error)})`);
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = text(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  };

  const config: Config = {
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseReadUrl: url('DATABASE_READ_URL', ['postgres:', 'postgresql:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    redisClusterNodes: (() => {
      const raw = text('REDIS_CLUSTER_NODES');
      if (raw === undefined) return undefined;
      const nodes = raw.split(',').map((n) => n.trim()).filter(Boolean).map((n) => {
        const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(n);
        if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) {
          problems.push(`REDIS_CLUSTER_NODES: "${n}" is not host:port (e.g. 10.0.0.5:7000)`);
          return undefined;
        }
        return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
      });
      if (nodes.length === 0) problems.push('REDIS_CLUSTER_NODES is set but names no node (host:port,host:port)');
      return nodes.filter((n): n is { host: string; port: number } => n !== undefined);
    })(),
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10, 1, 200),
    host: text('HOST') ?? '127.0.0.1',
    port: integer('PORT', 3000, 0, 65535),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    dataDir: path.resolve(PROJECT_ROOT, text('DATA_DIR') ?? '.data'),
    redisPrefix: text('REDIS_PREFIX') ?? 'si',
    demoSeriesDir: path.resolve(PROJECT_ROOT, text('DEMO_SERIES_DIR') ?? '../shared/data/trends-series'),
    apiCacheTtlSeconds: integer('API_CACHE_TTL_SECONDS', 60, 0, 86_400),
    apiCacheMaxBytes: integer('API_CACHE_MAX_MB', 64, 1, 65_536) * 1024 * 1024,
    usageFlushMs: integer('USAGE_FLUSH_MS', 30_000, 100, 60_000),
    trendsProvider: oneOf('TRENDS_PROVIDER', TRENDS_PROVIDERS, 'google'),
    trendsRatePerMinute: 0,
    trendsAnchor: text('TRENDS_ANCHOR'),
    trendsGeo: text('TRENDS_GEO') ?? '',
    trendsRequestPlan: oneOf('TRENDS_REQUEST_PLAN', TRENDS_PLANS, 'batched'),
    trendsProxyUrls: (text('TRENDS_PROXY_URLS') ?? '').split(',').map((u) => u.trim()).filter(Boolean),
    recordedTrendsDir: path.resolve(PROJECT_ROOT, text('RECORDED_TRENDS_DIR') ?? '../shared/data/google-trends-recorded'),
    researchConcurrency: integer('RESEARCH_CONCURRENCY', 20, 1, 500),
    webhookConcurrency: integer('WEBHOOK_CONCURRENCY', 100, 1, 1_000),
    webhookTimeoutMs: integer('WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    syntheticLatencyMs: integer('SYNTHETIC_LATENCY_MS', 0, 0, 60_000),
    jobLockMs: integer('JOB_LOCK_MS', 30_000, 1_000, 600_000),
    trendsPauseMs: integer('TRENDS_PAUSE_MS', 30_000, 100, 3_600_000),
    trendsWaitMs: integer('TRENDS_WAIT_MS', 20_000, 100, 600_000),
    trendsRequestTimeoutMs: integer('TRENDS_REQUEST_TIMEOUT_MS', 20_000, 100, 300_000),
    refreshCron: cron('REFRESH_CRON', '0 3 * * *'),
    discoveryCron: cron('DISCOVERY_CRON', '0 4 * * *'),
    discoveryGeos: (text('DISCOVERY_GEOS') ?? 'US').split(',').map((g) => g.trim().toUpperCase()).filter(Boolean),
    discoveryDailyCap: integer('DISCOVERY_DAILY_CAP', 10, 0, 1_000),
    webhookAllowPrivate: oneOf('WEBHOOK_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true',
    webhookAllowedCidrs: (text('WEBHOOK_ALLOWED_CIDRS') ?? '').split(',').map((c) => c.trim()).filter(Boolean),
    webhookDisableAfterHours: integer('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 24 * 365),
    webhookSecretOverlapHours: integer('WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 24 * 30),
    webhookEncryptionKey: text('WEBHOOK_ENCRYPTION_KEY'),
    webhookRetryScale: (() => {
      const raw = text('WEBHOOK_RETRY_SCALE');
      const v = raw === undefined ? 1 : Number(raw);
      if (!(v > 0 && v <= 10)) problems.push(`WEBHOOK_RETRY_SCALE must be a number above 0 and at most 10 (got "${raw}")`);
      return v > 0 && v <= 10 ? v : 1;
    })(),
    overloadMaxEventLoopDelayMs: integer('OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 500, 10, 60_000),
    adminToken: text('ADMIN_TOKEN'),
    shutdownDrainMs: integer('SHUTDOWN_DRAIN_MS', 1_000, 0, 60_000),
    http: {
      requestTimeoutMs: integer('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
      headersTimeoutMs: integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000),
      keepAliveTimeoutMs: integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1_000, 600_000),
      maxConnections: integer('HTTP_MAX_CONNECTIONS', 2_000, 1, 1_000_000),
    },
    metricsPort: text('METRICS_PORT') === undefined ? undefined : integer('METRICS_PORT', 9464, 1, 65535),
    publicBaseUrl: '',
  };
  if (config.adminToken !== undefined && config.adminToken.length < 16) {
    problems.push('ADMIN_TOKEN must be at least 16 characters (openssl rand -hex 24)');
  }
  if (config.webhookEncryptionKey !== undefined && Buffer.from(config.webhookEncryptionKey, 'base64').length !== 32) {
    problems.push('WEBHOOK_ENCRYPTION_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32)');
  }
  for (const cidr of config.webhookAllowedCidrs) {
    try {
      parseCidrs([cidr]);
    } catch (error) {
      problems.push(`WEBHOOK_ALLOWED_CIDRS: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // Links in webhook bodies point here; by default at this process's own address.
  (config as { publicBaseUrl: string }).publicBaseUrl = (text('PUBLIC_BASE_URL') ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`).replace(/\/$/, '');
  try {
    const base = new URL(config.publicBaseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') problems.push(`PUBLIC_BASE_URL must be http:// or https:// (got ${base.protocol})`);
  } catch {
    problems.push(`PUBLIC_BASE_URL is not a valid URL (got "${config.publicBaseUrl}")`);
  }
  const problemsBeforeProxies = problems.length;
  for (const proxy of config.trendsProxyUrls) {
    try {
      const u = new URL(proxy);
      if (u.protocol !== 'http:' || !u.hostname || u.pathname.length > 1 || u.search) throw new Error('not http://host:port');
    } catch {
      problems.push(`TRENDS_PROXY_URLS: "${proxy.replace(/\/\/[^@/]*@/, '//***@')}" is not an HTTP CONNECT proxy URL like http://user:pass@10.0.0.5:3128`);
    }
  }
  if (problems.length === problemsBeforeProxies && new Set(config.trendsProxyUrls.map((p) => new URL(p).host)).size !== config.trendsProxyUrls.length) {
    problems.push('TRENDS_PROXY_URLS lists the same proxy twice');
  }
  for (const geo of config.discoveryGeos) {
    if (!/^[A-Z]{2}$/.test(geo)) problems.push(`DISCOVERY_GEOS: "${geo}" is not a two-letter country code such as US`);
  }
  if (config.trendsGeo !== '' && !/^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(config.trendsGeo)) {
    problems.push(`TRENDS_GEO must be empty (worldwide) or a country code such as US or US-CA (got "${config.trendsGeo}")`);
  }
  // Applies to live Google only (replay and synthetic are local): conservative, since Google blocks bursts.
  (config as { trendsRatePerMinute: number }).trendsRatePerMinute = integer('TRENDS_RATE_PER_MINUTE', 10, 0, 100_000);
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(config.redisPrefix)) {
    problems.push(`REDIS_PREFIX must be 1–32 letters, digits, "-" or "_" (got "${config.redisPrefix}"); the cluster hash tags are added per key (see src/redis/keys.ts)`);
  }
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    problems.push(`HTTP_HEADERS_TIMEOUT_MS (${config.http.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${config.http.requestTimeoutMs})`);
  }
  if (config.databaseReadUrl !== undefined && config.databaseUrl === undefined) {
    problems.push('DATABASE_READ_URL needs DATABASE_URL (the primary it replicates); the embedded Postgres has no replica');
  }
  if (config.redisUrl !== undefined && config.redisClusterNodes !== undefined) {
    problems.push('REDIS_URL and REDIS_CLUSTER_NODES are both set: a cluster replaces REDIS_URL, set one of them');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
