// What an account may have sent on request: replays of past deliveries and
// pings, per UTC day by plan (counted in Postgres, like the request quota), a
// replay window at most `replayPerCall` deliveries, and at most
// `pingsPerMinute` pings. Each delivery sent makes at most MAX_ATTEMPTS
// attempts, so an account can cause at most perDay × MAX_ATTEMPTS POSTs a day
// on request, whatever it sends (the deliveries of new insights come on top,
// one per matching subscription, which the plan's subscription limit bounds).
// What its public research sends to other accounts' subscriptions comes out of
// the same day's budget (issue 48): past it, those deliveries are not made.
import type { Plan } from '../quota.js';
import { nextUtcMidnight } from '../utc-day.js';
import { MAX_ATTEMPTS } from './retry.js';

export interface WebhookSendLimits {
  /** Replays, pings and deliveries of its public research to other accounts an account may cause a day (UTC), by plan. */
  perDay: Readonly<Record<Plan, number>>;
  /** The most deliveries one replay of a window sends. */
  replayPerCall: number;
  /** The most pings an account may send a minute. */
  pingsPerMinute: number;
}

/** The defaults (WEBHOOK_SENDS_PER_DAY_*, WEBHOOK_REPLAY_MAX_PER_CALL, WEBHOOK_PINGS_PER_MINUTE). */
export const DEFAULT_WEBHOOK_SENDS: WebhookSendLimits = Object.freeze({
  perDay: Object.freeze({ free: 50, starter: 500, pro: 5_000, enterprise: 50_000 }),
  replayPerCall: 100,
  pingsPerMinute: 10,
});

/** The most POSTs an account can cause in a day on request: its sends, each retried at most MAX_ATTEMPTS times. */
export const maxRequestedPostsPerDay = (limits: WebhookSendLimits, plan: Plan) => limits.perDay[plan] * MAX_ATTEMPTS;

/** Milliseconds until the next UTC day, when the day's sends start again. */
export function msUntilNextUtcDay(now: Date): number {
  return nextUtcMidnight(now).getTime() - now.getTime();
}
