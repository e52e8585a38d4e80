// What becomes of a delivery, decided from data alone: before an attempt
// (send it, hold it, or close it without sending) and after one (delivered,
// retried on the schedule, or failed for good, perhaps disabling its
// subscription). The I/O is src/webhooks/delivery-runner.ts.

/** What the delivery's row says before an attempt. */
export interface DeliveryState {
  status: 'pending' | 'succeeded' | 'failed';
  /** The subscription still exists. */
  subscriptionExists: boolean;
  subscriptionState: 'enabled' | 'disabled' | null;
  disabledReason: string | null;
  accountSuspended: boolean;
}

export type BeforeAttempt =
  | { kind: 'skip'; reason: string }
  /** Held, not dropped, while the account is suspended: no attempt is spent. */
  | { kind: 'hold' }
  /** Closed as failed without sending: the subscription is gone or disabled. */
  | { kind: 'close'; error: string; reason: string }
  | { kind: 'send' };

export function beforeAttempt(d: DeliveryState): BeforeAttempt {
  if (d.status === 'succeeded') return { kind: 'skip', reason: 'already delivered' };
  if (d.accountSuspended) return { kind: 'hold' };
  if (!d.subscriptionExists) return { kind: 'close', error: 'subscription removed', reason: 'subscription not enabled' };
  if (d.subscriptionState !== 'enabled')
    return { kind: 'close', error: `subscription disabled: ${d.disabledReason ?? ''}`, reason: 'subscription not enabled' };
  return { kind: 'send' };
}

/** What one attempt gave, and where the delivery and its subscription stood. */
export interface AttemptResult {
  statusCode: number | null;
  /** The address policy refused the receiver's address: it will on every attempt. */
  refused: boolean;
  error: string | null;
  deliveryId: string;
  /** This attempt's number over the delivery's life (replays included). */
  attempt: number;
  /** Attempts this job has made before this one, and how many it may make. */
  attemptsMade: number;
  maxAttempts: number;
  /** Since when the subscription has failed without a break (null: it was not failing). */
  failingSince: Date | null;
  disableAfterMs: number;
  now: Date;
}

/** The metric's outcome label of an attempt. */
export type AttemptLabel = 'delivered' | 'gone' | 'blocked' | 'failed' | 'retry';

export type AfterAttempt =
  | { kind: 'delivered'; label: 'delivered'; clearFailing: boolean }
  /** Failed for good: the delivery is closed with `error`; the job stops (`message`). */
  | { kind: 'give-up'; label: AttemptLabel; error: string; message: string; markFailing: boolean; disable?: string }
  /** Retried on the schedule. */
  | { kind: 'retry'; label: 'retry'; message: string; markFailing: boolean };

export function afterAttempt(r: AttemptResult): AfterAttempt {
  const code = r.statusCode;
  const replayHint = `replay with: insights webhooks replay ${r.deliveryId}`;
  if (code !== null && code >= 200 && code < 300) return { kind: 'delivered', label: 'delivered', clearFailing: r.failingSince !== null };
  if (r.refused) {
    const message = r.error ?? 'refused by the address policy';
    return { kind: 'give-up', label: 'blocked', error: `${message} (${replayHint})`, message, markFailing: false };
  }
  if (code === 410) {
    const message = '410 Gone: subscription disabled';
    return { kind: 'give-up', label: 'gone', error: message, message, markFailing: false, disable: 'the endpoint answered 410 Gone' };
  }
  const since = r.failingSince ?? r.now;
  const markFailing = r.failingSince === null;
  const reason = r.error ?? `the receiver answered ${code}`;
  const last = r.attemptsMade + 1 >= r.maxAttempts;
  const label = last ? 'failed' : 'retry';
  if (r.now.getTime() - since.getTime() > r.disableAfterMs) {
    return {
      kind: 'give-up',
      label,
      error: `${reason}; subscription disabled after a long failure streak`,
      message: reason,
      markFailing,
      disable: `failing without a break since ${since.toISOString()}`,
    };
  }
  // This job's own attempts: a replay gets the whole schedule again.
  if (last)
    return { kind: 'give-up', label, error: `${reason} (after ${r.attempt} attempts; ${replayHint})`, message: reason, markFailing };
  return { kind: 'retry', label: 'retry', message: reason, markFailing };
}
