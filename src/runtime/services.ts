// The composition root: every service of the product is built here, from the
// resources (Postgres, Redis) and the configuration, once per process. The web
// process, the workers, `npm start` and every CLI command take them from here;
// nothing else constructs a service (test/unit/composition-root.test.ts keeps it so).
// Each service is built on first use: a CLI command that lists accounts opens no
// queue and reads no webhook key. close() stops what was built, and only that.
import { QueueEvents, type Queue } from 'bullmq';
import { QuotaStore } from '../accounts/quota.store.js';
import { ApiKeyCache } from '../api-keys/api-key-cache.js';
import type { Config, PagesLimits } from '../config.js';
import type { Db } from '../db/connection.js';
import { ReadRouter } from '../db/read-router.js';
import { answeringProvider, profileOf, QUEUED_PROVIDER, simulatedProviders } from '../providers/registry.js';
import type { Logger } from '../logger.js';
import { mailerFromConfig, type Mailer } from '../mail/mailer.js';
import { KnownDevices } from '../members/known-devices.js';
import { PageLimiter } from '../members/page-limiter.js';
import { HashGate } from '../members/password.js';
import { SignInLimiter } from '../members/sign-in-limiter.js';
import { QUEUES, type QueueName } from '../queue/queue-names.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import { ReadModelVersionWatcher } from '../redis/read-model-version.js';
import { StepQueue } from '../research/step-queue.js';
import { ComparisonService, directSeries, type SeriesSource } from '../research/comparison-service.js';
import { providerGateways, type GatewayFor } from '../providers/gateway-factory.js';
import { ResearchService, researchSettings, type ResearchSettings } from '../research/research-service.js';
import { TRENDS_PRIORITY, type TrendsGateway, type TrendsPurpose } from '../providers/gateway.js';
import { askWithoutWaiting, QueuedTrendsGateway, redisTrendsWaiters } from '../research/queued-gateway.js';
import { readLastCheck, type EgressPool } from '../providers/google/egress/egress-pool.js';
import { checkVerdict, type GoogleCheck } from '../providers/google/check.js';
import { SecretBox } from '../webhooks/secret-box.js';
import { DeliveryGate } from '../webhooks/delivery-gate.js';
import { GoogleTrendsProvider } from '../providers/google/provider.js';
import { ReplayTrendsProvider } from '../providers/replay/provider.js';
import { watchGoogleAnswers } from './google-answers.js';
import { SubscriptionIndexCache } from '../webhooks/subscription-index.cache.js';
import { queueDeliveries, WebhookService } from '../webhooks/webhook-service.js';
import { budgetReport, type BudgetReport } from './budget.js';
import { egressPoolFor } from './egress.js';
import { openQueues } from './producer-queues.js';
import type { Resources } from './resources.js';

/** Live Google through the trends queue: one QueueEvents for the process, one gateway per purpose. */
export interface GoogleGateways {
  events: QueueEvents;
  gateway(purpose: TrendsPurpose): TrendsGateway;
}

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly resources: Resources;
  readonly db: Db;
  /** The fail-fast connection (see createRedis): a request or a command must not hang on a missing Redis. */
  readonly redis: Redis;
  readonly redisKeys: RedisKeys;
  /** The producers' queues (no worker), on a connection of their own. */
  readonly queues: Record<QueueName, Queue>;
  readonly stepQueue: StepQueue;
  /** The routes to Google, their pace and state. */
  readonly egress: EgressPool;
  readonly quota: QuotaStore;
  readonly apiKeys: ApiKeyCache;
  /** The read-model version kept in memory (the web process listens for it). */
  readonly readModel: ReadModelVersionWatcher;
  /** Reads from the replica once it has replayed enough (DATABASE_READ_URL, web processes only); not started. */
  readonly readRouter: ReadRouter | undefined;
  /** Seals webhook secrets; throws when no key can be read or made (WEBHOOK_ENCRYPTION_KEY, DATA_DIR). */
  readonly secretBox: SecretBox;
  /** The subscriptions and deliveries of webhooks; undefined (with a warning) when there is no secret box. */
  readonly webhooks: WebhookService | undefined;
  readonly research: ResearchService;
  readonly researchSettings: ResearchSettings;
  /** Comparisons of ideas; undefined when the series come from Google and this process has no trends queue. */
  readonly comparisons: ComparisonService | undefined;
  /** SMTP_URL's mailer, when set. */
  readonly mailer: Mailer | undefined;
  readonly subscriptionsIndex: SubscriptionIndexCache;
  /** The gateway of a provider list for a purpose; live Google only once google() was opened. */
  readonly trendsFor: GatewayFor;
  /** The client of live Google the trends jobs send through (its answers watched for /metrics and shifts). */
  readonly googleProvider: GoogleTrendsProvider;
  /** An account's webhook delivery slots and a subscription's circuit, in Redis (the match and deliver jobs). */
  readonly deliveryGate: DeliveryGate;
  /** Sign-in attempts per address, client and account, in Redis (the account pages). */
  readonly signInLimiter: SignInLimiter;
  /** The browsers each person signed in from (the sign-in page; removing a person forgets theirs). */
  readonly knownDevices: KnownDevices;
  /** Password hashes running at once in this process (SIGN_IN_HASH_*): one gate per process, whatever asks. */
  readonly hashGate: HashGate;
  /** Account pages per session and account a minute (ACCOUNT_PAGES_PER_MINUTE_*), in Redis. */
  readonly pageLimiter: PageLimiter;
  /** Opens (once) the trends queue's events and the gateways to live Google. */
  google(): Promise<GoogleGateways>;
  /** Google's request budget (budget.ts); with `paid`, the paid providers' bills too (they ask Postgres and Redis more). */
  budget(options?: { now?: Date; paid?: boolean }): Promise<BudgetReport>;
  /** Stops what was built (queues, events, mailer, replica router); the resources stay open: their owner closes them. */
  close(): Promise<void>;
}

/** Parts a test puts in place of the configured ones. */
export interface ServiceOverrides {
  /** The key cache's clock. */
  apiKeysNow?: () => number;
  /** A key cache or read-model watcher the test listens with itself. */
  apiKeys?: ApiKeyCache;
  readModel?: ReadModelVersionWatcher;
  researchSettings?: ResearchSettings;
  /** The comparisons' series source. */
  series?: SeriesSource;
  /** In place of SMTP_URL's (a loopback SMTP server's). */
  mailer?: Mailer;
  /** The account pages' bounds in place of the configuration's (tests and the sign-in benchmark). */
  pagesLimits?: PagesLimits;
}

export function buildServices(resources: Resources, config: Config, logger: Logger, overrides: ServiceOverrides = {}): Services {
  const closers: Array<() => Promise<void> | void> = [];
  const built = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    if (!built.has(name)) built.set(name, make());
    return built.get(name) as T;
  };
  let google: Promise<GoogleGateways> | undefined;
  let googleGateways: GoogleGateways | undefined;

  const services: Services = {
    config,
    logger,
    resources,
    db: resources.db,
    redis: resources.redis,
    redisKeys: resources.redisKeys,
    get queues() {
      return once('queues', () => {
        const opened = openQueues(resources);
        for (const queue of Object.values(opened.queues))
          queue.on('error', (error) => logger.error({ err: error, queue: queue.name }, 'queue error'));
        closers.push(opened.close);
        return opened.queues;
      });
    },
    get stepQueue() {
      return once('stepQueue', () => new StepQueue(services.queues.research));
    },
    get egress() {
      return once('egress', () => egressPoolFor(resources, config));
    },
    get quota() {
      return once('quota', () => {
        return new QuotaStore(resources.redis, resources.redisKeys, resources.db, (error) =>
          logger.warn({ err: error }, 'requests of an unlimited plan could not be counted for /api/usage'),
        );
      });
    },
    get apiKeys() {
      return once(
        'apiKeys',
        () => overrides.apiKeys ?? new ApiKeyCache(resources.db, overrides.apiKeysNow ? { now: overrides.apiKeysNow } : {}),
      );
    },
    get readModel() {
      return once('readModel', () => overrides.readModel ?? new ReadModelVersionWatcher(resources.redis, resources.redisKeys, logger));
    },
    get readRouter() {
      return once('readRouter', () => {
        if (!resources.readDb) return undefined;
        const router = new ReadRouter(resources.db, resources.readDb);
        closers.push(() => router.stop());
        return router;
      });
    },
    get secretBox() {
      return once('secretBox', () => SecretBox.fromConfig(config));
    },
    get webhooks() {
      return once('webhooks', () => {
        // Without a readable secret box the rest still works; /api/webhooks says it is not configured.
        let box: SecretBox;
        try {
          box = services.secretBox;
        } catch (error) {
          logger.warn(
            { err: error },
            'no webhook encryption key (set WEBHOOK_ENCRYPTION_KEY, or let DATA_DIR be written): webhook management is off',
          );
          return undefined;
        }
        return new WebhookService({
          db: resources.db,
          redis: resources.redis,
          subscriptionsVersionKey: resources.redisKeys.subscriptionsVersion,
          box,
          // The queues are opened only when something is sent (a ping, a replay).
          enqueue: (deliveries) => queueDeliveries(services.queues.webhooks)(deliveries),
          policy: { allowPrivate: config.webhooks.allowPrivate, allowedCidrs: config.webhooks.allowedCidrs },
          secretOverlapHours: config.webhooks.secretOverlapHours,
          maxSubscriptions: config.webhooks.maxSubscriptions,
          sends: config.webhooks.sends,
          pingRateKey: resources.redisKeys.webhookPings,
          onVersionBumpError: (error) =>
            logger.warn({ err: error }, 'webhook subscriptions changed, but workers could not be told (they reload within 30 s)'),
        });
      });
    },
    get researchSettings() {
      return once('researchSettings', () => {
        if (overrides.researchSettings) return overrides.researchSettings;
        // Read once, where the service is built: the recordings do not change while it runs.
        const recorded = answeringProvider(config.trends.providers, 'series') === 'replay';
        return researchSettings(
          config,
          recorded ? new ReplayTrendsProvider(config.providerSettings.replay.recordedDir).coverage() : undefined,
        );
      });
    },
    get research() {
      return once(
        'research',
        () =>
          new ResearchService(resources.db, services.stepQueue, services.researchSettings, undefined, async () => {
            const check = await readLastCheck<GoogleCheck>(resources.redis, resources.redisKeys.trendsPool);
            if (!check) return null;
            const { verdict, detail } = checkVerdict(check);
            return { checkedAt: new Date(check.checkedAt), verdict, detail };
          }),
      );
    },
    get comparisons() {
      return once('comparisons', () => {
        const provider = answeringProvider(config.trends.providers, 'series');
        // Comparisons ask Google through the trends queue, never waiting in a request; local data directly.
        const series: SeriesSource =
          overrides.series ??
          (provider && profileOf(provider).queued
            ? { fetch: (request) => askWithoutWaiting(services.queues.trends, provider, request), provider }
            : directSeries(services.trendsFor(config.trends.provider, 'research'), provider));
        // Simulated insights are compared in the simulated world they came from (it needs no network), whatever the provider.
        const world = simulatedProviders(null);
        const simulated = directSeries(services.trendsFor(world, 'research'), world);
        return new ComparisonService(resources.db, series, services.researchSettings.allowance, undefined, simulated);
      });
    },
    get mailer() {
      return once('mailer', () => {
        if (overrides.mailer) return overrides.mailer;
        const mailer = mailerFromConfig(config.mail);
        if (mailer) closers.push(() => mailer.close());
        return mailer;
      });
    },
    get subscriptionsIndex() {
      return once(
        'subscriptionsIndex',
        () => new SubscriptionIndexCache(resources.db, resources.redis, resources.redisKeys.subscriptionsVersion),
      );
    },
    get trendsFor() {
      return once('trendsFor', () =>
        providerGateways({
          config,
          logger,
          redis: resources.redis,
          keys: resources.redisKeys,
          // Live Google is there once google() has opened its events (the workers, `insights evidence`).
          queued: (purpose) => {
            if (!googleGateways) throw new Error('live Google is asked through the trends queue, which this process has not opened');
            return googleGateways.gateway(purpose);
          },
        }),
      );
    },
    get googleProvider() {
      return once(
        'googleProvider',
        () => new GoogleTrendsProvider({ timeoutMs: config.trends.requestTimeoutMs, observe: watchGoogleAnswers(logger) }),
      );
    },
    get deliveryGate() {
      // A slot is held at most an attempt's deadline and a little: a crashed worker's slots free themselves.
      return once(
        'deliveryGate',
        () =>
          new DeliveryGate(
            resources.redis,
            {
              inFlight: resources.redisKeys.webhookInFlight,
              circuit: resources.redisKeys.webhookCircuit,
              parked: resources.redisKeys.webhookParked,
              wakes: resources.redisKeys.webhookWakes,
            },
            config.webhooks.fairness,
            config.webhooks.timeoutMs + 5_000,
          ),
      );
    },
    get signInLimiter() {
      return once(
        'signInLimiter',
        () =>
          new SignInLimiter(resources.redis, {
            email: resources.redisKeys.signInEmail,
            client: resources.redisKeys.signInClient,
            account: resources.redisKeys.signInAccount,
          }),
      );
    },
    get knownDevices() {
      return once('knownDevices', () => new KnownDevices(resources.redis, resources.redisKeys.signInDevices));
    },
    get hashGate() {
      return once('hashGate', () => {
        const limits = overrides.pagesLimits ?? config.web.pages;
        return new HashGate({
          concurrent: limits.hashConcurrent,
          reservedForKnown: limits.hashReservedForKnown,
          waiting: limits.hashWaiting,
        });
      });
    },
    get pageLimiter() {
      return once(
        'pageLimiter',
        () => new PageLimiter(resources.redis, resources.redisKeys.pageRequests, overrides.pagesLimits ?? config.web.pages),
      );
    },
    google() {
      google ??= (async () => {
        // The queue's jobs carry the queued provider's name (the registry's one queued profile: live Google).
        const queuedName = QUEUED_PROVIDER?.name;
        if (!queuedName) throw new Error('no provider in src/providers/registry.ts is asked through the trends queue');
        const connection = resources.connectRedis('worker');
        const events = new QueueEvents(QUEUES.trends, { connection, prefix: resources.redisKeys.queuePrefix(QUEUES.trends) });
        events.on('error', (error) => logger.error({ err: error }, 'queue events error'));
        closers.push(async () => {
          await events.close();
          connection.disconnect();
        });
        await events.waitUntilReady();
        // Jobs asleep on a trends answer are woken as soon as it comes (see QueuedTrendsGateway).
        const waiters = redisTrendsWaiters(resources.redis, resources.redisKeys.trendsWaiters);
        // Research goes ahead of the refresh and discovery when both wait for Google.
        const byPurpose = {
          research: new QueuedTrendsGateway(
            services.queues.trends,
            events,
            queuedName,
            config.trends.waitMs,
            TRENDS_PRIORITY.research,
            waiters,
          ),
          background: new QueuedTrendsGateway(
            services.queues.trends,
            events,
            queuedName,
            config.trends.waitMs,
            TRENDS_PRIORITY.background,
            waiters,
          ),
        };
        googleGateways = { events, gateway: (purpose) => byPurpose[purpose] };
        return googleGateways;
      })();
      return google;
    },
    budget({ now = new Date(), paid = false } = {}) {
      return budgetReport(
        resources.db,
        services.egress,
        config,
        now,
        paid ? { redis: resources.redis, keys: resources.redisKeys } : undefined,
      );
    },
    async close() {
      // Last built, first closed: the events before the queues they listen to.
      for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => {});
    },
  };
  return services;
}
