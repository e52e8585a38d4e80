// Everything anyone can do to webhook subscriptions, in one place: the
// operators' CLI and the clients' /api/webhooks both call this, so the rules
// (what a subscription may be, the address guard, the per-plan limit, who sees
// what) are the same whichever door a change comes through.
//
// Every operation takes a scope: an account id (an API key's account: it sees
// and touches only its own subscriptions, and another account's are "not
// found", never "forbidden") or null (an operator: everything).
//
// Pings, replays and the delivery log are webhook-sends.ts (the class this
// one extends); the errors both sides refuse with are webhook-errors.ts.
import { createHash } from 'node:crypto';
import { isId } from '../domain/ids.js';
import { formatIp, parseIp, unmapped } from '../domain/ip.js';
import { checkCriteria, checkWebhookUrl, SubscriptionInputError, type CriteriaInput } from '../domain/webhooks/subscription-input.js';
import { listDeliveries, type DeliveryLogRow } from './delivery.repository.js';
import { policyRefusal } from './sender.js';
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
import {
  DisabledByOperatorError,
  IdempotencyKeyReusedError,
  isOperatorDisabled,
  PreconditionFailedError,
  SubscriptionLimitError,
  WebhookNotFoundError,
} from './webhook-errors.js';
import { WebhookSends, type WebhookScope } from './webhook-sends.js';

export { SubscriptionInputError } from '../domain/webhooks/subscription-input.js';
export {
  DisabledByOperatorError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
  SendsExhaustedError,
  SubscriptionDisabledError,
  SubscriptionLimitError,
  WebhookNotFoundError,
} from './webhook-errors.js';
export {
  MAX_DELIVERY_PAGE,
  MAX_REPLAY,
  queueDeliveries,
  type DeliveryEnqueuer,
  type ReplayOutcome,
  type WebhookScope,
  type WebhookServiceDeps,
} from './webhook-sends.js';

export interface CreateSubscriptionInput extends CriteriaInput {
  url: string;
}

export interface UpdateSubscriptionInput extends CriteriaInput {
  url?: string;
  enabled?: boolean;
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

export class WebhookService extends WebhookSends {
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
