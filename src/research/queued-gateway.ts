// How research steps get Google Trends data: as a job on the `trends` queue
// (one global rate limit for all workers), awaited by the step. The job id is
// derived from the request, so the same request within a UTC day is fetched once.
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from '../redis/connection.js';
import { linkActiveSpanTo, traceOfJobLog, tracingEnabled } from '../observability/tracing.js';
import { isOutage } from '../outage.js';
import { enqueueWith, jobIdOf } from '../queue/enqueue.js';
import { JOB } from '../queue/job-catalogue.js';
import { describeRequest } from '../providers/contract.js';
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import {
  TRENDS_PRIORITY,
  TrendsFailedError,
  WaitingForTrendsError,
  type TrendsFetchOptions,
  type TrendsGateway,
  type TrendsWaiter,
} from '../providers/gateway.js';

/** How long a waiting step or refresh sleeps: what the trends job said, within bounds. */
export function sleepFor(error: WaitingForTrendsError, fallbackMs: number, maxMs = 5 * 60_000): number {
  return Math.min(maxMs, Math.max(fallbackMs, error.retryAfterMs ?? 0));
}

/**
 * The priority of a research request made at `step` of `steps`: the further
 * along its run, the sooner. Google's pace is the bottleneck; with many runs
 * waiting, each finishes in turn (as research steps are LIFO) instead of all
 * advancing a request at a time and finishing together at the end.
 */
export function researchPriority(step: number, steps: number): number {
  return TRENDS_PRIORITY.research + Math.max(0, steps - step);
}

/**
 * The priority of a research request of the run holding fair turn `turn`
 * (src/research/step-queue.ts): the accounts' runs are answered in turn, each
 * run's requests together (so runs still finish one after another), and every
 * run before the daily refresh and discovery.
 */
export function researchTurnPriority(turn: number): number {
  return TRENDS_PRIORITY.research + Math.min(Math.max(1, turn), TRENDS_PRIORITY.background - 2);
}

/** The wait a trends job announced in its progress (see src/providers/google/paced-fetch.ts), if any. */
function waitOf(progress: unknown): { until: number; reason: string } | undefined {
  const p = progress as { until?: unknown; reason?: unknown } | null | undefined;
  return typeof p === 'object' && p !== null && typeof p.until === 'number' && typeof p.reason === 'string'
    ? { until: p.until, reason: p.reason }
    : undefined;
}

/** What the gateway records of who waits for which trends job. */
export interface TrendsWaiters {
  add(trendsJobId: string, waiter: TrendsWaiter): Promise<void>;
  /** Why the trends job failed while jobs waited on it (kept ten minutes), if it did. */
  failedWhileWaited(trendsJobId: string): Promise<string | null>;
}

/** How a wait of our own ends: the job answered, failed, or the deadline came (a type, not a message to match). */
type Finished = { answered: TrendsResponse } | { failed: string } | { timedOut: true };

async function waitForJob(job: Job, events: QueueEvents, ms: number): Promise<Finished> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Finished>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), ms)));
  const finished = job.waitUntilFinished(events).then(
    (value) => ({ answered: value as TrendsResponse }),
    (error: unknown) => {
      if (isOutage(error)) throw error; // Redis away: the caller retries, the request is not at fault
      return { failed: error instanceof Error ? error.message : String(error) };
    },
  );
  try {
    return await Promise.race([finished, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Live Google: through the `trends` queue, paced per egress route.
 *
 * A job that asks (a research step, a refresh) says who it is (`waiter`): it
 * never holds its worker slot waiting for Google. If the answer is not there
 * yet, the gateway records the job as a waiter of the trends job and throws
 * WaitingForTrendsError; the job goes to sleep without spending an attempt,
 * and is woken (promoted) the moment the trends job answers or fails
 * (wakeTrendsWaiters, from the trends queue's events), or at the latest when
 * its sleep ends. Asked again, the answer is there (kept a day). A caller
 * without a worker slot to free (the CLI) waits up to `waitMs` instead.
 */
export class QueuedTrendsGateway implements TrendsGateway {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly provider: string,
    private readonly waitMs = 20_000,
    private readonly priority: number = TRENDS_PRIORITY.research,
    private readonly waiters?: TrendsWaiters,
  ) {}

  async fetch(request: TrendsRequest, options: TrendsFetchOptions = {}): Promise<TrendsResponse> {
    const data = { request, provider: this.provider, ...(options.scope ? { scope: options.scope } : {}) };
    const now = new Date();
    const jobId = jobIdOf(JOB.trendsFetch, data, now)!;
    let job = await this.queue.getJob(jobId);
    if (job && (await job.isFailed())) {
      // A waiter woken by the failure it waited for fails with it; any other ask tries the request once more.
      const failed = options.waiter ? await this.waiters?.failedWhileWaited(jobId) : null;
      if (failed) throw new TrendsFailedError(failed);
      await job.retry('failed');
    }
    if (!job) job = await enqueueWith(this.queue, JOB.trendsFetch, { priority: options.priority ?? this.priority }, data, now);
    else if (await job.isCompleted()) return this.answered(jobId, job.returnvalue as TrendsResponse);
    const waiting = () => waitOf(job.progress);
    const asleep = (announced = waiting()) =>
      new WaitingForTrendsError(
        `${describeRequest(request)}${announced ? `: ${announced.reason}` : ''}`,
        announced ? announced.until - Date.now() : undefined,
      );
    if (options.waiter && this.waiters) {
      await this.waiters.add(jobId, options.waiter);
      // It may have answered between the look above and the record: then the wake-up was missed, and the answer is here.
      const now = await this.queue.getJob(jobId);
      if (now && (await now.isCompleted())) return this.answered(jobId, now.returnvalue as TrendsResponse);
      throw asleep(waitOf(now?.progress));
    }
    // A job waiting out a long cooldown says until when: sleep that long rather than hold a worker waiting for it.
    const announced = waiting();
    if (announced && announced.until - Date.now() > this.waitMs) throw asleep(announced);
    const finished = await waitForJob(job, this.events, this.waitMs);
    if ('answered' in finished) return this.answered(jobId, finished.answered);
    if ('failed' in finished) throw new TrendsFailedError(finished.failed);
    throw asleep(waitOf((await this.queue.getJob(jobId))?.progress));
  }

  /**
   * The answer of trends job `jobId`, the asking span linked to the job's own trace (traced: the job's
   * log names it). The job is shared: the run that made it is linked from the job, and every run it
   * answers, this one or a later one, links to it here. Tracing off, just the answer.
   */
  private async answered(jobId: string, answer: TrendsResponse): Promise<TrendsResponse> {
    if (!tracingEnabled()) return answer;
    const { logs } = await this.queue.getJobLogs(jobId).catch(() => ({ logs: [] as string[] }));
    linkActiveSpanTo(traceOfJobLog(logs));
    return answer;
  }
}

/**
 * Asks without waiting (a web request never holds on Google): the answer when
 * the day's trends job for the request has one; else the job is made (or a
 * failed one tried again) and the caller is told how long to wait before
 * asking again.
 */
export async function askWithoutWaiting(
  queue: Queue,
  provider: string,
  request: TrendsRequest,
): Promise<{ answered: TrendsResponse } | { pendingMs: number }> {
  const data = { request, provider };
  const now = new Date();
  const jobId = jobIdOf(JOB.trendsFetch, data, now)!;
  let job = await queue.getJob(jobId);
  if (job && (await job.isCompleted())) return { answered: job.returnvalue as TrendsResponse };
  if (job && (await job.isFailed())) await job.retry('failed');
  if (!job) job = await enqueueWith(queue, JOB.trendsFetch, { priority: TRENDS_PRIORITY.research }, data, now);
  const announced = waitOf(job.progress);
  return { pendingMs: Math.max(2_000, Math.min(5 * 60_000, announced ? announced.until - Date.now() : 5_000)) };
}

/** Records waiters in Redis (kept a day, as the trends job's answer is). */
export function redisTrendsWaiters(redis: Redis, keyOf: (trendsJobId: string) => string): TrendsWaiters {
  return {
    async add(trendsJobId, waiter) {
      const key = keyOf(trendsJobId);
      await redis
        .multi()
        .sadd(key, `${waiter.queue}|${waiter.jobId}`)
        .pexpire(key, 24 * 3_600_000)
        .exec();
    },
    failedWhileWaited: (trendsJobId) => redis.get(`${keyOf(trendsJobId)}:failed`),
  };
}

/**
 * Whether anyone still waits for a trends job: false only when every job that
 * recorded itself as its waiter is a step of a research run since cancelled.
 * Then the request is not worth Google's budget; the waiters' record is
 * dropped with it, so nobody is woken by its end and no later run inherits
 * its failure. A job nobody recorded waiting for (the refresh, the CLI) is
 * wanted.
 */
export async function trendsJobWanted(
  redis: Redis,
  keyOf: (trendsJobId: string) => string,
  cancelled: (runIds: readonly string[]) => Promise<Set<string>>,
  trendsJobId: string,
): Promise<boolean> {
  const key = keyOf(trendsJobId);
  const members = await redis.smembers(key);
  if (members.length === 0) return true;
  const runIds: string[] = [];
  for (const member of members) {
    const [queue, jobId] = member.split('|') as [string, string];
    const runId = queue === JOB.researchStep.queue ? /^(run_[A-Za-z0-9]+)-step-\d+$/.exec(jobId)?.[1] : undefined;
    if (!runId) return true;
    runIds.push(runId);
  }
  const gone = await cancelled(runIds);
  if (!runIds.every((id) => gone.has(id))) return true;
  await redis.del(key);
  return false;
}

/**
 * Wakes the jobs asleep on a trends job that has answered or failed: each one
 * still delayed is promoted, to run now and find the answer. Every worker
 * process hears the event; the first to take the set wakes them, the others
 * find it empty.
 */
export async function wakeTrendsWaiters(
  redis: Redis,
  keyOf: (trendsJobId: string) => string,
  trendsJobId: string,
  queues: Readonly<Record<string, Queue>>,
  /** Why it failed for good, when it did: the woken jobs fail with it rather than ask again. */
  failedReason?: string,
): Promise<number> {
  const key = keyOf(trendsJobId);
  const [[, members]] = (await redis.multi().smembers(key).del(key).exec()) as [[unknown, string[]], unknown];
  if (members.length > 0 && failedReason !== undefined) await redis.set(`${key}:failed`, failedReason, 'PX', 600_000);
  let woken = 0;
  for (const member of members) {
    const [queue, id] = member.split('|') as [string, string];
    const waiter = await queues[queue]?.getJob(id);
    if (waiter && (await waiter.isDelayed())) {
      await waiter.promote().catch(() => undefined); // it woke by itself meanwhile
      woken += 1;
    }
  }
  return woken;
}
