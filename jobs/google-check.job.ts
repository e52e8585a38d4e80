// maintenance / google-check: the live canary of `insights google check`, on a
// schedule (GOOGLE_CHECK_CRON), inside the first egress route's pace: one
// request of each kind the product sends, kept in Redis for `insights budget`
// and /metrics (google_trends_check_*), with a warning in the log when a kind
// research or discovery needs is broken. A route that is cooling down, or busy
// past its pace, stops the check where it is: the canary never adds to a block,
// and a check stopped before it asked anything is not kept (the last one is).
// A block or an over-quota token the canary meets is the route's, as for any
// job: the pool is told, so the next job waits instead of following it in.
import type { Logger } from '../src/logger.js';
import type { EgressPool } from '../src/providers/google/egress/egress-pool.js';
import { checkGoogle } from '../src/providers/google/check.js';

export interface GoogleCheckDeps {
  pool: EgressPool;
  geo: string;
  term: string;
  timeoutMs: number;
  logger: Logger;
}

export function googleCheckProcessor(deps: GoogleCheckDeps) {
  return async (job: { id?: string }) => {
    const route = deps.pool.routes[0]!;
    const jobId = `google-check-${job.id ?? Date.now()}`;
    const result = await checkGoogle({
      route,
      geo: deps.geo,
      term: deps.term,
      timeoutMs: deps.timeoutMs,
      pacers: deps.pool.pacers(route, jobId),
    });
    if (result.blocked) await deps.pool.blocked(route, jobId, Date.now(), result.blocked);
    if (result.overQuota) await deps.pool.embedOverQuota(route, jobId);
    if (result.kinds.every((k) => k.outcome === 'not_asked')) {
      deps.logger.info(
        { queue: 'maintenance', route: route.name, reason: result.stopped },
        'The Google canary asked nothing: the route is not free now; the last check stands',
      );
      return { skipped: result.stopped ?? 'nothing asked' };
    }
    await deps.pool.saveCheck(result);
    if (result.broken.length > 0) {
      deps.logger.warn(
        { queue: 'maintenance', route: route.name, broken: result.broken, userType: result.userType },
        `The Google canary found ${result.broken.join(', ')} not answering as expected: Google may have changed (see docs/operations.md, "Google changed")`,
      );
    }
    return { broken: result.broken, userType: result.userType };
  };
}
