// trends / trends-fetch: the only code that asks a Trends provider anything.
// A 429 or "sorry" redirect pauses the whole queue (worker.rateLimit) with a
// growing backoff and retries later, without spending an attempt.
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../src/logger.js';
import { checkPayload, TrendsFetchPayload } from '../src/queue/queues.js';
import { trendsRequests } from '../src/observability/metrics.js';
import { MalformedResponseError, NotRecordedError, RateLimitedError, type TrendsProvider, type TrendsRequest } from '../src/trends/types.js';

export interface TrendsFetchDeps {
  provider: TrendsProvider;
  redis: Redis;
  /** Redis key counting consecutive rate-limit answers (drives the backoff, shown to ops). */
  rateLimitedKey: string;
  logger: Logger;
  worker: () => Worker;
  /** First pause after a 429; doubles each time, capped at maxPauseMs. */
  basePauseMs?: number;
  maxPauseMs?: number;
}

export function trendsFetchProcessor(deps: TrendsFetchDeps) {
  return async (job: Job) => {
    const { request } = checkPayload(TrendsFetchPayload, job.data, job.name);
    try {
      const response = await deps.provider.fetch(request as unknown as TrendsRequest);
      trendsRequests.inc({ outcome: 'ok' });
      await deps.redis.del(deps.rateLimitedKey);
      return response;
    } catch (error) {
      trendsRequests.inc({
        outcome: error instanceof RateLimitedError ? 'rate_limited' : error instanceof MalformedResponseError ? 'malformed' : 'error',
      });
      if (error instanceof RateLimitedError) {
        const streak = await deps.redis.incr(deps.rateLimitedKey);
        await deps.redis.expire(deps.rateLimitedKey, 3600);
        const pause = Math.min(deps.maxPauseMs ?? 600_000, (deps.basePauseMs ?? 30_000) * 2 ** Math.min(10, streak - 1));
        deps.logger.warn({ queue: 'trends', jobId: job.id, streak, pauseMs: pause }, 'Google Trends is rate limiting; pausing the trends queue');
        await deps.worker().rateLimit(pause);
        throw Worker.RateLimitError();
      }
      if (error instanceof MalformedResponseError || error instanceof NotRecordedError) throw new UnrecoverableError(error.message);
      throw error;
    }
  };
}
