// The repeating jobs (BullMQ job schedulers, cron in UTC), declared once.
import type { Queue } from 'bullmq';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { JOBS, type QueueName } from '../queue/queues.js';

interface Schedule {
  id: string;
  queue: QueueName;
  job: (typeof JOBS)[keyof typeof JOBS];
  repeat: (config: Config) => { every: number } | { pattern: string; tz: 'UTC' };
  /** A schedule that is off is removed on upsert (default: always on). */
  enabled?: (config: Config) => boolean;
}

export const SCHEDULES: readonly Schedule[] = [
  // Every 15 s, for work quiet for 30 s: a job lost with a Redis failover (replication is
  // asynchronous) is back within about 45 s. Sweeping is one indexed query, and re-enqueueing
  // work whose job still exists is a no-op.
  { id: 'sweep-every-15s', queue: 'maintenance', job: JOBS.sweep, repeat: () => ({ every: 15_000 }) },
  { id: 'refresh-daily', queue: 'ingest', job: JOBS.refreshAll, repeat: (config) => ({ pattern: config.refreshCron, tz: 'UTC' }) },
  { id: 'discover-daily', queue: 'ingest', job: JOBS.discover, repeat: (config) => ({ pattern: config.discoveryCron, tz: 'UTC' }) },
  { id: 'relay-every-5s', queue: 'maintenance', job: JOBS.relay, repeat: () => ({ every: 5_000 }) },
  { id: 'prune-daily', queue: 'maintenance', job: JOBS.prune, repeat: () => ({ pattern: '30 2 * * *', tz: 'UTC' }) },
  // The live Google canary spends a route's requests (about ten), so it runs only where asked for, on live Google.
  {
    id: 'google-check',
    queue: 'maintenance',
    job: JOBS.googleCheck,
    repeat: (config) => ({ pattern: config.googleCheckCron, tz: 'UTC' }),
    enabled: (config) => config.googleCheckCron !== '' && config.trendsProvider === 'google',
  },
];

/**
 * What Redis keeps of a scheduled job once it has run. Without it every run
 * stayed: the relay (every 5 s) and the sweep (every 15 s) alone left about
 * 23,000 jobs a day, some 28 MB a day, for good. Failed runs stay a week, for
 * `insights doctor` and the dashboard.
 */
export const SCHEDULED_JOB_RETENTION = {
  removeOnComplete: { age: 24 * 3600, count: 100 },
  removeOnFail: { age: 7 * 24 * 3600, count: 1_000 },
} as const;

/** Schedulers of earlier releases, removed on upsert. */
const RETIRED: ReadonlyArray<{ id: string; queue: QueueName }> = [{ id: 'sweep-every-minute', queue: 'maintenance' }];

/** Upserts the job schedulers. Idempotent: safe from every deploy and every `npm start`. */
export async function upsertSchedulers(queues: Record<QueueName, Queue>, config: Config): Promise<string[]> {
  for (const { id, queue } of RETIRED) await queues[queue].removeJobScheduler(id);
  const on = SCHEDULES.filter((s) => s.enabled?.(config) ?? true);
  for (const s of SCHEDULES.filter((x) => !on.includes(x))) await queues[s.queue].removeJobScheduler(s.id);
  for (const s of on)
    await queues[s.queue].upsertJobScheduler(s.id, s.repeat(config), { name: s.job, data: {}, opts: SCHEDULED_JOB_RETENTION });
  return on.map((s) => s.id);
}

/** How often workers re-upsert the job schedulers (see keepSchedulers). */
export const SCHEDULER_KEEPALIVE_MS = 60_000;

/**
 * Upserts the job schedulers now and every `everyMs`. A scheduler lives in Redis as its
 * definition and its next job: a Redis restart without persistence loses both, and a
 * failover can lose the next job, and either way nothing would sweep, refresh or
 * discover until the next deploy. Upserting is idempotent, so every worker keeps them.
 * Answers a function that stops the keeping.
 */
export async function keepSchedulers(
  queues: Record<QueueName, Queue>,
  config: Config,
  logger: Logger,
  everyMs = SCHEDULER_KEEPALIVE_MS,
): Promise<() => void> {
  const keep = () =>
    upsertSchedulers(queues, config).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not upsert the job schedulers; trying again in a minute'),
    );
  await keep();
  const timer = setInterval(() => void keep(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
