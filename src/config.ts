// The only module that reads process.env (and the .env file beside it).
// Everything is parsed once, every problem is reported in a single error, and
// the result is frozen.
import { DEFAULT_DELIVERY_FAIRNESS, type DeliveryFairness } from './domain/webhooks/fairness.js';
import { DEFAULT_WEBHOOK_SENDS, type WebhookSendLimits } from './domain/webhooks/sends.js';
import { DEFAULT_RESEARCH_ALLOWANCE, type ResearchAllowance } from './domain/research/allowance.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { CronExpressionParser } from 'cron-parser';
import { parseCidr, type Cidr } from './domain/ip.js';
import { PLAN_VALUES, type Plan } from './domain/quota.js';
import { parseProxyUrl, ProxyUrlError } from './domain/proxy-url.js';
import type { SettingsReader } from './domain/trends/provider-profile.js';
import {
  kindOfProviders,
  PROVIDER_NAMES,
  PROVIDERS,
  providerLabel,
  type ProviderName,
  type ProviderSettings,
} from './providers/registry.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The repository root, whether running from src/ (tests) or dist/src/ (built). */
export const PROJECT_ROOT = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
})();

/**
 * The whole configuration: a few process-wide settings and one section per
 * part of the service, each read by its own function below and frozen.
 */
export interface Config {
  readonly logLevel: LogLevel;
  /** Where embedded Postgres and Redis keep their files. */
  readonly dataDir: string;
  /** Folder of real Google Trends series the demo is loaded from (`npm start`'s first run, `insights seed --demo`); the repository's own by default. */
  readonly demoSeriesDir: string;
  readonly database: DatabaseConfig;
  readonly redis: RedisConfig;
  readonly web: WebConfig;
  readonly admin: AdminConfig;
  readonly trends: TrendsConfig;
  /** Each provider's own section, declared by the provider (src/providers/<name>/profile.ts, `settings`). */
  readonly providerSettings: ProviderSettings;
  readonly worker: WorkerConfig;
  readonly schedules: ScheduleConfig;
  readonly webhooks: WebhookConfig;
  readonly research: ResearchConfig;
  readonly mail: MailConfig;
}

export interface MailConfig {
  /** SMTP_URL: where invitations are mailed (smtp://host:port, smtps://host:465, credentials in the URL); unset: no mail, and owners cannot invite. */
  readonly smtpUrl: string | undefined;
  /** MAIL_FROM: the From: of invitations. */
  readonly from: string;
}

export interface ResearchConfig {
  /** Research runs an account may start through the API per UTC day, by plan (domain/research/allowance.ts says why daily). */
  readonly allowancePerDay: ResearchAllowance;
  /** A submission of an idea researched for the same market within this many days is answered with that insight (unless refresh). */
  readonly reuseDays: number;
}

export interface DatabaseConfig {
  /** Unset means: start the embedded Postgres (PGlite) under dataDir. */
  readonly url: string | undefined;
  /** A streaming replica web processes read from, once it has replayed what a response needs (see db/read-router.ts). */
  readonly readUrl: string | undefined;
  /** Connections per process. 1 when the URL points at an embedded (PGlite) server: it has one session. */
  readonly poolSize: number;
}

export interface RedisConfig {
  /** Unset means: Redis on 127.0.0.1:6379, else a redis-server started under dataDir. */
  readonly url: string | undefined;
  /** Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES=host:port,…); replaces REDIS_URL. */
  readonly clusterNodes: ReadonlyArray<{ host: string; port: number }> | undefined;
  /** Prefix for every Redis key (queues, quotas, caches): a plain name; the Redis Cluster hash tags are added per key (redis/keys.ts). */
  readonly prefix: string;
}

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

export interface AdminConfig {
  /** Guards /metrics and /admin/queues (Bearer, or Basic with it as password); both are off when unset. */
  readonly token: string | undefined;
  /** A worker process serves /metrics on this port when set (and token is set). */
  readonly metricsPort: number | undefined;
}

export interface TrendsConfig {
  /**
   * Where search data comes from, in order of preference (TRENDS_PROVIDER, a
   * comma list): each request goes to the first that has its capability
   * (domain/trends/capabilities.ts). `provider` is the same list as a run
   * records it, e.g. "google+dataforseo".
   */
  readonly providers: readonly ProviderName[];
  readonly provider: string;
  /** HTTPS requests to live Google per minute per egress route, across all workers (pages included); 0 = no pacing. */
  readonly requestsPerMinute: number;
  /** HTTP CONNECT proxies requests to Google leave through, each with its own rate and pause; empty = direct. */
  readonly proxyUrls: readonly string[];
  /**
   * The fixed term every idea is compared with to calibrate demand (step compare_anchor),
   * and its maps when the two are comparable (17, 18). Unset: "weather", or
   * "bagel" for replay (see anchorTermFor).
   */
  readonly anchor: string | undefined;
  /** How research runs ask Google Trends: "batched" (few requests, the default) or "single" (one keyword per request, the baseline). */
  readonly requestPlan: TrendsPlanName;
  /** Geography of interest-over-time requests ('' = worldwide). */
  readonly geo: string;
  /** First cooldown of a route after Google blocks it; doubles per block in a row. */
  readonly cooldownMs: number;
  /** The longest cooldown. */
  readonly cooldownMaxMs: number;
  /** How long a route that got a 400 from Google is left alone (its requests go to other routes). */
  readonly refusedPauseMs: number;
  /** How long a step or refresh waits for a trends answer before sleeping (without spending an attempt). */
  readonly waitMs: number;
  /** Overall deadline of one Google Trends request, all its HTTPS exchanges included. */
  readonly requestTimeoutMs: number;
  /** Gap between two embed pages (related lists) of one egress route: the embed flow's own quota. */
  readonly embedGapMs: number;
  /** How long a route's embed pages wait after a token over the embed quota; doubles while it keeps happening. */
  readonly embedCooldownMs: number;
}

export interface WorkerConfig {
  /** Research steps one worker process runs at once. */
  readonly researchConcurrency: number;
  /** Webhook deliveries one worker process has in flight (I/O-bound: a slow receiver holds one for at most webhooks.timeoutMs). */
  readonly webhookConcurrency: number;
  /** How long a worker's job lock lasts; a crashed worker's jobs are retried after about this long. */
  readonly jobLockMs: number;
}

export interface ScheduleConfig {
  /** Cron (UTC) of the scheduled Google canary (`insights google check` inside the first route's pace), or '' for none. */
  readonly googleCheckCron: string;
  /** Cron (UTC) of the daily refresh of every researched insight's series, forecast and scores. */
  readonly refreshCron: string;
  /** Cron (UTC) of the daily discovery of candidate ideas from Google's trending searches feed. */
  readonly discoveryCron: string;
  /** Geographies discovery reads the trending feed of. */
  readonly discoveryGeos: readonly string[];
  /** At most this many discovery research runs per UTC day. */
  readonly discoveryDailyCap: number;
}

export interface WebhookConfig {
  /** Deliveries of one account in flight at once over every worker, and each subscription's circuit (domain/webhooks/fairness.ts). */
  readonly fairness: DeliveryFairness;
  /** Overall deadline of one webhook delivery attempt, from connect to the end of the answer. */
  readonly timeoutMs: number;
  /** Outbound webhooks may reach private, loopback and link-local addresses (never cloud metadata unless listed). */
  readonly allowPrivate: boolean;
  /** CIDRs webhooks may always reach, e.g. 10.1.0.0/16. */
  readonly allowedCidrs: readonly string[];
  /** A subscription failing without a break for this long is disabled. */
  readonly disableAfterHours: number;
  /** After rotate-secret, the old secret keeps signing this long. */
  readonly secretOverlapHours: number;
  /** Webhook subscriptions one account may have through /api/webhooks, by plan (operators are not limited). */
  readonly maxSubscriptions: Readonly<Record<Plan, number>>;
  /** How many days webhook attempt rows are kept (the prune job deletes older ones; deliveries stay). */
  readonly attemptsKeepDays: number;
  /** What an account may have sent on request: replays and pings a day by plan, a replay's cap, pings a minute. */
  readonly sends: WebhookSendLimits;
  /** base64 of 32 bytes that encrypt webhook secrets at rest; unset: a key generated once under DATA_DIR. */
  readonly encryptionKey: string | undefined;
  /** Multiplies the webhook retry schedule (1 in production; tests and staging shrink it). */
  readonly retryScale: number;
}

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

/** How a research run asks Google for what its steps need (research/trends-plan.ts builds each). */
export const TRENDS_PLANS = ['batched', 'single'] as const;
export type TrendsPlanName = (typeof TRENDS_PLANS)[number];

/** Variables an older release read, and what replaces them (reported, so an old .env cannot mean something else silently). */
export const RETIRED_VARIABLES: ReadonlyArray<[string, string]> = [
  [
    'TRENDS_RATE_PER_MINUTE',
    'it counted trends jobs, each up to seven HTTPS requests; set TRENDS_REQUESTS_PER_MINUTE (HTTPS requests per egress route, default 12)',
  ],
  [
    'TRENDS_PAUSE_MS',
    'a route now cools down after a block from TRENDS_COOLDOWN_MS (default 600000) up to TRENDS_COOLDOWN_MAX_MS (default 3600000)',
  ],
];

export class ConfigError extends Error {
  constructor(
    readonly problems: readonly string[],
    /** The env file read together with the environment, if any. */
    readonly envFile?: string,
  ) {
    super(
      `Invalid configuration${envFile ? ` (the environment and ${envFile})` : ''}:\n  - ${problems.join('\n  - ')}\nSee .env.example for every variable.`,
    );
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Says ENV_FILE should read no file (the test harness sets it, so a developer's .env never reaches a test's processes). */
export const NO_ENV_FILE = 'none';

/**
 * The environment with the variables of an env file added: `.env` in the
 * project folder when it exists, or the file ENV_FILE names (relative to the
 * project folder), or none when ENV_FILE is "none". A variable set in the
 * environment wins over the file. Returns the file read, if any.
 */
export function withEnvFile(env: Env, root = PROJECT_ROOT): { env: Env; file?: string; problem?: string } {
  const named = env.ENV_FILE?.trim();
  if (named === NO_ENV_FILE) return { env };
  const file = path.resolve(root, named || '.env');
  if (!existsSync(file)) {
    return named ? { env, problem: `ENV_FILE names ${file}, which does not exist (set ENV_FILE=${NO_ENV_FILE} to read no file)` } : { env };
  }
  let fromFile: Record<string, string>;
  try {
    fromFile = parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (error) {
    return { env, file, problem: `${file} could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  const merged: Env = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return { env: merged, file };
}

/** A value for a message: quoted, unless it may hold credentials (user:password@), which are never repeated. */
function shownValue(value: string): string {
  return value.includes('@') ? '(not shown: it may hold a password)' : `"${value}"`;
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

/**
 * Reads the environment for the section loaders: each problem is collected,
 * not thrown, so one error can list them all.
 */
class EnvReader implements SettingsReader {
  readonly problems: string[] = [];
  constructor(readonly env: Env) {}

  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  list(name: string, fallback = ''): string[] {
    return (this.text(name) ?? fallback)
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
    } catch {
      this.problems.push(`${name} is not a valid URL`);
    }
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  /**
   * One whole number per plan, each from its own variable `${prefix}_FREE`, `${prefix}_STARTER`, …:
   * a plan's figure is declared once, in `fallbacks`, and a new plan is read everywhere by adding it to PLANS.
   */
  perPlan(prefix: string, fallbacks: Readonly<Record<Plan, number>>, min: number, max: number): Readonly<Record<Plan, number>> {
    return Object.freeze(
      Object.fromEntries(
        PLAN_VALUES.map((plan) => [plan, this.integer(`${prefix}_${plan.toUpperCase()}`, fallbacks[plan], min, max)]),
      ) as Record<Plan, number>,
    );
  }

  cron(name: string, fallback: string): string {
    const value = this.text(name) ?? fallback;
    try {
      if (!/^(\S+\s+){4}\S+$/.test(value)) throw new Error('not 5 fields');
      // The parser BullMQ's schedulers use: what passes here, they accept.
      CronExpressionParser.parse(value, { tz: 'UTC' });
    } catch (error) {
      this.problems.push(
        `${name} must be a 5-field cron expression in UTC such as "0 3 * * *" (got "${value}": ${error instanceof Error ? error.message : String(error)})`,
      );
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.text(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  path(name: string, fallback: string): string {
    return path.resolve(PROJECT_ROOT, this.text(name) ?? fallback);
  }

  /** Problems that concern more than one variable. */
  check(ok: boolean, problem: string): void {
    if (!ok) this.problems.push(problem);
  }
}

function loadDatabaseSection(read: EnvReader): DatabaseConfig {
  const section = {
    url: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    readUrl: read.url('DATABASE_READ_URL', ['postgres:', 'postgresql:']),
    poolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 200),
  };
  read.check(
    section.readUrl === undefined || section.url !== undefined,
    'DATABASE_READ_URL needs DATABASE_URL (the primary it replicates); the embedded Postgres has no replica',
  );
  return Object.freeze(section);
}

function loadRedisSection(read: EnvReader): RedisConfig {
  const clusterText = read.text('REDIS_CLUSTER_NODES');
  let clusterNodes: Array<{ host: string; port: number }> | undefined;
  if (clusterText !== undefined) {
    clusterNodes = [];
    for (const node of read.list('REDIS_CLUSTER_NODES')) {
      const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(node);
      if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535)
        read.check(false, `REDIS_CLUSTER_NODES: "${node}" is not host:port (e.g. 10.0.0.5:7000)`);
      else clusterNodes.push(Object.freeze({ host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) }));
    }
    read.check(read.list('REDIS_CLUSTER_NODES').length > 0, 'REDIS_CLUSTER_NODES is set but names no node (host:port,host:port)');
  }
  const section = {
    url: read.url('REDIS_URL', ['redis:', 'rediss:']),
    clusterNodes: clusterNodes && Object.freeze(clusterNodes),
    prefix: read.text('REDIS_PREFIX') ?? 'si',
  };
  read.check(
    section.url === undefined || section.clusterNodes === undefined,
    'REDIS_URL and REDIS_CLUSTER_NODES are both set: a cluster replaces REDIS_URL, set one of them',
  );
  read.check(
    /^[A-Za-z0-9_-]{1,32}$/.test(section.prefix),
    `REDIS_PREFIX must be 1–32 letters, digits, "-" or "_" (got "${section.prefix}"); the cluster hash tags are added per key (see src/redis/keys.ts)`,
  );
  return Object.freeze(section);
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

function loadWebSection(read: EnvReader): WebConfig {
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

function loadAdminSection(read: EnvReader): AdminConfig {
  const token = read.text('ADMIN_TOKEN');
  read.check(token === undefined || token.length >= 16, 'ADMIN_TOKEN must be at least 16 characters (openssl rand -hex 24)');
  return Object.freeze({
    token,
    metricsPort: read.text('METRICS_PORT') === undefined ? undefined : read.integer('METRICS_PORT', 9464, 1, 65535),
  });
}

function loadTrendsSection(read: EnvReader): TrendsConfig {
  const providers = read.list('TRENDS_PROVIDER', 'google').filter((name, i, all) => {
    read.check(
      (PROVIDER_NAMES as readonly string[]).includes(name),
      `TRENDS_PROVIDER must list providers among ${PROVIDER_NAMES.join(', ')}, in order of preference, e.g. "google" or "google,dataforseo" (got "${name}")`,
    );
    read.check(all.indexOf(name) === i, `TRENDS_PROVIDER lists "${name}" twice`);
    return (PROVIDER_NAMES as readonly string[]).includes(name) && all.indexOf(name) === i;
  }) as ProviderName[];
  if (providers.length === 0) providers.push('google');
  // A simulated world beside real data would publish simulated research as real (and pay for its search volume).
  const simulated = providers.filter((name) => kindOfProviders(name) === 'simulated');
  read.check(
    simulated.length === 0 || providers.length === 1,
    `TRENDS_PROVIDER: ${simulated.join(', ')} is a simulated world and cannot be combined with other providers`,
  );
  const section = {
    providers: Object.freeze(providers),
    provider: providerLabel(providers),
    // Live Google only (replay and synthetic are local). 10 a minute, one request every 6 s: under the
    // 10–15 a minute peers report before a block since 2025-03 (trendspy #13), where 500 requests 5 s
    // apart passed in 2024 (trendspy #4). docs/operations.md, "Pacing Google".
    requestsPerMinute: read.integer('TRENDS_REQUESTS_PER_MINUTE', 10, 0, 100_000),
    proxyUrls: Object.freeze(read.list('TRENDS_PROXY_URLS')),
    anchor: read.text('TRENDS_ANCHOR'),
    requestPlan: read.oneOf('TRENDS_REQUEST_PLAN', TRENDS_PLANS, 'batched'),
    geo: read.text('TRENDS_GEO') ?? '',
    cooldownMs: read.integer('TRENDS_COOLDOWN_MS', 600_000, 100, 86_400_000),
    cooldownMaxMs: read.integer('TRENDS_COOLDOWN_MAX_MS', 3_600_000, 100, 86_400_000),
    refusedPauseMs: read.integer('TRENDS_REFUSED_PAUSE_MS', 600_000, 100, 86_400_000),
    waitMs: read.integer('TRENDS_WAIT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: read.integer('TRENDS_REQUEST_TIMEOUT_MS', 20_000, 100, 300_000),
    // Embed pages 3 s apart were refused, 6–8 s apart served (trendspy #17, 2025-10-22).
    embedGapMs: read.integer('TRENDS_EMBED_GAP_MS', 8_000, 0, 3_600_000),
    embedCooldownMs: read.integer('TRENDS_EMBED_COOLDOWN_MS', 300_000, 100, 86_400_000),
  };
  const proxyNames: string[] = [];
  section.proxyUrls.forEach((proxy, i) => {
    try {
      proxyNames.push(parseProxyUrl(proxy).name);
    } catch (error) {
      if (!(error instanceof ProxyUrlError)) throw error;
      read.check(
        false,
        `TRENDS_PROXY_URLS: entry ${i + 1} of ${section.proxyUrls.length} (${error.shown ?? 'not shown: it may hold a password'}) is not an HTTP CONNECT proxy URL: ${error.reason}`,
      );
    }
  });
  read.check(new Set(proxyNames).size === proxyNames.length, 'TRENDS_PROXY_URLS lists the same proxy twice');
  read.check(
    section.geo === '' || /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(section.geo),
    `TRENDS_GEO must be empty (worldwide) or a country code such as US or US-CA (got "${section.geo}")`,
  );
  read.check(
    section.cooldownMaxMs >= section.cooldownMs,
    `TRENDS_COOLDOWN_MAX_MS (${section.cooldownMaxMs}) must not be below TRENDS_COOLDOWN_MS (${section.cooldownMs})`,
  );
  return Object.freeze(section);
}

/** Each provider's section, as its profile declares it (config.ts reads the variables; the provider says which). */
function loadProviderSettings(read: EnvReader, trends: TrendsConfig): ProviderSettings {
  return Object.freeze(
    Object.fromEntries(PROVIDERS.map((p) => [p.name, Object.freeze(p.settings(read, trends.providers))])),
  ) as ProviderSettings;
}

function loadWorkerSection(read: EnvReader): WorkerConfig {
  return Object.freeze({
    researchConcurrency: read.integer('RESEARCH_CONCURRENCY', 20, 1, 500),
    webhookConcurrency: read.integer('WEBHOOK_CONCURRENCY', 100, 1, 1_000),
    jobLockMs: read.integer('JOB_LOCK_MS', 30_000, 1_000, 600_000),
  });
}

function loadScheduleSection(read: EnvReader): ScheduleConfig {
  const discoveryGeos = read.list('DISCOVERY_GEOS', 'US').map((geo) => geo.toUpperCase());
  for (const geo of discoveryGeos)
    read.check(/^[A-Z]{2}$/.test(geo), `DISCOVERY_GEOS: "${geo}" is not a two-letter country code such as US`);
  return Object.freeze({
    googleCheckCron: read.text('GOOGLE_CHECK_CRON') === undefined ? '' : read.cron('GOOGLE_CHECK_CRON', ''),
    refreshCron: read.cron('REFRESH_CRON', '0 3 * * *'),
    discoveryCron: read.cron('DISCOVERY_CRON', '0 4 * * *'),
    discoveryGeos: Object.freeze(discoveryGeos),
    discoveryDailyCap: read.integer('DISCOVERY_DAILY_CAP', 10, 0, 1_000),
  });
}

/** Subscriptions an account of each plan may have (WEBHOOK_MAX_SUBSCRIPTIONS_*). */
const DEFAULT_MAX_SUBSCRIPTIONS: Readonly<Record<Plan, number>> = { free: 2, starter: 10, pro: 50, enterprise: 500 };

function loadWebhookSection(read: EnvReader): WebhookConfig {
  const retryText = read.text('WEBHOOK_RETRY_SCALE');
  const retryScale = retryText === undefined ? 1 : Number(retryText);
  read.check(retryScale > 0 && retryScale <= 10, `WEBHOOK_RETRY_SCALE must be a number above 0 and at most 10 (got "${retryText}")`);
  const section = {
    fairness: Object.freeze({
      ...DEFAULT_DELIVERY_FAIRNESS,
      perAccount: read.integer('WEBHOOK_ACCOUNT_CONCURRENCY', DEFAULT_DELIVERY_FAIRNESS.perAccount, 1, 1_000),
    }),
    timeoutMs: read.integer('WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    allowPrivate: read.oneOf('WEBHOOK_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true',
    allowedCidrs: Object.freeze(read.list('WEBHOOK_ALLOWED_CIDRS')),
    disableAfterHours: read.integer('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 24 * 365),
    secretOverlapHours: read.integer('WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 24 * 30),
    maxSubscriptions: read.perPlan('WEBHOOK_MAX_SUBSCRIPTIONS', DEFAULT_MAX_SUBSCRIPTIONS, 0, 100_000),
    attemptsKeepDays: read.integer('WEBHOOK_ATTEMPTS_KEEP_DAYS', 30, 1, 3_650),
    sends: Object.freeze({
      perDay: read.perPlan('WEBHOOK_SENDS_PER_DAY', DEFAULT_WEBHOOK_SENDS.perDay, 0, 10_000_000),
      replayPerCall: read.integer('WEBHOOK_REPLAY_MAX_PER_CALL', DEFAULT_WEBHOOK_SENDS.replayPerCall, 1, 1_000),
      pingsPerMinute: read.integer('WEBHOOK_PINGS_PER_MINUTE', DEFAULT_WEBHOOK_SENDS.pingsPerMinute, 1, 10_000),
    }),
    encryptionKey: read.text('WEBHOOK_ENCRYPTION_KEY'),
    retryScale: retryScale > 0 && retryScale <= 10 ? retryScale : 1,
  };
  read.check(
    section.encryptionKey === undefined || Buffer.from(section.encryptionKey, 'base64').length === 32,
    'WEBHOOK_ENCRYPTION_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32)',
  );
  for (const cidr of section.allowedCidrs) {
    try {
      parseCidr(cidr);
    } catch (error) {
      read.check(false, `WEBHOOK_ALLOWED_CIDRS: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return Object.freeze(section);
}

function loadResearchSection(read: EnvReader): ResearchConfig {
  return Object.freeze({
    allowancePerDay: read.perPlan('RESEARCH_RUNS_PER_DAY', DEFAULT_RESEARCH_ALLOWANCE, 0, 1_000_000),
    reuseDays: read.integer('RESEARCH_REUSE_DAYS', 7, 0, 365),
  });
}

function loadMailSection(read: EnvReader, web: WebConfig): MailConfig {
  const smtpUrl = read.url('SMTP_URL', ['smtp:', 'smtps:']);
  let host = 'localhost';
  try {
    host = new URL(web.publicBaseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    // PUBLIC_BASE_URL's own problem is reported already.
  }
  const from = read.text('MAIL_FROM') ?? `Startup Insights <no-reply@${host}>`;
  read.check(
    !/[\r\n]/.test(from) && /^[^<>@]*<[^<>@\s]+@[^<>@\s]+>$|^[^<>@\s]+@[^<>@\s]+$/.test(from),
    `MAIL_FROM must be an address, or a name and <address>, e.g. "Startup Insights <insights@example.com>" (got "${from.slice(0, 80)}")`,
  );
  return Object.freeze({ smtpUrl, from });
}

/**
 * Reads the configuration. From the process environment (the default), the
 * .env file is read as well (see withEnvFile); an explicit `env` is taken as it
 * is, so tests never depend on a file on the developer's machine. Every
 * problem of every section is reported in one ConfigError.
 */
export function loadConfig(env: Env = process.env): Config {
  let envFile: string | undefined;
  let fileProblem: string | undefined;
  if (env === process.env) {
    const loaded = withEnvFile(env);
    env = loaded.env;
    envFile = loaded.file;
    fileProblem = loaded.problem;
  }
  const read = new EnvReader(env);
  if (fileProblem) read.check(false, fileProblem);
  const trends = loadTrendsSection(read);
  const web = loadWebSection(read);
  const config: Config = {
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    dataDir: path.resolve(PROJECT_ROOT, read.text('DATA_DIR') ?? '.data'),
    demoSeriesDir: path.resolve(PROJECT_ROOT, read.text('DEMO_SERIES_DIR') ?? 'data/trends-series'),
    database: loadDatabaseSection(read),
    redis: loadRedisSection(read),
    web,
    admin: loadAdminSection(read),
    trends,
    providerSettings: loadProviderSettings(read, trends),
    worker: loadWorkerSection(read),
    schedules: loadScheduleSection(read),
    webhooks: loadWebhookSection(read),
    research: loadResearchSection(read),
    mail: loadMailSection(read, web),
  };
  // Settings that counted jobs, not requests: an old .env would silently mean something else now.
  for (const [retired, instead] of RETIRED_VARIABLES) read.check(env[retired] === undefined, `${retired} is no longer read: ${instead}`);
  if (read.problems.length > 0) throw new ConfigError(read.problems, envFile);
  return Object.freeze(config);
}
