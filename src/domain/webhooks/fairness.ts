// How one account's deliveries are kept from holding everyone's (issues 35,
// 48): deliveries take turns by account (src/queue/fair-share.ts), and at most
// `perAccount` deliveries of one account are in flight at once across every
// worker, whatever its backlog, so a receiver that never answers cannot hold
// every worker; the account's other deliveries are parked and each slot it
// frees is handed to the next of them at once (no timer, no asking again);
// and a subscription whose receiver keeps failing (timeouts, 5xx, 429, no
// connection) trips its circuit: after `failures` in a row its deliveries wait
// `openMs` (doubling while the probe after each wait fails, up to `maxOpenMs`)
// without spending attempts, and one probe tells whether it answers again.
export interface DeliveryFairness {
  /** Deliveries of one account in flight at once, over every worker (WEBHOOK_ACCOUNT_CONCURRENCY). */
  perAccount: number;
  circuit: { failures: number; openMs: number; maxOpenMs: number };
}

/**
 * Half a worker's 100 slots (WEBHOOK_CONCURRENCY): an account alone is served by 50 deliveries at
 * once (with 10, one account's deliveries were bound by the round trips of 10: 51 a second in
 * bench:webhooks on 2026-11-28), and a receiver that never answers still leaves the other half to
 * the other accounts, whose deliveries take their turns first (src/queue/fair-share.ts).
 */
export const DEFAULT_DELIVERY_FAIRNESS: DeliveryFairness = Object.freeze({
  perAccount: 50,
  circuit: Object.freeze({ failures: 5, openMs: 30_000, maxOpenMs: 600_000 }),
});

/**
 * A parked delivery is woken when its account hands it a slot; this long is
 * only how long it sleeps if that wake-up is lost (a worker killed between
 * freeing the slot and waking it): the slot handed to it frees itself sooner.
 */
export const PARKED_SLEEP_MS = 60_000;

/**
 * How long a delivery the gate held back sleeps before it asks again: a base,
 * and up to `spread` more at random so the held ones do not all wake together.
 * Held back by its account's slots, it is parked: woken when a slot is its
 * turn, asleep PARKED_SLEEP_MS at most if that wake-up is lost. Behind an open circuit,
 * it sleeps until the circuit closes (spread over a quarter of that, so the
 * receiver is not met by the whole backlog at once); behind the probe, at most
 * 5 s at a time, so a probe that succeeds at once lets the rest go soon.
 */
export function gateSleep(refusal: { why: 'account' | 'circuit' | 'probe'; waitMs: number }): { baseMs: number; spreadMs: number } {
  if (refusal.why === 'account') return { baseMs: PARKED_SLEEP_MS, spreadMs: PARKED_SLEEP_MS / 6 };
  if (refusal.why === 'circuit')
    return { baseMs: Math.max(1_000, refusal.waitMs), spreadMs: Math.max(1_000, Math.floor(refusal.waitMs / 4)) };
  return { baseMs: Math.min(5_000, Math.max(1_000, refusal.waitMs)), spreadMs: 1_000 };
}

/** Whether an attempt's outcome says the receiver is failing (trips the circuit), not the request (4xx) or the address. */
export function receiverFailing(statusCode: number | null, refused: boolean): boolean {
  if (refused) return false;
  return statusCode === null || statusCode >= 500 || statusCode === 429 || statusCode === 408;
}
