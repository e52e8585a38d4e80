// trends / trends-fetch: the only code that asks Google anything. Each job
// takes an egress route from the pool (its own rate and its own pause after a
// 429), asks through it, and books what it spent. A 429 or "sorry" redirect
// pauses that route and puts the job back without spending an attempt, so
// another route can take it; when no route is free the worker waits until
// one is (worker.rateLimit). A malformed answer fails at once, with a clear error.
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from '../src/logger.js';
import { checkPayload, TrendsFetchPayload } from '../src/queue/queues.js';
import { trendsRequests } from '../src/observability/metrics.js';
import type { EgressPool } from '../src/trends/egress-pool.js';
import type { GoogleTrendsProvider } from '../src/trends/google.provider.js';
import { MalformedResponseError, NotRecordedError, RateLimitedError, type TrendsRequest } from '../src/trends/types.js';

export interface TrendsFetchDeps {
  provider: GoogleTrendsProvider;
  pool: EgressPool;
  logger: Logger;
  worker: () => Worker;
}

/** HTTPS requests a failed fetch made before it failed (the provider attaches them). */
const requestsOf = (error: unknown) => Number((error as { requests?: unknown }).requests ?? 0);

export function trendsFetchProcessor(deps: TrendsFetchDeps) {
  return async (job: Job) => {
    const { request } = checkPayload(TrendsFetchPayload, job.data, job.name);
    const lease = await deps.pool.acquire();
    if ('waitMs' in lease) {
      // Every route is at its rate or paused: nothing can be asked before one frees up.
      await deps.worker().rateLimit(lease.waitMs);
      throw Worker.RateLimitError();
    }
    const { route } = lease;
    try {
      const response = await deps.provider.fetch(request as unknown as TrendsRequest, route);
      trendsRequests.inc({ outcome: 'ok', route: route.name });
      await deps.pool.succeeded(route, response.provenance?.requests ?? 0);
      return response;
    } catch (error) {
      trendsRequests.inc({
        outcome: error instanceof RateLimitedError ? 'rate_limited' : error instanceof MalformedResponseError ? 'malformed' : 'error',
        route: route.name,
      });
      if (error instanceof RateLimitedError) {
        const pause = await deps.pool.rateLimited(route, requestsOf(error));
        deps.logger.warn({ queue: 'trends', jobId: job.id, route: route.name, pauseMs: pause }, 'Google Trends is rate limiting this route; pausing it');
        // Back to the queue without an attempt: another route may take it now.
        throw Worker.RateLimitError();
      }
      await deps.pool.failed(route, requestsOf(error));
      if (error instanceof MalformedResponseError || error instanceof NotRecordedError) throw new UnrecoverableError(error.message);
      throw error;
    }
  };
}
