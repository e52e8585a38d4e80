// What the webhook services refuse with, shared by the subscriptions' side
// (webhook-service.ts) and the sends' side (webhook-sends.ts). Each is a
// Refusal (domain/refusal.ts) of its problem kind: the API answers it with its
// problem, the Webhooks page with its status, each mapping them once.
import type { Plan } from '../domain/quota.js';
import { Refusal } from '../domain/refusal.js';
import type { SubscriptionRow } from './subscription.repository.js';
export class WebhookNotFoundError extends Refusal {
  constructor(
    readonly what: 'subscription' | 'delivery',
    readonly id: string,
  ) {
    super('notFound', `No webhook ${what} has the id "${id.slice(0, 64)}".`);
  }
}

export class SubscriptionLimitError extends Refusal {
  constructor(
    readonly accountId: string,
    readonly plan: Plan,
    readonly limit: number,
  ) {
    super(
      'subscriptionLimit',
      `The ${plan} plan allows ${limit} webhook subscriptions per account, and account ${accountId} has ${limit}: delete one, or move to a larger plan.`,
    );
  }
}

/** An Idempotency-Key that already made a subscription from another request. */
export class IdempotencyKeyReusedError extends Refusal {
  constructor() {
    super(
      'idempotencyKeyReused',
      'This Idempotency-Key made a subscription in the last 24 h from another request (another body). Use a new key for a new request.',
    );
  }
}

const why = (reason: string | null) => (reason && reason !== 'disabled by an operator' ? ` (${reason})` : '');

/**
 * The account tried to change a subscription an operator disabled (enable or
 * disable it, its URL, criteria or secret), delete, ping or replay it, or
 * subscribe the same receiver again. Only an operator enables it again.
 */
export class DisabledByOperatorError extends Refusal {
  constructor(
    readonly reason: string | null,
    /** Set when the account asked for a new subscription to the receiver of this disabled one. */
    disabledId?: string,
  ) {
    super(
      'disabledByOperator',
      disabledId === undefined
        ? `An operator disabled this subscription${why(reason)}: the account can no longer change it (enable, disable, URL, criteria, secret), delete, test or replay it; only an operator can enable it again, or delete it. To appeal, ask your operator (support), saying its id.`
        : `An operator disabled your subscription ${disabledId} to this receiver${why(reason)}: no other subscription of the account may send to it until an operator enables that one again. Ask your operator (support), saying its id.`,
    );
  }
}

/** A ping or replay of a subscription the account (or the system) disabled: nothing would be sent. */
export class SubscriptionDisabledError extends Refusal {
  constructor(readonly reason: string | null) {
    super(
      'subscriptionDisabled',
      `This subscription is disabled${reason ? ` (${reason})` : ''}: nothing would be sent to it. Enable it first (PATCH with {"enabled": true}), then send again.`,
    );
  }
}

/** The operator's switch: only an operator changes, enables or deletes such a subscription. */
export const isOperatorDisabled = (row: Pick<SubscriptionRow, 'state' | 'disabled_by'>) =>
  row.state === 'disabled' && row.disabled_by === 'operator';

/** Pings and replays go only to an enabled subscription (a disabled one's deliveries are never sent, yet would spend the day's sends). */
export function checkSendable(row: SubscriptionRow): void {
  if (row.state !== 'disabled') return;
  if (isOperatorDisabled(row)) throw new DisabledByOperatorError(row.disabled_reason);
  throw new SubscriptionDisabledError(row.disabled_reason);
}

/** The account's replays and pings of the day are spent (its plan's budget), or it pings faster than it may. */
export class SendsExhaustedError extends Refusal {
  constructor(message: string, /** When the budget allows again. */ retryAfterMs: number) {
    super('webhookSendsExceeded', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
  }
}

/** An If-Match that names another version of the subscription. */
export class PreconditionFailedError extends Refusal {
  constructor(readonly currentEtag: string) {
    super(
      'preconditionFailed',
      `The subscription changed since you read it (its ETag is now ${currentEtag}): read it again, then send your change with the new ETag in If-Match.`,
      { etag: currentEtag },
    );
  }
}
