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

/** Whether an attempt's outcome says the receiver is failing (trips the circuit), not the request (4xx) or the address. */
export function receiverFailing(statusCode: number | null, refused: boolean): boolean {
  if (refused) return false;
  return statusCode === null || statusCode >= 500 || statusCode === 429 || statusCode === 408;
}
