// How an egress pool paces its routes: the settings the web and worker processes read from TRENDS_* (config/providers.ts).

export interface EgressPoolOptions {
  /** HTTPS requests per minute each route may send; 0 = no pacing. */
  requestsPerMinute: number;
  /** First cooldown after a block; doubles per block in a row. */
  cooldownMs: number;
  /** The longest cooldown. */
  cooldownMaxMs: number;
  /** How long a route that got a 400 is left alone. */
  refusedPauseMs: number;
  /** Deadline of one request's talking to Google: a probe's lease outlives it. */
  requestTimeoutMs: number;
  /** Spread of the interval between requests (0.2: ± 20 %). */
  jitter?: number;
  /** Gap between two embed pages of a route (TRENDS_EMBED_GAP_MS); jittered like the interval. Default 8 s. */
  embedGapMs?: number;
  /** How long a route's embed pages wait after a token over the embed quota, doubling in a row up to cooldownMaxMs. Default 5 minutes. */
  embedCooldownMs?: number;
  /**
   * How many of a route's request slots ahead a job may wait for inside its
   * request (default 8: two jobs per route in each of four worker processes).
   * Past it the job waits outside, without an attempt. Too few and the jitter
   * alone sends a job that holds a route back to the queue between two of its
   * requests, where a job of lower priority takes its place.
   */
  paceWaitSlots?: number;
  /** The explore family's bucket per route (TRENDS_EXPLORE_BURST); 0: no bucket. Default 90. */
  exploreBurst?: number;
  /** Its refill a minute before any is learned, and the least and most it is learned to (TRENDS_EXPLORE_REFILL_PER_MINUTE). Default 60, 30, 120. */
  exploreRefillPerMinute?: { first: number; least: number; most: number };
  random?: () => number;
}

/** Google's explore-family limit as gtrends measured it on 2026-09-09: a burst of 89–102, refilled at 60–120 a minute. */
export const EXPLORE_BUCKET = { burst: 90, refill: { first: 60, least: 30, most: 120 } } as const;
