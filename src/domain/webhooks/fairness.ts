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

export const DEFAULT_DELIVERY_FAIRNESS: DeliveryFairness = {
  perAccount: 10,
  circuit: { failures: 5, openMs: 30_000, maxOpenMs: 600_000 },
};

/**
 * How long a delivery the gate held back sleeps before it asks again, jitter
 * left out (the caller adds up to as much again, so the held ones do not all
 * wake together). Held back by its account's slots, it backs off 1 s, 2 s, …
 * up to 32 s as it is held back again and again: an account with a backlog of
 * thousands costs the workers a few wake-ups a second, not thousands. Behind
 * a circuit or a probe, it sleeps until that opens.
 */
export function gateWaitMs(refusal: { why: 'account' | 'circuit' | 'probe'; waitMs: number }, timesHeldBefore: number): number {
  if (refusal.why === 'account') return 1_000 * 2 ** Math.min(5, Math.max(0, timesHeldBefore));
  return Math.max(1_000, refusal.waitMs);
}

/** Whether an attempt's outcome says the receiver is failing (trips the circuit), not the request (4xx) or the address. */
export function receiverFailing(statusCode: number | null, refused: boolean): boolean {
  if (refused) return false;
  return statusCode === null || statusCode >= 500 || statusCode === 429 || statusCode === 408;
}
