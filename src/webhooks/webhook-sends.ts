// What an account or an operator sends on request through its subscriptions:
// pings, replays of past deliveries (one or a time range), and the delivery
// log they are picked from; an account's sends are counted against its
// plan's day (WEBHOOK_SENDS_PER_DAY_*). The subscriptions' side (create,
// change, delete, rotate) is webhook-service.ts, whose WebhookService is this
// class with those added: both doors (the CLI, /api/webhooks) call that.
import type { LookupAddress } from 'node:dns';
import type { Queue } from 'bullmq';
import type { Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/database.js';
import type { Plan } from '../domain/quota.js';
import { isId } from '../domain/ids.js';
import type { AddressPolicy } from '../domain/webhooks/address-policy.js';
import {
  checkTimeRange,
  decodeDeliveryCursor,
  encodeDeliveryCursor,
  SubscriptionInputError,
} from '../domain/webhooks/subscription-input.js';
import { DEFAULT_WEBHOOK_SENDS, msUntilNextUtcDay, type WebhookSendLimits } from '../domain/webhooks/sends.js';
import { enqueueMany } from '../queue/enqueue.js';
import { deliveryPayload, JOB } from '../queue/job-catalogue.js';
import type { Redis } from '../redis/connection.js';
import { findAccount } from '../accounts/account.repository.js';
import {
  createPingDelivery,
  findDeliveryOf,
  listDeliveries,
  lockDeliveryStatus,
  reopenForReplay,
  replayableBetween,
  type DeliveryLogRow,
} from './delivery.repository.js';
import { addSends, lockSendsToday } from './sends.repository.js';
import type { SecretBox } from './secret-box.js';
import type { SubscriptionRow } from './subscription.repository.js';
import { checkSendable, SendsExhaustedError, WebhookNotFoundError } from './webhook-errors.js';

/** An account id (an API key's account) or null (an operator). */
export type WebhookScope = string | null;

/** Sends deliveries: one job per delivery, its id from the delivery and its replay count. */
export type DeliveryEnqueuer = (deliveries: ReadonlyArray<{ id: string; replays?: number }>) => Promise<void>;

/** The enqueuer over the webhooks queue, as the match job and the sweeper enqueue. */
export function queueDeliveries(webhooks: Queue): DeliveryEnqueuer {
  return async (deliveries) => {
    await enqueueMany(
      webhooks,
      JOB.webhookDeliver,
      deliveries.map((d) => ({ data: deliveryPayload(d), key: [] })),
    );
  };
}

/** What a replay did: the deliveries sent again, those already on their way, and what is left of the day's sends. */
export interface ReplayOutcome {
  replayed: string[];
  /** More deliveries fell in the window than this call sends (its cap, or what was left of the day's budget). */
  truncated: boolean;
  /** Deliveries of the window still pending (new, retrying or replayed): not sent twice. */
  pending: number;
  /** The account's replays and pings left today (null: an operator, not counted). */
  remainingToday: number | null;
}

export interface WebhookServiceDeps {
  db: Db;
  redis: Redis;
  /** The Redis key whose change makes every worker reload its subscription index. */
  subscriptionsVersionKey: string;
  box: SecretBox;
  enqueue: DeliveryEnqueuer;
  policy: AddressPolicy;
  /** How long the previous secret keeps signing after a rotation (WEBHOOK_SECRET_OVERLAP_HOURS). */
  secretOverlapHours: number;
  /** Subscriptions an account may have, by plan (WEBHOOK_MAX_SUBSCRIPTIONS_*); operators are not limited. */
  maxSubscriptions: Readonly<Record<Plan, number>>;
  /** How host names are resolved for the address guard (tests stand in for DNS). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
  /** The address guard's lookup has this long before registration goes ahead with a warning. */
  addressCheckTimeoutMs?: number;
  /** A failed version bump is survivable (workers reload within 30 s anyway): told here, not thrown. */
  onVersionBumpError?: (error: unknown) => void;
  /** What an account may have sent on request (WEBHOOK_SENDS_PER_DAY_*, …); operators are not limited. */
  sends?: WebhookSendLimits;
  /** The Redis key counting an account's pings in a minute. */
  pingRateKey?: (accountId: string, minute: number) => string;
}

/** The most deliveries one range replay of an operator sends (an account's: its WEBHOOK_REPLAY_MAX_PER_CALL); the answer says when more were left. */
export const MAX_REPLAY = 1_000;
/** The most deliveries one page of the log holds. */
export const MAX_DELIVERY_PAGE = 100;

/** Pings, replays and the delivery log; `get` is the subscription as the scope may see it (WebhookService). */
export abstract class WebhookSends {
  constructor(protected readonly deps: WebhookServiceDeps) {}

  abstract get(scope: WebhookScope, id: string): Promise<SubscriptionRow>;

  private get sends(): WebhookSendLimits {
    return this.deps.sends ?? DEFAULT_WEBHOOK_SENDS;
  }

  /**
   * Sends a ping event to this subscription alone (whatever its criteria),
   * through the outbox like every event. An account's pings are at most
   * `pingsPerMinute` a minute, and count in its day's sends.
   */
  async ping(scope: WebhookScope, id: string): Promise<{ eventId: string; deliveryId: string }> {
    const row = await this.get(scope, id);
    checkSendable(row);
    const sent = await this.deps.db.transaction().execute(async (trx) => {
      if (scope !== null) {
        // The day's budget first: when it is spent, the answer names its reset, not the minute's.
        await this.spend(trx, scope, 'pings', 1, false);
        await this.pingRate(scope);
        await addSends(trx, scope, 'pings', 1);
      }
      return createPingDelivery(trx, row.id, {
        subscription_id: row.id,
        message: 'a test event: your endpoint is reachable and can verify our signature',
      });
    });
    await this.deps.enqueue([{ id: sent.deliveryId }]);
    return sent;
  }

  /** A minute's pings of one account, counted in Redis (a fixed window): past the limit, a 429 until the next minute. */
  private async pingRate(accountId: string, now = Date.now()): Promise<void> {
    const minute = Math.floor(now / 60_000);
    const key = (this.deps.pingRateKey ?? ((a, m) => `{webhooks:pings:${a}}:${m}`))(accountId, minute);
    const [[, count]] = (await this.deps.redis.multi().incr(key).expire(key, 120).exec()) as [[unknown, number], unknown];
    if (count > this.sends.pingsPerMinute) {
      throw new SendsExhaustedError(
        `At most ${this.sends.pingsPerMinute} pings a minute per account: send the next after the minute is over.`,
        (minute + 1) * 60_000 - now,
      );
    }
  }

  /**
   * Spends `wanted` of the account's sends today, under the day's row lock;
   * answers how many it may send (fewer when the budget is nearly spent), or
   * refuses with when it resets when none is left.
   */
  private async spend(
    trx: Transaction<Database>,
    accountId: string,
    kind: 'replays' | 'pings',
    wanted: number,
    grant = true,
  ): Promise<{ granted: number; remaining: number }> {
    const account = await findAccount(trx, accountId);
    if (!account) throw new WebhookNotFoundError('subscription', '(the account is gone)');
    const limit = this.sends.perDay[account.plan];
    const spent = await lockSendsToday(trx, accountId);
    const left = Math.max(0, limit - spent.replays - spent.pings - spent.shared);
    if (left === 0) {
      const wait = msUntilNextUtcDay(new Date());
      const shared = spent.shared > 0 ? `, ${spent.shared} deliveries of its public research to other accounts` : '';
      throw new SendsExhaustedError(
        `The ${account.plan} plan allows ${limit} replays and pings a day, and this account has sent them all today (${spent.replays} replays, ${spent.pings} pings${shared}); they reset at 00:00 UTC, in ${Math.ceil(wait / 60_000)} min.`,
        wait,
      );
    }
    const granted = Math.min(wanted, left);
    if (grant) await addSends(trx, accountId, kind, granted);
    return { granted, remaining: left - granted };
  }

  /**
   * A page of the delivery log, newest first: of one subscription, or (an
   * operator, `subscriptionId` undefined) of all. `cursor` is a next_cursor
   * from the page before.
   */
  async deliveries(
    scope: WebhookScope,
    subscriptionId: string | undefined,
    options: { cursor?: string; limit?: number; status?: 'pending' | 'succeeded' | 'failed' } = {},
  ): Promise<{ rows: DeliveryLogRow[]; nextCursor: string | null }> {
    if (subscriptionId === undefined && scope !== null) throw new SubscriptionInputError('subscription', 'must be given');
    if (subscriptionId !== undefined) await this.get(scope, subscriptionId);
    const limit = Math.min(MAX_DELIVERY_PAGE, Math.max(1, Math.trunc(options.limit ?? 20)));
    const after = options.cursor === undefined ? undefined : decodeDeliveryCursor(options.cursor);
    // One more than asked says whether a next page exists.
    const rows = await listDeliveries(this.deps.db, {
      ...(subscriptionId !== undefined ? { subscriptionId } : {}),
      ...(options.status ? { status: options.status } : {}),
      ...(after ? { after } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      rows: page,
      nextCursor: rows.length > limit && last ? encodeDeliveryCursor({ createdKey: last.created_key, id: last.id }) : null,
    };
  }

  /**
   * Sends one delivery again, with the same webhook-id (receivers deduplicate
   * on it). `subscriptionId` (null: any, operators) must be the delivery's own.
   * A delivery still pending is on its way already: it is not sent twice.
   */
  async replayOne(scope: WebhookScope, subscriptionId: string | null, deliveryId: string): Promise<ReplayOutcome> {
    if (subscriptionId !== null) checkSendable(await this.get(scope, subscriptionId));
    else if (scope !== null) throw new SubscriptionInputError('subscription', 'must be given');
    const delivery = isId('delivery', deliveryId) ? await findDeliveryOf(this.deps.db, deliveryId, subscriptionId) : undefined;
    if (!delivery) throw new WebhookNotFoundError('delivery', deliveryId);
    return this.replay(scope, 1, async (trx) =>
      (await lockDeliveryStatus(trx, delivery.id)) === 'pending' ? { ids: [], pending: 1 } : { ids: [delivery.id], pending: 0 },
    );
  }

  /**
   * Sends again the subscription's deliveries made in [since, until), oldest
   * first: at most the per-call cap (WEBHOOK_REPLAY_MAX_PER_CALL for an
   * account, MAX_REPLAY for an operator) and what is left of the account's
   * sends today; deliveries still pending are not sent twice.
   */
  async replayRange(scope: WebhookScope, subscriptionId: string, since: string, until?: string): Promise<ReplayOutcome> {
    const window = checkTimeRange(since, until);
    const row = await this.get(scope, subscriptionId);
    checkSendable(row);
    const perCall = scope === null ? MAX_REPLAY : this.sends.replayPerCall;
    return this.replay(scope, perCall, (trx, max) => replayableBetween(trx, row.id, window.since, window.until, max));
  }

  /**
   * One transaction: what the account may still send today, the deliveries
   * `pick` finds (one more than may go, to know there were more), reopened
   * with their replay count one up, and the sends spent; then their jobs.
   */
  private async replay(
    scope: WebhookScope,
    perCall: number,
    pick: (trx: Transaction<Database>, max: number) => Promise<{ ids: string[]; pending: number }>,
  ): Promise<ReplayOutcome> {
    const { reopened, truncated, pending, remaining } = await this.deps.db.transaction().execute(async (trx) => {
      const budget = scope === null ? null : await this.spend(trx, scope, 'replays', perCall, false);
      const max = budget === null ? perCall : budget.granted;
      const picked = await pick(trx, max + 1);
      const reopened = await reopenForReplay(trx, picked.ids.slice(0, max));
      if (scope !== null) await addSends(trx, scope, 'replays', reopened.length);
      return {
        reopened,
        truncated: picked.ids.length > max,
        pending: picked.pending,
        remaining: budget === null ? null : budget.granted + budget.remaining - reopened.length,
      };
    });
    await this.deps.enqueue(reopened);
    return { replayed: reopened.map((d) => d.id), truncated, pending, remainingToday: remaining };
  }
}
