// How research steps get Google Trends data: as a job on the `trends` queue
// (one global rate limit for all workers), awaited by the step. The job id is
// derived from the request, so the same request within a UTC day is fetched once.
import { createHash } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import { isOutage } from '../outage.js';
import { JOBS, TRENDS_JOB_OPTIONS } from '../queue/queues.js';
import { describeRequest, requestKey, type TrendsProvider, type TrendsRequest, type TrendsResponse } from '../trends/types.js';

/** The answer has not come yet (Google is throttling us, or the queue is long). The step waits; it does not fail. */
export class WaitingForTrendsError extends Error {
  override name = 'WaitingForTrendsError';
}

/** The trends job failed for good (malformed answer, not recorded, retries exhausted). */
export class TrendsFailedError extends Error {
  override name = 'TrendsFailedError';
}

export function trendsJobId(provider: string, request: TrendsRequest, now = new Date()): string {
  const hash = createHash('sha1').update(`${provider}|${requestKey(request)}|${now.toISOString().slice(0, 10)}`).digest('hex');
  return `trends-${hash.slice(0, 32)}`;
}

/**
 * BullMQ priorities of trends jobs (lower goes first): a research run's
 * requests go ahead of the daily refresh's and discovery's, so a run started
 * during a long refresh finishes in about its own budget.
 */
export const TRENDS_PRIORITY = { research: 1, background: 10 } as const;
export type TrendsPurpose = keyof typeof TRENDS_PRIORITY;

export interface TrendsGateway {
  fetch(request: TrendsRequest): Promise<TrendsResponse>;
}

/**
 * Local data (replay, synthetic) needs no protection from bursts: asked directly.
 * Provider errors become TrendsFailedError, as they would through the queue.
 */
export class DirectTrendsGateway implements TrendsGateway {
  constructor(private readonly provider: TrendsProvider) {}

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    try {
      return await this.provider.fetch(request);
    } catch (error) {
      throw new TrendsFailedError(error instanceof Error ? error.message : String(error));
    }
  }
}

/** Live Google: through the `trends` queue and its global rate limit. */
export class QueuedTrendsGateway implements TrendsGateway {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly provider: string,
    private readonly waitMs = 20_000,
    private readonly priority: number = TRENDS_PRIORITY.research,
  ) {}

  async fetch(request: TrendsRequest): Promise<TrendsResponse> {
    const jobId = trendsJobId(this.provider, request);
    let job = await this.queue.getJob(jobId);
    if (job && (await job.isFailed())) await job.retry('failed');
    if (!job) job = await this.queue.add(JOBS.trendsFetch, { request, provider: this.provider }, { ...TRENDS_JOB_OPTIONS, jobId, priority: this.priority });
    try {
      return (await job.waitUntilFinished(this.events, this.waitMs)) as TrendsResponse;
    } catch (error) {
      if (isOutage(error)) throw error; // Redis away: the step retries, the request is not at fault
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out before finishing/i.test(message)) throw new WaitingForTrendsError(describeRequest(request));
      throw new TrendsFailedError(message);
    }
  }
}
