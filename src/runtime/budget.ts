// Google's request budget, made visible, in HTTPS requests: what each egress
// route sent in the last hour and today, Google's blocks and each route's
// state (open, cooling after a block, probing, paused after a refusal), the
// research runs waiting on Google, and whether the daily refresh fits before
// the next one at the current rate. Read by `insights budget`, /metrics and the
// refresh itself (which warns when not).
import { CronExpressionParser } from 'cron-parser';
import { planRefresh } from '../../jobs/refresh-all.job.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import type { EgressPool, RouteBudget } from '../trends/egress-pool.js';

/** HTTPS requests one refresh group costs: its explore and the series widget (the route's cookie page is once, not per group). */
export const HTTPS_PER_REFRESH_GROUP = 2;

export interface RefreshEstimate {
  insights: number;
  /** HTTPS requests the refresh needs: an explore and its series per group of up to five. */
  requests: number;
  minutesNeeded: number;
  minutesAvailable: number;
  nextRefreshAt: string;
  fits: boolean;
  advice: string;
}

export interface BudgetReport {
  day: string;
  routes: RouteBudget[];
  /** TRENDS_REQUESTS_PER_MINUTE: HTTPS requests per minute each route may send (0: not paced). */
  requestsPerMinutePerRoute: number;
  requestsPerHourPerRoute: number;
  researchRunsWaiting: number;
  refresh: RefreshEstimate;
}

/** Minutes between the next two refreshes of REFRESH_CRON, and when the next one starts. */
function refreshWindow(cron: string, now: Date): { next: Date; minutes: number } {
  const it = CronExpressionParser.parse(cron, { tz: 'UTC', currentDate: now });
  const next = it.next().toDate();
  const after = it.next().toDate();
  return { next, minutes: (after.getTime() - next.getTime()) / 60_000 };
}

export function estimateRefresh(requests: number, insights: number, routes: number, ratePerMinute: number, cron: string, now = new Date()): RefreshEstimate {
  const { next, minutes } = refreshWindow(cron, now);
  const perMinute = routes * ratePerMinute;
  const minutesNeeded = perMinute === 0 ? 0 : requests / perMinute;
  const fits = minutesNeeded <= minutes;
  const routesNeeded = ratePerMinute === 0 ? routes : Math.ceil(requests / (ratePerMinute * minutes));
  const advice = fits
    ? `fits: ${Math.round(minutesNeeded)} of ${Math.round(minutes)} minutes between refreshes`
    : `needs ${Math.round(minutesNeeded)} minutes but refreshes start every ${Math.round(minutes)}: add ${routesNeeded - routes} egress prox${routesNeeded - routes === 1 ? 'y' : 'ies'} (TRENDS_PROXY_URLS), refresh less often (REFRESH_CRON), or refresh fewer insights`;
  return { insights, requests, minutesNeeded: Math.round(minutesNeeded * 10) / 10, minutesAvailable: Math.round(minutes), nextRefreshAt: next.toISOString(), fits, advice };
}

export async function budgetReport(db: Db, pool: EgressPool, config: Config, now = new Date()): Promise<BudgetReport> {
  const [routes, plan, waiting] = await Promise.all([
    pool.budget(now.toISOString().slice(0, 10), now.getTime()),
    planRefresh(db, config.trendsProvider),
    db
      .selectFrom('research_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('provider', '=', 'google')
      .where('status', 'in', ['queued', 'running', 'waiting'])
      .executeTakeFirstOrThrow(),
  ]);
  // Only groups that ask live Google spend its budget (synthetic insights refresh from generated data).
  const googleGroups = config.trendsProvider === 'google' ? plan.googleGroups : 0;
  return {
    day: now.toISOString().slice(0, 10),
    routes,
    requestsPerMinutePerRoute: config.trendsRequestsPerMinute,
    requestsPerHourPerRoute: config.trendsRequestsPerMinute * 60,
    researchRunsWaiting: Number(waiting.n),
    refresh: estimateRefresh(googleGroups * HTTPS_PER_REFRESH_GROUP, plan.googleInsights, pool.routes.length, config.trendsRequestsPerMinute, config.refreshCron, now),
  };
}
