// Every job of the pipeline in one table: its handler, by the job's key in the
// catalogue (its queue and payload are the catalogue's), built from the services
// of the composition root (services.ts) and what startWorkers adds; and each
// queue's worker settings. The table's type (JobHandlers, job-dispatch.ts) holds
// it to one handler per declared job: a missing or second one fails `tsc`.
import type { FlowProducer, Queue, WorkerOptions } from 'bullmq';
import { discoverProcessor } from '../../jobs/discover.job.js';
import { googleCheckProcessor } from '../../jobs/google-check.job.js';
import { pruneProcessor } from '../../jobs/prune.job.js';
import { refreshAllProcessor } from '../../jobs/refresh-all.job.js';
import { refreshGroupProcessor } from '../../jobs/refresh-group.job.js';
import { refreshInsightProcessor } from '../../jobs/refresh-insight.job.js';
import { refreshLeftoversProcessor } from '../../jobs/refresh-leftovers.job.js';
import { researchStepProcessor } from '../../jobs/research-step.job.js';
import { sweepProcessor } from '../../jobs/sweep.job.js';
import { trendsFetchProcessor } from '../../jobs/trends-fetch.job.js';
import { webhookDeliverProcessor } from '../../jobs/webhook-deliver.job.js';
import { outboxRelayProcessor, webhookMatchProcessor } from '../../jobs/webhook-match.job.js';
import type { Config } from '../config.js';
import { trendsJobWanted } from '../research/queued-gateway.js';
import { cancelledRunIds } from '../research/account-runs.repository.js';
import type { Db } from '../db/connection.js';
import { retryDelayMs } from '../domain/webhooks/retry.js';
import type { Logger } from '../logger.js';
import { QUEUES, type QueueName } from '../queue/queue-names.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import type { StepQueue } from '../research/step-queue.js';
import type { TrendsGateway, TrendsPurpose } from '../providers/gateway.js';
import type { EgressPool } from '../providers/google/egress/egress-pool.js';
import type { GoogleTrendsProvider } from '../providers/google/provider.js';
import { anchorTermFor } from '../providers/registry.js';
import { bumpSubscriptionsVersion, type SubscriptionIndexCache } from '../webhooks/subscription-index.cache.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import type { DeliveryGate } from '../webhooks/delivery-gate.js';
import type { JobHandlers } from './job-dispatch.js';

/** What the processors are made of: the services (built once, in services.ts) and the flows and table of startWorkers. */
export interface PipelineParts {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  config: Config;
  logger: Logger;
  queues: Record<QueueName, Queue>;
  stepQueue: StepQueue;
  /** The gateway for a provider: live Google through the trends queue, the others directly. */
  trendsFor(provider: string, purpose?: TrendsPurpose): TrendsGateway;
  egress: EgressPool;
  /** Live Google's client, for the trends jobs (built by the composition root). */
  googleProvider: GoogleTrendsProvider;
  /** Webhook delivery slots and circuits (built by the composition root). */
  deliveryGate: DeliveryGate;
  /** The refresh is a flow (groups, then their leftovers). */
  flows: FlowProducer;
  box: SecretBox;
  subscriptionsIndex: SubscriptionIndexCache;
  /** Tells webhook matching about committed outbox events (several in one round trip). */
  announce(...eventIds: string[]): Promise<void>;
}

export function jobTable(p: PipelineParts): JobHandlers {
  const { config } = p;
  const refreshDeps = {
    db: p.db,
    redis: p.redis,
    redisKeys: p.redisKeys,
    trendsFor: p.trendsFor,
    provider: config.trends.provider,
    geo: config.trends.geo,
    waitRetryMs: Math.min(30_000, config.trends.waitMs),
    announce: p.announce,
  };
  const gate = p.deliveryGate;
  return {
    researchStep: researchStepProcessor({
      db: p.db,
      redis: p.redis,
      redisKeys: p.redisKeys,
      stepQueue: p.stepQueue,
      trendsFor: p.trendsFor,
      logger: p.logger,
      anchorFor: (provider) => anchorTermFor(provider, config.trends.anchor),
      geo: config.trends.geo,
      requestPlan: config.trends.requestPlan,
      announce: p.announce,
      goOnForMs: config.worker.researchGoOnMs,
    }),
    trendsFetch: trendsFetchProcessor({
      provider: p.googleProvider,
      pool: p.egress,
      logger: p.logger,
      wanted: (jobId) => trendsJobWanted(p.redis, p.redisKeys.trendsWaiters, (runIds) => cancelledRunIds(p.db, runIds), jobId),
    }),
    refreshAll: refreshAllProcessor({
      db: p.db,
      flows: p.flows,
      ingestPrefix: p.redisKeys.queuePrefix(QUEUES.ingest),
      provider: config.trends.provider,
      logger: p.logger,
      pacing: { routes: p.egress.routes.length, requestsPerMinute: config.trends.requestsPerMinute, cron: config.schedules.refreshCron },
    }),
    refreshGroup: refreshGroupProcessor({ ...refreshDeps, ingest: p.queues.ingest }),
    refreshLeftovers: refreshLeftoversProcessor({ db: p.db, ingest: p.queues.ingest }),
    refreshInsight: refreshInsightProcessor(refreshDeps),
    discover: discoverProcessor({
      db: p.db,
      stepQueue: p.stepQueue,
      trendsFor: p.trendsFor,
      provider: config.trends.provider,
      geos: config.schedules.discoveryGeos,
      dailyCap: config.schedules.discoveryDailyCap,
    }),
    webhookMatch: webhookMatchProcessor({
      db: p.db,
      webhooks: p.queues.webhooks,
      index: p.subscriptionsIndex,
      gate,
      sends: config.webhooks.sends,
    }),
    webhookDeliver: webhookDeliverProcessor({
      db: p.db,
      box: p.box,
      policy: { allowPrivate: config.webhooks.allowPrivate, allowedCidrs: config.webhooks.allowedCidrs },
      timeoutMs: config.webhooks.timeoutMs,
      baseUrl: config.web.publicBaseUrl,
      disableAfterMs: config.webhooks.disableAfterHours * 3_600_000,
      onChange: () => bumpSubscriptionsVersion(p.redis, p.redisKeys.subscriptionsVersion),
      gate,
      // A job not asleep (yet, or any more) is not an error: it finds its wake-up or its slot itself.
      // It holds the slot handed to it: it runs next (priority 0, as deliveries given a slot when enqueued), not at its turn.
      wake: async (jobId) => {
        const job = await p.queues.webhooks.getJob(jobId);
        return job
          ? job
              .changePriority({ priority: 0 })
              .then(() => job.promote())
              .then(
                () => true,
                () => false,
              )
          : false;
      },
      // Delivered in its stead by the job that held its account's slot; a job running (locked) is left to find its row delivered.
      forget: async (jobId) => {
        await p.queues.webhooks.remove(jobId);
      },
    }),
    sweep: sweepProcessor({ db: p.db, stepQueue: p.stepQueue, webhooks: p.queues.webhooks }),
    relay: outboxRelayProcessor({ db: p.db, webhooks: p.queues.webhooks }),
    prune: pruneProcessor({ db: p.db, attemptsKeepDays: config.webhooks.attemptsKeepDays }),
    googleCheck: googleCheckProcessor({
      pool: p.egress,
      geo: config.trends.geo.slice(0, 2) || 'US',
      term: anchorTermFor('google', config.trends.anchor),
      timeoutMs: config.trends.requestTimeoutMs,
      logger: p.logger,
    }),
  } satisfies JobHandlers;
}

/** Each queue's worker: its concurrency and settings beyond the shared ones (startWorkers). */
export function workerOptions(config: Config, egressRoutes: number): Record<QueueName, Partial<WorkerOptions>> {
  return {
    research: { concurrency: config.worker.researchConcurrency },
    // Two jobs per route interleave their paced requests; the pool, not the concurrency, sets the pace.
    trends: { concurrency: Math.max(2, 2 * egressRoutes) },
    ingest: { concurrency: config.worker.researchConcurrency },
    // Retries follow the webhook schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (± jitter).
    webhooks: {
      concurrency: config.worker.webhookConcurrency,
      settings: { backoffStrategy: (attemptsMade: number) => Math.round(retryDelayMs(attemptsMade + 1) * config.webhooks.retryScale) },
    },
    maintenance: {},
  };
}
