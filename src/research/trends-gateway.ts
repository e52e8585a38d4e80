// How research steps get Google Trends data: as a job on the `trends` queue
// (one global rate limit for all workers), awaited by the step. The job id is
// derived from the request, so the same request within a UTC day is fetched once.
import type { Queue, QueueEvents } from 'bullmq';
import { isOutage } from '../outage.js';
import { enqueueWith, jobIdOf } from '../queue/enqueue.js';
import { JOB } from '../queue/job-catalogue.js';
import { describeRequest, NotRecordedError, type TrendsProvider, type TrendsRequest, type TrendsResponse } from '../trends/types.js';

/** The answer has not come yet (Google is throttling us, or the queue is long). The step waits; it does not fail. */
export class WaitingForTrendsError extends Error {
  override name = 'WaitingForTrendsError';
  constructor(
    message: string,
    /** When the trends job said it will be waiting a while (a route cooling down): how long. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** How long a waiting step or refresh sleeps: what the trends job said, within bounds. */
export function sleepFor(error: WaitingForTrendsError, fallbackMs: number, maxMs = 5 * 60_000): number {
  return Math.min(maxMs, Math.max(fallbackMs, error.retryAfterMs ?? 0));
}

/** The trends job failed for good (malformed answer, not recorded, retries exhausted). */
export class TrendsFailedError extends Error {
  override name = 'TrendsFailedError';
  constructor(
    message: string,
    /** Replay has no recording of the request (it never invents one): evidence not recorded, not a failure of Google. */
    readonly notRecorded = false,
  ) {
    super(message);
  }
}

/**
 * BullMQ priorities of trends jobs (lower goes first): a research run's
 * requests go ahead of the daily refresh's and discovery's, so a run started
 * during a long refresh finishes in about its own budget. Among research
 * requests, those of runs further along go first (see researchPriority).
 */
export const TRENDS_PRIORITY = { research: 1, background: 100 } as const;
export type TrendsPurpose = keyof typeof TRENDS_PRIORITY;

/**
 * The priority of a research request made at `step` of `steps`: the further
 * along its run, the sooner. Google's pace is the bottleneck; with many runs
 * waiting, each finishes in turn (as research steps are LIFO) instead of all
 * advancing a request at a time and finishing together at the end.
 */
export function researchPriority(step: number, steps: number): number {
  return TRENDS_PRIORITY.research + Math.max(0, steps - step);
}

export interface TrendsGateway {
  fetch(request: TrendsRequest, options?: { priority?: number }): Promise<TrendsResponse>;
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
      throw new TrendsFailedError(error instanceof Error ? error.message : String(error), error instanceof NotRecordedError);
    }
  }
}

/** The wait a trends job announced in its progress (see src/trends/paced-fetch.ts), if any. */
function waitOf(progress: unknown): { until: number; reason: string } | undefined {
  const p = progress as { until?: unknown; reason?: unknown } | null | undefined;
  return typeof p === 'object' && p !== null && typeof p.until === 'number' && typeof p.reason === 'string'
    ? { until: p.until, reason: p.reason }
    : undefined;
}

/** Live Google: through the `trends` queue, paced per egress route. */
export class QueuedTrendsGateway implements TrendsGateway {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly provider: string,
    private readonly waitMs = 20_000,
    private readonly priority: number = TRENDS_PRIORITY.research,
  ) {}

  async fetch(request: TrendsRequest, options: { priority?: number } = {}): Promise<TrendsResponse> {
    const data = { request, provider: this.provider };
    const now = new Date();
    const jobId = jobIdOf(JOB.trendsFetch, data, now)!;
    let job = await this.queue.getJob(jobId);
    if (job && (await job.isFailed())) await job.retry('failed');
    if (!job) job = await enqueueWith(this.queue, JOB.trendsFetch, { priority: options.priority ?? this.priority }, data, now);
    else if (await job.isCompleted()) return job.returnvalue as TrendsResponse;
    // A job waiting out a long cooldown says until when: sleep that long rather than hold a worker waiting for it.
    const waiting = waitOf(job.progress);
    if (waiting && waiting.until - Date.now() > this.waitMs)
      throw new WaitingForTrendsError(`${describeRequest(request)}: ${waiting.reason}`, waiting.until - Date.now());
    try {
      return (await job.waitUntilFinished(this.events, this.waitMs)) as TrendsResponse;
    } catch (error) {
      if (isOutage(error)) throw error; // Redis away: the step retries, the request is not at fault
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out before finishing/i.test(message)) {
        const waiting = waitOf((await this.queue.getJob(jobId))?.progress);
        throw new WaitingForTrendsError(
          `${describeRequest(request)}${waiting ? `: ${waiting.reason}` : ''}`,
          waiting ? waiting.until - Date.now() : undefined,
        );
      }
      throw new TrendsFailedError(message);
    }
  }
}
