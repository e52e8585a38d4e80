// Google's request budget, made visible, in HTTPS requests: what each egress
// route sent in the last hour and today, Google's blocks and each route's
// state (open, cooling after a block, probing, paused after a refusal), the
// research runs waiting on Google, and whether the daily refresh fits before
// the next one at the current rate. Read by `insights budget`, /metrics and the
// refresh itself (which warns when not).
import { planRefresh } from '../refresh/plan.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import { utcDay } from '../domain/utc-day.js';
import { refreshEstimate, type RefreshEstimate } from '../domain/trends/google/refresh-estimate.js';
import { countUnfinishedRuns } from '../research/run.repository.js';
import type { EgressPool, RouteBudget } from '../providers/google/egress/egress-pool.js';
import type { GoogleCheck } from '../providers/google/check.js';
import { paidProviderReports, type PaidProviderReport } from '../research/provider-spend.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';

export interface BudgetReport {
  day: string;
  routes: RouteBudget[];
  /** TRENDS_REQUESTS_PER_MINUTE: HTTPS requests per minute each route may send (0: not paced). */
  requestsPerMinutePerRoute: number;
  requestsPerHourPerRoute: number;
  researchRunsWaiting: number;
  refresh: RefreshEstimate;
  /** The latest scheduled Google canary (GOOGLE_CHECK_CRON), or null. */
  check: GoogleCheck | null;
  /** Paid providers configured (DataForSEO): today's bill, an account problem, cost per run and per refreshed insight. */
  paid: PaidProviderReport[];
}

export async function budgetReport(
  db: Db,
  pool: EgressPool,
  config: Config,
  now = new Date(),
  redis?: { redis: Redis; keys: RedisKeys },
): Promise<BudgetReport> {
  const [routes, plan, waiting, check] = await Promise.all([
    pool.budget(utcDay(now), now.getTime()),
    planRefresh(db, config.trends.provider),
    countUnfinishedRuns(db, 'google'),
    pool.lastCheck<GoogleCheck>(),
  ]);
  return {
    day: utcDay(now),
    routes,
    requestsPerMinutePerRoute: config.trends.requestsPerMinute,
    requestsPerHourPerRoute: config.trends.requestsPerMinute * 60,
    researchRunsWaiting: waiting,
    refresh: refreshEstimate(
      plan,
      config.trends.provider,
      { routes: pool.routes.length, requestsPerMinute: config.trends.requestsPerMinute, cron: config.schedules.refreshCron },
      now,
    ),
    check,
    paid: redis ? await paidProviderReports(db, redis.redis, redis.keys, config.trends.providers, plan) : [],
  };
}
