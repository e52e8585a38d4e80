import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { ApiKeyCache } from '../../src/api-keys/api-key-cache.js';
import { createRedis } from '../../src/redis/connection.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import type { Plan } from '../../src/domain/quota.js';
import type { HttpLimits, PagesLimits } from '../../src/config.js';
import { buildApp, type AppDeps } from '../../src/http/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/connection.js';
import type { Redis } from '../../src/redis/connection.js';
import type { RedisKeys } from '../../src/redis/keys.js';
import type { Resources } from '../../src/runtime/resources.js';
import { buildServices, type ServiceOverrides } from '../../src/runtime/services.js';
import type { Mailer } from '../../src/mail/mailer.js';
import type { ResearchSettings } from '../../src/research/research-service.js';
import { directSeries } from '../../src/research/comparison-service.js';
import { DirectTrendsGateway } from '../../src/providers/gateway.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import type { ReadModelVersionWatcher } from '../../src/redis/read-model-version.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createTestRedis, testResources, type TestRedis } from './redis.js';
import { testServices } from './services.js';

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  redis: TestRedis;
  /** The in-memory read-model version (as in the web server). */
  readModel: ReadModelVersionWatcher;
  apiKeys: ApiKeyCache;
  key(plan?: Plan): Promise<string>;
  /** A key with webhooks:write (and insights:read) in an account of its own; its account id too. */
  webhookKey(plan?: Plan): Promise<{ key: string; accountId: string; keyId: string }>;
  /** A key with research:write, webhooks:write and insights:read in an account of its own. */
  researchKey(plan?: Plan): Promise<{ key: string; accountId: string; keyId: string }>;
  /** WEBHOOK_ENCRYPTION_KEY of this app's secret box (a worker or CLI sharing its database needs it). */
  webhookEncryptionKey: string;
  close(): Promise<void>;
}

/** The real app over a private database and Redis prefix. */
export async function createTestApp(
  options: {
    cacheTtlSeconds?: number;
    /** The key cache's clock (tests that let its entries expire). */
    now?: () => number;
    /** TRUST_PROXY. */
    trustProxy?: readonly string[];
    /** The app's logger (tests that read its lines); silent by default. */
    logger?: Logger;
    /** WEBHOOK_ALLOWED_CIDRS for /api/webhooks (a loopback receiver needs 127.0.0.1/32). */
    webhookAllowedCidrs?: string[];
    /** WEBHOOK_MAX_SUBSCRIPTIONS_* for /api/webhooks. */
    webhookMaxSubscriptions?: Record<Plan, number>;
    /** Research on demand (POST /api/research-runs): its settings over synthetic data, unpaced, reusing nothing. */
    research?: Partial<ResearchSettings>;
    /** Mails the People page's invitations (a loopback SMTP server's mailer: test/support/smtp.ts). */
    mailer?: Mailer;
    /** The HTTP server's bounds (tests of connections that listen on a loopback port). */
    http?: HttpLimits;
    /** The account pages' bounds (hashing, pages per session and account). */
    pages?: PagesLimits;
    /** PUBLIC_BASE_URL. */
    publicBaseUrl?: string;
  } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const redis = await createTestRedis();
  const webhookEncryptionKey = randomBytes(32).toString('base64');
  const maxSubscriptions = options.webhookMaxSubscriptions ?? { free: 2, starter: 10, pro: 50, enterprise: 500 };
  // The web process's services, from the composition root over this database and prefix.
  const services = testServices(database, redis, {
    ...(options.logger ? { logger: options.logger } : {}),
    env: {
      WEBHOOK_ENCRYPTION_KEY: webhookEncryptionKey,
      WEBHOOK_ALLOW_PRIVATE: 'false',
      WEBHOOK_ALLOWED_CIDRS: (options.webhookAllowedCidrs ?? []).join(','),
      WEBHOOK_SECRET_OVERLAP_HOURS: '24',
      ...Object.fromEntries(
        Object.entries(maxSubscriptions).map(([plan, n]) => [`WEBHOOK_MAX_SUBSCRIPTIONS_${plan.toUpperCase()}`, String(n)]),
      ),
      ...(options.research ? { TRENDS_PROVIDER: 'synthetic' } : {}),
    },
    overrides: {
      ...(options.now ? { apiKeysNow: options.now } : {}),
      ...(options.mailer ? { mailer: options.mailer } : {}),
      ...(options.pages ? { pagesLimits: options.pages } : {}),
      ...(options.research
        ? {
            researchSettings: { ...TEST_RESEARCH, ...options.research } satisfies ResearchSettings,
            series: directSeries(new DirectTrendsGateway(new SyntheticTrendsProvider()), 'synthetic'),
          }
        : {}),
    },
  });
  const { apiKeys, readModel } = services;
  // Listen for revocations as the web server does (see startWebServer).
  const subscriber = createRedis(redis.url, 'worker');
  const stopRevocations = await apiKeys.listen(subscriber, redis.keys.apiKeyChangesChannel);
  const stopVersions = await readModel.listen(subscriber);
  const app = await buildApp({
    services,
    cacheTtlSeconds: options.cacheTtlSeconds ?? 60,
    // Overload shedding has its own test (ops.test.ts); off here. It would fire when an
    // in-process embedded Postgres (npm test without DATABASE_URL) lags the loop, or when a
    // busy machine starves the loop for a whole sample (under-pressure then reads Infinity).
    overloadMaxEventLoopDelayMs: 0,
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.http ? { http: options.http } : {}),
    ...(options.publicBaseUrl ? { publicBaseUrl: () => options.publicBaseUrl! } : {}),
    // As before the root: research on demand only where the test asks for it.
    ...(options.research ? {} : { without: ['research'] as const }),
  });
  await app.ready();
  return {
    app,
    database,
    redis,
    readModel,
    apiKeys,
    key: async (plan: Plan = 'enterprise') => (await createApiKey(database.db, `test ${plan}`, plan)).key,
    researchKey: async (plan: Plan = 'free') => {
      const created = await createApiKey(database.db, `test research ${plan}`, plan, null, [
        'insights:read',
        'webhooks:write',
        'research:write',
      ]);
      return { key: created.key, accountId: created.accountId, keyId: created.id };
    },
    webhookKey: async (plan: Plan = 'enterprise') => {
      const created = await createApiKey(database.db, `test webhooks ${plan}`, plan, null, ['insights:read', 'webhooks:write']);
      return { key: created.key, accountId: created.accountId, keyId: created.id };
    },
    webhookEncryptionKey,
    async close() {
      await app.close();
      await services.close();
      await stopVersions();
      await stopRevocations();
      subscriber.disconnect();
      await redis.destroy();
      await database.destroy();
    },
  };
}

/**
 * buildApp over the root's services with some parts in place of the test database's and Redis's own
 * (another database, a Redis that is away, a key cache the test listens with). The app closes its services.
 */
export async function buildTestApp(
  parts: {
    database: Pick<TestDatabase, 'db' | 'url' | 'env'>;
    redis: TestRedis;
    db?: Db;
    client?: Redis;
    redisKeys?: RedisKeys;
    logger?: Logger;
    env?: Record<string, string>;
    overrides?: ServiceOverrides;
  },
  deps: Omit<AppDeps, 'services'> = {},
): Promise<FastifyInstance> {
  const resources: Resources = {
    ...testResources(parts.database, parts.redis),
    ...(parts.db ? { db: parts.db } : {}),
    ...(parts.client ? { redis: parts.client } : {}),
    ...(parts.redisKeys ? { redisKeys: parts.redisKeys } : {}),
  };
  const config = loadConfig({
    ...parts.database.env,
    REDIS_URL: parts.redis.url,
    REDIS_PREFIX: parts.redis.prefix,
    WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...parts.env,
  });
  const services = buildServices(resources, config, parts.logger ?? pino({ level: 'silent' }), parts.overrides);
  // Overload shedding off unless the test asks for it, as in createTestApp: a loaded CI machine lags the loop
  // past 500 ms while the first pages compile (a 503 failed CI on 2026-11-28 at 20:32).
  const app = await buildApp({ services, overloadMaxEventLoopDelayMs: 0, ...deps });
  app.addHook('onClose', async () => services.close());
  return app;
}

/** Research on demand in tests: generated data, the default allowances, unpaced estimates. */
export const TEST_RESEARCH: ResearchSettings = {
  provider: 'synthetic',
  defaultGeo: '',
  allowance: { free: 3, starter: 20, pro: 100, enterprise: 500 },
  reuseDays: 7,
  google: { requestsPerMinute: 10, routes: 1, requestPlan: 'batched' },
};

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
