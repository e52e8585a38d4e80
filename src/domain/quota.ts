// Daily request quotas per plan, counted per account (over all its API keys) per UTC day
// (src/accounts/quota.store.ts).
import { nextUtcMidnight } from './utc-day.js';
import { secondsUntil } from './refusal.js';

export const PLANS = {
  free: { dailyLimit: 100 },
  starter: { dailyLimit: 1_000 },
  pro: { dailyLimit: 10_000 },
  enterprise: { dailyLimit: null },
} as const satisfies Record<string, { dailyLimit: number | null }>;
export type Plan = keyof typeof PLANS;
export const PLAN_VALUES = Object.keys(PLANS) as Plan[];

export const QUOTA_WINDOW_SECONDS = 86_400;

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

/** Whole seconds until the next UTC midnight, never 0 (a client must wait at least 1 s). */
export function secondsUntilUtcMidnight(now: Date): number {
  return secondsUntil(nextUtcMidnight(now), now.getTime());
}

export interface QuotaState {
  plan: Plan;
  limit: number | null;
  used: number;
  remaining: number | null;
  resetSeconds: number;
}

/**
 * Header values after draft-ietf-httpapi-ratelimit-headers (structured fields):
 * `RateLimit-Policy: "free";q=100;w=86400` and `RateLimit: "free";r=57;t=3600`.
 * Enterprise has no quota, so it has no policy to describe: no headers.
 */
export function rateLimitHeaders(state: QuotaState): Record<string, string> {
  if (state.limit === null || state.remaining === null) return {};
  return {
    'ratelimit-policy': `"${state.plan}";q=${state.limit};w=${QUOTA_WINDOW_SECONDS}`,
    ratelimit: `"${state.plan}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
