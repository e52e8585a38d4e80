// The repeating jobs (BullMQ job schedulers, cron in UTC), declared once.
import type { Queue } from 'bullmq';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { jobRequest } from '../queue/enqueue.js';
import { JOB, type JobDeclaration, type NoPayload } from '../queue/job-catalogue.js';
import type { QueueName } from '../queue/queue-names.js';

interface Schedule {
  id: string;
  /** A job without an id rule: the scheduler names each run. */
  job: JobDeclaration<typeof NoPayload>;
  repeat: (config: Config) => { every: number } | { pattern: string; tz: 'UTC' };
  /** A schedule that is off is removed on upsert (default: always on). */
  enabled?: (config: Config) => boolean;
}

export const SCHEDULES: readonly Schedule[] = [
  // Every 15 s, for work quiet for 30 s: a job lost with a Redis failover (replication is
  // asynchronous) is back within about 45 s. Sweeping is one indexed query, and re-enqueueing
  // work whose job still exists is a no-op.
  { id: 'sweep-every-15s', job: JOB.sweep, repeat: () => ({ every: 15_000 }) },
  { id: 'refresh-daily', job: JOB.refreshAll, repeat: (config) => ({ pattern: config.schedules.refreshCron, tz: 'UTC' }) },
  { id: 'discover-daily', job: JOB.discover, repeat: (config) => ({ pattern: config.schedules.discoveryCron, tz: 'UTC' }) },
  { id: 'relay-every-5s', job: JOB.relay, repeat: () => ({ every: 5_000 }) },
  { id: 'prune-daily', job: JOB.prune, repeat: () => ({ pattern: '30 2 * * *', tz: 'UTC' }) },
  // The live Google canary spends a route's requests (about ten), so it runs only where asked for, on live Google.
  {
    id: 'google-check',
    job: JOB.googleCheck,
    repeat: (config) => ({ pattern: config.schedules.googleCheckCron, tz: 'UTC' }),
    enabled: (config) => config.schedules.googleCheckCron !== '' && config.trends.providers.includes('google'),
  },
];

/** Schedulers of earlier releases, removed on upsert. */
const RETIRED: ReadonlyArray<{ id: string; queue: QueueName }> = [{ id: 'sweep-every-minute', queue: 'maintenance' }];

/** Upserts the job schedulers. Idempotent: safe from every deploy and every `npm start`. */
export async function upsertSchedulers(queues: Record<QueueName, Queue>, config: Config): Promise<string[]> {
  for (const { id, queue } of RETIRED) await queues[queue].removeJobScheduler(id);
  const on = SCHEDULES.filter((s) => s.enabled?.(config) ?? true);
  for (const s of SCHEDULES.filter((x) => !on.includes(x))) await queues[s.job.queue].removeJobScheduler(s.id);
  for (const s of on) {
    const { name, data, opts } = jobRequest(s.job, {}, []);
    await queues[s.job.queue].upsertJobScheduler(s.id, s.repeat(config), { name, data, opts });
  }
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
