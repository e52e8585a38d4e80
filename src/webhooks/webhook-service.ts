// Everything anyone can do to webhook subscriptions, in one place: the
// operators' CLI and the clients' /api/webhooks both call this, so the rules
// (what a subscription may be, the address guard, the per-plan limit, who sees
// what) are the same whichever door a change comes through.
//
// Every operation takes a scope: an account id (an API key's account: it sees
// and touches only its own subscriptions, and another account's are "not
// found", never "forbidden") or null (an operator: everything).
import { createHash } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import type { Queue } from 'bullmq';
import type { Db } from '../db/connection.js';
import type { Plan } from '../domain/quota.js';
import { isId } from '../domain/ids.js';
import { formatIp, parseIp, unmapped } from '../domain/ip.js';
import type { AddressPolicy } from '../domain/webhooks/address-policy.js';
import {
  checkCriteria,
  checkTimeRange,
  checkWebhookUrl,
  decodeDeliveryCursor,
  encodeDeliveryCursor,
  SubscriptionInputError,
  type CriteriaInput,
} from '../domain/webhooks/subscription-input.js';
import { DEFAULT_WEBHOOK_SENDS, msUntilNextUtcDay, type WebhookSendLimits } from '../domain/webhooks/sends.js';
import { enqueueMany } from '../queue/enqueue.js';
import { deliveryPayload, JOB } from '../queue/job-catalogue.js';
import type { Redis } from '../redis/connection.js';
import type { Database } from '../db/database.js';
import type { Transaction } from 'kysely';
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
import { findAccount } from '../accounts/account.repository.js';
import { policyRefusal } from './sender.js';
import type { SecretBox } from './secret-box.js';
import { bumpSubscriptionsVersion } from './subscription-index.cache.js';
import {
  createSubscription,
  createSubscriptionWithinLimit,
  findSubscriptionOf,
  listSubscriptionsOf,
  operatorDisabledOf,
  removeSubscriptionOf,
  rotateSecret,
  updateSubscription,
  type CreationKey,
  type SubscriptionChanges,
  type SubscriptionRow,
} from './subscription.repository.js';

export { SubscriptionInputError } from '../domain/webhooks/subscription-input.js';

/** An account id (an API key's account) or null (an operator). */
export type WebhookScope = string | null;

export interface CreateSubscriptionInput extends CriteriaInput {
  url: string;
}

export interface UpdateSubscriptionInput extends CriteriaInput {
  url?: string;
  enabled?: boolean;
}

export class WebhookNotFoundError extends Error {
  constructor(
    readonly what: 'subscription' | 'delivery',
    readonly id: string,
  ) {
    super(`No webhook ${what} has the id "${id.slice(0, 64)}"`);
  }
}

export class SubscriptionLimitError extends Error {
  constructor(
    readonly accountId: string,
    readonly plan: Plan,
    readonly limit: number,
  ) {
    super(
      `The ${plan} plan allows ${limit} webhook subscriptions per account, and account ${accountId} has ${limit}: delete one, or move to a larger plan.`,
    );
  }
}

/** An Idempotency-Key that already made a subscription from another request. */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super(
      'This Idempotency-Key made a subscription in the last 24 h from another request (another body). Use a new key for a new request.',
    );
  }
}

/**
 * A receiver as the operator's block compares it: the host (an IP literal in
 * its one canonical form, an IPv4-mapped IPv6 address as its IPv4 one; a name
 * in lower case without a trailing dot) and the port.
 */
function receiverOf(url: string): string {
  const parsed = new URL(url);
  const bare = parsed.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  const ip = parseIp(bare);
  const host = ip ? formatIp(unmapped(ip)) : bare;
  return `${host}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
}

const why = (reason: string | null) => (reason && reason !== 'disabled by an operator' ? ` (${reason})` : '');

/**
 * The account tried to change a subscription an operator disabled (enable or
 * disable it, its URL, criteria or secret), delete, ping or replay it, or
 * subscribe the same receiver again. Only an operator enables it again.
 */
export class DisabledByOperatorError extends Error {
  constructor(
    readonly reason: string | null,
    /** Set when the account asked for a new subscription to the receiver of this disabled one. */
    disabledId?: string,
  ) {
    super(
      disabledId === undefined
        ? `An operator disabled this subscription${why(reason)}: the account can no longer change it (enable, disable, URL, criteria, secret), delete, test or replay it; only an operator can enable it again, or delete it. To appeal, ask your operator (support), saying its id.`
        : `An operator disabled your subscription ${disabledId} to this receiver${why(reason)}: no other subscription of the account may send to it until an operator enables that one again. Ask your operator (support), saying its id.`,
    );
  }
}

/** A ping or replay of a subscription the account (or the system) disabled: nothing would be sent. */
export class SubscriptionDisabledError extends Error {
  constructor(readonly reason: string | null) {
    super(
      `This subscription is disabled${reason ? ` (${reason})` : ''}: nothing would be sent to it. Enable it first (PATCH with {"enabled": true}), then send again.`,
    );
  }
}

/** The operator's switch: only an operator changes, enables or deletes such a subscription. */
const isOperatorDisabled = (row: Pick<SubscriptionRow, 'state' | 'disabled_by'>) =>
  row.state === 'disabled' && row.disabled_by === 'operator';

/** Pings and replays go only to an enabled subscription (a disabled one's deliveries are never sent, yet would spend the day's sends). */
function checkSendable(row: SubscriptionRow): void {
  if (row.state !== 'disabled') return;
  if (isOperatorDisabled(row)) throw new DisabledByOperatorError(row.disabled_reason);
  throw new SubscriptionDisabledError(row.disabled_reason);
}

/** The account's replays and pings of the day are spent (its plan's budget), or it pings faster than it may. */
export class SendsExhaustedError extends Error {
  constructor(
    message: string,
    /** When the budget allows again. */
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** An If-Match that names another version of the subscription. */
export class PreconditionFailedError extends Error {
  constructor(readonly currentEtag: string) {
    super(
      `The subscription changed since you read it (its ETag is now ${currentEtag}): read it again, then send your change with the new ETag in If-Match.`,
    );
  }
}

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
/** How many recent deliveries `show` lists. */
const RECENT_DELIVERIES = 20;

/**
 * A strong validator of the subscription as a client sees it: changes with any
 * field a client can read or change, so If-Match catches every lost update.
 */
export function subscriptionEtag(row: SubscriptionRow): string {
  const version = JSON.stringify([
    row.id,
    row.url,
    row.min_score,
    row.categories,
    row.sources,
    row.keywords,
    row.event_types,
    row.state,
    row.disabled_reason,
    row.updated_at.toISOString(),
    row.previous_secret_expires_at?.toISOString() ?? null,
  ]);
  return `"${createHash('sha256').update(version).digest('base64url').slice(0, 27)}"`;
}

/** If-Match (RFC 9110 §13.1.1): "*" or a list of strong entity tags; a weak tag never matches. */
export function ifMatchAllows(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t === etag);
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /**
   * A new subscription and its secret (the only time it is shown); `warnings` say what may fail later.
   * `madeBefore`: the request's Idempotency-Key had made it already (a retry whose first answer was lost).
   */
  async create(
    scope: WebhookScope,
    input: CreateSubscriptionInput,
    /** Operators only: the account it belongs to (null: the operators' own). An account's subscriptions always belong to it. */
    owner: string | null = scope,
    /** An account's create sent with an Idempotency-Key: a retry answers what the first made. */
    creationKey?: CreationKey,
  ): Promise<{ row: SubscriptionRow; secret: string | null; warnings: string[]; madeBefore: boolean }> {
    const url = checkWebhookUrl(input.url);
    const criteria = checkCriteria(input);
    if (scope !== null) await this.refuseOperatorDisabledReceiver(scope, url);
    const warnings = await this.checkAddress(url);
    const values = {
      url,
      minScore: criteria.minScore ?? null,
      categories: criteria.categories ?? [],
      sources: criteria.sources ?? [],
      keywords: criteria.keywords ?? [],
      eventTypes: criteria.eventTypes ?? [],
    };
    let created: { secret: string; row: SubscriptionRow };
    if (scope === null) {
      created = await createSubscription(this.deps.db, this.deps.box, { ...values, accountId: owner });
    } else {
      const result = await createSubscriptionWithinLimit(
        this.deps.db,
        this.deps.box,
        { ...values, accountId: scope },
        (plan) => this.deps.maxSubscriptions[plan],
        creationKey,
      );
      if ('madeBefore' in result) return { row: result.madeBefore.row, secret: result.madeBefore.secret, warnings, madeBefore: true };
      if ('keyReused' in result) throw new IdempotencyKeyReusedError();
      if ('refused' in result) throw new SubscriptionLimitError(scope, result.refused.plan, result.refused.limit);
      // The key's account was deleted under it: nothing of it exists any more.
      if ('noAccount' in result) throw new WebhookNotFoundError('subscription', '(new)');
      created = result.created;
    }
    await this.changed();
    return { row: created.row, secret: created.secret, warnings, madeBefore: false };
  }

  /**
   * An operator's disable is of a receiver as much as of a subscription: the
   * account may not subscribe the same host again (any path, any port spelling
   * the URL parser normalises) while the disabled one stands. A host under
   * another name is another receiver; an operator who wants every receiver of
   * the account stopped suspends the account.
   */
  private async refuseOperatorDisabledReceiver(accountId: string, url: string): Promise<void> {
    const receiver = receiverOf(url);
    const disabled = await operatorDisabledOf(this.deps.db, accountId);
    const same = disabled.find((d) => receiverOf(d.url) === receiver);
    if (same) throw new DisabledByOperatorError(same.disabled_reason, same.id);
  }

  list(scope: WebhookScope): Promise<SubscriptionRow[]> {
    return listSubscriptionsOf(this.deps.db, scope);
  }

  async get(scope: WebhookScope, id: string): Promise<SubscriptionRow> {
    const row = isId('subscription', id) ? await findSubscriptionOf(this.deps.db, id, scope) : undefined;
    if (!row) throw new WebhookNotFoundError('subscription', id);
    return row;
  }

  /** The subscription and its most recent deliveries. */
  async show(scope: WebhookScope, id: string): Promise<{ row: SubscriptionRow; deliveries: DeliveryLogRow[] }> {
    const row = await this.get(scope, id);
    return { row, deliveries: await listDeliveries(this.deps.db, { subscriptionId: row.id, limit: RECENT_DELIVERIES }) };
  }

  /**
   * Changes the fields given (criteria, url, enabled). With `ifMatch`, only if
   * the subscription is still the version that ETag names (checked under the
   * row lock the change is made with).
   */
  async update(
    scope: WebhookScope,
    id: string,
    input: UpdateSubscriptionInput,
    ifMatch?: string,
    /** An operator's disable: why, shown to the account (default: "disabled by an operator"). */
    operatorReason?: string,
  ): Promise<{ row: SubscriptionRow; warnings: string[] }> {
    const criteria = checkCriteria(input);
    const changes: SubscriptionChanges = { ...criteria };
    let warnings: string[] = [];
    if (input.url !== undefined) {
      changes.url = checkWebhookUrl(input.url);
      if (scope !== null) await this.refuseOperatorDisabledReceiver(scope, changes.url);
      warnings = await this.checkAddress(changes.url);
    }
    if (input.enabled !== undefined) {
      changes.state = input.enabled
        ? { state: 'enabled', reason: null }
        : scope === null
          ? { state: 'disabled', reason: operatorReason?.trim() || 'disabled by an operator', by: 'operator' }
          : { state: 'disabled', reason: 'disabled by the account', by: 'account' };
    }
    if (!isId('subscription', id)) throw new WebhookNotFoundError('subscription', id);
    // Checked under the row lock the change is made with: a stale If-Match, or the account undoing the operator's switch.
    const result = await updateSubscription(this.deps.db, id, scope, changes, (row) => {
      const etag = subscriptionEtag(row);
      if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etag)) return `etag:${etag}`;
      // The account changes nothing of it: not its state (a disable "by the account" would replace the operator's
      // reason, and the account may undo its own), not its receiver (which would lift the block), not its criteria.
      if (scope !== null && isOperatorDisabled(row)) return `operator:${row.disabled_reason ?? ''}`;
      return null;
    });
    if (result === 'missing') throw new WebhookNotFoundError('subscription', id);
    if ('refused' in result) {
      if (result.refused.startsWith('operator:')) throw new DisabledByOperatorError(result.refused.slice('operator:'.length) || null);
      throw new PreconditionFailedError(result.refused.slice('etag:'.length));
    }
    await this.changed();
    return { row: result, warnings };
  }

  async setEnabled(scope: WebhookScope, id: string, enabled: boolean, operatorReason?: string): Promise<SubscriptionRow> {
    return (await this.update(scope, id, { enabled }, undefined, operatorReason)).row;
  }

  /** Deletes the subscription and its delivery log. An account cannot delete one an operator disabled (that would undo the switch). */
  async remove(scope: WebhookScope, id: string): Promise<void> {
    if (!isId('subscription', id)) throw new WebhookNotFoundError('subscription', id);
    const outcome = await removeSubscriptionOf(this.deps.db, id, scope);
    if (outcome === 'missing') throw new WebhookNotFoundError('subscription', id);
    if (outcome !== 'removed') throw new DisabledByOperatorError(outcome.operatorDisabled);
    await this.changed();
  }

  /** A new secret now; the previous one keeps signing for `overlapHours` (default: WEBHOOK_SECRET_OVERLAP_HOURS). */
  async rotate(
    scope: WebhookScope,
    id: string,
    overlapHours = this.deps.secretOverlapHours,
  ): Promise<{ row: SubscriptionRow; secret: string }> {
    const rotated = isId('subscription', id)
      ? await rotateSecret(this.deps.db, this.deps.box, id, scope, overlapHours, (row) => scope !== null && isOperatorDisabled(row))
      : undefined;
    if (!rotated) throw new WebhookNotFoundError('subscription', id);
    if ('refused' in rotated) throw new DisabledByOperatorError(rotated.refused.disabled_reason);
    return rotated;
  }

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

  /**
   * The address guard at registration: refused now means refused at every
   * delivery, so say so at once. A host that does not resolve (now, or within
   * the deadline) is accepted with a warning: the sender checks again at connect.
   */
  private async checkAddress(url: string): Promise<string[]> {
    const timeoutMs = this.deps.addressCheckTimeoutMs ?? 3_000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    let refused: string | null;
    try {
      refused = await Promise.race([policyRefusal(url, this.deps.policy, this.deps.resolve), deadline]);
    } catch (error) {
      return [
        `${new URL(url).hostname} does not resolve now (${error instanceof Error ? error.message : String(error)}); deliveries fail until it does`,
      ];
    } finally {
      clearTimeout(timer);
    }
    if (refused) throw new SubscriptionInputError('url', `would be refused: ${refused}`);
    return [];
  }

  private async changed(): Promise<void> {
    try {
      await bumpSubscriptionsVersion(this.deps.redis, this.deps.subscriptionsVersionKey);
    } catch (error) {
      this.deps.onVersionBumpError?.(error);
    }
  }
}
