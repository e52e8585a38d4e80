// The research allowance: how many research runs an account may start through
// the API per UTC day, by plan. It is separate from the request quota because
// each run spends Google's budget (about 17 HTTPS requests a run, batched;
// docs/benchmarks.md, bench:google), not just a request of ours.
//
// Daily, not monthly: Google's budget is a pace (requests a minute per egress
// route), so what one account may take of it is bounded best per day, the
// period the request quota already resets on; a monthly count would let one
// account spend a month's runs in an afternoon and hold every other account's
// runs behind its own. A refused run learns when it may try again (the next
// UTC midnight), at most a day away.
import type { Plan } from '../quota.js';
import { nextUtcMidnight } from '../utc-day.js';

export type ResearchAllowance = Readonly<Record<Plan, number>>;

/**
 * Runs a day by plan. A route paced at 10 requests a minute completes about
 * 29 runs an hour (bench:google, 2026-11-25), some 700 a day: these leave
 * room for the refresh and for other accounts.
 */
export const DEFAULT_RESEARCH_ALLOWANCE: ResearchAllowance = Object.freeze({ free: 3, starter: 20, pro: 100, enterprise: 500 });

/** The allowance's figures for an account on a day, as /api/usage shows them. */
export interface AllowanceState {
  limit: number;
  used: number;
  remaining: number;
  /** Runs of the day given back (their provider could not be reached or refused them): `used` counts them no more. */
  refunded: number;
  resetsAt: Date;
}

export function allowanceState(limit: number, used: number, now: Date, refunded = 0): AllowanceState {
  return {
    limit,
    used,
    remaining: Math.max(0, limit - used),
    refunded,
    resetsAt: nextUtcMidnight(now),
  };
}
