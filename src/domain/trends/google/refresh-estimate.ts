// Whether the daily refresh fits before the next one at the current rate, in
// HTTPS requests to Google. Pure: the refresh job warns from it, and
// runtime/budget.ts reports it (insights budget, /metrics).
import { findProfile } from '../../../providers/registry.js';
import { CronExpressionParser } from 'cron-parser';

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

/** Minutes between the next two refreshes of REFRESH_CRON, and when the next one starts. */
function refreshWindow(cron: string, now: Date): { next: Date; minutes: number } {
  const it = CronExpressionParser.parse(cron, { tz: 'UTC', currentDate: now });
  const next = it.next().toDate();
  const after = it.next().toDate();
  return { next, minutes: (after.getTime() - next.getTime()) / 60_000 };
}

export function estimateRefresh(
  requests: number,
  insights: number,
  routes: number,
  ratePerMinute: number,
  cron: string,
  now = new Date(),
): RefreshEstimate {
  const { next, minutes } = refreshWindow(cron, now);
  const perMinute = routes * ratePerMinute;
  const minutesNeeded = perMinute === 0 ? 0 : requests / perMinute;
  const fits = minutesNeeded <= minutes;
  const routesNeeded = ratePerMinute === 0 ? routes : Math.ceil(requests / (ratePerMinute * minutes));
  const advice = fits
    ? `fits: ${Math.round(minutesNeeded)} of ${Math.round(minutes)} minutes between refreshes`
    : `needs ${Math.round(minutesNeeded)} minutes but refreshes start every ${Math.round(minutes)}: add ${routesNeeded - routes} egress prox${routesNeeded - routes === 1 ? 'y' : 'ies'} (TRENDS_PROXY_URLS), refresh less often (REFRESH_CRON), or refresh fewer insights`;
  return {
    insights,
    requests,
    minutesNeeded: Math.round(minutesNeeded * 10) / 10,
    minutesAvailable: Math.round(minutes),
    nextRefreshAt: next.toISOString(),
    fits,
    advice,
  };
}

/** How fast the egress routes may ask Google, and when refreshes start. */
export interface RefreshPacing {
  routes: number;
  /** TRENDS_REQUESTS_PER_MINUTE, per route (0: not paced). */
  requestsPerMinute: number;
  /** REFRESH_CRON */
  cron: string;
}

/** The estimate for one refresh plan: only groups that ask live Google spend its budget (synthetic insights refresh from generated data). */
export function refreshEstimate(
  plan: { googleGroups: number; googleInsights: number },
  provider: string,
  pacing: RefreshPacing,
  now = new Date(),
): RefreshEstimate {
  // Google's budget is the trends queue's: spent only when the list names the queued provider.
  const googleGroups = provider.split('+').some((name) => findProfile(name)?.queued) ? plan.googleGroups : 0;
  return estimateRefresh(
    googleGroups * HTTPS_PER_REFRESH_GROUP,
    plan.googleInsights,
    pacing.routes,
    pacing.requestsPerMinute,
    pacing.cron,
    now,
  );
}
