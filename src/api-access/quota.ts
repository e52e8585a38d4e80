// The account's daily quota and its usage, spent by every door (the API's guard, an MCP server). Limited
// plans wait for one Redis script per request (check and count atomically; it also returns the read-model
// version and its position in Postgres' log). A plan without a limit has nothing to decide, so a cacheable
// read is counted without waiting and the version comes from the in-process watcher: a cache hit then
// costs no round trip at all (counts are summed per event-loop turn and sent without waiting).
import type { QuotaDecision, QuotaStore } from '../accounts/quota.store.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import type { ResolvedApiKey } from '../api-keys/api-key-cache.js';
import { PLANS } from '../domain/quota.js';
import { Refusal } from '../domain/refusal.js';
import { quotaRejections } from '../observability/metrics.js';
import type { Redis } from '../redis/connection.js';
import type { ReadModelVersionWatcher } from '../redis/read-model-version.js';

export interface QuotaDeps {
  redis: Redis;
  quota: QuotaStore;
  usage: UsageRecorder;
  /** Without it (or while it is not in sync) every request asks Redis. */
  readModel?: ReadModelVersionWatcher;
}

/** What is asked: a read whose answer depends only on the read model (cacheable), and whether it is answered with the quota spent. */
export interface QuotaAsk {
  cacheable: boolean;
  /** Answered even when the day's quota is spent, uncounted (/api/usage: how a client learns when it resets). */
  answersWhenSpent: boolean;
}

export interface QuotaSpent {
  /** The quota script's decision: always for limited plans and for what is not cacheable. */
  decision?: QuotaDecision;
  /** The read-model version the answer is made (and cached) under. */
  readModelVersion: string;
  /** Where in Postgres' log that version's writes end ('' when unknown). */
  readModelLsn: string;
}

/**
 * Counts the request against its account's quota and records its usage; refused (quotaExceeded, with
 * when it resets) when the day's quota is spent. `decided` sees the quota script's decision before any
 * refusal (the API sends it as RateLimit headers either way). Synchronous when there is nothing to
 * decide (an unlimited plan's cacheable read): no promise to wait for.
 */
export function spendQuota(
  deps: QuotaDeps,
  apiKey: ResolvedApiKey,
  ask: QuotaAsk,
  decided?: (decision: QuotaDecision) => void,
): QuotaSpent | Promise<QuotaSpent> {
  const knownVersion =
    ask.cacheable && PLANS[apiKey.plan].dailyLimit === null && deps.redis.status === 'ready' ? deps.readModel?.current() : undefined;
  if (knownVersion !== undefined) {
    deps.quota.countUnlimited(apiKey);
    deps.usage.record(apiKey);
    return { readModelVersion: knownVersion, readModelLsn: deps.readModel?.currentLsn() ?? '' };
  }
  return deps.quota.consume(apiKey).then((decision) => {
    decided?.(decision);
    const spent = { decision, readModelVersion: decision.readModelVersion, readModelLsn: decision.readModelLsn };
    // Not counted (the script counts only what it allows), and not recorded as used.
    if (!decision.allowed && ask.answersWhenSpent) return spent;
    if (!decision.allowed) {
      quotaRejections.inc({ plan: decision.plan });
      throw new Refusal(
        'quotaExceeded',
        `The ${decision.plan} plan of account ${apiKey.accountId} allows ${decision.limit} requests per UTC day, over all its keys; they have been used. The quota resets at the next UTC midnight.`,
        { retryAfterSeconds: decision.resetSeconds },
      );
    }
    deps.usage.record(apiKey);
    return spent;
  });
}
