// When each attempt of a delivery is made, after the one before failed: the
// first at once, the retries about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
// later, each with ±10 % jitter so that a receiver coming back is not hit by
// every retry at once. Entry n is the wait before attempt n + 1.
export const RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;

/** Delay before attempt `attempt` (1-based; attempt 1 is the first try). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = RETRY_SCHEDULE_MS[Math.min(Math.max(attempt - 1, 0), RETRY_SCHEDULE_MS.length - 1)]!;
  return Math.round(base * (0.9 + 0.2 * random()));
}
