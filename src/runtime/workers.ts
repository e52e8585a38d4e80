// The worker side of the pipeline: the `worker` process and `npm start` both
// call startWorkers() with the services of the composition root (services.ts).
// What runs where is the job table (job-table.ts); this file adds the BullMQ
// machinery (the flow producer, one worker per queue) and starts them; the compiler checks the table.
import { DelayedError, FlowProducer, Worker, type Job, type Processor, type Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { jobDuration, jobFailures, reportQueueDepth } from '../observability/metrics.js';
import {
  contextFrom,
  currentTraceparent,
  inSpan,
  JOB_TRACE_PREFIX,
  linkTo,
  SpanKind,
  traceIdOf,
  tracingEnabled,
} from '../observability/tracing.js';
import { classifyOutage } from '../outage.js';
import { enqueueMany } from '../queue/enqueue.js';
import { JOB } from '../queue/job-catalogue.js';
import { QUEUES, type QueueName } from '../queue/queue-names.js';
import { sleepWithoutAttempt } from '../queue/wait.js';
import type { StepQueue } from '../research/step-queue.js';
import { wakeTrendsWaiters } from '../research/queued-gateway.js';
import { dispatcher, type JobHandlers } from './job-dispatch.js';
import { jobTable, workerOptions } from './job-table.js';
import { keepSchedulers, SCHEDULER_KEEPALIVE_MS } from './schedules.js';
import type { Services } from './services.js';

export interface Pipeline {
  queues: Record<QueueName, Queue>;
  stepQueue: StepQueue;
  close(): Promise<void>;
  /** While close() runs: the queues whose worker has not closed yet and the jobs still running (for the shutdown's log). */
  closing(): { workersOpen: string[]; jobsRunning: string[]; workerConnections: Array<Record<string, unknown>> };
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
      logger.warn(
        { queue, jobName: job.name, jobId: job.id, ...traceOf(job), dependency: outage.dependency, reason: outage.reason, delayMs },
        'backing service unavailable; job will run again',
      );
      throw await sleepWithoutAttempt(job, token, delayMs);
    }
  };
}
const OUTAGE_RETRY_MS = 2_000;

/**
 * A job's trace id, for the log lines written outside its span (a failed attempt is logged from the
 * worker's event, after the span ended); none when it was made outside a trace. Lines written inside
 * the span get trace_id and span_id from the logger (logger.ts, traced).
 */
function traceOf(job: Parameters<typeof carriedTrace>[0]): { trace_id?: string } {
  const traceId = traceIdOf(carriedTrace(job));
  return traceId ? { trace_id: traceId } : {};
}

/** The trace a job was made in (enqueue.ts keeps it in BullMQ's telemetry slot); undefined for a job made outside one. */
function carriedTrace(job: { opts?: { telemetry?: { metadata?: string } } } | undefined): string | undefined {
  return job?.opts?.telemetry?.metadata;
}

/**
 * A job made inside a trace is a span of that trace (a webhook match, the deliveries it
 * makes). A trends job is different: one answer serves every run that asks the same that
 * day, so it is the root of a trace of its own, linked to the request that made it. A
 * research step's span is the step runner's (its parent is the run's record, whoever made
 * the job). Nothing is done while tracing is off.
 */
export function traceJobs(queue: QueueName, processor: Processor): Processor {
  if (queue === QUEUES.research) return processor;
  return async (job, token) => {
    if (!tracingEnabled()) return processor(job, token);
    const carried = carriedTrace(job);
    const shared = queue === QUEUES.trends;
    if (!carried && !shared) return processor(job, token);
    const attributes = { 'messaging.system': 'bullmq', 'messaging.destination.name': queue, 'bullmq.job.name': job.name };
    return inSpan(
      `${queue} ${job.name}`,
      shared
        ? { kind: SpanKind.CONSUMER, root: true, links: linkTo(carried), attributes }
        : { kind: SpanKind.CONSUMER, parent: contextFrom(carried), attributes },
      async () => {
        // The shared job's trace, in its own log: every run its answer serves links to it (research/queued-gateway.ts).
        if (shared) await recordJobTrace(job);
        return processor(job, token);
      },
    );
  };
}

/**
 * Writes the trace of the span active now into the job's log (BullMQ keeps it with the job, and
 * bull-board shows it): a line `trace <traceparent>` that a run asking for the same answer later links
 * to (traceOfSharedJob). Not worth failing the job for: Redis away, the line is simply missing.
 */
async function recordJobTrace(job: Parameters<Processor>[0]): Promise<void> {
  const traceparent = currentTraceparent();
  if (traceparent) await job.log(`${JOB_TRACE_PREFIX}${traceparent}`).catch(() => undefined);
}

export interface StartOptions {
  /** Upsert the job schedulers now and every minute (see keepSchedulers in schedules.ts). */
  keepSchedulers?: boolean;
  /** Tests shorten it. */
  schedulerKeepaliveMs?: number;
}

/** How long a worker's close may wait once none of its jobs runs here: its own wait on Redis, not on work. */
export const WORKER_CLOSE_IDLE_MS = 10_000;

/**
 * Closes `worker`, but once none of its jobs has run in this process for WORKER_CLOSE_IDLE_MS and its close
 * has still not finished, drops its connections and goes on. In the cluster soak of 2026-11-29 (seed 290456)
 * the research worker's close() never finished after a Redis master failover with no job of it running:
 * BullMQ waited on its connections (the cause inside BullMQ/ioredis is not found yet; `connectionsOf` logs
 * their states). A job counts as running until BullMQ has recorded its end (the worker's `completed` or
 * `failed` event, see `jobEnded`), not only until its processor returns, so a completion write waiting on a
 * failover is not cut off (the job would run again when its lock lapsed, its side effects twice): only
 * after COMPLETION_WRITE_MS without that event is a job taken as ended. The process's shutdown deadline
 * (SHUTDOWN_TIMEOUT_MS) bounds the whole wait.
 */
export async function closeWorker(
  worker: Pick<Worker, 'name' | 'close' | 'disconnect'>,
  logger: Logger,
  idleMs = WORKER_CLOSE_IDLE_MS,
): Promise<void> {
  let finished = false;
  const closing = worker.close().finally(() => (finished = true));
  const prefix = `${worker.name}/`;
  let idleSince = Date.now();
  for (;;) {
    await Promise.race([closing.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    if (finished) return closing;
    if (runningNow().some((job) => job.startsWith(prefix))) idleSince = Date.now();
    else if (Date.now() - idleSince >= idleMs) break;
  }
  logger.warn(
    { idleMs, ...connectionsOf(worker) },
    'worker close still waiting with none of its jobs running: dropping its connections and going on',
  );
  await Promise.race([worker.disconnect().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
}

/** The states of a BullMQ worker's Redis clients (internals: for a close that does not finish). */
function connectionsOf(worker: Pick<Worker, 'name'>): Record<string, unknown> {
  const peek = worker as unknown as {
    mainLoopRunning?: unknown;
    backend?: { connection?: { _client?: { status?: string } }; blockingConnection?: { _client?: { status?: string } } };
  };
  return {
    queue: worker.name,
    mainLoopRunning: Boolean(peek.mainLoopRunning),
    connection: peek.backend?.connection?._client?.status,
    blockingConnection: peek.backend?.blockingConnection?._client?.status,
  };
}

/**
 * How long after its processor returned a job still counts as running while BullMQ records its end: a
 * completion write stuck longer than this is dead with its connection, and the job runs again anyway.
 */
export const COMPLETION_WRITE_MS = 30_000;

/** The jobs this process runs (`queue/name/id` → since when, and when its processor returned), for closes and a shutdown that does not finish. */
const running = new Map<string, { since: number; returnedAt?: number }>();
const keyOf = (queue: string, job: Pick<Job, 'name' | 'id'>) => `${queue}/${job.name}/${job.id ?? '?'}`;

/** The jobs running now: those whose processor runs, or returned less than COMPLETION_WRITE_MS ago without BullMQ recording their end. */
function runningNow(now = Date.now()): string[] {
  return [...running.entries()].filter(([, r]) => r.returnedAt === undefined || now - r.returnedAt < COMPLETION_WRITE_MS).map(([k]) => k);
}

export function trackRunning(queue: string, processor: Processor): Processor {
  return async (job, token) => {
    const now = Date.now();
    // Ends BullMQ never reported (a lock lost, a write failed) are forgotten after a while: the map stays small.
    for (const [k, r] of running) if (r.returnedAt !== undefined && now - r.returnedAt > 10 * COMPLETION_WRITE_MS) running.delete(k);
    const key = keyOf(queue, job);
    running.set(key, { since: now });
    try {
      return await processor(job, token);
    } finally {
      const r = running.get(key);
      if (r) r.returnedAt = Date.now();
    }
  };
}

/** BullMQ recorded a job's end (the worker's `completed` or `failed` event): it no longer holds its worker's close. */
export function jobEnded(queue: string, job: Pick<Job, 'name' | 'id'> | undefined): void {
  if (job) running.delete(keyOf(queue, job));
}

export async function startWorkers(services: Services, options: StartOptions = {}): Promise<Pipeline> {
  const { resources, config, logger, queues } = services;
  reportQueueDepth(Object.values(queues));
  const { events: trendsEvents } = await services.google();
  // Jobs asleep on a trends answer are woken as soon as it comes (see QueuedTrendsGateway).
  const wake = (jobId: string, failedReason?: string) =>
    void wakeTrendsWaiters(resources.redis, resources.redisKeys.trendsWaiters, jobId, queues, failedReason).catch((error: unknown) =>
      logger.warn({ err: error, jobId }, 'could not wake the jobs waiting on a trends answer; they wake when their sleep ends'),
    );
  const onCompleted = ({ jobId }: { jobId: string }) => wake(jobId);
  // Failed for good only (a failed attempt that will be retried moves the job back to waiting, not to failed).
  const onFailed = ({ jobId, failedReason }: { jobId: string; failedReason: string }) =>
    void queues.trends
      .getJob(jobId)
      .then(async (job) => (job && (await job.isFailed()) ? wake(jobId, failedReason) : undefined))
      .catch(() => undefined);
  trendsEvents.on('completed', onCompleted);
  trendsEvents.on('failed', onFailed);
  const egress = services.egress;
  // The refresh is a flow (groups, then their leftovers): a producer of its own on the queues' connection kind.
  const flowsConnection = resources.connectRedis('worker');
  const flows = new FlowProducer({ connection: flowsConnection, prefix: resources.redisKeys.queuePrefix(QUEUES.ingest) });
  flows.on('error', (error) => logger.error({ err: error }, 'flow producer error'));
  const connections = [flowsConnection];
  // The queues and the trends events are the services' (closed with them); the flows and workers are the pipeline's.
  const closeShared = async () => {
    trendsEvents.off('completed', onCompleted);
    trendsEvents.off('failed', onFailed);
    await flows.close();
    for (const c of connections) c.disconnect();
  };

  let table: JobHandlers;
  try {
    table = jobTable({
      db: resources.db,
      redis: resources.redis,
      redisKeys: resources.redisKeys,
      config,
      logger,
      queues,
      stepQueue: services.stepQueue,
      trendsFor: services.trendsFor,
      egress,
      googleProvider: services.googleProvider,
      deliveryGate: services.deliveryGate,
      flows,
      box: services.secretBox,
      subscriptionsIndex: services.subscriptionsIndex,
      async announce(...eventIds) {
        await enqueueMany(
          queues.webhooks,
          JOB.webhookMatch,
          eventIds.map((eventId) => ({ data: { eventId }, key: [] })),
        );
      },
    });
  } catch (error) {
    await closeShared();
    throw error;
  }

  const settings = workerOptions(config, egress.routes.length);
  const workers = Object.values(QUEUES).map((name) => {
    const connection = resources.connectRedis('worker');
    connections.push(connection);
    // Google's queue keeps its own policy: a network error there is Google's, not an outage of ours.
    const processor = trackRunning(
      name,
      traceJobs(name, name === QUEUES.trends ? dispatcher(name, table) : retryOutages(name, dispatcher(name, table), logger)),
    );
    const worker = new Worker(name, processor, {
      connection,
      prefix: resources.redisKeys.queuePrefix(name),
      lockDuration: config.worker.jobLockMs,
      stalledInterval: Math.max(1_000, Math.floor(config.worker.jobLockMs / 2)),
      // Every job here is idempotent, and workers get killed (deploys, crashes, OOM):
      // a job whose worker died a few times in a row is run again, not failed.
      maxStalledCount: 10,
      ...settings[name],
    });
    worker.on('error', (error) => logger.error({ err: error, queue: name }, 'worker error'));
    worker.on('failed', (job, error) => {
      jobEnded(name, job);
      jobFailures.inc({ queue: name, job: job?.name ?? 'unknown' });
      logger.warn({ queue: name, jobId: job?.id, jobName: job?.name, ...traceOf(job), err: error }, 'job attempt failed');
    });
    worker.on('completed', (job) => {
      jobEnded(name, job);
      if (job.processedOn && job.finishedOn) jobDuration.observe({ queue: name, job: job.name }, (job.finishedOn - job.processedOn) / 1000);
    });
    return worker;
  });

  const stopKeeping = options.keepSchedulers
    ? await keepSchedulers(queues, config, logger, options.schedulerKeepaliveMs ?? SCHEDULER_KEEPALIVE_MS)
    : undefined;

  const closed = new Set<string>();
  return {
    queues,
    stepQueue: services.stepQueue,
    async close() {
      stopKeeping?.();
      // Stop taking jobs and let active ones finish (BullMQ waits for them).
      await Promise.all(workers.map((w) => closeWorker(w, logger).then(() => closed.add(w.name))));
      await closeShared();
    },
    closing: () => ({
      workersOpen: workers.filter((w) => !closed.has(w.name)).map((w) => w.name),
      jobsRunning: [...running.entries()].map(
        ([job, r]) =>
          `${job} for ${Math.round((Date.now() - r.since) / 1000)} s${r.returnedAt === undefined ? '' : ' (its end not yet recorded)'}`,
      ),
      workerConnections: workers.filter((w) => !closed.has(w.name)).map(connectionsOf),
    }),
  };
}
