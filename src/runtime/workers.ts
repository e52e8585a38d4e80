// Every BullMQ queue and worker of the pipeline, created in one place: the
// `worker` process and `npm start` both call startWorkers().
import { DelayedError, FlowProducer, Queue, QueueEvents, UnrecoverableError, Worker, type Processor, type WorkerOptions } from 'bullmq';
import { discoverProcessor } from '../../jobs/discover.job.js';
import { refreshAllProcessor } from '../../jobs/refresh-all.job.js';
import { refreshGroupProcessor } from '../../jobs/refresh-group.job.js';
import { refreshLeftoversProcessor } from '../../jobs/refresh-leftovers.job.js';
import { refreshInsightProcessor } from '../../jobs/refresh-insight.job.js';
import { webhookDeliverProcessor } from '../../jobs/webhook-deliver.job.js';
import { outboxRelayProcessor, webhookMatchProcessor } from '../../jobs/webhook-match.job.js';
import { retryDelayMs } from '../domain/webhooks/retry.js';
import { SecretBox } from '../webhooks/secret-box.js';
import { googleAnswers, googleAnswerSeconds, jobDuration, jobFailures, reportQueueDepth } from '../observability/metrics.js';
import { AnswerShiftWatch } from '../domain/trends/answer-shift.js';
import type { ExchangeObserver } from '../trends/google-client.js';
import { bumpSubscriptionsVersion, SubscriptionIndexCache } from '../webhooks/subscription-index.cache.js';
import { researchStepProcessor } from '../../jobs/research-step.job.js';
import { sweepProcessor } from '../../jobs/sweep.job.js';
import { trendsFetchProcessor } from '../../jobs/trends-fetch.job.js';
import { TRENDS_PROVIDERS, type Config, type TrendsProviderName } from '../config.js';
import type { Logger } from '../logger.js';
import { classifyOutage } from '../outage.js';
import { sleepWithoutAttempt } from '../queue/wait.js';
import { JOBS, MATCH_JOB_OPTIONS, matchJobId, QUEUES, type QueueName } from '../queue/queues.js';
import { ResearchChain } from '../research/chain.js';
import { DirectTrendsGateway, QueuedTrendsGateway, TRENDS_PRIORITY, type TrendsGateway, type TrendsPurpose } from '../research/trends-gateway.js';
import { routesFrom } from '../trends/egress.js';
import { EgressPool } from '../trends/egress-pool.js';
import { GoogleTrendsProvider } from '../trends/google.provider.js';
import { anchorTermFor, createTrendsProvider } from '../trends/provider-factory.js';
import type { Resources } from './resources.js';

export interface Pipeline {
  queues: Record<QueueName, Queue>;
  chain: ResearchChain;
  close(): Promise<void>;
}

/** Queues only: what producers (the CLI, the scheduler) need. */
export function openQueues(resources: Resources, config: Config): { queues: Record<QueueName, Queue>; close(): Promise<void> } {
  const connection = resources.connectRedis('worker');
  const queues = Object.fromEntries(
    Object.values(QUEUES).map((name) => [name, new Queue(name, { connection, prefix: resources.redisKeys.queuePrefix(name) })]),
  ) as Record<QueueName, Queue>;
  return {
    queues,
    async close() {
      await Promise.all(Object.values(queues).map((q) => q.close()));
      connection.disconnect();
    },
  };
}

/** The routes to Google and their shared pace, cooldowns and probes (direct, or the proxies of TRENDS_PROXY_URLS). */
export function egressPoolFor(resources: Resources, config: Config): EgressPool {
  return new EgressPool(resources.redis, resources.redisKeys.trendsPool, routesFrom(config.trendsProxyUrls), {
    requestsPerMinute: config.trendsRequestsPerMinute,
    cooldownMs: config.trendsCooldownMs,
    cooldownMaxMs: config.trendsCooldownMaxMs,
    refusedPauseMs: config.trendsRefusedPauseMs,
    requestTimeoutMs: config.trendsRequestTimeoutMs,
  });
}

/**
 * Counts every exchange with Google per kind and outcome (/metrics), and warns
 * when a kind's share of empty, no-data or changed answers jumps (see
 * domain/trends/answer-shift.ts): the first sign that Google changed again.
 */
export function watchGoogleAnswers(logger: Logger): ExchangeObserver {
  const watch = new AnswerShiftWatch();
  return (report) => {
    googleAnswers.inc({ kind: report.kind, outcome: report.outcome });
    googleAnswerSeconds.observe({ kind: report.kind }, report.ms / 1000);
    const shift = watch.record(report.kind, report.outcome);
    if (shift) {
      const pct = (x: number) => `${Math.round(x * 100)} %`;
      logger.warn(
        { kind: shift.kind, recentShare: shift.recentShare, baselineShare: shift.baselineShare, recent: shift.recent, baseline: shift.baseline, route: report.route },
        `Google's answers to ${shift.kind} changed: ${pct(shift.recentShare)} of the last ${shift.recent} were empty, without data or in an unknown shape, against ${pct(shift.baselineShare)} of the ${shift.baseline} before. Google may have changed what it serves: run \`insights google check\``,
      );
    }
  };
}

/** Upserts the job schedulers (cron, UTC). Idempotent: safe from every deploy and every `npm start`. */
export async function upsertSchedulers(queues: Record<QueueName, Queue>, config: Config): Promise<string[]> {
  // Every 15 s, for work quiet for 30 s: a job lost with a Redis failover (replication is
  // asynchronous) is back within about 45 s. Sweeping is one indexed query, and re-enqueueing
  // work whose job still exists is a no-op. (The per-minute scheduler it replaced is removed.)
  await queues.maintenance.removeJobScheduler('sweep-every-minute');
  await queues.maintenance.upsertJobScheduler('sweep-every-15s', { every: 15_000 }, { name: JOBS.sweep, data: {} });
  await queues.ingest.upsertJobScheduler('refresh-daily', { pattern: config.refreshCron, tz: 'UTC' }, { name: JOBS.refreshAll, data: {} });
  await queues.ingest.upsertJobScheduler('discover-daily', { pattern: config.discoveryCron, tz: 'UTC' }, { name: JOBS.discover, data: {} });
  await queues.maintenance.upsertJobScheduler('relay-every-5s', { every: 5_000 }, { name: JOBS.relay, data: {} });
  return ['sweep-every-15s', 'refresh-daily', 'discover-daily', 'relay-every-5s'];
}

/**
 * A job that meets Postgres or Redis away (a restart, a failover, a killed
 * connection) did nothing wrong: it sleeps a few seconds and runs again
 * without spending an attempt, however long the outage lasts. Every other
 * error takes BullMQ's normal path (retry with backoff, then fail).
 * If Redis itself is away the sleep cannot be recorded either; the job's lock
 * then expires and BullMQ's stalled-job check runs it again.
 */
function retryOutages(queue: string, processor: Processor, logger: Logger): Processor {
  return async (job, token) => {
    try {
      return await processor(job, token);
    } catch (error) {
      const outage = classifyOutage(error);
      if (!outage || error instanceof DelayedError) throw error;
      const delayMs = OUTAGE_RETRY_MS + Math.floor(Math.random() * OUTAGE_RETRY_MS);
      logger.warn({ queue, jobName: job.name, jobId: job.id, dependency: outage.dependency, reason: outage.reason, delayMs }, 'backing service unavailable; job will run again');
      throw await sleepWithoutAttempt(job, token, delayMs);
    }
  };
}
const OUTAGE_RETRY_MS = 2_000;

/** One processor per queue, switching on the job name; a name without a handler fails loudly. */
function byName(queue: string, handlers: Record<string, Processor>): Processor {
  return async (job, token) => {
    const handler = handlers[job.name];
    if (!handler) throw new UnrecoverableError(`queue ${queue} has no handler for job "${job.name}"`);
    return handler(job, token);
  };
}

export interface StartOptions {
  /**
   * Upsert the job schedulers now and every minute. A scheduler lives in Redis as its
   * definition and its next job: a Redis restart without persistence loses both, and a
   * failover can lose the next job, and either way nothing would sweep, refresh or
   * discover until the next deploy. Upserting is idempotent, so every worker keeps them.
   */
  keepSchedulers?: boolean;
  /** Tests shorten it. */
  schedulerKeepaliveMs?: number;
}

/** How often workers re-upsert the job schedulers (see StartOptions.keepSchedulers). */
export const SCHEDULER_KEEPALIVE_MS = 60_000;

export async function startWorkers(resources: Resources, config: Config, logger: Logger, options: StartOptions = {}): Promise<Pipeline> {
  const { queues, close: closeQueues } = openQueues(resources, config);
  reportQueueDepth(Object.values(queues));
  const eventsConnection = resources.connectRedis('worker');
  const trendsEvents = new QueueEvents(QUEUES.trends, { connection: eventsConnection, prefix: resources.redisKeys.queuePrefix(QUEUES.trends) });
  await trendsEvents.waitUntilReady();
  const chain = new ResearchChain(queues.research);
  // Research goes ahead of the refresh and discovery when both wait for Google.
  const google = {
    research: new QueuedTrendsGateway(queues.trends, trendsEvents, 'google', config.trendsWaitMs, TRENDS_PRIORITY.research),
    background: new QueuedTrendsGateway(queues.trends, trendsEvents, 'google', config.trendsWaitMs, TRENDS_PRIORITY.background),
  };
  const local = new Map<string, TrendsGateway>();
  // Each run names its provider; only live Google goes through the trends queue.
  const trendsFor = (provider: string, purpose: TrendsPurpose = 'research'): TrendsGateway => {
    if (provider === 'google') return google[purpose];
    if (!(TRENDS_PROVIDERS as readonly string[]).includes(provider)) throw new Error(`unknown trends provider "${provider}"`);
    let gateway = local.get(provider);
    if (!gateway) local.set(provider, (gateway = new DirectTrendsGateway(createTrendsProvider({ ...config, trendsProvider: provider as TrendsProviderName }))));
    return gateway;
  };

  const egress = egressPoolFor(resources, config);
  const box = SecretBox.fromConfig(config);
  const subscriptionsIndex = new SubscriptionIndexCache(resources.db, resources.redis, resources.redisKeys.subscriptionsVersion);
  // Several events (a refresh group's) go in one round trip.
  const announce = async (...eventIds: string[]) => {
    await queues.webhooks.addBulk(eventIds.map((eventId) => ({ name: JOBS.webhookMatch, data: { eventId }, opts: { ...MATCH_JOB_OPTIONS, jobId: matchJobId(eventId) } })));
  };
  // The refresh is a flow (groups, then their leftovers): a producer of its own on the queues' connection kind.
  const flowsConnection = resources.connectRedis('worker');
  const flows = new FlowProducer({ connection: flowsConnection, prefix: resources.redisKeys.queuePrefix(QUEUES.ingest) });
  flows.on('error', (error) => logger.error({ err: error }, 'flow producer error'));
  const refreshDeps = {
    db: resources.db,
    redis: resources.redis,
    redisKeys: resources.redisKeys,
    trendsFor,
    provider: config.trendsProvider,
    geo: config.trendsGeo,
    waitRetryMs: Math.min(30_000, config.trendsWaitMs),
    announce,
  };
  const workerConnection = () => resources.connectRedis('worker');
  const connections = [eventsConnection, flowsConnection];
  const make = (name: QueueName, processor: Processor, options: Partial<WorkerOptions> = {}) => {
    const connection = workerConnection();
    connections.push(connection);
    // Google's queue keeps its own policy: a network error there is Google's, not an outage of ours.
    const guarded = name === QUEUES.trends ? processor : retryOutages(name, processor, logger);
    const worker = new Worker(name, guarded, {
      connection,
      prefix: resources.redisKeys.queuePrefix(name),
      lockDuration: config.jobLockMs,
      stalledInterval: Math.max(1_000, Math.floor(config.jobLockMs / 2)),
      // Every job here is idempotent, and workers get killed (deploys, crashes, OOM):
      // a job whose worker died a few times in a row is run again, not failed.
      maxStalledCount: 10,
      ...options,
    });
    worker.on('error', (error) => logger.error({ err: error, queue: name }, 'worker error'));
    worker.on('failed', (job, error) => {
      jobFailures.inc({ queue: name, job: job?.name ?? 'unknown' });
      logger.warn({ queue: name, jobId: job?.id, jobName: job?.name, err: error }, 'job attempt failed');
    });
    worker.on('completed', (job) => {
      if (job.processedOn && job.finishedOn) jobDuration.observe({ queue: name, job: job.name }, (job.finishedOn - job.processedOn) / 1000);
    });
    return worker;
  };

  const workers = [
    make(
      QUEUES.research,
      researchStepProcessor({
        db: resources.db,
        redis: resources.redis,
        redisKeys: resources.redisKeys,
        chain,
        trendsFor,
        logger,
        anchorFor: (provider) => anchorTermFor(provider, config.trendsAnchor),
        geo: config.trendsGeo,
        plan: config.trendsRequestPlan,
        announce,
      }),
      { concurrency: config.researchConcurrency },
    ),
    make(
      QUEUES.trends,
      trendsFetchProcessor({ provider: new GoogleTrendsProvider({ timeoutMs: config.trendsRequestTimeoutMs, observe: watchGoogleAnswers(logger) }), pool: egress, logger }),
      // Two jobs per route interleave their paced requests; the pool, not the concurrency, sets the pace.
      { concurrency: Math.max(2, 2 * egress.routes.length) },
    ),
    make(
      QUEUES.ingest,
      byName(QUEUES.ingest, {
        [JOBS.refreshAll]: refreshAllProcessor({
          db: resources.db,
          flows,
          ingestQueue: { name: QUEUES.ingest, prefix: resources.redisKeys.queuePrefix(QUEUES.ingest) },
          provider: config.trendsProvider,
          logger,
          pacing: { routes: egress.routes.length, requestsPerMinute: config.trendsRequestsPerMinute, cron: config.refreshCron },
        }),
        [JOBS.refreshGroup]: refreshGroupProcessor({ ...refreshDeps, ingest: queues.ingest }),
        [JOBS.refreshLeftovers]: refreshLeftoversProcessor({ db: resources.db, ingest: queues.ingest }),
        [JOBS.refreshInsight]: refreshInsightProcessor(refreshDeps),
        [JOBS.discover]: discoverProcessor({
          db: resources.db,
          chain,
          trendsFor,
          provider: config.trendsProvider,
          geos: config.discoveryGeos,
          dailyCap: config.discoveryDailyCap,
        }),
      }),
      { concurrency: config.researchConcurrency },
    ),
    make(
      QUEUES.webhooks,
      byName(QUEUES.webhooks, {
        [JOBS.webhookMatch]: webhookMatchProcessor({ db: resources.db, webhooks: queues.webhooks, index: subscriptionsIndex }),
        [JOBS.webhookDeliver]: webhookDeliverProcessor({
          db: resources.db,
          box,
          policy: { allowPrivate: config.webhookAllowPrivate, allowedCidrs: config.webhookAllowedCidrs },
          timeoutMs: config.webhookTimeoutMs,
          baseUrl: config.publicBaseUrl,
          disableAfterMs: config.webhookDisableAfterHours * 3_600_000,
          onChange: () => bumpSubscriptionsVersion(resources.redis, resources.redisKeys.subscriptionsVersion),
        }),
      }),
      // Retries follow the webhook schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (± jitter).
      { concurrency: config.webhookConcurrency, settings: { backoffStrategy: (attemptsMade: number) => Math.round(retryDelayMs(attemptsMade + 1) * config.webhookRetryScale) } },
    ),
    make(
      QUEUES.maintenance,
      byName(QUEUES.maintenance, {
        [JOBS.sweep]: sweepProcessor({ db: resources.db, chain, webhooks: queues.webhooks }),
        [JOBS.relay]: outboxRelayProcessor({ db: resources.db, webhooks: queues.webhooks }),
      }),
    ),
  ];
  for (const queue of Object.values(queues)) queue.on('error', (error) => logger.error({ err: error, queue: queue.name }, 'queue error'));
  trendsEvents.on('error', (error) => logger.error({ err: error }, 'queue events error'));

  let keeper: NodeJS.Timeout | undefined;
  if (options.keepSchedulers) {
    const keep = () =>
      upsertSchedulers(queues, config).catch((error: unknown) => logger.warn({ err: error }, 'could not upsert the job schedulers; trying again in a minute'));
    await keep();
    keeper = setInterval(() => void keep(), options.schedulerKeepaliveMs ?? SCHEDULER_KEEPALIVE_MS);
    keeper.unref();
  }

  return {
    queues,
    chain,
    async close() {
      clearInterval(keeper);
      // Stop taking jobs and let active ones finish (BullMQ waits for them).
      await Promise.all(workers.map((w) => w.close()));
      await trendsEvents.close();
      await flows.close();
      await closeQueues();
      for (const c of connections) c.disconnect();
    },
  };
}
