import type { Result } from 'ioredis';
import type { Redis } from '../redis/connection.js';
import { PLANS, QUOTA_WINDOW_SECONDS, secondsUntilUtcMidnight, utcDay, type Plan, type QuotaState } from '../domain/quota.js';
import type { RedisKeys } from '../redis/keys.js';
import { readReadModel } from '../redis/read-model-version.js';

// Check and count in one atomic step, so 200 concurrent requests on a fresh
// Free key give exactly 100 successes. A refused request is not counted. The
// script touches only the counter (one hash tag per counter, so on Redis
// Cluster the counters spread over the shards); the read-model version is
// read alongside it in the same event-loop turn, so both leave in one write.
const CONSUME_SCRIPT = `
local limit = tonumber(ARGV[1])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local allowed = 1
if limit >= 0 and used >= limit then
  allowed = 0
else
  used = redis.call('INCR', KEYS[1])
  if used == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
end
return {allowed, used}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    siConsumeQuota(counterKey: string, limit: number, ttlSeconds: number): Result<[number, number], Context>;
    siCountRequests(counterKey: string, n: number, ttlSeconds: number): Result<number, Context>;
  }
}

// Counting only (plans without a limit), for /api/usage.
const COUNT_SCRIPT = `
local n = tonumber(ARGV[1])
local used = redis.call('INCRBY', KEYS[1], n)
if used == n then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return used
`;

export function defineQuotaCommands(redis: Redis): void {
  redis.defineCommand('siConsumeQuota', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
  redis.defineCommand('siCountRequests', { numberOfKeys: 1, lua: COUNT_SCRIPT });
}

/**
 * Counts requests of plans without a limit, for /api/usage. Nothing waits for
 * these counts (the plan never refuses), so the requests of one event-loop
 * turn are added up and sent as one INCRBY per key at the end of the turn,
 * before their responses have left the process. Anything that reads a count
 * (the quota script) calls flush() first: commands on one connection run in
 * order, so it sees every request counted before it.
 */
export class UnlimitedUsageCounter {
  private readonly pending = new Map<string, number>();
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly onError: (error: unknown) => void,
  ) {}

  count(apiKeyId: string, now = new Date()): void {
    const key = this.keys.quota(apiKeyId, utcDay(now));
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    for (const [key, n] of this.pending) this.redis.siCountRequests(key, n, QUOTA_WINDOW_SECONDS * 2).catch(this.onError);
    this.pending.clear();
  }
}

export interface QuotaDecision extends QuotaState {
  allowed: boolean;
  /** Opaque: changes whenever the pipeline writes to the read model. */
  readModelVersion: string;
  /** The WAL position that version's writes reached ('' when unknown): where a replica must have replayed to. */
  readModelLsn: string;
}

export async function consumeQuota(redis: Redis, keys: RedisKeys, apiKeyId: string, plan: Plan, now = new Date()): Promise<QuotaDecision> {
  const limit = PLANS[plan].dailyLimit;
  // Keep the counter a day past its window so /api/usage near midnight stays right.
  // Read after (or with) the count: a read issued after a bump still sees the bump.
  const [[allowed, used], state] = await Promise.all([
    redis.siConsumeQuota(keys.quota(apiKeyId, utcDay(now)), limit ?? -1, QUOTA_WINDOW_SECONDS * 2),
    readReadModel(redis, keys),
  ]);
  return {
    allowed: allowed === 1,
    plan,
    limit,
    used,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resetSeconds: secondsUntilUtcMidnight(now),
    readModelVersion: state.version,
    readModelLsn: state.lsn,
  };
}
