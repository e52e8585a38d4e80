// How one account's deliveries are kept from holding everyone's (issue 35):
// at most `perAccount` deliveries of one account are in flight at once across
// every worker, whatever its backlog, so the others' always find free slots;
// and a subscription whose receiver keeps failing (timeouts, 5xx, 429, no
// connection) trips its circuit: after `failures` in a row its deliveries wait
// `openMs` (doubling while the probe after each wait fails, up to `maxOpenMs`)
// without spending attempts, and one probe tells whether it answers again.
export interface DeliveryFairness {
  /** Deliveries of one account in flight at once, over every worker (WEBHOOK_ACCOUNT_CONCURRENCY). */
  perAccount: number;
  circuit: { failures: number; openMs: number; maxOpenMs: number };
}

export const DEFAULT_DELIVERY_FAIRNESS: DeliveryFairness = Object.freeze({
  perAccount: 10,
  circuit: Object.freeze({ failures: 5, openMs: 30_000, maxOpenMs: 600_000 }),
});

/**
 * How long a delivery the gate held back sleeps before it asks again: a base,
 * and up to `spread` more at random so the held ones do not all wake together.
 * Held back by its account's slots, it backs off 1 s, 2 s, … up to 32 s as it
 * is held back again and again: an account with a backlog of thousands costs
 * the workers a few wake-ups a second, not thousands. Behind an open circuit,
 * it sleeps until the circuit closes (spread over a quarter of that, so the
 * receiver is not met by the whole backlog at once); behind the probe, at most
 * 5 s at a time, so a probe that succeeds at once lets the rest go soon.
 */
export function gateSleep(
  refusal: { why: 'account' | 'circuit' | 'probe'; waitMs: number },
  timesHeldBefore: number,
): { baseMs: number; spreadMs: number } {
  if (refusal.why === 'account') {
    const baseMs = 1_000 * 2 ** Math.min(5, Math.max(0, timesHeldBefore));
    return { baseMs, spreadMs: baseMs };
  }
  if (refusal.why === 'circuit')
    return { baseMs: Math.max(1_000, refusal.waitMs), spreadMs: Math.max(1_000, Math.floor(refusal.waitMs / 4)) };
  return { baseMs: Math.min(5_000, Math.max(1_000, refusal.waitMs)), spreadMs: 1_000 };
}

/** Whether an attempt's outcome says the receiver is failing (trips the circuit), not the request (4xx) or the address. */
export function receiverFailing(statusCode: number | null, refused: boolean): boolean {
  if (refused) return false;
  return statusCode === null || statusCode >= 500 || statusCode === 429 || statusCode === 408;
}
