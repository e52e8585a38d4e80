// An account's usage as every front door answers it (GET /api/usage, an MCP server's usage tool): its
// plan, today's requests against its quota, its research allowance, and the days before by key.
import { accountUsage } from '../accounts/account-usage.js';
import type { QuotaStore } from '../accounts/quota.store.js';
import type { ResolvedApiKey } from '../api-keys/api-key-cache.js';
import type { Db } from '../db/connection.js';
import type { QuotaState } from '../domain/quota.js';
import { nextUtcMidnight, utcDay } from '../domain/utc-day.js';
import type { ResearchService } from '../research/research-service.js';

export interface UsageSources {
  db: Db;
  quota: QuotaStore;
  /** Research on demand; without it the answer's research is null. */
  research?: ResearchService;
}

/**
 * The usage of the key's account over `days` UTC days, today included; `today` is the quota as the
 * request that asks was counted (spendQuota's decision), so the answer includes that request.
 */
export async function usageView(
  sources: UsageSources,
  key: ResolvedApiKey,
  today: Pick<QuotaState, 'limit' | 'used' | 'remaining'>,
  days: number,
  now = new Date(),
) {
  const allowance = sources.research ? await sources.research.allowance(key.accountId, key.plan) : undefined;
  const byDay = await accountUsage(sources.db, sources.quota, key.accountId, days, now, { keyId: key.id, requests: today.used });
  return {
    data: {
      account_id: key.accountId,
      account_name: key.accountName,
      key_id: key.id,
      plan: key.plan,
      day: utcDay(now),
      limit: today.limit,
      used: today.used,
      remaining: today.remaining,
      resets_at: nextUtcMidnight(now).toISOString(),
      research: allowance
        ? {
            limit: allowance.limit,
            used: allowance.used,
            remaining: allowance.remaining,
            refunded: allowance.refunded,
            resets_at: allowance.resetsAt.toISOString(),
          }
        : null,
      days: byDay,
    },
  };
}
