// Why a route cannot take a request now, as the egress pool answers it (egress-pool.ts): the job waits
// without spending an attempt, and the reason reaches the run's progress in words.
import type { EgressRoute } from './routes.js';

export type RouteWait = 'refused' | 'cooling' | 'probe' | 'busy' | 'embed_quota' | 'consent';

export type Lease =
  | { route: EgressRoute; probe: boolean }
  | { waitMs: number; reason: RouteWait }
  /** Every route has refused this request (HTTP 400). */
  | { refusedEverywhere: true };

/** The route cannot take this request now: the job waits without spending an attempt. */
export class RouteWaitError extends Error {
  override name = 'RouteWaitError';
  constructor(
    readonly route: string,
    readonly waitMs: number,
    readonly reason: RouteWait,
  ) {
    super(`route ${route}: ${REASONS[reason]}; ${Math.ceil(waitMs / 1000)} s to wait`);
  }
}

const REASONS: Record<RouteWait, string> = {
  refused: 'paused after Google refused a request (400)',
  cooling: 'cooling down after Google blocked it',
  probe: 'another job is probing whether Google blocks it still',
  busy: 'its next request slot is taken',
  embed_quota: 'its embed pages (related lists) wait after Google said their quota was spent',
  consent: 'set aside: Google answers it with its EU consent page (give it a consent cookie: TRENDS_CONSENT_COOKIES)',
};
