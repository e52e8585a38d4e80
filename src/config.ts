// The only module that reads process.env (and the .env file beside it).
// Everything is parsed once, every problem is reported in a single error, and
// the result is frozen.
// Each section's settings, defaults and checks are in its own file under
// src/config/; only this one reads the environment and hands it to them.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { EnvReader, type Env } from './config/env-reader.js';
import { PROJECT_ROOT } from './config/project-root.js';
import { loadAdminSection, type AdminConfig } from './config/admin.js';
import { loadDatabaseSection, type DatabaseConfig } from './config/database.js';
import { loadMailSection, type MailConfig } from './config/mail.js';
import { loadProviderSettings, loadTrendsSection, type TrendsConfig } from './config/providers.js';
import type { ProviderSettings } from './providers/registry.js';
import { loadRedisSection, type RedisConfig } from './config/redis.js';
import { loadResearchSection, type ResearchConfig } from './config/research.js';
import { loadScheduleSection, type ScheduleConfig } from './config/schedules.js';
import { loadWebSection, type WebConfig } from './config/web.js';
import { loadWebhookSection, type WebhookConfig } from './config/webhooks.js';
import { loadWorkerSection, type WorkerConfig } from './config/worker.js';
import { loadTracingSection, type TracingConfig } from './config/tracing.js';
import { loadApiClientSection, type ApiClientConfig } from './config/api-client.js';

export { PROJECT_ROOT } from './config/project-root.js';
export type { AdminConfig } from './config/admin.js';
export type { DatabaseConfig } from './config/database.js';
export type { MailConfig } from './config/mail.js';
export type { TracingConfig } from './config/tracing.js';
export { TRENDS_PLANS, type TrendsConfig, type TrendsPlanName } from './config/providers.js';
export type { RedisConfig } from './config/redis.js';
export type { ResearchConfig } from './config/research.js';
export type { ScheduleConfig } from './config/schedules.js';
export { HTTP_DEFAULTS, PAGES_DEFAULTS, type HttpLimits, type PagesLimits, type WebConfig } from './config/web.js';
export type { WebhookConfig } from './config/webhooks.js';
export type { WorkerConfig } from './config/worker.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The whole configuration: a few process-wide settings and one section per
 * part of the service, each read by its own function in src/config/ and frozen.
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
  readonly tracing: TracingConfig;
  /** Where a running service is, for `insights mcp` (INSIGHTS_URL, INSIGHTS_KEY). */
  readonly apiClient: ApiClientConfig;
}

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
    tracing: loadTracingSection(read),
    apiClient: loadApiClientSection(read),
  };
  // Settings that counted jobs, not requests: an old .env would silently mean something else now.
  for (const [retired, instead] of RETIRED_VARIABLES) read.check(env[retired] === undefined, `${retired} is no longer read: ${instead}`);
  if (read.problems.length > 0) throw new ConfigError(read.problems, envFile);
  return Object.freeze(config);
}
