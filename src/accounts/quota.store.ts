// The daily quota is the account's: one counter per account per UTC day in
// Redis, and beside it (same hash tag) each key's share. Check and count are
// one script, so 200 concurrent requests on a fresh Free account give exactly
// 100 successes, whichever of its keys and web processes they use. A refused
// request is not counted.
//
// Redis is the live figure; Postgres keeps it (usage-recorder.ts writes every
// process's counts in batches). When the counter is missing (the first request
// of the day, or Redis lost it: a restart without persistence, a failover), the
// scripts say so instead of starting from zero, and the counter is seeded from
// what Postgres holds for that day, plus what the key-level counters of the
// version before accounts hold (kept for the day of the upgrade). What the
// processes counted but had not yet written (at most USAGE_FLUSH_MS of
// requests) is the most a lost counter can forget.
import type { Db } from '../db/connection.js';
import type { Redis } from '../redis/connection.js';
import { PLANS, QUOTA_WINDOW_SECONDS, secondsUntilUtcMidnight, type Plan, type QuotaState } from '../domain/quota.js';
import { utcDay } from '../domain/utc-day.js';
import type { RedisKeys } from '../redis/keys.js';
import { readReadModel } from '../redis/read-model-version.js';
import { storedUsageOfDay } from './usage.repository.js';
import { SCRIPTS } from '../redis/scripts.js';

// The Redis scripts, each in its .lua file with its KEYS, ARGV and answer at the top.
// KEYS of each: the account's counter for the day, its keys' shares (one hash tag).
const { consume: CONSUME, count: COUNT, seed: SEED } = SCRIPTS.quota;

/** Keep counters a day past their window so /api/usage near midnight stays right. */
const COUNTER_TTL_SECONDS = QUOTA_WINDOW_SECONDS * 2;

export interface QuotaDecision extends QuotaState {
  allowed: boolean;
  /** Opaque: changes whenever the pipeline writes to the read model. */
  readModelVersion: string;
  /** The WAL position that version's writes reached ('' when unknown): where a replica must have replayed to. */
  readModelLsn: string;
}

export interface QuotaSubject {
  /** The key making the request. */
  id: string;
  accountId: string;
  plan: Plan;
}

export class QuotaStore {
  private readonly seeding = new Map<string, Promise<void>>();
  private readonly pending = new Map<string, { accountId: string; day: string; counts: Map<string, number> }>();
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly db: Db,
    /** Counting for plans without a limit never fails a request; its errors are reported here. */
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Checks and counts one request against its account's quota (seeding the day's counter when Redis has none). */
  async consume(key: QuotaSubject, now = new Date()): Promise<QuotaDecision> {
    const limit = PLANS[key.plan].dailyLimit;
    const day = utcDay(now);
    this.flushUnlimited(); // a count read now includes the requests counted without waiting
    for (let attempt = 0; ; attempt += 1) {
      // Read after (or with) the count: a read issued after a bump still sees the bump.
      const [[allowed, used], state] = await Promise.all([
        CONSUME.run(
          this.redis,
          [this.keys.quota(key.accountId, day), this.keys.quotaKeys(key.accountId, day)],
          [limit ?? -1, COUNTER_TTL_SECONDS, key.id],
        ),
        readReadModel(this.redis, this.keys),
      ]);
      if (allowed === -1 && attempt < 3) {
        await this.seed(key.accountId, day);
        continue;
      }
      return {
        allowed: allowed === 1,
        plan: key.plan,
        limit,
        used,
        remaining: limit === null ? null : Math.max(0, limit - used),
        resetSeconds: secondsUntilUtcMidnight(now),
        readModelVersion: state.version,
        readModelLsn: state.lsn,
      };
    }
  }

  /**
   * Counts a request of a plan without a limit, for /api/usage. Nothing waits
   * for it (the plan never refuses): the requests of one event-loop turn are
   * added up per account and sent as one script call each at the end of the
   * turn, before their responses have left the process. consume() flushes
   * first, so a count read on the same connection sees them (commands on one
   * connection run in order).
   */
  countUnlimited(key: QuotaSubject, now = new Date()): void {
    const day = utcDay(now);
    const id = `${key.accountId}|${day}`;
    let entry = this.pending.get(id);
    if (!entry) this.pending.set(id, (entry = { accountId: key.accountId, day, counts: new Map() }));
    entry.counts.set(key.id, (entry.counts.get(key.id) ?? 0) + 1);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushUnlimited());
    }
  }

  private flushUnlimited(): void {
    this.scheduled = false;
    for (const { accountId, day, counts } of this.pending.values()) {
      void this.countNow(accountId, day, counts).catch(this.onError);
    }
    this.pending.clear();
  }

  private async countNow(accountId: string, day: string, counts: Map<string, number>): Promise<void> {
    const pairs = [...counts].flat();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const total = await COUNT.run(
        this.redis,
        [this.keys.quota(accountId, day), this.keys.quotaKeys(accountId, day)],
        [COUNTER_TTL_SECONDS, ...pairs],
      );
      if (total !== -1) return;
      await this.seed(accountId, day);
    }
  }

  /** Creates the day's counter from what Postgres (and a pre-accounts key counter) holds. One at a time per account and day. */
  seed(accountId: string, day: string): Promise<void> {
    const id = `${accountId}|${day}`;
    let running = this.seeding.get(id);
    if (!running) {
      running = this.seedNow(accountId, day).finally(() => this.seeding.delete(id));
      this.seeding.set(id, running);
    }
    return running;
  }

  private async seedNow(accountId: string, day: string): Promise<void> {
    const { byKey, keyIds } = await storedUsageOfDay(this.db, accountId, day);
    // Counters of the version before accounts were per key (same layout, the key id in the tag).
    const legacy = await Promise.all(
      keyIds.map(async (keyId) => [keyId, Number((await this.redis.get(this.keys.quota(keyId, day))) ?? 0)] as const),
    );
    for (const [keyId, n] of legacy) if (n > 0) byKey.set(keyId, (byKey.get(keyId) ?? 0) + n);
    const total = [...byKey.values()].reduce((a, b) => a + b, 0);
    await SEED.run(
      this.redis,
      [this.keys.quota(accountId, day), this.keys.quotaKeys(accountId, day)],
      [COUNTER_TTL_SECONDS, total, ...[...byKey].flat()],
    );
  }

  /** Today's count of an account and each key's share, as Redis holds it (null: no counter yet today). */
  async today(accountId: string, now = new Date()): Promise<{ total: number; byKey: Map<string, number> } | null> {
    const day = utcDay(now);
    const [total, shares] = await Promise.all([
      this.redis.get(this.keys.quota(accountId, day)),
      this.redis.hgetall(this.keys.quotaKeys(accountId, day)),
    ]);
    if (total === null) return null;
    return { total: Number(total), byKey: new Map(Object.entries(shares).map(([k, v]) => [k, Number(v)])) };
  }
}
