// The webhooks section: delivery bounds, address policy, per-plan limits and the secrets' key.
import { DEFAULT_DELIVERY_FAIRNESS, type DeliveryFairness } from '../domain/webhooks/fairness.js';
import { DEFAULT_WEBHOOK_SENDS, type WebhookSendLimits } from '../domain/webhooks/sends.js';
import { parseCidr } from '../domain/ip.js';
import { type Plan } from '../domain/quota.js';
import { EnvReader } from './env-reader.js';

export interface WebhookConfig {
  /** Deliveries of one account in flight at once over every worker, and each subscription's circuit (domain/webhooks/fairness.ts). */
  readonly fairness: DeliveryFairness;
  /** Overall deadline of one webhook delivery attempt, from connect to the end of the answer. */
  readonly timeoutMs: number;
  /** Outbound webhooks may reach private, loopback and link-local addresses (never cloud metadata unless listed). */
  readonly allowPrivate: boolean;
  /** CIDRs webhooks may always reach, e.g. 10.1.0.0/16. */
  readonly allowedCidrs: readonly string[];
  /** A subscription failing without a break for this long is disabled. */
  readonly disableAfterHours: number;
  /** After rotate-secret, the old secret keeps signing this long. */
  readonly secretOverlapHours: number;
  /** Webhook subscriptions one account may have through /api/webhooks, by plan (operators are not limited). */
  readonly maxSubscriptions: Readonly<Record<Plan, number>>;
  /** How many days webhook attempt rows are kept (the prune job deletes older ones; deliveries stay). */
  readonly attemptsKeepDays: number;
  /** What an account may have sent on request: replays and pings a day by plan, a replay's cap, pings a minute. */
  readonly sends: WebhookSendLimits;
  /** base64 of 32 bytes that encrypt webhook secrets at rest; unset: a key generated once under DATA_DIR. */
  readonly encryptionKey: string | undefined;
  /** Multiplies the webhook retry schedule (1 in production; tests and staging shrink it). */
  readonly retryScale: number;
}

/** Subscriptions an account of each plan may have (WEBHOOK_MAX_SUBSCRIPTIONS_*). */
const DEFAULT_MAX_SUBSCRIPTIONS: Readonly<Record<Plan, number>> = { free: 2, starter: 10, pro: 50, enterprise: 500 };

export function loadWebhookSection(read: EnvReader): WebhookConfig {
  const retryText = read.text('WEBHOOK_RETRY_SCALE');
  const retryScale = retryText === undefined ? 1 : Number(retryText);
  read.check(retryScale > 0 && retryScale <= 10, `WEBHOOK_RETRY_SCALE must be a number above 0 and at most 10 (got "${retryText}")`);
  const section = {
    fairness: Object.freeze({
      ...DEFAULT_DELIVERY_FAIRNESS,
      perAccount: read.integer('WEBHOOK_ACCOUNT_CONCURRENCY', DEFAULT_DELIVERY_FAIRNESS.perAccount, 1, 1_000),
    }),
    timeoutMs: read.integer('WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    allowPrivate: read.oneOf('WEBHOOK_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true',
    allowedCidrs: Object.freeze(read.list('WEBHOOK_ALLOWED_CIDRS')),
    disableAfterHours: read.integer('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 24 * 365),
    secretOverlapHours: read.integer('WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 24 * 30),
    maxSubscriptions: read.perPlan('WEBHOOK_MAX_SUBSCRIPTIONS', DEFAULT_MAX_SUBSCRIPTIONS, 0, 100_000),
    attemptsKeepDays: read.integer('WEBHOOK_ATTEMPTS_KEEP_DAYS', 30, 1, 3_650),
    sends: Object.freeze({
      perDay: read.perPlan('WEBHOOK_SENDS_PER_DAY', DEFAULT_WEBHOOK_SENDS.perDay, 0, 10_000_000),
      replayPerCall: read.integer('WEBHOOK_REPLAY_MAX_PER_CALL', DEFAULT_WEBHOOK_SENDS.replayPerCall, 1, 1_000),
      pingsPerMinute: read.integer('WEBHOOK_PINGS_PER_MINUTE', DEFAULT_WEBHOOK_SENDS.pingsPerMinute, 1, 10_000),
    }),
    encryptionKey: read.text('WEBHOOK_ENCRYPTION_KEY'),
    retryScale: retryScale > 0 && retryScale <= 10 ? retryScale : 1,
  };
  read.check(
    section.encryptionKey === undefined || Buffer.from(section.encryptionKey, 'base64').length === 32,
    'WEBHOOK_ENCRYPTION_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32)',
  );
  for (const cidr of section.allowedCidrs) {
    try {
      parseCidr(cidr);
    } catch (error) {
      read.check(false, `WEBHOOK_ALLOWED_CIDRS: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return Object.freeze(section);
}
